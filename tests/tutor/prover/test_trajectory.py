"""The Trajectory record training consumes: JSONL round trip and alignment checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tutor.prover.trajectory import (
    ToolCallRecord,
    Trajectory,
    Turn,
    Verdict,
    read_jsonl,
    reward_for,
    write_jsonl,
)


def sample() -> Trajectory:
    return Trajectory(
        problem_id="p",
        statement="theorem p : True := by",
        mode="agent",
        prompt_messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        tools=[],
        token_ids=[1, 2, 3, 4, 5],
        mask=[0, 0, 1, 1, 0],
        logprobs=[0.0, 0.0, -0.5, -0.25, 0.0],
        prompt_length=2,
        turns=[
            Turn(
                "t",
                2,
                4,
                "stop",
                [ToolCallRecord("lean_check_file", {"path": "a.lean"}, "{}", False)],
            )
        ],
        verdict=Verdict.INVALID,
        reward=0.0,
        feedback={"suggestions": [{"line": 1, "text": "Do X.", "kind": "do"}], "source": "fixed"},
    )


def test_it_round_trips_through_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    write_jsonl(str(path), [sample(), sample()])
    restored = read_jsonl(str(path))
    assert len(restored) == 2
    assert restored[0] == sample()
    assert (
        restored[0].verdict is Verdict.INVALID
        and restored[0].tool_calls[0].name == "lean_check_file"
    )


def test_alignment_errors_are_caught() -> None:
    sample().check_alignment()
    broken = sample()
    broken.logprobs[0] = -1.0
    with pytest.raises(ValueError, match="0.0 wherever mask is 0"):
        broken.check_alignment()
    short = sample()
    short.mask.pop()
    with pytest.raises(ValueError, match="equal length"):
        short.check_alignment()


def test_rewards_keep_could_not_check_apart() -> None:
    assert reward_for(Verdict.VALID) == 1.0
    assert reward_for(Verdict.INVALID) == 0.0 and reward_for(Verdict.NO_PROOF) == 0.0
    assert reward_for(Verdict.COULD_NOT_CHECK) is None


def test_teacher_messages_append_feedback_to_the_user_turn() -> None:
    teacher = sample().teacher_messages("Do use simp.")
    assert teacher[1]["content"] == "u\n\nDo use simp."
    assert sample().prompt_messages[1]["content"] == "u"  # the record is not changed
