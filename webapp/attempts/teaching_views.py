"""The review page's coach switches: per exercise and message kind, whether the coach's advice
is shown (two teacher rejections switch it off; a teacher can switch it back, or off)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.views.decorators.http import require_POST

from webapp.accounts.roles import is_admin, is_teacher
from webapp.attempts.access import reviewable_suggestions
from webapp.attempts.teaching import (
    SWITCH_KINDS,
    coach_switches,
    do_set_coach_switch,
    switch_scope,
)
from webapp.attempts.views import review_return_url
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
    scope = switch_scope(request.user)
    rows = [(exercise, coach_switches(exercise.pk, scope)) for exercise in _exercises(request)]
    context = {"rows": [r for r in rows if r[1]], "for_all": is_admin(request.user)}
    return render(request, "attempts/coach_switches.html", context)


@require_POST
@login_required
def set_coach_switch(request: HttpRequest, exercise_pk: int) -> HttpResponse:
    if not _reviewer(request) or exercise_pk not in {e.pk for e in _exercises(request)}:
        return HttpResponse("This exercise is not in your classes.", status=404)
    kind = request.POST.get("kind", "").strip()
    if not kind:
        return HttpResponse("Say which message kind.", status=400)
    if kind not in SWITCH_KINDS:
        # Escaped: the answer is HTML, and the kind is whatever was posted.
        return HttpResponse(f"There is no Lean message kind “{escape(kind[:60])}”.", status=400)
    do_set_coach_switch(request.user, exercise_pk, kind, request.POST.get("enabled") == "1")
    return redirect("attempts:coach_switches")


@require_POST
@login_required
def share_feedback(request: HttpRequest, pk: int) -> HttpResponse:
    """Admins: a review teaches the coach for every class (for_all=1), or for its reviewer's
    own classes only (for_all=0)."""
    from webapp.attempts.actions import do_share_feedback
    from webapp.attempts.models import CuratedFeedback

    if not is_admin(request.user):
        return HttpResponse("Only admins decide what teaches every class.", status=403)
    curated = CuratedFeedback.objects.filter(suggestion_id=pk).first()
    if curated is None:
        return HttpResponse("This suggestion has no review yet.", status=404)
    do_share_feedback(curated, request.POST.get("for_all") == "1")
    if request.POST.get("on") == "attempt":  # sent from the attempt page: back there
        return redirect(review_return_url(curated.suggestion, on_attempt=True))
    return redirect(f"{reverse('attempts:review')}?show=all#suggestion-{pk}")
