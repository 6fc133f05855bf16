"""Reading run lineage: what a run used (with links to it), what of it has since been withdrawn
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


@dataclass
class Ref:
    """One id on the run page, with a link to what it names when that still exists."""

    ref: str
    url: str = ""


# Shown in this order, each under its own heading.
GROUPS = (
    ("problem", "Problems trained on"),
    ("attempt", "Student attempts"),
    ("review", "Teacher reviews"),
    ("trajectory", "Prover runs"),
    ("student", "Students"),
)


def _links(kind: str, refs: list[str]) -> list[Ref]:
    """Links for the ids of one kind, in one query per kind (students: ids only)."""
    from django.urls import reverse

    from webapp.attempts.models import Attempt, CuratedFeedback
    from webapp.courses.models import Exercise
    from webapp.provers.models import ProverRun

    prefix = {"problem": "exercise-", "attempt": "attempt-", "review": "curated-",
              "trajectory": "prover-run-"}.get(kind)  # fmt: skip
    if prefix is None:
        return [Ref(r) for r in refs]
    pks = {r: _pk(r, prefix) for r in refs}
    wanted = [pk for pk in pks.values() if pk is not None]
    url: dict[int, str] = {}
    if kind == "problem":
        for e in Exercise.objects.filter(pk__in=wanted).select_related("world__course"):
            url[e.pk] = reverse("courses:exercise", args=[e.world.course.slug, e.name])
    elif kind == "attempt":
        for pk in Attempt.objects.filter(pk__in=wanted).values_list("pk", flat=True):
            url[pk] = reverse("attempts:detail", args=[pk])
    elif kind == "review":
        for pk, attempt_pk in CuratedFeedback.objects.filter(pk__in=wanted).values_list(
            "pk", "suggestion__attempt_id"
        ):
            url[pk] = reverse("attempts:detail", args=[attempt_pk])
    else:
        for pk in ProverRun.objects.filter(pk__in=wanted).values_list("pk", flat=True):
            url[pk] = reverse("provers:run", args=[pk])
    return [Ref(r, url.get(pks[r] or -1, "")) for r in refs]


@dataclass
class HeldOut:
    """The course's held-out problems, counted once, with what each part is for."""

    total: int
    selection: int | None  # pick the run's best checkpoint (its evaluation during the run)
    gate: int | None  # only the gate judges them
    evaluated: int | None  # of the selection ones, how many the run's evaluation reads


def held_out(counts: dict[str, Any]) -> HeldOut:
    selection, gate = counts.get("selection_problems"), counts.get("gate_problems")
    total = counts.get("held_out_problems")
    if total is None and selection is not None and gate is not None:
        total = selection + gate
    evaluated = counts.get("evaluated_problems")
    return HeldOut(int(total or 0), selection, gate, evaluated)


def lineage_context(run: TrainingRun) -> dict[str, Any] | None:
    record = RunLineage.objects.filter(run=run).first()
    if record is None:
        return None
    refs: dict[str, list[str]] = {}
    for kind, ref in record.items.order_by("pk").values_list("kind", "ref"):
        refs.setdefault(kind, []).append(ref)
    groups = [
        {"kind": kind, "title": title, "refs": _links(kind, refs[kind])}
        for kind, title in GROUPS
        if refs.get(kind)
    ]
    return {
        "record": record,
        "counts": record.counts,
        "gated": bool(record.gate) or run.algorithm == TrainingRun.Algorithm.CONTINUAL,
        "held_out": held_out(record.counts),
        "groups": groups,
        "withdrawn": withdrawn(record),
    }


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
