"""Every URL pattern and websocket route, for every role, with the status it must answer.

The routes are walked from the URL conf (webapp.urls) and the websocket routing
(webapp.routing): a route without a declared expectation fails `test_every_route_is_declared`,
so a new view cannot be added untested. Roles: anonymous, a student (Sam, in Tess's class),
a student of another class (Olly), the teacher (Tess), the teacher of another class (Otto),
an admin (Ada: the admins group, not Django staff) and a logged-in user with no role (Uma).
All of them share one course; Sam's attempt, suggestion and prover run are the objects.

"login" means a redirect to the login page; Django's admin site ("django-admin/") is for
Django staff only, so every role here is sent to its login page (a staff superuser is checked
once, to show the walk can tell the difference).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from tests.webapp.cast import Cast, make_cast
from tests.webapp.test_console_consumers import connect
from webapp.assignments.models import Assignment
from webapp.attempts.models import Attempt, Suggestion
from webapp.console.models import TrainingRun
from webapp.core import health
from webapp.provers.models import ProverRun
from webapp.routing import websocket_urlpatterns

ROLES = ("anonymous", "student", "other_student", "teacher", "other_teacher", "admin", "outsider")
LOGIN = "login"
ADMIN_LOGIN = "admin-login"


@dataclass
class World:
    cast: Cast
    attempt: Attempt
    suggestion: Suggestion
    run: ProverRun
    training_run: TrainingRun
    assignment: Assignment

    def user(self, role: str) -> User | None:
        return None if role == "anonymous" else getattr(self.cast, role)


def make_world() -> World:
    cast = make_cast()
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  simp", status="done", valid=False
    )
    suggestion = Suggestion.objects.create(attempt=attempt, line=1, text="Try rfl.")
    run = ProverRun.objects.create(exercise=cast.exercise, user=cast.student, status="finished")
    training_run = TrainingRun.objects.create(
        course=cast.course, created_by=cast.admin, status="finished"
    )
    assignment = Assignment.objects.create(
        classroom=cast.classroom,
        title="Week 1",
        opens_at=timezone.now() - timedelta(days=1),
        due_at=timezone.now() + timedelta(days=6),
    )
    assignment.exercises.add(cast.exercise)
    return World(cast, attempt, suggestion, run, training_run, assignment)


@dataclass
class Route:
    """How to call a route, and what each role must get (status code, or LOGIN)."""

    expect: dict[str, int | str]
    method: str = "get"
    kwargs: Callable[[World], dict[str, Any]] = lambda w: {}
    data: Callable[[World], dict[str, Any]] = lambda w: {}
    headers: dict[str, str] = field(default_factory=dict)


def everyone(status: int, **exceptions: int | str) -> dict[str, int | str]:
    return {role: exceptions.get(role, status) for role in ROLES}


def members(status: int, *, outsider: int = 404, **exceptions: int | str) -> dict[str, int | str]:
    """Logged-in members of a class with the course get `status`; Uma is in no class."""
    return everyone(status, anonymous=LOGIN, outsider=outsider, **exceptions)


def only(status: int, roles: tuple[str, ...], *, others: int = 403) -> dict[str, int | str]:
    return {
        role: LOGIN if role == "anonymous" else status if role in roles else others
        for role in ROLES
    }


ADMINS = ("admin",)
TEACHERS = ("teacher", "other_teacher")
REVIEWERS = ("teacher", "other_teacher", "admin")
STUDENTS = ("student", "other_student")
# Sam's own work: Sam, his teacher Tess (her class has the course and Sam), admins.
SAMS_WORK = ("student", "teacher", "admin")


def pk_of(attr: str) -> Callable[[World], dict[str, Any]]:
    return lambda w: {"pk": getattr(w, attr).pk}


EXERCISE = {"slug": "cast-course", "name": "cast_add_zero"}

ROUTES: dict[str, Route] = {
    "home": Route(everyone(302, anonymous=200)),  # signed-in users go to their dashboard
    # Status only for everyone, details for admins (tests/webapp/test_healthz.py); 200 while
    # the database and Redis answer.
    "healthz": Route(everyone(200)),
    "favicon": Route(everyone(301)),  # to the static icon
    "login": Route(everyone(200)),
    "logout": Route(everyone(302), method="post"),
    "password_change": Route(everyone(200, anonymous=LOGIN)),
    "password_change_done": Route(everyone(200, anonymous=LOGIN)),
    "password_reset": Route(everyone(200)),
    "password_reset_done": Route(everyone(200)),
    "password_reset_confirm": Route(
        everyone(200), kwargs=lambda w: {"uidb64": "MQ", "token": "bad-token"}
    ),
    "password_reset_complete": Route(everyone(200)),
    "accounts:dashboard": Route(everyone(200, anonymous=LOGIN)),
    # No school sign-in provider here: nobody is offered it (tests/webapp/test_school_sign_in.py).
    "accounts:school_sign_in": Route(everyone(403, anonymous=LOGIN), method="post"),
    # Which teachers may add a course to their classes: admins grant (test_class_boundaries).
    "accounts:course_grants": Route(only(200, ADMINS), kwargs=lambda w: {"slug": "cast-course"}),
    # An empty code: students are told to type one (302 back with a message); others 403.
    "accounts:join": Route(only(302, STUDENTS), method="post", data=lambda w: {"code": ""}),
    "accounts:create_classroom": Route(
        only(302, TEACHERS), method="post", data=lambda w: {"name": ""}
    ),
    # Tess's class: her and admins only (Otto teaches another class).
    "accounts:classroom": Route(
        only(200, ("teacher", "admin")), kwargs=lambda w: {"pk": w.cast.classroom.pk}
    ),
    "accounts:classroom_courses": Route(
        only(302, ("teacher", "admin")),
        method="post",
        kwargs=lambda w: {"pk": w.cast.classroom.pk},
        data=lambda w: {"courses": [w.cast.course.pk]},
    ),
    "accounts:classroom_prover": Route(
        only(302, ("teacher", "admin")),
        method="post",
        kwargs=lambda w: {"pk": w.cast.classroom.pk},
    ),
    "accounts:classroom_training": Route(
        only(302, ("teacher", "admin")),
        method="post",
        kwargs=lambda w: {"pk": w.cast.classroom.pk},
    ),
    # Assignments: Tess (and admins) set and read her class's; Sam sees his own standing on
    # one of his class's open assignments; everyone else is told there is no such thing.
    "assignments:new": Route(
        only(200, ("teacher", "admin"), others=404), kwargs=lambda w: {"pk": w.cast.classroom.pk}
    ),
    "assignments:grades_csv": Route(
        only(200, ("teacher", "admin"), others=404), kwargs=lambda w: {"pk": w.cast.classroom.pk}
    ),
    "assignments:detail": Route(only(200, SAMS_WORK, others=404), kwargs=pk_of("assignment")),
    # Unconfirmed (no confirm box ticked): back to the assignment with a message.
    "assignments:delete": Route(
        only(302, ("teacher", "admin"), others=404), method="post", kwargs=pk_of("assignment")
    ),
    "assignments:exercise": Route(
        only(200, ("teacher", "admin"), others=404),
        kwargs=lambda w: {"pk": w.assignment.pk, "exercise_pk": w.cast.exercise.pk},
    ),
    "assignments:attempts": Route(
        only(200, ("teacher", "admin"), others=404),
        kwargs=lambda w: {"pk": w.assignment.pk, "exercise_pk": w.cast.exercise.pk},
    ),
    "courses:import": Route(only(200, ADMINS)),
    # Opening a hint: members only; the cast's exercise has none, so a message and back.
    "courses:open_hint": Route(
        members(302), method="post", kwargs=lambda w: {**EXERCISE, "index": 1}
    ),
    "courses:course": Route(members(200), kwargs=lambda w: {"slug": "cast-course"}),
    "courses:exercise": Route(members(200), kwargs=lambda w: EXERCISE),
    # An empty proof is refused with a message (400), before anything is queued.
    "attempts:submit": Route(
        members(400),
        method="post",
        kwargs=lambda w: {"exercise_pk": w.cast.exercise.pk},
        data=lambda w: {"proof": ""},
    ),
    # Goals while typing: an empty text is refused (400) for whoever may open the exercise;
    # a fetch without a session gets 401 (JSON), not a redirect to the login page.
    "attempts:live_goals": Route(
        everyone(400, anonymous=401, outsider=404),
        method="post",
        kwargs=lambda w: {"exercise_pk": w.cast.exercise.pk},
        data=lambda w: {"proof": "", "seq": "1", "client": "page"},
    ),
    "attempts:review": Route(only(200, REVIEWERS)),
    # Admins decide which reviews teach every class; this suggestion has no review yet (404).
    "attempts:share_feedback": Route(
        only(404, ADMINS),
        method="post",
        kwargs=pk_of("suggestion"),
        data=lambda w: {"for_all": "1"},
    ),
    # An unknown verdict: the reviewer is told (htmx answer 200); others 404 (not theirs).
    "attempts:review_suggestion": Route(
        only(200, ("teacher", "admin"), others=404),
        method="post",
        kwargs=pk_of("suggestion"),
        data=lambda w: {"verdict": "nonsense"},
        headers={"HX-Request": "true"},
    ),
    # The per-exercise coach switches: reviewers; both teachers' classes have the course.
    "attempts:coach_switches": Route(only(200, REVIEWERS)),
    # No message kind given: the reviewer is told (400); others 404 (no suggestion of theirs
    # to review on this exercise: Otto's class has no attempt on it).
    "attempts:set_coach_switch": Route(
        only(400, ("teacher", "admin"), others=404),
        method="post",
        kwargs=lambda w: {"exercise_pk": w.cast.exercise.pk},
        data=lambda w: {"kind": ""},
    ),
    "attempts:detail": Route(only(200, SAMS_WORK, others=404), kwargs=pk_of("attempt")),
    "attempts:live": Route(only(200, SAMS_WORK, others=404), kwargs=pk_of("attempt")),
    # An unknown mode is refused (redirect back with the message); Uma has no such course
    # (404, as for an exercise that does not exist: tests/webapp/test_provers_views.py).
    "provers:ask": Route(
        members(302, outsider=404),
        method="post",
        kwargs=lambda w: {"exercise_id": w.cast.exercise.pk},
        data=lambda w: {"mode": "magic"},
    ),
    "provers:run": Route(only(200, SAMS_WORK, others=404), kwargs=pk_of("run")),
    "provers:run_panel": Route(only(200, SAMS_WORK, others=404), kwargs=pk_of("run")),
    # Tess watches Sam's runs but does not steer them.
    "provers:cancel": Route(
        {**only(302, ("student", "admin"), others=404), "teacher": 403},
        method="post",
        kwargs=pk_of("run"),
    ),
    # LTI 1.3 is off unless settings.LTI_TOOL names platforms: every endpoint says so (404).
    # With a platform configured, tests/webapp/test_lti.py walks the launch and its refusals.
    "lti:login": Route(everyone(404), method="post"),
    "lti:launch": Route(everyone(404), method="post"),
    "lti:jwks": Route(everyone(404)),
    # School sign-in (django-allauth): no provider unless configured, so starting a sign-in
    # or its callback finds none (404); tests/webapp/test_school_sign_in.py runs one.
    "openid_connect_login": Route(
        everyone(404), method="post", kwargs=lambda w: {"provider_id": "school"}
    ),
    "openid_connect_callback": Route(everyone(404), kwargs=lambda w: {"provider_id": "school"}),
    "socialaccount_login_cancelled": Route(everyone(200)),
    "socialaccount_login_error": Route(everyone(401)),  # allauth answers its error page 401
    "socialaccount_signup": Route(everyone(302)),  # no sign-in under way: back to login
    "account_login": Route(everyone(302)),  # allauth's name for the login page
    "console:index": Route(only(200, ADMINS)),
    "console:launch": Route(only(400, ADMINS), method="post"),  # an empty form
    "console:run": Route(only(200, ADMINS), kwargs=pk_of("training_run")),
    "console:run_status": Route(only(200, ADMINS), kwargs=pk_of("training_run")),
    "console:run_stop": Route(only(302, ADMINS), method="post", kwargs=pk_of("training_run")),
    "console:run_plot": Route(
        only(404, ADMINS), kwargs=lambda w: {"pk": w.training_run.pk, "name": "loss.png"}
    ),
    "console:checkpoints": Route(only(200, ADMINS)),
    "console:promote": Route(only(302, ADMINS), method="post"),
    "console:promote_confirm": Route(only(302, ADMINS)),  # no checkpoint chosen: back to the list
    "console:rollback": Route(only(302, ADMINS), method="post"),
    "console:status": Route(only(200, ADMINS)),
    "console:status_components": Route(only(200, ADMINS)),
    "console:monitoring": Route(only(200, ADMINS)),
    # Prometheus metrics: Django staff or the bearer token only (no login page for a scraper).
    "metrics": Route(everyone(403)),  # staff: tests/webapp/test_metrics.py
}

# Django's admin site: staff only. Its login page is open; the final catch-all redirects too.
ADMIN_SITE_EXCEPTIONS: dict[str, dict[str, int | str]] = {
    "admin:login": everyone(200),
    "admin:logout": everyone(302),  # a GET logs nobody out: back to the admin index
}

WEBSOCKETS: dict[str, tuple[Callable[[World], str], tuple[str, ...]]] = {
    "ws/attempts/<int:pk>/": (lambda w: f"/ws/attempts/{w.attempt.pk}/", SAMS_WORK),
    # Whoever may open the exercise page (each sees only her own attempts there).
    "ws/exercises/<int:pk>/live/": (
        lambda w: f"/ws/exercises/{w.cast.exercise.pk}/live/",
        ("student", "other_student", "teacher", "other_teacher", "admin"),
    ),
    "ws/prover/runs/<int:pk>/": (lambda w: f"/ws/prover/runs/{w.run.pk}/", SAMS_WORK),
    "ws/console/runs/<int:pk>/": (lambda w: f"/ws/console/runs/{w.training_run.pk}/", ADMINS),
}


def walk(patterns: list[Any], prefix: str = "", namespace: str = "") -> Iterator[tuple[str, str]]:
    """(key, route) of every pattern: the key is the namespaced name, or the route itself
    for an unnamed pattern."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace or ""
            ns = ":".join(part for part in (namespace, inner) if part)
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), ns)
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            name = pattern.name
            if not name:
                yield route, route
            else:
                yield (f"{namespace}:{name}" if namespace else name), route


HTTP_ROUTES = dict(walk(get_resolver().url_patterns))
APP_KEYS = sorted(
    key for key, route in HTTP_ROUTES.items() if not route.startswith("django-admin/")
)
ADMIN_SITE_KEYS = sorted(
    key for key, route in HTTP_ROUTES.items() if route.startswith("django-admin/")
)


def test_every_route_is_declared() -> None:
    assert set(APP_KEYS) == set(ROUTES), "declare what each role gets from a new route"
    assert {str(p.pattern) for p in websocket_urlpatterns} == set(WEBSOCKETS)
    assert len(ADMIN_SITE_KEYS) > 10  # the admin site is walked, not skipped


def _client(world: World, role: str) -> Client:
    client = Client()
    user = world.user(role)
    if user is not None:
        client.force_login(user)
    return client


def _check(response: Any, expected: int | str, what: str) -> None:
    if expected in (LOGIN, ADMIN_LOGIN):
        target = reverse("admin:login") if expected == ADMIN_LOGIN else reverse("login")
        assert response.status_code == 302, what
        assert response["Location"].startswith(target), what
    else:
        assert response.status_code == expected, what


@pytest.fixture
def world(db: None, tmp_path: Path) -> Iterator[World]:
    health.clear_cache()
    with override_settings(CHECKPOINT_ROOT=tmp_path):  # promote/rollback touch no real slot
        yield make_world()


@pytest.mark.parametrize("key", APP_KEYS)
def test_each_role_gets_what_the_route_declares(world: World, key: str) -> None:
    route = ROUTES[key]
    url = reverse(key, kwargs=route.kwargs(world))
    for role in ROLES:
        client = _client(world, role)
        call = getattr(client, route.method)
        response = call(url, route.data(world), headers=route.headers)
        _check(response, route.expect[role], f"{route.method.upper()} {url} as {role}")


def _sample_path(route: str) -> str:
    """A concrete path for an admin route (object ids need not exist: non-staff never get
    that far)."""
    path = route.replace("^(?P<app_label>", "(?P<app_label>")
    path = re.sub(r"\(\?P<app_label>[^)]*\)\$?", "auth", path)
    path = path.replace("(?P<url>.*)$", "no-such-page/")
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", "1", path)


@pytest.mark.parametrize("key", ADMIN_SITE_KEYS)
def test_the_admin_site_is_for_django_staff_only(world: World, key: str) -> None:
    url = _sample_path(HTTP_ROUTES[key])
    expect = ADMIN_SITE_EXCEPTIONS.get(key, everyone(0, **dict.fromkeys(ROLES, ADMIN_LOGIN)))
    for role in ROLES:
        _check(_client(world, role).get(url), expect[role], f"GET {url} as {role}")


def test_django_staff_do_get_the_admin_site(world: World) -> None:
    boss = User.objects.create_superuser("boss", password="x")
    client = Client()
    client.force_login(boss)
    assert client.get(reverse("admin:index")).status_code == 200
    assert client.get(reverse("admin:attempts_attempt_changelist")).status_code == 200


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("route", sorted(WEBSOCKETS))
async def test_each_role_connects_only_where_declared(route: str, tmp_path: Path) -> None:
    world = await sync_to_async(make_world)()
    path_of, allowed = WEBSOCKETS[route]
    for role in ROLES:
        communicator, connected = await connect(path_of(world), world.user(role))
        assert connected is (role in allowed), f"{route} as {role}"
        await communicator.disconnect()
