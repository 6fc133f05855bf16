"""Course pages and the student's exercise page (statement, editor, live feedback, history)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from webapp.accounts.http import AuthedRequest
from webapp.accounts.roles import is_admin
from webapp.attempts import live
from webapp.attempts.access import visible_attempts
from webapp.courses.access import visible_courses
from webapp.courses.forms import ImportForm, ProofForm
from webapp.courses.importing import import_records, parse_jsonl
from webapp.courses.models import Course, Exercise
from webapp.courses.progress import course_progress, progress_by_exercise


def _not_available(request: AuthedRequest, what: str) -> HttpResponse:
    """One clear answer for "no such course" and "not your course" (no existence leak)."""
    return render(request, "courses/not_available.html", {"what": what}, status=404)


def _get_course_for_user(request: AuthedRequest, slug: str) -> Course | None:
    return visible_courses(request.user).filter(slug=slug).first()


def _get_exercise_for_user(request: AuthedRequest, slug: str, name: str) -> Exercise | None:
    course = _get_course_for_user(request, slug)
    if course is None:
        return None
    return (
        Exercise.objects.select_related("world__course")
        .filter(world__course=course, name=name)
        .first()
    )


@login_required
@require_GET
def course_detail(request: AuthedRequest, slug: str) -> HttpResponse:
    course = _get_course_for_user(request, slug)
    if course is None:
        return _not_available(request, f"the course “{slug}”")
    progress = progress_by_exercise(request.user, course)
    worlds = [
        (world, [(exercise, progress.get(exercise.pk)) for exercise in world.exercises.all()])
        for world in course.worlds.prefetch_related("exercises")
    ]
    summary = course_progress(request.user, course)
    return render(
        request, "courses/course.html", {"course": course, "worlds": worlds, "summary": summary}
    )


@login_required
@require_GET
def exercise_detail(request: AuthedRequest, slug: str, name: str) -> HttpResponse:
    exercise = _get_exercise_for_user(request, slug, name)
    if exercise is None:
        return _not_available(request, f"the exercise “{name}” in “{slug}”")
    history = visible_attempts(request.user).filter(student=request.user, exercise=exercise)[:20]
    latest = history[0] if history else None
    form = ProofForm(initial={"proof": latest.proof if latest else ""})
    context = {"exercise": exercise, "form": form, "history": history}
    if latest:
        context.update(live.attempt_context(latest))
    return render(request, "courses/exercise.html", context)


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
