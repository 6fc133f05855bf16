"""Submitting attempts, watching them, and the teachers' review queue."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import reswap, retarget

from webapp.accounts.http import AuthedRequest, HtmxRequest
from webapp.accounts.roles import is_admin, is_teacher
from webapp.attempts import live
from webapp.attempts import live_goals as live_goals_flow
from webapp.attempts.access import reviewable_suggestions, visible_attempt, visible_attempts
from webapp.attempts.actions import (
    CheckInProgress,
    InvalidInput,
    ReviewInput,
    clean_proof,
    do_review_suggestion,
    do_submit_attempt,
)
from webapp.attempts.models import Attempt, Suggestion
from webapp.core.limits import limit_message, over_limit
from webapp.courses.access import visible_exercise
from webapp.courses.forms import ProofForm
from webapp.courses.lessons import COACH_HINT_INDEX
from webapp.courses.models import Exercise, HintOpening
from webapp.provers.access import visible_runs
from webapp.provers.models import HEAVY_RUN_FIELDS

REVIEW_PAGE_SIZE = 50

log = logging.getLogger(__name__)


def _get_attempt_for_user(request: AuthedRequest, pk: int) -> Attempt | None:
    return visible_attempt(request.user, pk)


def _get_exercise_for_user(request: HttpRequest, pk: int) -> Exercise | None:
    return visible_exercise(request.user, pk=pk)


def _get_suggestion_for_reviewer(request: AuthedRequest, pk: int) -> Suggestion | None:
    return reviewable_suggestions(request.user).filter(pk=pk).first()


def _is_reviewer(request: AuthedRequest) -> bool:
    return is_teacher(request.user) or is_admin(request.user)


def _submit_problem(
    request: HtmxRequest, exercise: Exercise | None, proof: str, message: str, status: int
) -> HttpResponse:
    """A refused submission: the message next to the editor; the proof text is never lost."""
    if request.htmx:
        # htmx swaps only 2xx answers; the editor keeps its text because only the message
        # box is replaced.
        response = render(request, "courses/exercise.html#form_errors", {"form_error": message})
        return reswap(retarget(response, "#form-errors"), "outerHTML")
    if exercise is None:
        return render(
            request, "courses/not_available.html", {"what": "this exercise"}, status=status
        )
    form = ProofForm(initial={"proof": proof})
    history = visible_attempts(request.user).filter(student_id=request.user.pk, exercise=exercise)[
        :20
    ]
    context = {"exercise": exercise, "form": form, "form_error": message, "history": history}
    return render(request, "courses/exercise.html", context, status=status)


@require_POST
def submit_attempt(request: HtmxRequest, exercise_pk: int) -> HttpResponse:
    proof = request.POST.get("proof", "")
    if not isinstance(request.user, User):  # not logged in (any more)
        if not request.htmx:
            return redirect_to_login(request.get_full_path())
        login = reverse("login")
        message = (
            f"Your session has expired. Log in again ({login}); your proof is kept in this browser."
        )
        return _submit_problem(request, None, proof, message, 401)
    exercise = _get_exercise_for_user(request, exercise_pk)
    if exercise is None:
        return _submit_problem(
            request, None, proof, "This exercise is not in any of your courses.", 404
        )
    if over_limit(request, "submit"):
        return _submit_problem(request, exercise, proof, limit_message("submit"), 429)
    try:
        submitted = do_submit_attempt(request.user, exercise, proof)
    except CheckInProgress as exc:
        return _submit_problem(request, exercise, proof, str(exc), 409)
    except InvalidInput as exc:
        return _submit_problem(request, exercise, proof, str(exc), 400)
    except DatabaseError as exc:
        # The database went away mid-request (a restart): nothing was saved; say so.
        # (Django drops the broken connection when the request ends; the next one reconnects.)
        log.warning("submit of exercise %s hit a database error: %s", exercise_pk, exc)
        message = (
            "Could not save your proof: the database did not answer. Your text is still in "
            "the editor: submit it again in a moment."
        )
        if not request.htmx:  # the full page would need the database again
            return HttpResponse(message, status=503, content_type="text/plain")
        return _submit_problem(request, exercise, proof, message, 503)
    if not request.htmx:
        return redirect(
            exercise.get_absolute_url() or reverse("courses:course", args=[exercise.course.slug])
        )
    # The page holds her history already: the answer adds the new row and redraws the lines
    # of the attempts this one superseded (as the action left them), without reading them.
    superseded = [Attempt(pk=pk, status=Attempt.Status.SUPERSEDED) for pk in submitted.superseded]
    context = {
        **live.attempt_context(submitted.attempt, just_created=True),
        "superseded": superseded,
        "exercise": exercise,
    }
    return render(request, "attempts/submitted.html", context)


@require_POST
def live_goals(request: HtmxRequest, exercise_pk: int) -> HttpResponse:
    """Goals while typing: queue a check-only run of the editor's text (records nothing;
    webapp/attempts/live_goals.py). 202 when queued; the answer comes on the page's socket."""
    if not isinstance(request.user, User):
        return JsonResponse({"error": "Your session has expired: log in again."}, status=401)
    exercise = _get_exercise_for_user(request, exercise_pk)
    if exercise is None:
        return JsonResponse({"error": "This exercise is not in any of your courses."}, status=404)
    try:
        seq = int(request.POST.get("seq", ""))
        client = str(request.POST.get("client", ""))[:64]
        proof = clean_proof(request.POST.get("proof", ""))
    except ValueError as exc:  # InvalidInput is one: its message is for her
        message = str(exc) if isinstance(exc, InvalidInput) else "A malformed goals request."
        return JsonResponse({"error": message}, status=400)
    if over_limit(request, "live_goals"):
        return JsonResponse({"error": limit_message("live_goals")}, status=429)
    try:
        live_goals_flow.request_goals(request.user.pk, exercise.pk, client, seq, proof)
    except Exception as exc:  # noqa: BLE001 - the broker or cache is away: say so, plainly
        log.warning("goals while typing not queued: %s", exc)
        message = "Goals while typing are unavailable right now; “Check my proof” still works."
        return JsonResponse({"error": message}, status=503)
    return JsonResponse({"queued": True, "seq": seq}, status=202)


@login_required
@require_GET
def attempt_detail(request: AuthedRequest, pk: int) -> HttpResponse:
    attempt = _get_attempt_for_user(request, pk)
    if attempt is None:
        return render(request, "courses/not_available.html", {"what": "this attempt"}, status=404)
    # The prover runs of the same student on the same exercise: her teachers see whether
    # the prover was asked (the same rule as for the attempt).
    runs = visible_runs(request.user).filter(user=attempt.student, exercise=attempt.exercise)
    opened = HintOpening.objects.filter(student=attempt.student, exercise=attempt.exercise)
    indexes = set(opened.values_list("index", flat=True))
    context = {
        **live.attempt_context(attempt),
        "prover_runs": runs.defer(*HEAVY_RUN_FIELDS)[:20],
        "hints_opened": len(indexes - {COACH_HINT_INDEX}),
        "hints_total": len(attempt.exercise.hints or []),
        "coach_hint": COACH_HINT_INDEX in indexes,
        **_review_context(request, attempt),
    }
    return render(request, "attempts/attempt.html", context)


def _review_context(request: AuthedRequest, attempt: Attempt) -> dict[str, object]:
    """The attempt's suggestions with the review queue's buttons, for a teacher who may review
    them (the queue's rule); nothing for anyone else, her own attempts included."""
    if attempt.student_id == request.user.pk or not _is_reviewer(request):
        return {}
    suggestions = reviewable_suggestions(request.user).filter(attempt=attempt)
    suggestions = suggestions.select_related("curated__teacher")
    items = list(suggestions.prefetch_related("attempt__diagnostics").order_by("line", "pk"))
    return {"review_items": items, "is_admin": is_admin(request.user)}


@login_required
@require_GET
def attempt_live(request: AuthedRequest, pk: int) -> HttpResponse:
    """The live fragments as htmx fetches them (the Refresh button; same as the push)."""
    attempt = _get_attempt_for_user(request, pk)
    if attempt is None:
        return HttpResponse("This attempt is not yours to see.", status=404)
    return HttpResponse(live.render_fragments(attempt))


@login_required
@require_GET
def review_queue(request: AuthedRequest) -> HttpResponse:
    if not _is_reviewer(request):
        return render(
            request, "courses/not_available.html", {"what": "the review queue"}, status=403
        )
    show_all = request.GET.get("show") == "all"
    suggestions = reviewable_suggestions(request.user).select_related("curated__teacher")
    suggestions = suggestions.prefetch_related("attempt__diagnostics")  # Lean's messages
    if not show_all:
        suggestions = suggestions.filter(review=Suggestion.Review.PENDING)
    suggestions = suggestions.order_by("-attempt__created_at", "line")[:REVIEW_PAGE_SIZE]
    context = {"suggestions": suggestions, "show_all": show_all, "is_admin": is_admin(request.user)}
    return render(request, "attempts/review.html", context)


@require_POST
@login_required
def review_suggestion(request: AuthedRequest, pk: int) -> HttpResponse:
    suggestion = _get_suggestion_for_reviewer(request, pk)
    if suggestion is None:
        return HttpResponse("This suggestion is not in your classes.", status=404)
    review = ReviewInput(
        verdict=request.POST.get("verdict", ""),
        text=request.POST.get("text", ""),
        reason=request.POST.get("reason", ""),
    )
    error = ""
    try:
        do_review_suggestion(request.user, suggestion, review)
    except InvalidInput as exc:
        error = str(exc)
    on_attempt = request.POST.get("on") == "attempt"  # sent from the attempt page
    if not request.htmx:
        messages.add_message(
            request, messages.ERROR if error else messages.SUCCESS, error or "Review saved."
        )
        return redirect(review_return_url(suggestion, on_attempt))
    suggestion.refresh_from_db()
    context = {
        "s": suggestion,
        "error": error,
        "posted": review if error else None,
        "is_admin": is_admin(request.user),
        "on_attempt": on_attempt,
    }
    return render(request, "attempts/_review_item.html", context)


def review_return_url(suggestion: Suggestion, on_attempt: bool) -> str:
    """Where a review without htmx returns: the page it was made on, at the suggestion."""
    if on_attempt:
        page = reverse("attempts:detail", args=[suggestion.attempt_id])
        return f"{page}#suggestion-{suggestion.pk}"
    return reverse("attempts:review")
