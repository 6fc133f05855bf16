"""Reading run lineage: what a continual run used, what of it has since been withdrawn
(a student deleted, a class's consent turned off), and which runs used a teacher's review.

Lineage rows hold the snapshot's string ids ("attempt-12", "curated-3", "student-7"), so they
outlive the data they name; whether that data may still train is asked of the live tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.console.models import LineageItem, RunLineage, TrainingRun


def _pk(ref: str, prefix: str) -> int | None:
    tail = ref.removeprefix(prefix)
    return int(tail) if ref.startswith(prefix) and tail.isdigit() else None


@dataclass
class Withdrawn:
    ref: str
    why: str


def withdrawn(lineage: RunLineage) -> list[Withdrawn]:
    """Attempts and students this run used that no later run may use."""
    from django.contrib.auth import get_user_model

    from webapp.attempts.export import consented_attempts
    from webapp.attempts.models import Attempt

    items = list(lineage.items.filter(kind__in=["attempt", "student"]))
    attempt_pks = {i.ref: _pk(i.ref, "attempt-") for i in items if i.kind == "attempt"}
    student_pks = {i.ref: _pk(i.ref, "student-") for i in items if i.kind == "student"}
    wanted = [pk for pk in attempt_pks.values() if pk is not None]
    existing = set(Attempt.objects.filter(pk__in=wanted).values_list("pk", flat=True))
    allowed = set(consented_attempts().filter(pk__in=wanted).values_list("pk", flat=True))
    users = set(
        get_user_model()
        .objects.filter(pk__in=[p for p in student_pks.values() if p is not None])
        .values_list("pk", flat=True)
    )
    out = [Withdrawn(ref, "account deleted") for ref, pk in student_pks.items() if pk not in users]
    for ref, pk in attempt_pks.items():
        if pk not in existing:
            out.append(Withdrawn(ref, "deleted (with the student's account)"))
        elif pk not in allowed:
            out.append(Withdrawn(ref, "class consent turned off"))
    return sorted(out, key=lambda w: w.ref)


def lineage_context(run: TrainingRun) -> dict[str, Any] | None:
    record = RunLineage.objects.filter(run=run).first()
    if record is None:
        return None
    return {"record": record, "counts": record.counts, "withdrawn": withdrawn(record)}


@dataclass
class ModelUse:
    run_name: str
    date: Any
    promoted: bool


def models_using_review(curated_pk: int) -> list[ModelUse]:
    """The runs (models) whose training used this curated review, oldest first."""
    items = (
        LineageItem.objects.filter(kind=LineageItem.Kind.REVIEW, ref=f"curated-{curated_pk}")
        .select_related("lineage__run")
        .order_by("lineage__created_at")
    )
    return [
        ModelUse(
            run_name=i.lineage.run.run_name,
            date=i.lineage.run.finished_at or i.lineage.created_at,
            promoted=i.lineage.promoted,
        )
        for i in items
    ]
