"""Goals while typing: the goals and messages of the text in a student's editor, asked for
after a pause in typing, answered on her exercise page's socket. A check-only path that
records nothing: no attempt, no diagnostic row, no metric, no hint count. "Check my proof"
stays the graded submission (webapp/attempts/tasks.py check_attempt).

The flow (docs/WEBAPP.md, "Goals while typing"):

1. The editor POSTs the proof text with its page id (`client`) and its own sequence number
   (views.live_goals). The view rate-limits per student (settings.RATE_LIMITS["live_goals"])
   and calls `request_goals`: the request is kept in the cache under the student's key with
   a fresh token, replacing any older one, and `lean.live_goals(student, token)` is queued.
2. The task (tasks.live_goals) reads the student's latest request: one with another token
   was superseded by a newer request, and ends without running Lean. Otherwise Lean runs
   the proof in the checker's exploration pool (LeanChecker.explore_proof, never the
   verdict pool), and unless a newer request came meanwhile the answer goes to the
   student's exercise-page group as a `live.goals` message.
3. The page's socket (consumers.ExerciseLiveConsumer.live_goals) sends it as the
   `#live-goals` fragment; the editor draws it if it is its own latest request's answer
   and drops it otherwise, and marks it stale as soon as the text changes again.

Only the latest request per student counts, across her tabs and exercises: typing in one
place supersedes typing anywhere else, so one student never holds more than one Lean run's
worth of the pool.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

from tutor.lean.types import CheckResult, LeanUnavailable
from webapp.attempts import checking
from webapp.attempts.models import Attempt
from webapp.celery import enqueue
from webapp.core.layer import group_send

log = logging.getLogger(__name__)

TASK = "lean.live_goals"
# A request older than this is forgotten (a worker that never took it leaves nothing behind).
REQUEST_TTL_S = 120
UNAVAILABLE = (
    "Lean is not available on this server right now, so goals cannot be shown while you "
    "type. “Check my proof” says whether your proof can be checked."
)


@dataclass(frozen=True)
class GoalsRequest:
    token: int
    student: int
    exercise: int
    client: str  # the page's own id: another tab of hers ignores this answer
    seq: int  # the page's own number for the request: the editor drops all but its latest
    proof: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "token": self.token,
            "student": self.student,
            "exercise": self.exercise,
            "client": self.client,
            "seq": self.seq,
            "proof": self.proof,
        }


def _key(student: int) -> str:
    return f"live-goals:{student}"


def _counter(student: int) -> str:
    return f"live-goals-token:{student}"


def _next_token(student: int) -> int:
    key = _counter(student)
    cache.add(key, 0, timeout=None)
    try:
        return int(cache.incr(key))
    except ValueError:  # evicted between add and incr
        cache.set(key, 1, timeout=None)
        return 1


def request_goals(student: int, exercise: int, client: str, seq: int, proof: str) -> int:
    """Keep this as the student's one current request (superseding any older one) and queue
    the check; returns the request's token."""
    token = _next_token(student)
    request = GoalsRequest(token, student, exercise, client, seq, proof)
    cache.set(_key(student), request.to_dict(), timeout=REQUEST_TTL_S)
    enqueue(TASK, student, token)
    return token


def current_request(student: int) -> GoalsRequest | None:
    data = cache.get(_key(student))
    if not isinstance(data, dict):
        return None
    return GoalsRequest(**data)


def is_current(student: int, token: int) -> bool:
    request = current_request(student)
    return request is not None and request.token == token


def run(student: int, token: int) -> str:
    """The task's body: "superseded", "missing" (no such exercise), "unavailable" or "sent"."""
    request = current_request(student)
    if request is None or request.token != token:
        return "superseded"
    from webapp.courses.models import Exercise

    exercise = Exercise.objects.filter(pk=request.exercise).first()
    if exercise is None:
        return "missing"
    try:
        result: CheckResult | None = checking.explore(
            exercise.formal_statement,
            request.proof,
            exercise.header,
            timeout_s=settings.LIVE_GOALS_TIMEOUT_S,
        )
        unavailable = None
    except LeanUnavailable as exc:
        log.info("goals while typing: Lean unavailable: %s", exc)
        result, unavailable = None, UNAVAILABLE
    if not is_current(student, token):  # she typed on meanwhile: a newer answer is coming
        return "superseded"
    offset = checking.proof_offset(exercise.formal_statement, exercise.header)
    shift = len(exercise.statement_text.split("\n"))
    payload = {
        "client": request.client,
        "seq": request.seq,
        "live": True,
        **({"unavailable": unavailable} if result is None else editor_data(result, offset, shift)),
    }
    group_send(
        Attempt.watch_group_for(student, exercise.pk), {"type": "live.goals", "data": payload}
    )
    return "unavailable" if result is None else "sent"


def editor_data(result: CheckResult, offset: int, shift: int) -> dict[str, Any]:
    """What the editor draws, in its lines (statement + proof), as live.editor_data gives
    it for a stored attempt. `valid` is never sent: this is not a verdict."""

    def line(document_line: int | None) -> int:
        return shift + max((document_line or 0) - offset, 0)

    marks = [
        {
            "line": line(d.line),
            "column": d.column,
            "end_line": line(d.end_line if d.end_line is not None else d.line),
            "end_column": d.end_column if d.end_line is not None else None,
            "severity": d.severity,
            "kind": str(d.kind),
            "message": d.message,
            "goal": d.goal,
        }
        for d in result.diagnostics
    ] + [
        {
            "line": line(s.line),
            "column": s.column,
            "end_line": line(s.line),
            "end_column": None,
            "severity": "info",
            "kind": "sorry_goal",
            "message": s.goal,
            "goal": s.goal,
        }
        for s in result.sorries
    ]
    tactics = [
        {
            "line": line(t.line),
            "column": t.column,
            "end_line": line(t.end_line),
            "end_column": t.end_column,
            "tactic": t.tactic,
            "before": t.goals_before,
            "after": t.goals_after,
        }
        for t in result.tactics
    ]
    problem = None
    if result.timed_out:
        problem = "Lean ran out of time on this text; “Check my proof” allows longer."
    elif result.crashed or result.error:
        problem = "Lean could not check this text just now; keep typing or check your proof."
    return {
        "status": "live",
        "diagnostics": marks,
        "suggestions": [],
        "tactics": tactics,
        "problem": problem,
    }
