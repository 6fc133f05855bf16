"""Teachers improve the coach: an edit changes the next student's advice on the same mistake,
approved/edited suggestions reach the LLM prompt as examples, and two rejections switch a
suggestion off for that exercise until a teacher re-enables it."""

from __future__ import annotations

from tests.tutor.coach.fake_llm_server import FakeLLMServer, echo_replies
from tests.tutor.coach.helpers import diag
from tutor.coach import make_coach
from tutor.coach.llm_client import LLMConfig
from tutor.coach.teaching import (
    ExampleBank,
    TaughtCoach,
    TeacherExample,
    signature,
    suppressed_kinds,
)
from tutor.lean.types import DiagnosticKind

STATEMENT = "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by"
ATTEMPT = STATEMENT + "\n  intro h\n  exact hp"
INTRO_N = "tactic 'introN' failed, insufficient number of binders"
MISTAKE = diag(2, 2, INTRO_N, DiagnosticKind.INTRO_FAILED)
EDIT = (
    "Do split the goal with `constructor` on line 2: an ∧ goal is proved by proving both parts, "
    "first `p` with `exact hp`, then `q` with `exact hq`."
)


def _example(text: str = EDIT, edited: bool = True) -> TeacherExample:
    kind, shape, message = signature(MISTAKE)
    return TeacherExample(kind, shape, message, text, edited=edited)


def test_a_teachers_edit_changes_the_next_students_advice_on_the_same_mistake() -> None:
    before = make_coach("compiler").advise(STATEMENT, ATTEMPT, [MISTAKE])
    assert before.suggestions[0].text != EDIT
    taught = TaughtCoach(make_coach("compiler"), ExampleBank([_example()]))
    after = taught.advise(STATEMENT, ATTEMPT, [MISTAKE])
    assert after.suggestions[0].text == EDIT and after.suggestions[0].line == 2
    assert (after.prompt_version or "").endswith("+teacher")
    # A different mistake keeps the coach's own advice.
    other = diag(2, 8, "Unknown identifier `h`", DiagnosticKind.UNKNOWN_IDENTIFIER)
    assert taught.advise(STATEMENT, ATTEMPT, [other]).suggestions[0].text != EDIT


def test_examples_reach_the_llm_prompt_and_change_its_answer() -> None:
    server = FakeLLMServer().start()
    server.responder = echo_replies
    try:
        config = LLMConfig(
            provider="openai", model="fake", api_key="x", base_url=server.url + "/v1"
        )
        plain = make_coach("llm", config=config, cache=False)
        untaught = plain.advise(STATEMENT, ATTEMPT, [MISTAKE])
        assert EDIT not in [s.text for s in untaught.suggestions]
        bank = ExampleBank([_example(), _example("Do something unrelated " * 3, False)], limit=2)
        taught = TaughtCoach(make_coach("llm", config=config, cache=False), bank)
        feedback = taught.advise(STATEMENT, ATTEMPT, [MISTAKE])
        prompt = server.requests[-1][1]["messages"][-1]["content"]
        assert "Teacher-approved advice" in prompt and EDIT in prompt
        assert feedback.suggestions[0].text == EDIT and feedback.source == "llm"
    finally:
        server.stop()


def test_retrieval_is_by_kind_then_shape_and_capped() -> None:
    kind, shape, message = signature(MISTAKE)
    bank = ExampleBank(
        [
            TeacherExample("unknown_identifier", shape, "x", "Do A " * 4),
            TeacherExample(kind, "eq", "other", "Do B " * 4),
            TeacherExample(kind, shape, message, "Do C " * 4),
            TeacherExample(kind, shape, "other", "Do D " * 4),
        ],
        limit=2,
    )
    assert [e.text.split()[1] for e in bank.retrieve([MISTAKE])] == ["C", "D"]


def test_two_rejections_switch_a_kind_off_and_a_teacher_can_switch_it_back() -> None:
    assert suppressed_kinds(["intro_failed"]) == frozenset()
    off = suppressed_kinds(["intro_failed", "intro_failed", "syntax"])
    assert off == {"intro_failed"}
    coach = TaughtCoach(make_coach("compiler"), suppressed=off)
    feedback = coach.advise(STATEMENT, ATTEMPT, [MISTAKE])
    assert "teachers turned off" in feedback.suggestions[0].text
    assert "constructor" not in feedback.suggestions[0].text
    back = suppressed_kinds(["intro_failed", "intro_failed"], reenabled=["intro_failed"])
    assert back == frozenset()
    again = TaughtCoach(make_coach("compiler"), suppressed=back)
    assert "constructor" in again.advise(STATEMENT, ATTEMPT, [MISTAKE]).suggestions[0].text
