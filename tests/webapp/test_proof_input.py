"""What a student can type or paste: characters no database or Lean takes are refused with a
message, sizes are limited in the browser and on the server with a message the page shows
(the text stays in the editor), and the feedback of a very long proof stays small."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.attempts import live
from webapp.attempts.actions import InvalidInput, clean_proof
from webapp.attempts.models import MAX_PROOF_CHARS, Attempt, LineDiagnostic, Suggestion

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI keys for Client.post


def _url(cast: Cast) -> str:
    return reverse("attempts:submit", args=[cast.exercise.pk])


@pytest.mark.parametrize(
    ("proof", "message"),
    [
        ("  simp\n  rw [h\x00]", "Line 2 of your proof contains a NUL character"),
        ("  simp\n\n  exact \ud83d", "Line 3 of your proof contains a broken character"),
        ("x" * (MAX_PROOF_CHARS + 1), f"the limit is {MAX_PROOF_CHARS:,}"),
    ],
)
def test_clean_proof_refuses_with_a_message(proof: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        clean_proof(proof)


def test_a_nul_byte_is_refused_where_the_student_sees_it(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    response = client.post(_url(cast), {"proof": "  rfl\x00"}, **HTMX)
    assert response.status_code == 200 and response["HX-Retarget"] == "#form-errors"
    assert "NUL character" in response.content.decode()
    assert not Attempt.objects.exists()


def test_a_raw_surrogate_in_the_body_never_reaches_the_database(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    # UTF-8 of a lone surrogate (U+D800), as a broken client might send it.
    response = client.post(
        _url(cast),
        b"proof=%20%20exact%20%ED%A0%80",
        content_type="application/x-www-form-urlencoded",
        **HTMX,
    )
    assert response.status_code == 200
    for attempt in Attempt.objects.all():
        assert not any("\ud800" <= c <= "\udfff" for c in attempt.proof)


def test_a_too_long_proof_gets_a_message_and_keeps_the_text(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    proof = "  rfl\n" * (MAX_PROOF_CHARS // 6 + 10)
    response = client.post(_url(cast), {"proof": proof}, **HTMX)
    assert response["HX-Retarget"] == "#form-errors" and response["HX-Reswap"] == "outerHTML"
    assert "Your text is still in the editor" in response.content.decode()
    # Without htmx, the page comes back with the text in the editor.
    page = client.post(_url(cast), {"proof": proof})
    assert page.status_code == 400 and proof.rstrip() in page.content.decode()
    assert not Attempt.objects.exists()


def test_the_browser_limits_the_editor_and_says_so(cast: Cast, client: Client) -> None:
    client.force_login(cast.student)
    page = client.get(
        reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name])
    ).content.decode()
    assert f'maxlength="{MAX_PROOF_CHARS}"' in page
    assert 'id="id_proof-limit-note"' in page and "reached the limit" in page


@pytest.mark.parametrize("csrf", [False, True])
@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
def test_a_body_over_djangos_limit_gets_a_message_not_a_bare_400(
    cast: Cast, csrf: bool, encoding: str
) -> None:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(cast.student)
    proof = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)

    def post(**extra: Any) -> Any:
        if encoding == "urlencoded":
            return client.post(
                _url(cast),
                urlencode({"proof": proof}),
                content_type="application/x-www-form-urlencoded",
                **extra,
            )
        return client.post(_url(cast), {"proof": proof}, **extra)

    response = post(**HTMX)
    assert response.status_code == 200  # htmx swaps it into the error box
    assert response["HX-Retarget"] == "#form-errors, #page-errors"
    html = response.content.decode()
    assert 'id="form-errors"' in html and "this site takes at most 2.6 MB" in html
    plain = post()
    assert plain.status_code == 413 and "Nothing was saved" in plain.content.decode()
    assert '<span class="who">sam</span>' in plain.content.decode()  # still logged in
    assert not Attempt.objects.exists()


def test_an_upload_is_not_caught_by_the_form_limit(cast: Cast, client: Client) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(cast.admin)
    big = SimpleUploadedFile("p.jsonl", b"\n" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10))
    response = client.post(reverse("courses:import"), {"course_slug": "c", "file": big})
    assert response.status_code == 302  # imported (an empty file): not refused as a form


def _long_attempt(cast: Cast, lines: int = 2_800) -> Attempt:
    proof = "\n".join(f"  have h{i} : {i} = {i} := rfl" for i in range(lines))
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof=proof, status="done", valid=False
    )
    for line in (5, 1_500, 2_790):
        LineDiagnostic.objects.create(
            attempt=attempt, line=line, severity="error", message=f"problem on {line}"
        )
    Suggestion.objects.create(attempt=attempt, line=1_500, text="look here")
    return attempt


def test_a_2800_line_proof_renders_a_small_feedback_panel(cast: Cast) -> None:
    attempt = _long_attempt(cast)
    started = time.perf_counter()
    html = live.render_fragments(attempt)
    elapsed = time.perf_counter() - started
    full_rows = len(attempt.proof_lines())
    print(f"feedback fragments: {len(html):,} bytes for {full_rows} lines in {elapsed:.3f}s")
    assert len(html) < 60_000
    for text in ("problem on 5", "problem on 1500", "problem on 2790", "look here"):
        assert text in html
    assert "lines without messages" in html
    assert "have h1499 : 1499 = 1499" in html  # the marked line itself, with its context
    assert "have h1200 : 1200 = 1200" not in html  # a quiet stretch is folded


def test_short_proofs_show_every_line(cast: Cast) -> None:
    attempt = _long_attempt(cast, lines=live.MAX_FULL_LINES)
    html = live.render_fragments(attempt)
    assert "lines without messages" not in html
    assert html.count("data-line=") == live.MAX_FULL_LINES + 1  # + the statement


def test_lines_with_messages_beyond_the_cap_are_counted(cast: Cast) -> None:
    attempt = _long_attempt(cast)
    LineDiagnostic.objects.bulk_create(
        LineDiagnostic(attempt=attempt, line=n, severity="warning", message="w")
        for n in range(2_000, 2_200)
    )
    html = live.render_fragments(attempt)
    assert "more lines with messages are not shown" in html
    assert len(html) < 200_000
