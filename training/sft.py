"""SFT: next-token cross-entropy on (problem, proof) pairs.

Run: `python -m training sft --config FILE`. Examples come from
  - data.train problems that carry a `reference_proof`, as the agent episode a rollout would
    record (prompt, lean_write_file call with the complete file, the checker's report, a
    closing turn), so SFT teaches the tool format the agent uses;
  - verified trajectories (verdict valid) in data.snapshot: their own tokens and mask; a
    verified search proof (no tokens of its own) gives one tactic-level example per step of
    its found path (tutor.prover.search_examples).
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
from training.default_model import format_example
from training.session import Session, TrainResult, optimizer_step, run_loop, token_share
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory, Verdict


def proof_example(problem: Problem, tokenizer: Any, max_length: int) -> Trajectory | None:
    """A reference proof as one agent episode, token for token what a rollout records
    (training.default_model.format_example): the prompt, a lean_write_file call with the
    proof file, the checker's report, a closing turn; mask 1 on the assistant's tokens.
    An episode longer than max_length is left out: a cut one would teach a half-made call."""
    if not problem.reference_proof:
        return None
    example = format_example(problem, tokenizer)
    return example if len(example.token_ids) <= max_length else None


def snapshot_examples(path: str, max_length: int, tokenizer: Any = None) -> list[Trajectory]:
    """Verified trajectories from a web-app snapshot (records of kind "trajectory"); with a
    tokenizer, verified search proofs as tactic-level examples too."""
    from tutor.prover.search_examples import tactic_examples

    out = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            if record.get("kind") != "trajectory":
                continue
            trajectory = Trajectory.from_dict(record["trajectory"])
            if tokenizer is not None and trajectory.mode == "search":
                out += tactic_examples(trajectory, tokenizer, max_length)
                continue
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
        examples += snapshot_examples(cfg.data.snapshot, limit, session.tokenizer)
    if not examples:
        raise ValueError(
            "SFT found no examples: give data.train problems with reference_proof, or a data.snapshot with valid trajectories"
        )
    return examples


def sft_loss_on(session: Session, examples: list[Trajectory]) -> tuple[torch.Tensor, float]:
    batch = student_batch(examples, session.pad_id, session.device)
    targets = response_targets(examples, session.device)
    with session.autocast():
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
