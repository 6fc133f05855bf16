"""Alignment of the student's and the teacher's views of the same response tokens y."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from training.batches import (
    SequenceBatch,
    gather_response_logits,
    render_prompt_ids,
    response_targets,
    student_batch,
    teacher_batch,
)
from training.ema import make_teacher
from training.losses import feedback_distillation_loss
from tutor.prover.trajectory import Trajectory

MESSAGES = [
    {"role": "system", "content": "You are a Lean 4 prover."},
    {"role": "user", "content": "Prove theorem t : 1 + 1 = 2 := by"},
]


@pytest.fixture(scope="module")
def tok(tiny_model_dir: Path):
    return AutoTokenizer.from_pretrained(tiny_model_dir)


def _trajectory(tok, y_text: str, tool_text: str = "") -> Trajectory:
    prompt = render_prompt_ids(tok, MESSAGES, [])
    y = tok.encode(y_text, add_special_tokens=False)
    tool = tok.encode(tool_text, add_special_tokens=False)
    ids = prompt + y + tool + y
    mask = [0] * len(prompt) + [1] * len(y) + [0] * len(tool) + [1] * len(y)
    return Trajectory(
        problem_id="t",
        statement="theorem t : 1 + 1 = 2 := by",
        mode="agent",
        prompt_messages=MESSAGES,
        tools=[],
        token_ids=ids,
        mask=mask,
        logprobs=[-0.5 if m else 0.0 for m in mask],
        prompt_length=len(prompt),
    )


def test_teacher_sees_feedback_in_the_user_turn_then_the_same_y(tok):
    traj = _trajectory(tok, "by norm_num", "<tool_response>ok</tool_response>")
    batch = teacher_batch([traj], ["Do use Real.pi instead of the unicode symbol."], tok, pad_id=0)
    start = batch.starts[0]
    row = batch.input_ids[0, : start + batch.lengths[0]].tolist()
    assert row[start:] == traj.token_ids[traj.prompt_length :]
    prompt_text = tok.decode(row[:start])
    assert "Prove theorem t" in prompt_text and "Do use Real.pi" in prompt_text
    assert (
        prompt_text.index("Prove theorem t")
        < prompt_text.index("Do use Real.pi")
        < prompt_text.rindex("assistant")
    )


def test_gather_picks_the_positions_that_predict_y():
    logits = torch.arange(10, dtype=torch.float32).view(1, 10, 1).repeat(2, 1, 3)
    batch = SequenceBatch(
        torch.zeros(2, 10, dtype=torch.long), torch.ones(2, 10), starts=[4, 7], lengths=[5, 3]
    )
    got = gather_response_logits(logits, batch, width=5)[..., 0]
    assert got[0].tolist() == [3, 4, 5, 6, 7]
    assert got[1, :3].tolist() == [6, 7, 8]  # row 1's y is 3 tokens; the rest is masked padding


def test_batched_fd_loss_equals_a_per_sequence_computation(tok, tiny_model_dir: Path):
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    teacher = make_teacher(model)
    with torch.no_grad():  # make the teacher differ from the student
        for p in teacher.parameters():
            p.add_(0.05 * torch.randn_like(p))
    trajs = [
        _trajectory(tok, "by norm_num", "<tool_response>x</tool_response>"),
        _trajectory(tok, "simp"),
    ]
    feedback = ["Do use omega.", "Don't use sorry."]
    s_in, t_in = student_batch(trajs, 0), teacher_batch(trajs, feedback, tok, 0)
    targets = response_targets(trajs)
    width = targets.mask.shape[1]
    with torch.no_grad():
        s_logits = gather_response_logits(
            model(input_ids=s_in.input_ids, attention_mask=s_in.attention_mask).logits, s_in, width
        )
        t_logits = gather_response_logits(
            teacher(input_ids=t_in.input_ids, attention_mask=t_in.attention_mask).logits,
            t_in,
            width,
        )
    batched = feedback_distillation_loss(s_logits, t_logits, targets.mask, top_k=5)

    # By hand: run each sequence alone, unpadded, and slice the predicting positions.
    num = den = 0.0
    for traj, text in zip(trajs, feedback, strict=True):
        y = traj.token_ids[traj.prompt_length :]
        t_prompt = render_prompt_ids(tok, traj.teacher_messages(text), [])
        with torch.no_grad():
            s = model(input_ids=torch.tensor([traj.token_ids])).logits[
                0, traj.prompt_length - 1 : len(traj.token_ids) - 1
            ]
            t = teacher(input_ids=torch.tensor([t_prompt + y])).logits[
                0, len(t_prompt) - 1 : len(t_prompt) + len(y) - 1
            ]
        m = torch.tensor(traj.mask[traj.prompt_length :], dtype=torch.float32)
        loss = feedback_distillation_loss(s[None], t[None], m[None], top_k=5)
        num += loss.item() * m.sum().item()
        den += m.sum().item()
    assert batched.item() == pytest.approx(num / den, rel=1e-4)
    assert batched.item() > 0
