"""The review page's coach switches: per exercise and message kind, whether the coach's advice
is shown (two teacher rejections switch it off; a teacher can switch it back, or off)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.accounts.roles import is_admin, is_teacher
from webapp.attempts.access import reviewable_suggestions
from webapp.attempts.teaching import coach_switches, do_set_coach_switch
from webapp.courses.models import Exercise


def _reviewer(request: HttpRequest) -> bool:
    return is_teacher(request.user) or is_admin(request.user)


def _exercises(request: HttpRequest) -> list[Exercise]:
    ids = reviewable_suggestions(request.user).values_list("attempt__exercise_id", flat=True)
    return list(Exercise.objects.filter(pk__in=set(ids)).order_by("pk"))


@login_required
def coach_switches_page(request: HttpRequest) -> HttpResponse:
    if not _reviewer(request):
        return render(
            request, "courses/not_available.html", {"what": "the coach switches"}, status=403
        )
    rows = [(exercise, coach_switches(exercise.pk)) for exercise in _exercises(request)]
    return render(request, "attempts/coach_switches.html", {"rows": [r for r in rows if r[1]]})


@require_POST
@login_required
def set_coach_switch(request: HttpRequest, exercise_pk: int) -> HttpResponse:
    if not _reviewer(request) or exercise_pk not in {e.pk for e in _exercises(request)}:
        return HttpResponse("This exercise is not in your classes.", status=404)
    kind = request.POST.get("kind", "").strip()
    if not kind:
        return HttpResponse("Say which message kind.", status=400)
    do_set_coach_switch(request.user, exercise_pk, kind, request.POST.get("enabled") == "1")
    return redirect("attempts:coach_switches")
