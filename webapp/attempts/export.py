"""The training snapshot: one JSONL file with what the web app collected, for
training.continual.read_snapshot (format: docs/TRAINING.md, "Snapshot format").

One JSON object per line, each with a `kind` (the fields docs/TRAINING.md names, plus a few
extra ones that readers ignore):
  meta        {"kind": "meta", "version": 1, "exported_at": iso, "source": "leancoach-webapp",
               "since": null, "counts": {...}}
  problem     {"kind": "problem", "problem": tutor.prover.problem.Problem dict}
  attempt     {"kind": "attempt", "id": "attempt-<pk>", "problem_id", "code" (statement +
               proof), "valid", "diagnostics": [Diagnostic.to_dict() + "proof_line"], "student",
               "proof", "status", "suggestions": [...], "coach_source", "created_at"}
  trajectory  {"kind": "trajectory", "id": "prover-run-<pk>", "problem_id", "verdict",
               "trajectory": tutor.prover.trajectory.Trajectory dict}
  feedback    {"kind": "feedback", "id": "curated-<pk>", "status": approved|edited|rejected,
               "attempt_id", "trajectory_id": null, "problem_id", "line", "original", "reason",
               "feedback": tutor.coach.types.Feedback.to_dict() (the teacher's text if edited)}
Every `line` is a 1-based line of the attempt's `code` (statement + proof, no header),
the numbering Lean and the coach use; `proof_line` is the same line within the student's
proof (0: about the statement / the proof as a whole).
Students appear only as opaque ids ("student-<pk>"); no names leave the app.
Consent: attempts (and the feedback on them) are exported only when the student is in a class
whose teacher turned "use for training" on and that class has the exercise's course
(`consented_attempts`); so are the prover runs a student asked for
(`exportable_prover_runs`; runs a teacher or an admin asked for are always exported).
Problems carry no personal data and are always exported. A deleted student's attempts and
runs are gone from the database, so from every later snapshot too.
Feedback records have `trajectory_id: null` and an `attempt_id`: training groups an attempt's
approved and edited suggestions into one feedback (training.continual.read_snapshot).
`valid` is null when Lean could not check (never read as "wrong").
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from tutor.coach.types import Feedback, SuggestionKind
from tutor.coach.types import Suggestion as CoachSuggestion
from webapp.accounts.models import Membership
from webapp.attempts.access import exportable_feedback
from webapp.attempts.models import Attempt, CuratedFeedback
from webapp.courses.models import Exercise

SNAPSHOT_VERSION = 1


@dataclass
class SnapshotCounts:
    problems: int = 0
    attempts: int = 0
    trajectories: int = 0
    feedback: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "problems": self.problems,
            "attempts": self.attempts,
            "trajectories": self.trajectories,
            "feedback": self.feedback,
        }


def problem_id(exercise: Exercise) -> str:
    return f"{exercise.world.course.slug}/{exercise.name}"


def problem_record(exercise: Exercise) -> dict[str, Any]:
    return {
        "kind": "problem",
        "problem": {
            "id": problem_id(exercise),
            "statement": exercise.formal_statement,
            "header": exercise.header,
            "informal": exercise.informal_prefix,
            "reference_proof": exercise.reference_proof or None,
        },
    }


def attempt_record(attempt: Attempt) -> dict[str, Any]:
    return {
        "kind": "attempt",
        "id": f"attempt-{attempt.pk}",
        "problem_id": problem_id(attempt.exercise),
        "student": f"student-{attempt.student_id}",
        "code": attempt.source_text,
        "proof": attempt.proof,
        "status": attempt.status,
        "valid": attempt.valid,
        "diagnostics": [
            {
                "line": attempt.source_line(d.line),
                "column": d.column,
                "end_line": attempt.source_line(d.end_line) if d.end_line is not None else None,
                "end_column": d.end_column,
                "severity": d.severity,
                "message": d.message,
                "kind": d.kind or "other",
                "goal": d.goal or None,
                "proof_line": d.line,
            }
            for d in attempt.diagnostics.all()
        ],
        "suggestions": [
            {
                "line": attempt.source_line(s.line),
                "proof_line": s.line,
                "text": s.text,
                "kind": s.kind,
                "source": s.source,
                "review": s.review,
            }
            for s in attempt.suggestions.all()
        ],
        "coach_source": attempt.coach_source,
        "created_at": attempt.created_at.isoformat(),
    }


def feedback_record(curated: CuratedFeedback) -> dict[str, Any]:
    suggestion = curated.suggestion
    text = curated.text if curated.verdict != "rejected" else suggestion.text
    kind: SuggestionKind = "dont" if suggestion.kind == "dont" else "do"
    return {
        "kind": "feedback",
        "id": f"curated-{curated.pk}",
        "status": curated.verdict,
        "attempt_id": f"attempt-{suggestion.attempt_id}",
        "trajectory_id": None,  # teachers review students' attempts, not prover runs
        "problem_id": problem_id(suggestion.attempt.exercise),
        "line": suggestion.source_line,
        "proof_line": suggestion.line,
        "original": suggestion.text,
        "reason": curated.reason,
        "feedback": Feedback(
            suggestions=[CoachSuggestion(line=suggestion.source_line, text=text, kind=kind)],
            source=suggestion.source or "compiler",
        ).to_dict(),
    }


def trajectory_records() -> Iterator[dict[str, Any]]:
    runs = exportable_prover_runs().select_related("exercise__world__course")
    for run in runs.order_by("pk").iterator():
        yield {
            "kind": "trajectory",
            "id": f"prover-run-{run.pk}",
            "problem_id": problem_id(run.exercise),
            "verdict": run.verdict,
            "trajectory": run.trajectory,
        }


def exportable_prover_runs() -> QuerySet[Any]:
    """Prover runs with a trajectory that may train the model: those a teacher or an admin
    asked for, and those a student asked for in a class, with the exercise's course, that
    allows training and held her when she asked (the same consent as consented_attempts)."""
    from django.contrib.auth.models import Group

    from webapp.accounts.roles import STUDENTS
    from webapp.provers.models import ProverRun

    by_student = Group.objects.filter(name=STUDENTS, user=OuterRef("user"))
    consent = Membership.objects.filter(
        classroom__use_for_training=True,
        classroom__courses=OuterRef("exercise__world__course"),
        student=OuterRef("user"),
        joined_at__lte=OuterRef("created_at"),
    )
    return ProverRun.objects.filter(trajectory__isnull=False).filter(
        ~Exists(by_student) | Exists(consent)
    )


def consented_attempts() -> QuerySet[Attempt]:
    """Attempts made in a class that allows training: the class has the exercise's course
    and held the student when she made the attempt (webapp.accounts.access's rule)."""
    consent = Membership.objects.filter(
        classroom__use_for_training=True,
        classroom__courses=OuterRef("exercise__world__course"),
        student=OuterRef("student"),
        joined_at__lte=OuterRef("created_at"),
    )
    return Attempt.objects.filter(Exists(consent))


def iter_snapshot() -> Iterator[dict[str, Any]]:
    """Every record but the meta line (write_snapshot adds it first, with the counts)."""
    exercises = Exercise.objects.select_related("world__course")
    for exercise in exercises.iterator():
        yield problem_record(exercise)
    attempts = (
        consented_attempts()
        .select_related("exercise__world__course")
        .prefetch_related("diagnostics", "suggestions")
    )
    for attempt in attempts.order_by("pk"):
        yield attempt_record(attempt)
    yield from trajectory_records()
    # Only verdicts their reviewer may give (webapp.attempts.access, the one rule), on attempts
    # of classes that consented to training.
    curated = (
        exportable_feedback()
        .filter(suggestion__attempt__in=consented_attempts().values("pk"))
        .select_related("suggestion__attempt__exercise__world__course")
    )
    for row in curated.order_by("pk"):
        yield feedback_record(row)


def write_snapshot(out: TextIO) -> SnapshotCounts:
    records = list(iter_snapshot())
    kinds = Counter(record["kind"] for record in records)
    counts = SnapshotCounts(
        problems=kinds["problem"],
        attempts=kinds["attempt"],
        trajectories=kinds["trajectory"],
        feedback=kinds["feedback"],
    )
    meta = {
        "kind": "meta",
        "version": SNAPSHOT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "source": "leancoach-webapp",
        "since": None,  # every export is complete (no incremental exports yet)
        "counts": counts.as_dict(),
    }
    for record in [meta, *records]:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return counts


def export_training_snapshot(path: str | Path) -> SnapshotCounts:
    """Write the snapshot to `path` atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        counts = write_snapshot(handle)
    partial.replace(path)
    return counts
