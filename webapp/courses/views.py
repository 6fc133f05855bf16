"""Course pages and the student's exercise page (statement, editor, live feedback, history)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from webapp.accounts.http import AuthedRequest
from webapp.accounts.roles import is_admin
from webapp.attempts import live
from webapp.courses.access import visible_courses, visible_exercise
from webapp.courses.forms import ImportForm, ProofForm
from webapp.courses.importing import import_records, parse_jsonl
from webapp.courses.lessons import (
    HintRefused,
    do_open_hint,
    hint_state,
    informal_prose,
    inventory,
    render_markdown,
    world_map,
)
from webapp.courses.models import Course, Exercise
from webapp.courses.progress import course_progress, progress_by_exercise
from webapp.provers.access import visible_runs
from webapp.provers.models import HEAVY_RUN_FIELDS


def _not_available(request: AuthedRequest, what: str) -> HttpResponse:
    """One clear answer for "no such course" and "not your course" (no existence leak)."""
    return render(request, "courses/not_available.html", {"what": what}, status=404)


def _get_course_for_user(request: AuthedRequest, slug: str) -> Course | None:
    return visible_courses(request.user).filter(slug=slug).first()


def _get_exercise_for_user(request: AuthedRequest, slug: str, name: str) -> Exercise | None:
    return visible_exercise(request.user, world__course__slug=slug, name=name)


@login_required
@require_GET
def course_detail(request: AuthedRequest, slug: str) -> HttpResponse:
    course = _get_course_for_user(request, slug)
    if course is None:
        return _not_available(request, f"the course “{slug}”")
    progress = progress_by_exercise(request.user, course)
    worlds = world_map(course, progress)
    total = sum(len(world.levels) for world in worlds)
    summary = course_progress(request.user, course, progress, total)
    context = {
        "course": course,
        "worlds": worlds,
        "summary": summary,
        "is_admin": is_admin(request.user),
    }
    return render(request, "courses/course.html", context)


@login_required
@require_GET
def exercise_detail(request: AuthedRequest, slug: str, name: str) -> HttpResponse:
    exercise = _get_exercise_for_user(request, slug, name)
    if exercise is None:
        return _not_available(request, f"the exercise “{name}” in “{slug}”")
    history = live.history_of(request.user, exercise)
    latest = history[0] if history else None
    form = ProofForm(initial={"proof": latest.proof if latest else ""})
    mine = visible_runs(request.user).select_related(None)
    runs = _on_this_page(
        list(mine.filter(user=request.user, exercise=exercise).defer(*HEAVY_RUN_FIELDS)[:20]),
        request,
        exercise,
        owner="user",
    )
    context = {
        "exercise": exercise,
        "form": form,
        "history": history,
        "prover_runs": runs,
        **_lesson(request, exercise),
    }
    if latest:
        context.update(live.attempt_context(latest))
    return render(request, "courses/exercise.html", context)


def _on_this_page(rows: list, request: AuthedRequest, exercise: Exercise, owner: str) -> list:
    """Rows of this exercise by this user, given the objects the page already holds instead of
    joining them in again for every row (the joins' SQL compilation cost more than the rows)."""
    for row in rows:
        row.exercise = exercise
        setattr(row, owner, request.user)
    return rows


def _lesson(request: AuthedRequest, exercise: Exercise) -> dict:
    return {
        "intro_html": render_markdown(exercise.intro) if exercise.intro else "",
        "informal_html": (
            render_markdown(informal_prose(exercise.informal_prefix))
            if exercise.informal_prefix.strip()
            else ""
        ),
        "inventory": inventory(exercise),
        "hints": hint_state(request.user, exercise),
    }


@login_required
@require_POST
def open_hint(request: AuthedRequest, slug: str, name: str, index: int) -> HttpResponse:
    """Open the next hint (recorded: teachers see how many hints a student needed)."""
    exercise = _get_exercise_for_user(request, slug, name)
    if exercise is None:
        return _not_available(request, f"the exercise “{name}” in “{slug}”")
    error = ""
    try:
        do_open_hint(request.user, exercise, index)
    except HintRefused as exc:
        error = str(exc)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("courses:exercise", slug=slug, name=name)
    context = {
        "exercise": exercise,
        "hints": hint_state(request.user, exercise),
        "hint_error": error,
    }
    return render(request, "courses/exercise.html#hints", context)


@login_required
@require_http_methods(["GET", "POST"])
def import_problems(request: AuthedRequest) -> HttpResponse:
    if not is_admin(request.user):
        return render(
            request, "courses/not_available.html", {"what": "the import form"}, status=403
        )
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["file"].read().decode("utf-8", errors="replace")
        records, errors = parse_jsonl(text.splitlines())
        slug = form.cleaned_data["course_slug"]
        title = form.cleaned_data["course_title"] or slug
        course, _ = Course.objects.get_or_create(slug=slug, defaults={"title": title})
        report = import_records(course, records)
        report.errors[:0] = errors
        level = messages.SUCCESS if report.ok else messages.WARNING
        messages.add_message(request, level, f"{course.title}: {report.summary()}")
        return redirect("courses:import")
    return render(
        request, "courses/import.html", {"form": form}, status=400 if form.errors else 200
    )
