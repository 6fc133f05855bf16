"""Dashboards by role, joining and running classes, and per-student progress."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from webapp.accounts.actions import (
    InvalidInput,
    do_create_classroom,
    do_join_classroom,
    do_set_classroom_courses,
)
from webapp.accounts.http import AuthedRequest
from webapp.accounts.models import Classroom
from webapp.accounts.roles import is_admin, is_student, is_teacher
from webapp.courses.access import visible_courses
from webapp.courses.models import Course
from webapp.courses.progress import course_progress


def _get_classroom_for_user(request: AuthedRequest, pk: int) -> Classroom | None:
    """A class is visible to its teacher and to admins only."""
    classrooms = (
        Classroom.objects.all()
        if is_admin(request.user)
        else Classroom.objects.filter(teacher=request.user)
    )
    return classrooms.filter(pk=pk).first()


def _forbidden(request: AuthedRequest, what: str) -> HttpResponse:
    return render(request, "courses/not_available.html", {"what": what}, status=403)


@login_required
@require_GET
def dashboard(request: AuthedRequest) -> HttpResponse:
    user = request.user
    context = {
        "is_student": is_student(user),
        "is_teacher": is_teacher(user),
        "is_admin": is_admin(user),
        "progress": [course_progress(user, course) for course in visible_courses(user)],
        "taught": Classroom.objects.filter(teacher=user).prefetch_related("courses", "students"),
        "joined": Classroom.objects.filter(students=user).select_related("teacher"),
        "all_courses": Course.objects.all(),
    }
    return render(request, "accounts/dashboard.html", context)


@login_required
@require_POST
def join_classroom(request: AuthedRequest) -> HttpResponse:
    if not is_student(request.user):
        return _forbidden(request, "joining classes (students only)")
    try:
        classroom = do_join_classroom(request.user, request.POST.get("code", ""))
    except InvalidInput as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"You joined {classroom.name}.")
    return redirect("accounts:dashboard")


@login_required
@require_POST
def create_classroom(request: AuthedRequest) -> HttpResponse:
    if not is_teacher(request.user):
        return _forbidden(request, "creating classes (teachers only)")
    courses = list(Course.objects.filter(pk__in=request.POST.getlist("courses")))
    try:
        classroom = do_create_classroom(request.user, request.POST.get("name", ""), courses)
    except InvalidInput as exc:
        messages.error(request, str(exc))
        return redirect("accounts:dashboard")
    messages.success(request, f"Class created. Its join code is {classroom.join_code}.")
    return redirect("accounts:classroom", pk=classroom.pk)


@login_required
@require_GET
def classroom_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    classroom = _get_classroom_for_user(request, pk)
    if classroom is None:
        return _forbidden(request, "this class")
    courses = list(classroom.courses.all())
    rows = [
        (student, [course_progress(student, course) for course in courses])
        for student in classroom.students.order_by("username")
    ]
    context = {
        "classroom": classroom,
        "courses": courses,
        "rows": rows,
        "all_courses": Course.objects.all(),
    }
    return render(request, "accounts/classroom.html", context)


@login_required
@require_POST
def classroom_courses(request: AuthedRequest, pk: int) -> HttpResponse:
    classroom = _get_classroom_for_user(request, pk)
    if classroom is None:
        return _forbidden(request, "this class")
    do_set_classroom_courses(
        classroom, list(Course.objects.filter(pk__in=request.POST.getlist("courses")))
    )
    messages.success(request, "Courses updated.")
    return redirect("accounts:classroom", pk=classroom.pk)
