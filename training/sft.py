"""SFT: next-token cross-entropy on (problem, proof) pairs.

Run: `python -m training sft --config FILE`. Examples come from
  - data.train problems that carry a `reference_proof`: the prover's prompt (same system
    prompt, tools and chat template as a rollout) followed by one assistant turn that calls
    lean_write_file with the complete file, so SFT teaches the tool format the agent uses;
  - verified trajectories (verdict valid) in data.snapshot: their own tokens and mask.
Loss: token mean over the assistant tokens of the batch. Steps = epochs x ceil(N / batch).
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import torch

from training.batches import (
    micro_batches,
    response_logits,
    response_targets,
    student_batch,
    token_logprobs,
)
from training.session import Session, TrainResult, optimizer_step, run_loop, token_share
from tutor.prover.agent import AgentConfig, initial_messages
from tutor.prover.problem import Problem
from tutor.prover.tools import TOOL_SCHEMAS
from tutor.prover.trajectory import Trajectory, Verdict


def proof_example(problem: Problem, tokenizer: Any, max_length: int) -> Trajectory | None:
    """A one-turn trajectory: prompt (mask 0) + the assistant's lean_write_file call (mask 1)."""
    if not problem.reference_proof:
        return None
    messages = initial_messages(problem, AgentConfig())
    call = {
        "name": "lean_write_file",
        "arguments": {
            "code": problem.with_proof(problem.reference_proof),
            "file_name": "proof.lean",
        },
    }
    answer = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": call}],
    }
    prompt_text = str(
        tokenizer.apply_chat_template(
            messages, tools=TOOL_SCHEMAS, tokenize=False, add_generation_prompt=True
        )
    )
    full_text = str(
        tokenizer.apply_chat_template([*messages, answer], tools=TOOL_SCHEMAS, tokenize=False)
    )
    if not full_text.startswith(prompt_text):
        raise ValueError(
            "the chat template renders the prompt differently inside a full chat; SFT cannot split it"
        )
    completion = full_text[len(prompt_text) :]
    end = tokenizer.eos_token or ""
    if end and end in completion:
        completion = completion[
            : completion.index(end) + len(end)
        ]  # train on the end token, not the newline after it
    prompt_ids = list(tokenizer.encode(prompt_text, add_special_tokens=False))
    answer_ids = list(tokenizer.encode(completion, add_special_tokens=False))
    ids = (prompt_ids + answer_ids)[:max_length]
    if len(ids) <= len(prompt_ids):
        return None  # the prompt alone fills max_length: nothing to learn
    mask = [0] * len(prompt_ids) + [1] * (len(ids) - len(prompt_ids))
    return Trajectory(
        problem_id=problem.id,
        statement=problem.header + problem.statement,
        mode="sft",
        prompt_messages=messages,
        tools=TOOL_SCHEMAS,
        token_ids=ids,
        mask=mask,
        logprobs=[0.0] * len(ids),
        prompt_length=len(prompt_ids),
    )


def snapshot_examples(path: str, max_length: int) -> list[Trajectory]:
    """Verified trajectories from a web-app snapshot (records of kind "trajectory")."""
    out = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            if record.get("kind") != "trajectory":
                continue
            trajectory = Trajectory.from_dict(record["trajectory"])
            if (
                trajectory.verdict is Verdict.VALID
                and len(trajectory.token_ids) <= max_length
                and any(trajectory.mask)
            ):
                out.append(trajectory)
    return out


def build_examples(session: Session) -> list[Trajectory]:
    cfg = session.config
    limit = cfg.training.pretrain.max_length
    examples = []
    for problem in session.cursor.problems if session.cursor else []:
        example = proof_example(problem, session.tokenizer, limit)
        if example is not None:
            examples.append(example)
    if cfg.data.snapshot:
        examples += snapshot_examples(cfg.data.snapshot, limit)
    if not examples:
        raise ValueError(
            "SFT found no examples: give data.train problems with reference_proof, or a data.snapshot with valid trajectories"
        )
    return examples


def sft_loss_on(session: Session, examples: list[Trajectory]) -> tuple[torch.Tensor, float]:
    batch = student_batch(examples, session.pad_id, session.device)
    targets = response_targets(examples, session.device)
    logits = response_logits(session.model, batch, targets.mask.shape[1])
    logprobs = token_logprobs(logits, targets.token_ids)
    n = float(targets.mask.sum())
    return -(logprobs * targets.mask).sum() / max(n, 1.0), n


def train_sft(session: Session) -> TrainResult:
    cfg = session.config
    examples = build_examples(session)
    batch_size = cfg.training.pretrain.batch_size
    per_epoch = math.ceil(len(examples) / batch_size)
    total = per_epoch * cfg.training.pretrain.epochs

    def sft_step(s: Session) -> dict[str, Any]:
        epoch, index = divmod(s.step, per_epoch)
        order = list(range(len(examples)))
        random.Random(cfg.run.seed + epoch).shuffle(order)
        batch = [examples[i] for i in order[index * batch_size : (index + 1) * batch_size]]
        total_tokens = float(sum(sum(t.mask) for t in batch))
        loss_sum = 0.0
        for chunk in micro_batches(batch, cfg.optimizer.micro_batch_size):
            loss, n = sft_loss_on(s, list(chunk))
            (loss * token_share(n, total_tokens)).backward()
            loss_sum += loss.item() * n / max(total_tokens, 1.0)
        grad_norm = optimizer_step(s)
        return {
            "loss": loss_sum,
            "sft_loss": loss_sum,
            "grad_norm": grad_norm,
            "tokens": total_tokens,
            "epoch": epoch,
            "examples": len(examples),
        }

    return run_loop(session, sft_step, total)
