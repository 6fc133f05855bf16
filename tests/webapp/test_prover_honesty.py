"""Honesty about the prover: a student's runs are visible to her teachers (class page,
attempt page), and the prover's proof reaches the student only once she has solved the
exercise, or when her class allows full proofs. Its search, goals and Lean's messages are
always shown."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from webapp.attempts.models import Attempt, Progress
from webapp.provers.live import push_prover_state
from webapp.provers.models import ProverRun

PROOF = "theorem cast_add_zero (n : Nat) : n + 0 = n := by\n  simp_secret_proof"
EVENTS: list[dict[str, Any]] = [
    {"type": "started", "mode": "agent", "model": "tiny"},
    {"type": "model_turn", "turn": 1, "n_tokens": 9, "text": "I will write simp_secret_proof"},
    {"type": "tool_call", "name": "lean_write_file", "arguments": {"code": PROOF}},
    {"type": "lean_result", "valid": False, "output": "unsolved goals ⊢ n + 0 = n"},
    {"type": "search_expansion", "iteration": 1, "tactic": "simp", "status": "ok", "source": "m"},
    {"type": "finished", "verdict": "valid", "stop_reason": "proved", "proof": PROOF},
]


@pytest.fixture
def run(cast: Cast) -> ProverRun:
    return ProverRun.objects.create(
        exercise=cast.exercise,
        user=cast.student,
        status="finished",
        verdict="valid",
        events=EVENTS,
        result={"final_proof": PROOF},
    )


def _page(client: Client, run: ProverRun) -> str:
    return client.get(reverse("provers:run", args=[run.pk])).content.decode()


def test_before_solving_the_student_sees_the_search_not_the_proof(
    cast: Cast, client: Client, run: ProverRun
) -> None:
    client.force_login(cast.student)
    page = _page(client, run)
    assert "simp_secret_proof" not in page
    assert "hidden until you solve this exercise" in page and 'id="prover-proof-hidden"' in page
    assert "unsolved goals ⊢ n + 0 = n" in page  # Lean's messages and goals
    assert "#1 simp → ok" in page  # the search
    panel = client.get(reverse("provers:run_panel", args=[run.pk])).content.decode()
    assert "simp_secret_proof" not in panel


def test_after_solving_the_student_sees_the_proof(
    cast: Cast, client: Client, run: ProverRun
) -> None:
    Progress.objects.create(student=cast.student, exercise=cast.exercise, solved=True)
    client.force_login(cast.student)
    assert 'id="prover-proof"' in _page(client, run)


def test_a_class_may_allow_full_proofs(cast: Cast, client: Client, run: ProverRun) -> None:
    client.force_login(cast.other_teacher)  # not Sam's class: refused, nothing changes
    url = reverse("accounts:classroom_prover", args=[cast.classroom.pk])
    assert client.post(url, {"prover_shows_full_proofs": "on"}).status_code == 403
    client.force_login(cast.student)
    assert "simp_secret_proof" not in _page(client, run)
    client.force_login(cast.teacher)
    assert client.post(url, {"prover_shows_full_proofs": "on"}).status_code == 302
    cast.classroom.refresh_from_db()
    assert cast.classroom.prover_shows_full_proofs
    client.force_login(cast.student)
    assert "simp_secret_proof" in _page(client, run)
    client.force_login(cast.teacher)
    client.post(url, {})  # unchecked box: back to the default
    cast.classroom.refresh_from_db()
    assert not cast.classroom.prover_shows_full_proofs


def test_another_class_allowing_it_does_not_count_for_this_course(
    cast: Cast, client: Client, run: ProverRun
) -> None:
    # Otto's class allows full proofs, but Sam is not in it.
    cast.other_classroom.prover_shows_full_proofs = True
    cast.other_classroom.save()
    client.force_login(cast.student)
    assert "simp_secret_proof" not in _page(client, run)


@pytest.mark.parametrize("who", ["teacher", "admin"])
def test_teachers_and_admins_see_exactly_what_the_prover_gave(
    cast: Cast, client: Client, run: ProverRun, who: str
) -> None:
    client.force_login(getattr(cast, who))
    assert 'id="prover-proof"' in _page(client, run) and "simp_secret_proof" in _page(client, run)


def test_the_class_page_lists_the_students_prover_runs(
    cast: Cast, client: Client, run: ProverRun
) -> None:
    client.force_login(cast.teacher)
    page = client.get(reverse("accounts:classroom", args=[cast.classroom.pk])).content.decode()
    assert f'data-prover-run="{run.pk}"' in page and "<strong>sam</strong>" in page
    assert "1 in all" in page
    # Otto's class page does not list Sam's run (Sam is not his student).
    client.force_login(cast.other_teacher)
    page = client.get(
        reverse("accounts:classroom", args=[cast.other_classroom.pk])
    ).content.decode()
    assert f'data-prover-run="{run.pk}"' not in page


def test_the_attempt_page_shows_the_teacher_the_prover_runs(
    cast: Cast, client: Client, run: ProverRun
) -> None:
    attempt = Attempt.objects.create(
        student=cast.student, exercise=cast.exercise, proof="  rfl", status="done", valid=True
    )
    client.force_login(cast.teacher)
    page = client.get(reverse("attempts:detail", args=[attempt.pk])).content.decode()
    assert 'id="attempt-prover-runs"' in page and f'data-prover-run="{run.pk}"' in page


def test_the_student_is_told_her_teachers_see_her_runs(
    cast: Cast, client: Client, run: ProverRun
) -> None:
    client.force_login(cast.student)
    page = client.get(
        reverse("courses:exercise", args=[cast.course.slug, cast.exercise.name])
    ).content.decode()
    assert 'id="my-prover-runs"' in page and "Your teachers see these runs too." in page


def test_pushes_carry_the_students_view(
    cast: Cast, run: ProverRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[str] = []
    monkeypatch.setattr(
        "webapp.provers.live.push", lambda group, html, final=False: sent.append(html)
    )
    push_prover_state(run.pk, final=True)
    assert sent and "simp_secret_proof" not in sent[0] and "hidden until you solve" in sent[0]
