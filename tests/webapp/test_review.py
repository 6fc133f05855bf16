"""The teachers' review queue and approve / edit / reject with a reason."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.attempts.models import Attempt, CuratedFeedback, LineDiagnostic, Suggestion

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI keys for Client.post


@pytest.fixture
def suggestion(cast: Cast) -> Suggestion:
    attempt = Attempt.objects.create(
        student=cast.student,
        exercise=cast.exercise,
        proof="  simp\n  omega",
        status="done",
        valid=False,
    )
    return Suggestion.objects.create(
        attempt=attempt, line=2, text="Use rfl: n + 0 reduces to n.", kind="do", source="compiler"
    )


@pytest.fixture
def others_suggestion(cast: Cast) -> Suggestion:
    attempt = Attempt.objects.create(
        student=cast.other_student,
        exercise=cast.exercise,
        proof="  decide",
        status="done",
        valid=False,
    )
    return Suggestion.objects.create(
        attempt=attempt, line=1, text="Olly's advice", source="compiler"
    )


def _review(client: Client, suggestion: Suggestion, **data: str) -> str:
    response = client.post(
        reverse("attempts:review_suggestion", args=[suggestion.pk]), data, **HTMX
    )
    assert response.status_code == 200
    return response.content.decode()


def test_the_queue_shows_her_students_suggestions_at_their_lines(
    cast: Cast,
    client: Client,
    suggestion: Suggestion,
    others_suggestion: Suggestion,
) -> None:
    client.force_login(cast.teacher)
    body = client.get(reverse("attempts:review")).content.decode()
    assert "Use rfl: n + 0 reduces to n." in body
    assert "<mark>  omega</mark>" in body  # the line the suggestion is about
    assert "line 3 ·" in body or "line 3 " in body  # numbered in statement + proof
    assert "Olly&#x27;s advice" not in body


def test_it_rejects_students_from_the_queue(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    assert client.get(reverse("attempts:review")).status_code == 403


def test_admins_see_every_class(
    cast: Cast, client: Client, suggestion: Suggestion, others_suggestion: Suggestion
) -> None:
    client.force_login(cast.admin)
    body = client.get(reverse("attempts:review")).content.decode()
    assert "Use rfl" in body and "Olly&#x27;s advice" in body


def test_approve_makes_curated_feedback(cast: Cast, client: Client, suggestion: Suggestion) -> None:
    client.force_login(cast.teacher)
    body = _review(client, suggestion, verdict="approved", text="ignored", reason="")
    curated = CuratedFeedback.objects.get()
    assert (curated.verdict, curated.text, curated.teacher) == (
        "approved",
        suggestion.text,
        cast.teacher,
    )
    assert 'data-review="approved"' in body


def test_edit_keeps_the_teachers_text(cast: Cast, client: Client, suggestion: Suggestion) -> None:
    client.force_login(cast.teacher)
    _review(client, suggestion, verdict="edited", text="Close it with rfl.", reason="shorter")
    suggestion.refresh_from_db()
    assert suggestion.review == "edited"
    assert (suggestion.curated.text, suggestion.curated.reason) == ("Close it with rfl.", "shorter")


def test_the_student_then_sees_the_edited_text(
    cast: Cast, client: Client, suggestion: Suggestion
) -> None:
    client.force_login(cast.teacher)
    _review(client, suggestion, verdict="edited", text="Close it with rfl.")
    client.force_login(cast.student)
    body = client.get(reverse("attempts:detail", args=[suggestion.attempt_id])).content.decode()
    assert "Close it with rfl." in body and "edited by your teacher" in body


def test_reject_needs_a_reason(cast: Cast, client: Client, suggestion: Suggestion) -> None:
    client.force_login(cast.teacher)
    body = _review(client, suggestion, verdict="rejected", reason="  ")
    assert "Say why you reject it" in body
    assert not CuratedFeedback.objects.exists()
    _review(client, suggestion, verdict="rejected", reason="wrong line")
    assert CuratedFeedback.objects.get().reason == "wrong line"


def test_an_empty_edit_is_refused_and_loses_nothing(
    cast: Cast, client: Client, suggestion: Suggestion
) -> None:
    client.force_login(cast.teacher)
    body = _review(client, suggestion, verdict="edited", text="", reason="my reason")
    assert "An edit needs the corrected text." in body
    assert 'value="my reason"' in body


def test_a_second_review_replaces_the_first(
    cast: Cast, client: Client, suggestion: Suggestion
) -> None:
    client.force_login(cast.teacher)
    _review(client, suggestion, verdict="approved")
    _review(client, suggestion, verdict="edited", text="Better text.")
    assert CuratedFeedback.objects.get().verdict == "edited"


def test_it_rejects_other_teachers(cast: Cast, client: Client, suggestion: Suggestion) -> None:
    client.force_login(cast.other_teacher)
    response = client.post(
        reverse("attempts:review_suggestion", args=[suggestion.pk]), {"verdict": "approved"}
    )
    assert response.status_code == 404
    assert not CuratedFeedback.objects.exists()


def test_it_rejects_students(cast: Cast, client: Client, suggestion: Suggestion) -> None:
    client.force_login(cast.student)
    response = client.post(
        reverse("attempts:review_suggestion", args=[suggestion.pk]), {"verdict": "approved"}
    )
    assert response.status_code == 404
    assert not CuratedFeedback.objects.exists()


def test_a_rejected_suggestion_is_hidden_from_the_student(
    cast: Cast, client: Client, suggestion: Suggestion
) -> None:
    client.force_login(cast.teacher)
    _review(client, suggestion, verdict="rejected", reason="misleading")
    client.force_login(cast.student)
    body = client.get(reverse("attempts:detail", args=[suggestion.attempt_id])).content.decode()
    assert "Use rfl: n + 0 reduces to n." not in body


def _attempt_page(client: Client, suggestion: Suggestion) -> str:
    response = client.get(reverse("attempts:detail", args=[suggestion.attempt_id]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_attempt_page_offers_the_queue_s_review_buttons(
    cast: Cast, client: Client, suggestion: Suggestion
) -> None:
    """The teacher reading the attempt reviews it there: the queue's item (Lean's message,
    the coach's text, approve / edit / reject), without the proof the page already shows."""
    for line, message in ((1, "simp made no progress"), (2, "omega could not prove the goal")):
        LineDiagnostic.objects.create(
            attempt=suggestion.attempt, line=line, severity="error", message=message
        )
    client.force_login(cast.teacher)
    queue = client.get(reverse("attempts:review")).content.decode()
    assert "Lean said, line 2:" in queue and "Lean said, line 3:" in queue  # every message
    body = _attempt_page(client, suggestion)
    assert 'id="attempt-review"' in body and f'id="suggestion-{suggestion.pk}"' in body
    item = body[body.index(f'id="suggestion-{suggestion.pk}"') :]
    for verdict in ("approved", "edited", "rejected"):
        assert f'name="verdict" value="{verdict}"' in item
    assert "Lean said, line 3:" in item and "omega could not prove the goal" in item
    # Only the suggestion's own line's: the page's panel shows every message already.
    assert "Lean said, line 2:" not in item
    assert 'name="on" value="attempt"' in item
    assert '<pre class="lean readonly">' not in item  # the page's own view shows the proof


def test_a_review_on_the_attempt_page_goes_through_the_same_action_and_fragment(
    cast: Cast, client: Client, suggestion: Suggestion
) -> None:
    client.force_login(cast.teacher)
    body = _review(client, suggestion, verdict="edited", text="Close it with rfl.", on="attempt")
    curated = CuratedFeedback.objects.get()
    assert (curated.verdict, curated.text, curated.teacher) == (
        "edited",
        "Close it with rfl.",
        cast.teacher,
    )
    # htmx swaps in the attempt page's variant of the queue's item.
    assert body.lstrip().startswith(f'<li id="suggestion-{suggestion.pk}"')
    assert 'data-review="edited"' in body and 'name="on" value="attempt"' in body
    assert '<pre class="lean readonly">' not in body
    # Without htmx, the answer leads back to the attempt page, at the suggestion.
    response = client.post(
        reverse("attempts:review_suggestion", args=[suggestion.pk]),
        {"verdict": "approved", "on": "attempt"},
    )
    page = reverse("attempts:detail", args=[suggestion.attempt_id])
    assert response["Location"] == f"{page}#suggestion-{suggestion.pk}"
    assert CuratedFeedback.objects.get().verdict == "approved"
    # From the queue it stays the queue.
    response = client.post(
        reverse("attempts:review_suggestion", args=[suggestion.pk]), {"verdict": "approved"}
    )
    assert response["Location"] == reverse("attempts:review")


@pytest.mark.parametrize("who", ["student", "other_teacher"])
def test_the_attempt_page_offers_no_review_to_others(
    cast: Cast, client: Client, suggestion: Suggestion, who: str
) -> None:
    """Sam reads her own attempt without review buttons; Otto does not teach her (404)."""
    client.force_login(getattr(cast, who))
    response = client.get(reverse("attempts:detail", args=[suggestion.attempt_id]))
    assert 'id="attempt-review"' not in response.content.decode()
    assert 'name="verdict"' not in response.content.decode()
