"""export_training_snapshot: the JSONL that training.continual.read_snapshot reads."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management import call_command

from tests.webapp.cast import Cast
from training.continual import read_snapshot
from tutor.coach.types import Feedback
from tutor.lean import Diagnostic
from webapp.attempts.actions import ReviewInput, do_review_suggestion
from webapp.attempts.export import export_training_snapshot
from webapp.attempts.models import Attempt, LineDiagnostic, Suggestion


def _reviewed(cast: Cast) -> Attempt:
    cast.classroom.use_for_training = True  # the teacher's consent (default off)
    cast.classroom.save()
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  simp", status="done", valid=False
    )
    LineDiagnostic.objects.create(
        attempt=attempt,
        line=1,
        severity="error",
        kind="simp_no_progress",
        message="simp made no progress",
    )
    edited = Suggestion.objects.create(
        attempt=attempt, line=1, text="Try rfl.", kind="do", source="compiler"
    )
    rejected = Suggestion.objects.create(
        attempt=attempt, line=1, text="Try omega.", kind="do", source="compiler"
    )
    do_review_suggestion(
        cast.teacher, edited, ReviewInput("edited", text="n + 0 = n holds by rfl.")
    )
    do_review_suggestion(
        cast.teacher, rejected, ReviewInput("rejected", reason="omega is overkill")
    )
    return attempt


def test_the_snapshot_is_read_by_training(cast: Cast, tmp_path: Path) -> None:
    attempt = _reviewed(cast)
    path = tmp_path / "snap.jsonl"
    counts = export_training_snapshot(path)
    assert counts.as_dict() == {"problems": 1, "attempts": 1, "trajectories": 0, "feedback": 2}
    snapshot = read_snapshot(path)
    assert snapshot.meta["version"] == 1
    assert [p.id for p in snapshot.problems] == ["cast-course/cast_add_zero"]
    assert snapshot.problems[0].reference_proof == "  rfl"
    assert snapshot.attempts[0]["id"] == f"attempt-{attempt.pk}"
    assert snapshot.attempts[0]["student"] == f"student-{cast.student.pk}"  # no names
    records = [json.loads(line) for line in path.read_text().splitlines()]
    feedback = [r for r in records if r["kind"] == "feedback"]
    by_status = {r["status"]: r for r in feedback}
    # Lines count in statement + proof, as the coach and training number them.
    assert Feedback.from_dict(by_status["edited"]["feedback"]).source == "compiler"
    assert by_status["edited"]["feedback"]["suggestions"] == [
        {"line": 2, "text": "n + 0 = n holds by rfl.", "kind": "do"}
    ]
    assert by_status["edited"]["proof_line"] == 1
    attempt_record = snapshot.attempts[0]
    assert attempt_record["code"].split("\n")[1] == "  simp"
    assert attempt_record["diagnostics"][0]["line"] == 2
    assert Diagnostic.from_dict(attempt_record["diagnostics"][0]).message == "simp made no progress"
    assert by_status["edited"]["original"] == "Try rfl."
    assert by_status["rejected"]["reason"] == "omega is overkill"
    assert "sam" not in path.read_text()


def test_the_command_writes_the_file(cast: Cast, tmp_path: Path, capsys) -> None:
    _reviewed(cast)
    out = tmp_path / "sub" / "snap.jsonl"
    call_command("export_training_snapshot", str(out))
    assert out.exists() and not out.with_suffix(".jsonl.partial").exists()
    assert "1 problems, 1 attempts, 0 trajectories, 2 feedback" in capsys.readouterr().out


def test_prover_runs_a_student_asked_for_are_exported_only_with_consent(
    cast: Cast, tmp_path: Path
) -> None:
    """A student's prover run is their activity: without their class's consent it neither
    enters the snapshot nor trains; a teacher's run does."""
    from webapp.provers.models import ProverRun

    trajectory = {"problem_id": "cast-course/cast_add_zero", "statement": "", "mode": "agent",
                  "prompt_messages": [], "tools": []}  # fmt: skip
    student_run = ProverRun.objects.create(
        exercise=cast.exercise, user=cast.student, status="finished", trajectory=trajectory
    )
    teacher_run = ProverRun.objects.create(
        exercise=cast.exercise, user=cast.teacher, status="finished", trajectory=trajectory
    )

    def exported() -> list[str]:
        path = tmp_path / "snap.jsonl"
        export_training_snapshot(path)
        records = [json.loads(line) for line in path.read_text().splitlines()]
        return [r["id"] for r in records if r["kind"] == "trajectory"]

    assert exported() == [f"prover-run-{teacher_run.pk}"]  # consent is off by default
    cast.classroom.use_for_training = True
    cast.classroom.save()
    assert exported() == [f"prover-run-{student_run.pk}", f"prover-run-{teacher_run.pk}"]
