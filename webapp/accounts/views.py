"""Dashboards by role, joining and running classes, and per-student progress."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from webapp.accounts.access import courses_she_may_teach
from webapp.accounts.actions import (
    InvalidInput,
    do_create_classroom,
    do_grant_course,
    do_join_classroom,
    do_revoke_course,
    do_set_classroom_courses,
    do_set_classroom_training_consent,
    do_set_prover_full_proofs,
)
from webapp.accounts.http import AuthedRequest
from webapp.accounts.models import Classroom, SchoolSignIn
from webapp.accounts.roles import is_admin, is_student, is_teacher
from webapp.assignments.standing import due_for
from webapp.core.limits import limit_message, over_limit
from webapp.courses.access import visible_courses
from webapp.courses.models import Course
from webapp.courses.progress import class_progress
from webapp.provers.access import visible_runs
from webapp.provers.models import HEAVY_RUN_FIELDS

CLASS_RUNS_SHOWN = 50


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
        "progress": class_progress([user], list(visible_courses(user)))[0],
        "taught": Classroom.objects.filter(teacher=user).prefetch_related("courses", "students"),
        "joined": Classroom.objects.filter(students=user).select_related("teacher"),
        "all_courses": courses_she_may_teach(user),
        "due": due_for(user) if is_student(user) else [],
        "school_sign_in": _school_sign_in_state(user),
    }
    return render(request, "accounts/dashboard.html", context)


def _school_sign_in_state(user: Any) -> str:
    """ "allowed" / "off" for a student or teacher, "" when school sign-in is not offered
    (no provider, or an account it never opens)."""
    from webapp.accounts.sso import is_privileged, providers

    if not providers() or is_privileged(user) or not (is_student(user) or is_teacher(user)):
        return ""
    return "allowed" if SchoolSignIn.objects.filter(user=user).exists() else "off"


@login_required
@require_POST
def school_sign_in(request: AuthedRequest) -> HttpResponse:
    """Her consent to school sign-in by e-mail address (webapp.accounts.sso), on or off."""
    from webapp.accounts.actions import do_set_school_sign_in

    if not _school_sign_in_state(request.user):
        return _forbidden(request, "school sign-in for this account")
    allowed = request.POST.get("allowed") == "on"
    do_set_school_sign_in(request.user, allowed)
    messages.success(
        request,
        "Your school's sign-in may now open this account."
        if allowed
        else "School sign-in no longer opens this account; sign in with your password.",
    )
    return redirect("accounts:dashboard")


@login_required
@require_POST
def join_classroom(request: AuthedRequest) -> HttpResponse:
    if not is_student(request.user):
        return _forbidden(request, "joining classes (students only)")
    if over_limit(request, "join"):
        messages.error(request, limit_message("join"))
        return redirect("accounts:dashboard")
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
    try:
        courses = _courses_she_picked(request)
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
    students = list(classroom.students.order_by("username"))
    rows = list(zip(students, class_progress(students, courses, classroom), strict=True))
    # Every "Ask the prover" of this class's students on its courses: progress copied from
    # the prover is not invisible.
    runs = visible_runs(request.user).filter(
        user__classrooms=classroom, exercise__world__course__classrooms=classroom
    )
    context = {
        "classroom": classroom,
        "courses": courses,
        "rows": rows,
        "all_courses": courses_she_may_teach(request.user),
        "prover_runs": runs.distinct().defer(*HEAVY_RUN_FIELDS)[:CLASS_RUNS_SHOWN],
        "prover_run_count": runs.distinct().count(),
        "assignments": classroom.assignments.order_by("due_at", "pk"),
    }
    return render(request, "accounts/classroom.html", context)


@login_required
@require_POST
def classroom_courses(request: AuthedRequest, pk: int) -> HttpResponse:
    classroom = _get_classroom_for_user(request, pk)
    if classroom is None:
        return _forbidden(request, "this class")
    try:
        do_set_classroom_courses(classroom, _courses_she_picked(request))
    except InvalidInput as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Courses updated.")
    return redirect("accounts:classroom", pk=classroom.pk)


def _courses_she_picked(request: AuthedRequest) -> list[Course]:
    """The form's courses, every one of them hers to teach (an admin granted it); anything
    else is refused as a whole, so nothing is half-saved."""
    picked = request.POST.getlist("courses")
    ids = {int(pk) for pk in picked if pk.isascii() and pk.isdigit() and len(pk) <= 18}
    courses = list(courses_she_may_teach(request.user).filter(pk__in=ids))
    if len(ids) != len(picked) or len(courses) != len(ids):
        raise InvalidInput(
            "You can add only the courses an admin granted you; ask an admin for another."
        )
    return courses


@login_required
@require_http_methods(["GET", "POST"])
def course_grants(request: AuthedRequest, slug: str) -> HttpResponse:
    """Admins: which teachers may add this course to their classes; grant and take back."""
    if not is_admin(request.user):
        return _forbidden(request, "the course's teachers (admins only)")
    course = Course.objects.filter(slug=slug).first()
    if course is None:
        return _forbidden(request, f"the course “{slug}”")
    if request.method == "POST":
        try:
            if request.POST.get("revoke"):
                do_revoke_course(course, request.POST["revoke"])
                messages.success(request, "Taken back: her classes keep what they have.")
            else:
                teacher = do_grant_course(course, request.POST.get("username", ""), request.user)
                messages.success(request, f"{teacher.username} may now use {course.title}.")
        except InvalidInput as exc:
            messages.error(request, str(exc))
        return redirect("accounts:course_grants", slug=course.slug)
    grants = course.grants.select_related("teacher", "granted_by").order_by("teacher__username")
    return render(request, "accounts/course_grants.html", {"course": course, "grants": grants})


def _switch_class_setting(
    request: AuthedRequest,
    pk: int,
    field: str,
    save: Callable[[Classroom, bool], object],
    said: tuple[str, str],
) -> HttpResponse:
    """One of a class's on/off settings from its form's checkbox `field`; `said` is the
    message for (on, off)."""
    classroom = _get_classroom_for_user(request, pk)
    if classroom is None:
        return _forbidden(request, "this class")
    on = request.POST.get(field) == "on"
    save(classroom, on)
    messages.success(request, said[0] if on else said[1])
    return redirect("accounts:classroom", pk=classroom.pk)


@login_required
@require_POST
def classroom_prover(request: AuthedRequest, pk: int) -> HttpResponse:
    return _switch_class_setting(
        request,
        pk,
        "prover_shows_full_proofs",
        do_set_prover_full_proofs,
        (
            "Students of this class now see the prover's full proofs.",
            "Students of this class see the prover's proof only once they solved the exercise.",
        ),
    )


@login_required
@require_POST
def classroom_training(request: AuthedRequest, pk: int) -> HttpResponse:
    return _switch_class_setting(
        request,
        pk,
        "use_for_training",
        do_set_classroom_training_consent,
        (
            "This class's attempts and reviews will be used for training.",
            "This class's data will not be used for training from now on.",
        ),
    )


def login_bucket(group: str, request: HttpRequest) -> str:
    """The failed-login bucket of one username tried from one client address: a django-
    ratelimit key function (called as key(group, request), django_ratelimit/core.py
    `get_usage`). Names are compared as typed but without case or surrounding spaces, so
    "Tess" and " tess" share a bucket. With the address in the key, failures typed from
    elsewhere never lock her out of her own client."""
    name = str(request.POST.get("username", "")).strip().lower()[:150]
    return f"{name}@{request.META.get('REMOTE_ADDR', '')}"


class ThrottledLoginView(LoginView):
    """Django's login, refused for a while after too many failed tries of one username from
    one client address (settings.RATE_LIMITS["login"]) or of any usernames from one address
    (RATE_LIMITS["login_client"], higher: a school's pupils may share one address); only
    failures count. No bucket is keyed by the username alone: ten wrong passwords typed
    anywhere else must not lock a teacher out of her own account. The address is the
    connection's (REMOTE_ADDR): `make run` serves with --no-proxy-headers, so a forged
    X-Forwarded-For changes nothing."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if self._over(request, count=False):
            form = self.get_form()
            form.errors.clear()
            form.add_error(None, limit_message("login"))
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        from webapp.accounts.sso import providers

        return {**super().get_context_data(**kwargs), "school_providers": providers()}

    def form_invalid(self, form: Any) -> HttpResponse:
        self._over(self.request, count=True)
        return super().form_invalid(form)

    @staticmethod
    def _over(request: HttpRequest, *, count: bool) -> bool:
        by_name_here = over_limit(request, "login", key=login_bucket, count=count)
        by_client = over_limit(request, "login_client", key="ip", count=count)
        return by_name_here or by_client
