"""SFT: next-token cross-entropy on (problem, proof) pairs.

Run: `python -m training sft --config FILE`. Examples come from
  - data.train problems that carry a `reference_proof`, as the agent episode a rollout would
    record (prompt, lean_write_file call with the complete file, the checker's report, a
    closing turn), so SFT teaches the tool format the agent uses;
  - verified trajectories (verdict valid) in data.snapshot: their own tokens and mask; a
    verified search proof (no tokens of its own) gives one tactic-level example per step of
    its found path (tutor.prover.search_examples).
Loss: token mean over the assistant tokens of the batch (all ranks' tokens: the batch size is
per step in all, split over the ranks). Steps = epochs x ceil(N / batch).
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import torch

from training import distributed
from training.batches import (
    ResponseRows,
    reduce_response_rows,
    response_logits,
    response_targets,
    student_batch,
    token_logprobs,
)
from training.default_model import format_example
from training.losses import chunked_token_logprobs
from training.session import (
    Session,
    TrainResult,
    agreed_micro_batches,
    global_totals,
    optimizer_step,
    run_loop,
    token_weight,
)
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
    """Every rank builds the same list (all training problems, not its rollout slice): the
    global batch is then split over the ranks (sft_rank_batch)."""
    cfg = session.config
    limit = cfg.training.pretrain.max_length
    examples = []
    for problem in session.train_problems:
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
    """Token-mean cross-entropy of a micro-batch on its assistant tokens, and its token
    count. By default (model.loss_chunk_tokens > 0) through the memory-bounded path the
    FD and GRPO losses use: final hidden states of the masked positions, the output head
    applied chunk by chunk and recomputed in backward (never [B, L, V] logits); 0 is the
    full-logits reference."""
    batch = student_batch(examples, session.pad_id, session.device)
    targets = response_targets(examples, session.device)
    n = float(targets.mask.sum())
    chunk = session.config.model.loss_chunk_tokens
    with session.autocast():
        if chunk == 0:
            logits = response_logits(session.model, batch, targets.mask.shape[1])
            logprobs = token_logprobs(logits, targets.token_ids)
            return -(logprobs * targets.mask).sum() / max(n, 1.0), n

        def negative_sum(rows: ResponseRows) -> torch.Tensor:
            values, _ = chunked_token_logprobs(
                rows.rows, targets.token_ids[rows.selected], 1.0, head=rows.head, chunk=chunk
            )
            return -(values * rows.weights).sum()

        total = reduce_response_rows(session.model, batch, targets.mask, negative_sum)
    return total / max(n, 1.0), n


def sft_rank_batch(
    examples: list[Trajectory], step: int, batch_size: int, seed: int, rank: int, world: int
) -> tuple[list[Trajectory], int]:
    """This rank's share of step `step`'s global batch (training.pretrain.batch_size is the
    batch of a step in all, like fd.batch_size), and the step's epoch. The epoch's order is
    a seeded shuffle every rank computes alike; rank r takes the batch's items r::world."""
    per_epoch = math.ceil(len(examples) / batch_size)
    epoch, index = divmod(step, per_epoch)
    order = list(range(len(examples)))
    random.Random(seed + epoch).shuffle(order)
    batch = [examples[i] for i in order[index * batch_size : (index + 1) * batch_size]]
    return batch[rank::world], epoch


def sft_step_fn(examples: list[Trajectory]) -> Any:
    """One SFT optimizer step over the global batch of step `session.step` (this rank's
    share of it; the loss is the token mean over all ranks' tokens)."""

    def sft_step(s: Session) -> dict[str, Any]:
        cfg = s.config
        mine, epoch = sft_rank_batch(
            examples,
            s.step,
            cfg.training.pretrain.batch_size,
            cfg.run.seed,
            distributed.rank(),
            distributed.world_size(),
        )
        [global_tokens] = global_totals(sum(sum(t.mask) for t in mine))
        loss_sum = 0.0
        for chunk in agreed_micro_batches(mine, cfg.optimizer.micro_batch_size):
            loss, n = sft_loss_on(s, chunk or [s.placeholder()])
            tokens = n if chunk else 0.0
            (loss * token_weight(tokens, global_tokens)).backward()
            loss_sum += loss.item() * (tokens / global_tokens if global_tokens else 0.0)
        grad_norm = optimizer_step(s)
        # loss: this rank's share of the global token mean (reduce_metrics sums them).
        return {
            "loss": loss_sum,
            "sft_loss": loss_sum,
            "grad_norm": grad_norm,
            "tokens": float(sum(sum(t.mask) for t in mine)),
            "trajectories": len(mine),
            "epoch": epoch,
            "examples": len(examples),
        }

    return sft_step


def train_sft(session: Session) -> TrainResult:
    cfg = session.config
    examples = build_examples(session)
    per_epoch = math.ceil(len(examples) / cfg.training.pretrain.batch_size)
    return run_loop(session, sft_step_fn(examples), per_epoch * cfg.training.pretrain.epochs)
