"""Setting work for a class, the class's results, what it gets wrong, and the grade book."""

from __future__ import annotations

from zoneinfo import available_timezones

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from webapp.accounts.access import assigned_to, classrooms_managed_by, managed_assignments
from webapp.accounts.http import AuthedRequest
from webapp.assignments import analytics, charts
from webapp.assignments.actions import (
    AssignmentInput,
    InvalidInput,
    do_create_assignment,
    do_delete_assignment,
)
from webapp.assignments.gradebook import FORMATS as GRADE_FORMATS
from webapp.assignments.gradebook import class_csv
from webapp.assignments.models import Assignment
from webapp.assignments.standing import assignment_exercises, standings
from webapp.assignments.wording import error_kind_label
from webapp.courses.models import Exercise, World

ATTEMPTS_SHOWN = 100
ZONES = sorted(available_timezones())


def _managed(request: AuthedRequest, pk: int) -> Assignment:
    """An assignment of a class the user teaches (admins: any); 404 otherwise."""
    return get_object_or_404(managed_assignments(request.user).select_related("classroom"), pk=pk)


def _assigned_exercise(assignment: Assignment, exercise_pk: int) -> Exercise:
    return get_object_or_404(assignment.exercises.select_related("world__course"), pk=exercise_pk)


@login_required
@require_http_methods(["GET", "POST"])
def new_assignment(request: AuthedRequest, pk: int) -> HttpResponse:
    classroom = get_object_or_404(classrooms_managed_by(request.user), pk=pk)
    status = 200
    if request.method == "POST":
        data = AssignmentInput(
            title=request.POST.get("title", ""),
            opens=request.POST.get("opens", ""),
            due=request.POST.get("due", ""),
            time_zone=request.POST.get("time_zone", ""),
            exercise_ids=tuple(request.POST.getlist("exercises")),
            world_ids=tuple(request.POST.getlist("worlds")),
        )
        try:
            assignment = do_create_assignment(classroom, request.user, data)
        except InvalidInput as exc:
            messages.error(request, str(exc))
            status = 400
        else:
            messages.success(request, f"Assignment “{assignment.title}” set.")
            return redirect("assignments:detail", pk=assignment.pk)
    worlds = World.objects.filter(course__classrooms=classroom).prefetch_related("exercises")
    context = {
        "classroom": classroom,
        "worlds": worlds.select_related("course"),
        "zones": ZONES,
        "form": request.POST,
        "now": timezone.now(),
    }
    return render(request, "assignments/new.html", context, status=status)


@login_required
@require_GET
def assignment_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    managed = managed_assignments(request.user).select_related("classroom").filter(pk=pk).first()
    if managed is not None:
        return _class_results(request, managed)
    assignment = assigned_to(request.user).filter(pk=pk).first()
    if assignment is None:
        raise Http404("No such assignment")
    standing = standings([assignment], [request.user])[request.user.pk, assignment.pk]
    return render(request, "assignments/mine.html", {"a": assignment, "standing": standing})


def _class_results(request: AuthedRequest, assignment: Assignment) -> HttpResponse:
    students = list(assignment.classroom.students.order_by("username"))
    table = standings([assignment], students)
    rows = [table[s.pk, assignment.pk] for s in students]
    exercises = assignment_exercises([assignment])[assignment.pk]
    solved_by = [sum(1 for row in rows if row.exercises[i].solved) for i in range(len(exercises))]
    context = {
        "a": assignment,
        "rows": rows,
        "exercises": list(zip(exercises, solved_by, strict=True)),
        "chart": charts.bar_chart(
            "Students who solved each exercise",
            [(e.display_title, n) for e, n in zip(exercises, solved_by, strict=True)],
        ),
    }
    return render(request, "assignments/results.html", context)


@login_required
@require_POST
def delete_assignment(request: AuthedRequest, pk: int) -> HttpResponse:
    assignment = _managed(request, pk)
    if request.POST.get("confirm") != "yes":
        messages.error(request, "Tick the box to confirm the removal.")
        return redirect("assignments:detail", pk=assignment.pk)
    classroom_pk = assignment.classroom_id
    do_delete_assignment(assignment)
    messages.success(request, "Assignment removed (the students' work stays).")
    return redirect("accounts:classroom", pk=classroom_pk)


@login_required
@require_GET
def exercise_analytics(request: AuthedRequest, pk: int, exercise_pk: int) -> HttpResponse:
    assignment = _managed(request, pk)
    exercise = _assigned_exercise(assignment, exercise_pk)
    stats = analytics.exercise_analytics(assignment.classroom, exercise)
    context = {
        "a": assignment,
        "stats": stats,
        "attempts_chart": charts.bar_chart("Solvers by attempts needed", stats.attempts_histogram),
        "errors_chart": charts.bar_chart(
            "Lean errors by kind", [(e.label, e.count) for e in stats.errors]
        ),
    }
    template = "assignments/exercise.html"
    if request.htmx:
        template += "#analytics"
    return render(request, template, context)


@login_required
@require_GET
def exercise_attempts(request: AuthedRequest, pk: int, exercise_pk: int) -> HttpResponse:
    """The drill-down: the class's attempts on the exercise, newest first; ?kind= keeps those
    with a Lean error of that kind, ?student= one student's."""
    assignment = _managed(request, pk)
    exercise = _assigned_exercise(assignment, exercise_pk)
    attempts = analytics.class_attempts(assignment.classroom, exercise).select_related("student")
    kind = request.GET.get("kind", "")
    if kind:
        attempts = attempts.filter(diagnostics__kind=kind, diagnostics__severity="error")
    student = request.GET.get("student", "")
    if student.isdigit():
        attempts = attempts.filter(student=int(student))
    attempts = attempts.distinct().order_by("-created_at", "-pk")
    context = {
        "a": assignment,
        "exercise": exercise,
        "attempts": attempts[:ATTEMPTS_SHOWN],
        "count": attempts.count(),
        "kind": kind,
        "kind_label": error_kind_label(kind) if kind else "",
    }
    template = "assignments/attempts.html"
    if request.htmx:
        template += "#attempt-list"
    return render(request, template, context)


@login_required
@require_GET
def grades_csv(request: AuthedRequest, pk: int) -> HttpResponse:
    """?format=canvas or ?format=moodle (the default, also a plain spreadsheet)."""
    classroom = get_object_or_404(classrooms_managed_by(request.user), pk=pk)
    fmt = request.GET.get("format", "moodle")
    if fmt not in GRADE_FORMATS:
        return HttpResponse(
            f"Unknown format: choose one of {', '.join(GRADE_FORMATS)}.",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    response = HttpResponse(class_csv(classroom, fmt), content_type="text/csv; charset=utf-8")
    name = f"grades-class-{classroom.pk}-{fmt}-{timezone.now():%Y%m%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
