"""POST /attempts/submit/<exercise>/ : do_submit_attempt, its checks and messages."""

from __future__ import annotations

from typing import Any

from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.attempts.models import MAX_PROOF_CHARS, Attempt, Progress

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI keys for Client.post


def _url(cast: Cast) -> str:
    return reverse("attempts:submit", args=[cast.exercise.pk])


def test_it_creates_an_attempt_and_queues_the_check_on_commit(
    cast: Cast,
    client: Client,
    django_capture_on_commit_callbacks: Any,
) -> None:
    client.force_login(cast.student)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(_url(cast), {"proof": "  rfl"}, **HTMX)
    assert response.status_code == 200
    attempt = Attempt.objects.get()
    assert (attempt.student, attempt.proof, attempt.status) == (cast.student, "  rfl", "queued")
    assert len(callbacks) == 1  # enqueue_check on commit, nothing sent before commit
    body = response.content.decode()
    # No socket of its own: it tells the exercise page's socket which state it draws.
    assert "ws-connect" not in body
    assert f'ws-send hx-trigger="load" hx-vals=\'{{"shown": "{attempt.pk}:queued-0"}}\'' in body
    # Its row goes on top of the history the page shows (the rest is there already).
    # Only where the list lacks it: the page's socket may have redrawn the list first.
    target = f"afterbegin:#history ol:not(:has(#history-status-{attempt.pk}))"
    assert f'<ol hx-swap-oob="{target}"><li>' in body
    assert f'href="/attempts/{attempt.pk}/"' in body and 'id="history"' not in body
    assert Progress.objects.get(student=cast.student, exercise=cast.exercise).attempts == 1


def test_without_htmx_it_redirects_to_the_exercise(
    cast: Cast,
    client: Client,
    django_capture_on_commit_callbacks: Any,
) -> None:
    client.force_login(cast.student)
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(_url(cast), {"proof": "  rfl"})
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "courses:exercise", args=[cast.course.slug, cast.exercise.name]
    )


def test_it_refuses_an_empty_proof_with_a_message(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    response = client.post(_url(cast), {"proof": "   \n  "}, **HTMX)
    assert response.status_code == 200  # htmx swaps only 2xx: the message goes to the box
    assert response["HX-Retarget"] == "#form-errors"
    assert "the editor is empty" in response.content.decode()
    assert not Attempt.objects.exists()


def test_it_refuses_a_huge_proof_and_gives_the_text_back(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    proof = "  simp\n" * (MAX_PROOF_CHARS // 7 + 10)
    response = client.post(_url(cast), {"proof": proof})
    assert response.status_code == 400
    body = response.content.decode()
    assert "the limit is 20,000" in body
    assert proof.rstrip() in body  # the editor comes back with the text
    assert not Attempt.objects.exists()


def test_it_rejects_other_classes_courses(cast: Cast, client: Client) -> None:
    client.force_login(cast.outsider)
    response = client.post(_url(cast), {"proof": "  rfl"}, **HTMX)
    assert "not in any of your courses" in response.content.decode()
    assert not Attempt.objects.exists()


def test_it_rejects_a_wrong_exercise(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    response = client.post(reverse("attempts:submit", args=[999999]), {"proof": "  rfl"})
    assert response.status_code == 404
    assert "Not available" in response.content.decode()


def test_an_expired_session_keeps_the_proof(cast: Cast, client: Client) -> None:
    response = client.post(_url(cast), {"proof": "  rfl"}, **HTMX)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#form-errors"
    body = response.content.decode()
    assert "session has expired" in body and "your proof is kept" in body
    assert not Attempt.objects.exists()


def test_an_expired_session_without_htmx_goes_to_login(cast: Cast, client: Client) -> None:
    response = client.post(_url(cast), {"proof": "  rfl"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_only_accepts_post(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    assert client.get(_url(cast)).status_code == 405


def test_a_second_submit_redraws_the_line_of_the_one_it_superseded(
    cast: Cast,
    client: Client,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """do_submit_attempt says which attempts it superseded (Submitted.superseded), and the
    answer redraws their history lines from that, without reading them again."""
    client.force_login(cast.student)
    with django_capture_on_commit_callbacks(execute=False):
        client.post(_url(cast), {"proof": "  first"}, **HTMX)
        response = client.post(_url(cast), {"proof": "  second"}, **HTMX)
    first, second = Attempt.objects.order_by("pk")
    assert (first.status, second.status) == ("superseded", "queued")
    body = response.content.decode()
    line = f'<span id="history-status-{first.pk}" class="badge " hx-swap-oob="true">superseded'
    assert line in body
    assert f'id="history-status-{second.pk}"' in body


def test_do_submit_attempt_returns_what_it_made_and_superseded(cast: Cast) -> None:
    from webapp.attempts.actions import Submitted, do_submit_attempt

    first = do_submit_attempt(cast.student, cast.exercise, "  one")
    assert first == Submitted(Attempt.objects.get(proof="  one"), [])
    second = do_submit_attempt(cast.student, cast.exercise, "  two")
    assert second.attempt.proof == "  two" and second.superseded == [first.attempt.pk]
    assert not hasattr(second.attempt, "superseded_pks")  # nothing hung on the model
