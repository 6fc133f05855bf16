"""Agentic whole-proof mode end to end: the real LeanChecker and LeanWorkspace tools on
the fake REPL subprocess, with a scripted policy (exact token bookkeeping) and with the
tiny random model (real sampling, real log-probabilities)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tutor.prover.doubles import ScriptedPolicy, write_call
from tutor.prover.agent import AgentConfig, rollout, tool_turn_text
from tutor.prover.lean_adapter import lean_tools_factory
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory, Verdict

PROBLEM = Problem("add_zero", "theorem add_zero' (n : Nat) : n + 0 = n := by")
GOOD = "theorem add_zero' (n : Nat) : n + 0 = n := by\n  simp"
BAD = "theorem add_zero' (n : Nat) : n + 0 = n := by\n  skip -- fake: error unsolved_goals"


def scripted(tiny_policy: Any, replies: list[str]) -> ScriptedPolicy:
    return ScriptedPolicy(
        tiny_policy.tokenizer, lambda prompt, i: replies[min(i, len(replies) - 1)]
    )


def assert_training_ready(trajectory: Trajectory, policy: Any) -> None:
    trajectory.check_alignment()
    # The flat token sequence is exactly the chat the messages describe, as the
    # tokenizer's own template renders it: nothing re-tokenised, nothing lost.
    rendered = policy.render_chat(
        trajectory.messages, tools=trajectory.tools, add_generation_prompt=False
    )
    assert policy.decode(trajectory.token_ids) == rendered.rstrip("\n")
    # Model-generated tokens are exactly the assistant turns (a turn cut off by
    # max_tokens may end with one environment-inserted end token, mask 0).
    inside: set[int] = set()
    for turn in trajectory.turns:
        span = trajectory.mask[turn.token_start : turn.token_end]
        assert all(span[:-1]) and len(span) > 0
        assert span[-1] == 1 or turn.finish_reason == "length"
        inside.update(range(turn.token_start, turn.token_end))
    assert not any(m for i, m in enumerate(trajectory.mask) if i not in inside)
    assert trajectory.prompt_length > 0 and not any(trajectory.mask[: trajectory.prompt_length])


def test_it_proves_after_reading_leans_error(tiny_policy: Any, make_checker: Any) -> None:
    checker = make_checker()
    policy = scripted(tiny_policy, [write_call(BAD), write_call(GOOD)])
    events: list[dict[str, Any]] = []
    [trajectory] = rollout(
        policy,
        [PROBLEM],
        config=AgentConfig(max_turns=4),
        checker=checker,
        tools_factory=lean_tools_factory(checker),
        on_event=lambda e: events.append(e.to_dict()),
    )
    assert trajectory.verdict is Verdict.VALID and trajectory.reward == 1.0
    assert trajectory.stop_reason == "valid"
    assert trajectory.final_proof == GOOD
    assert trajectory.check is not None and trajectory.check["valid"] is True
    assert len(trajectory.turns) == 2
    first_call = trajectory.turns[0].tool_calls[0]
    assert first_call.name == "lean_write_file" and first_call.valid is False
    assert "unsolved goals" in first_call.output
    # The second turn was sampled after seeing Lean's message inside a tool response.
    assert "<tool_response>" in policy.prompts[1] and "unsolved goals" in policy.prompts[1]
    assert_training_ready(trajectory, policy)
    assert [m for m in trajectory.mask if m] and trajectory.logprobs[
        trajectory.turns[0].token_start
    ] == -0.01
    kinds = [e["type"] for e in events]
    assert kinds[0] == "started" and kinds[-1] == "finished"
    assert (
        kinds.count("model_turn") == 2
        and kinds.count("tool_call") == 2
        and kinds.count("lean_result") == 2
    )
    assert events[-1]["verdict"] == "valid"


def test_a_changed_statement_is_wrong_not_unchecked(tiny_policy: Any, make_checker: Any) -> None:
    checker = make_checker()
    cheat = "theorem add_zero' (n : Nat) : True := by\n  trivial"
    policy = scripted(tiny_policy, [write_call(cheat)])
    [trajectory] = rollout(
        policy,
        [PROBLEM],
        config=AgentConfig(max_turns=2),
        checker=checker,
        tools_factory=lean_tools_factory(checker),
    )
    assert trajectory.verdict is Verdict.INVALID and trajectory.reward == 0.0
    assert trajectory.stop_reason == "max_turns"
    assert trajectory.final_proof == cheat


def test_a_crashed_checker_means_could_not_check(tiny_policy: Any, make_checker: Any) -> None:
    checker = make_checker()
    crash = "theorem add_zero' (n : Nat) : n + 0 = n := by\n  simp -- fake: crash"
    policy = scripted(tiny_policy, [write_call(crash)])
    [trajectory] = rollout(
        policy,
        [PROBLEM],
        config=AgentConfig(max_turns=1),
        checker=checker,
        tools_factory=lean_tools_factory(checker),
    )
    assert trajectory.verdict is Verdict.COULD_NOT_CHECK
    assert trajectory.reward is None  # "could not check" is never "wrong"
    assert trajectory.turns[0].tool_calls[0].could_not_check


def test_an_answer_without_tools_is_checked_from_its_lean_block(
    tiny_policy: Any, make_checker: Any
) -> None:
    checker = make_checker()
    policy = scripted(tiny_policy, ["The proof:\n```lean\nsimp\n```"])
    [trajectory] = rollout(
        policy, [PROBLEM], checker=checker, tools_factory=lean_tools_factory(checker)
    )
    assert trajectory.verdict is Verdict.VALID
    assert trajectory.final_proof is not None and trajectory.final_proof.endswith("  simp\n")


def test_n_attempts_come_back_problem_major_with_coach_feedback(
    tiny_policy: Any, make_checker: Any
) -> None:
    checker = make_checker()
    other = Problem("two", "theorem two : 2 + 2 = 4 := by")

    def script(prompt: str, i: int) -> str:
        return "I give up." if "two" in prompt else write_call(BAD)

    class RecordingCoach:
        def __init__(self) -> None:
            self.calls: list[tuple[str, str, int]] = []

        def advise(
            self, statement: str, attempt: str, diagnostics: Any, reference_proof: Any = None
        ) -> Any:
            from tutor.coach.types import Feedback, Suggestion

            self.calls.append((statement, attempt, len(diagnostics)))
            return Feedback([Suggestion(2, "Do use simp to close n + 0 = n.")], source="fixed")

    coach = RecordingCoach()
    trajectories = rollout(
        ScriptedPolicy(tiny_policy.tokenizer, script),
        [PROBLEM, other],
        n=2,
        config=AgentConfig(max_turns=2, coach_on="failed"),
        checker=checker,
        tools_factory=lean_tools_factory(checker),
        coach=coach,
    )
    assert [t.problem_id for t in trajectories] == ["add_zero", "add_zero", "two", "two"]
    assert [t.verdict for t in trajectories] == [Verdict.INVALID] * 2 + [Verdict.NO_PROOF] * 2
    assert [t.stop_reason for t in trajectories] == [
        "max_turns",
        "max_turns",
        "no_tool_call",
        "no_tool_call",
    ]
    assert all(
        t.feedback and t.feedback["suggestions"][0]["text"].startswith("Do use simp")
        for t in trajectories
    )
    assert coach.calls[0][1] == BAD and coach.calls[0][2] >= 1  # the coach saw Lean's error
    teacher = trajectories[0].teacher_messages("Do use simp.")
    assert (
        teacher[-1]["content"].endswith("Do use simp.")
        and teacher[0] == trajectories[0].prompt_messages[0]
    )


def test_cancellation_stops_between_turns(tiny_policy: Any, make_checker: Any) -> None:
    checker = make_checker()
    policy = scripted(tiny_policy, [write_call(BAD)])
    turns: list[int] = []
    [trajectory] = rollout(
        policy,
        [PROBLEM],
        config=AgentConfig(max_turns=5),
        checker=checker,
        tools_factory=lean_tools_factory(checker),
        on_event=lambda e: turns.append(1) if e.type == "model_turn" else None,
        should_cancel=lambda: len(turns) >= 1,
    )
    assert trajectory.stop_reason == "cancelled" and len(trajectory.turns) == 1


def test_the_tiny_model_rollout_is_training_ready(tiny_policy: Any, make_checker: Any) -> None:
    """Real sampling: whatever the random model writes, ids/mask/logprobs line up and the
    recorded log-probabilities are those of the sampling distribution."""
    import torch

    checker = make_checker()
    config = AgentConfig(
        max_turns=2, max_turn_tokens=24, max_total_tokens=64, temperature=0.8, seed=7
    )
    trajectories = rollout(
        tiny_policy,
        [PROBLEM],
        n=2,
        config=config,
        checker=checker,
        tools_factory=lean_tools_factory(checker),
    )
    assert len(trajectories) == 2
    for trajectory in trajectories:
        trajectory.check_alignment()
        assert trajectory.verdict in (Verdict.NO_PROOF, Verdict.INVALID)
        ids = torch.tensor([trajectory.token_ids])
        with torch.no_grad():
            logits = tiny_policy.model(ids).logits[0].float()
        logp = torch.log_softmax(logits / 0.8, dim=-1)
        for position, (token, m) in enumerate(
            zip(trajectory.token_ids, trajectory.mask, strict=True)
        ):
            if m:
                recomputed = logp[position - 1, token].item()
                assert recomputed == pytest.approx(trajectory.logprobs[position], abs=1e-4)
        restored = Trajectory.from_json(trajectory.to_json())
        assert restored.token_ids == trajectory.token_ids and restored.verdict is trajectory.verdict


def test_tool_turn_text_matches_the_template(tiny_policy: Any) -> None:
    text = tool_turn_text(tiny_policy, [{"role": "tool", "content": "OUT"}], [], "<|im_end|>")
    assert (
        text
        == "\n<|im_start|>user\n<tool_response>\nOUT\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
    )


def test_a_lean_workbook_problem_with_imports_and_opens(
    tiny_policy: Any, make_checker: Any
) -> None:
    checker = make_checker()
    problem = Problem.from_dict(
        {
            "name": "lean_workbook_101",
            "header": "import Mathlib\nimport Aesop\n\nopen BigOperators\n\nopen Nat\n\n",
            "formal_statement": "theorem lean_workbook_101 (x : ℕ) (hx : x = 2^9 + 1) : x = 513 := by\n",
        }
    )
    proof = problem.with_proof("subst hx\nnorm_num")  # what SFT teaches: header + statement + proof
    policy = scripted(tiny_policy, [write_call(proof)])
    [trajectory] = rollout(
        policy, [problem], checker=checker, tools_factory=lean_tools_factory(checker)
    )
    assert trajectory.turns[0].tool_calls[0].valid is True
    assert trajectory.verdict is Verdict.VALID and trajectory.final_proof == proof
    assert "import Mathlib" in trajectory.prompt_messages[1]["content"]


def test_a_turn_cut_off_by_max_tokens_is_closed_by_the_environment(
    tiny_policy: Any, make_checker: Any
) -> None:
    checker = make_checker()
    policy = scripted(tiny_policy, ["x" * 200 + write_call(GOOD)])
    [trajectory] = rollout(
        policy,
        [PROBLEM],
        config=AgentConfig(max_turns=3, max_turn_tokens=8, max_total_tokens=64),
        checker=checker,
        tools_factory=lean_tools_factory(checker),
    )
    turn = trajectory.turns[0]
    assert turn.finish_reason == "length" and turn.token_end - turn.token_start == 9
    closing = turn.token_end - 1
    assert (
        trajectory.token_ids[closing] == policy.turn_end_id() == tiny_policy.tokenizer.eos_token_id
    )
    assert trajectory.mask[closing] == 0 and trajectory.logprobs[closing] == 0.0
    assert trajectory.stop_reason == "no_tool_call" and trajectory.verdict is Verdict.NO_PROOF
