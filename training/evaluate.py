"""Held-out evaluation: pass@k, entropy, response length, student-teacher KL, lemma
discovery and hedging, for one model on one problem set.

Run: `python -m training eval --config FILE` (data.eval: the project's own problems as JSONL
with the fields of shared/data/minif2f.jsonl; problems that import Mathlib are skipped, and
counted, unless the Lean installation has Mathlib). n = evaluation.n_samples samples per
problem at the training temperature; pass@k by the unbiased estimator for every k <= n.
"could not check" samples count as failures and are reported as could_not_check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from training.batches import (
    ResponseRows,
    micro_batches,
    reduce_response_rows,
    response_logits,
    response_targets,
    student_batch,
)
from training.config import Config
from training.losses import TeacherTopK, teacher_top_k
from training.metrics import EXTRA_HEDGING_WORDS, hedging_frequency, mean_token_entropy, pass_at_k
from training.rollouts import RolloutFn, assistant_text
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory

# Names a proof uses that are library lemmas, by the shape Mathlib/core names have: dotted
# names (Nat.add_comm, mul_pos.le) and snake_case names with an underscore (add_pos, sq_nonneg)
# used as terms. Without Lean's own answer (lean_check_file's return_lemmas, when the tool
# environment provides it) this is a heuristic: it may count a local `have h_pos` name.
_NAME = re.compile(
    r"(?<![\w.'])([A-Za-z][\w']*(?:\.[A-Za-z_][\w']*)+|[a-z][a-z0-9]*(?:_[a-z0-9']+)+)(?![\w'])"
)
_TACTIC_WORDS = frozenset(
    {
        "norm_num",
        "field_simp",
        "simp_all",
        "push_cast",
        "ring_nf",
        "positivity",
        "nlinarith",
        "exact_mod_cast",
        "simp_arith",
        "native_decide",
        "split_ifs",
        "by_contra",
        "by_cases",
        "rcases",
        "obtain",
        "refine",
        "calc",
        "omega",
        "decide",
        "gcongr",
        "interval_cases",
        "norm_cast",
        "apply_fun",
        "set_option",
        "max_heartbeats",
        "maxheartbeats",
        "push_neg",
        "use",
    }
)


def library_lemmas(proof: str) -> set[str]:
    """Distinct library-looking names used in a proof (statement and comments excluded).
    The statement's binders (`(h_ab : a < b)`) are hypotheses, not lemmas."""
    head, body = proof.split(":= by", 1) if ":= by" in proof else ("", proof)
    body = re.sub(r"--[^\n]*", "", body)
    local = set(re.findall(r"(?:have|obtain|intro|rintro|set|let)\s+⟨?([\w']+)", body))
    for names in re.findall(r"[({\[]\s*([\w'][\w'\s]*?)\s*:", head):
        local.update(names.split())
    return {name for name in _NAME.findall(body) if name not in _TACTIC_WORDS and name not in local}


def trajectory_lemmas(trajectory: Trajectory) -> set[str]:
    """Lemmas of a verified trajectory: from the checked environment when its final check
    recorded them (lean_check_file(return_lemmas=True): names that resolve to constants in
    the file's own environment), else from the proof text (library_lemmas)."""
    recorded = (trajectory.check or {}).get("lemmas")
    if isinstance(recorded, list):
        return {str(name) for name in recorded}
    return library_lemmas(trajectory.final_proof or "")


@dataclass
class EvalResult:
    metrics: dict[str, float]
    per_problem: list[dict[str, Any]] = field(default_factory=list)
    skipped_needs_mathlib: int = 0
    lemmas: set[str] = field(default_factory=set)  # distinct library lemmas of verified proofs
    trajectories: int = 0


# Means over samples, merged across ranks weighted by each rank's number of samples.
_SAMPLE_MEANS = (
    "entropy",
    "response_length",
    "hedging_per_1k_words",
    "hedging_extra_per_1k_words",
    "student_teacher_kl",
)


def merge_eval_results(
    parts: Sequence[EvalResult], problem_order: Sequence[str], ks: Sequence[int]
) -> EvalResult:
    """One rank's evaluation per part (each on its slice of the problems) -> the result one
    process would report: pass@k recomputed from all problems' counts, sample means
    weighted by samples, counts summed, lemmas united. Entropy is weighted by samples, not
    tokens (a rank's token count is not kept): close, not identical, to one process."""
    index = {pid: i for i, pid in enumerate(problem_order)}
    per_problem = sorted(
        (row for part in parts for row in part.per_problem),
        key=lambda row: index.get(row["problem"], len(index)),
    )
    metrics: dict[str, float] = {}
    for k in ks:
        usable = [row for row in per_problem if k <= row["n"]]
        if usable and len(usable) == len(per_problem):
            metrics[f"pass@{k}"] = sum(
                pass_at_k(row["n"], row["correct"], k) for row in per_problem
            ) / len(per_problem)
    total = sum(part.trajectories for part in parts)
    for key in _SAMPLE_MEANS:
        pairs = [
            (part.metrics[key], part.trajectories)
            for part in parts
            if key in part.metrics and part.metrics[key] == part.metrics[key]  # not NaN
        ]
        weight = sum(w for _, w in pairs)
        if pairs:
            metrics[key] = sum(v * w for v, w in pairs) / weight if weight else 0.0
    metrics["could_not_check"] = float(sum(p.metrics.get("could_not_check", 0.0) for p in parts))
    lemmas = set().union(*(part.lemmas for part in parts)) if parts else set()
    metrics["distinct_lemmas"] = float(len(lemmas))
    return EvalResult(metrics, per_problem, lemmas=lemmas, trajectories=total)


@torch.no_grad()
def policy_entropy(
    model: Any,
    tokenizer: Any,
    trajectories: Sequence[Trajectory],
    pad_id: int,
    device: Any,
    micro_batch: int = 4,
    chunk: int = 1024,
) -> float:
    """Mean full-vocabulary entropy over the generated tokens of the trajectories. By default
    through the chunked path (final hidden states of the masked positions, the head applied
    `chunk` rows at a time: never [B, L, V] logits); chunk 0 is the full-logits reference."""
    total = weight = 0.0
    for part in micro_batches([t for t in trajectories if sum(t.mask)], micro_batch):
        batch = student_batch(part, pad_id, device)
        targets = response_targets(part, device)
        n = float(targets.mask.sum())
        if chunk == 0:
            logits = response_logits(model, batch, targets.mask.shape[1])
            total += mean_token_entropy(logits, targets.mask) * n
        else:

            def weighted_entropy(rows: ResponseRows) -> torch.Tensor:
                top = teacher_top_k(rows.rows, 1, head=rows.head, chunk=chunk)
                return (top.entropy * rows.weights).sum()

            total += float(reduce_response_rows(model, batch, targets.mask, weighted_entropy))
        weight += n
    return total / weight if weight else 0.0


def evaluate(
    model: Any,
    tokenizer: Any,
    rollout: RolloutFn,
    problems: Sequence[Problem],
    config: Config,
    *,
    pad_id: int,
    lemmas_seen: set[str] | None = None,
    teacher: Any = None,
    coach: Any = None,
    seed: int | None = None,
) -> EvalResult:
    """Sample n per problem from `seed`, verify, and measure. With teacher and coach given,
    also the student-teacher KL (the FD loss) on the failed samples' feedback contexts."""
    ev = config.evaluation
    n = ev.n_samples
    device = next(model.parameters()).device
    trajectories = rollout(list(problems), n, config.model.temperature, seed=seed)
    per_problem, correct = [], []
    for i, problem in enumerate(problems):
        group = trajectories[i * n : (i + 1) * n]
        c = sum(1 for t in group if t.reward == 1.0)
        correct.append(c)
        per_problem.append(
            {
                "problem": problem.id,
                "n": n,
                "correct": c,
                "could_not_check": sum(1 for t in group if t.reward is None),
            }
        )
    metrics: dict[str, float] = {}
    for k in ev.ks:
        if k <= n and problems:
            metrics[f"pass@{k}"] = sum(pass_at_k(n, c, k) for c in correct) / len(problems)
    was_training = model.training
    model.eval()
    try:
        metrics["entropy"] = policy_entropy(
            model,
            tokenizer,
            trajectories,
            pad_id,
            device,
            config.optimizer.micro_batch_size,
            config.model.loss_chunk_tokens,
        )
    finally:
        model.train(was_training)
    metrics["response_length"] = sum(t.n_generated_tokens for t in trajectories) / max(
        len(trajectories), 1
    )
    texts = [assistant_text(t) for t in trajectories]
    metrics["hedging_per_1k_words"] = hedging_frequency(texts)  # the paper's three words
    metrics["hedging_extra_per_1k_words"] = hedging_frequency(texts, EXTRA_HEDGING_WORDS)
    metrics["could_not_check"] = float(sum(1 for t in trajectories if t.reward is None))
    lemmas = set().union(
        *(trajectory_lemmas(t) for t in trajectories if t.reward == 1.0 and t.final_proof)
    )
    metrics["distinct_lemmas"] = float(len(lemmas))
    if lemmas_seen is not None:
        lemmas_seen.update(lemmas)
        metrics["lemmas_discovered"] = float(len(lemmas_seen))
    if teacher is not None and coach is not None:
        metrics["student_teacher_kl"] = _student_teacher_kl(
            model, teacher, tokenizer, coach, trajectories, config, pad_id
        )
    return EvalResult(metrics, per_problem, lemmas=lemmas, trajectories=len(trajectories))


@torch.no_grad()
def _student_teacher_kl(
    model: Any,
    teacher: Any,
    tokenizer: Any,
    coach: Any,
    trajectories: Sequence[Trajectory],
    config: Config,
    pad_id: int,
    limit: int = 8,
) -> float:
    """The FD loss (token mean) of up to `limit` failed samples with the coach's feedback,
    micro-batch by micro-batch on the chunked path (teacher reduced to its top-k, student
    chunk by chunk; model.loss_chunk_tokens = 0: the full-logits reference)."""
    from training.batches import teacher_batch
    from training.losses import chunked_feedback_distillation_loss, feedback_distillation_loss
    from training.rollouts import attach_feedback

    failed = [t for t in trajectories if t.reward != 1.0 and any(t.mask)][:limit]
    outcome = attach_feedback(coach, failed, max_workers=config.coach.concurrency)
    if not outcome.with_feedback:
        return float("nan")
    device = next(model.parameters()).device
    chunk = config.model.loss_chunk_tokens
    pairs = list(zip(outcome.with_feedback, outcome.texts, strict=True))
    total = weight = 0.0
    for part in micro_batches(pairs, config.optimizer.micro_batch_size):
        trajs, texts = [t for t, _ in part], [f for _, f in part]
        s_in = student_batch(trajs, pad_id, device)
        t_in = teacher_batch(trajs, texts, tokenizer, pad_id, device)
        targets = response_targets(trajs, device)
        n = float(targets.mask.sum())
        if chunk == 0:
            width = targets.mask.shape[1]
            loss = feedback_distillation_loss(
                response_logits(model, s_in, width),
                response_logits(teacher, t_in, width),
                targets.mask,
                top_k=config.fd.top_k,
                tail=config.fd.tail,
            )
        else:
            top = reduce_response_rows(
                teacher,
                t_in,
                targets.mask,
                lambda rows: teacher_top_k(rows.rows, config.fd.top_k, head=rows.head, chunk=chunk),
            )

            def kl(rows: ResponseRows, top: TeacherTopK = top) -> torch.Tensor:
                value, _ = chunked_feedback_distillation_loss(
                    rows.rows, top, rows.weights, head=rows.head, tail=config.fd.tail, chunk=chunk
                )
                return value

            loss = reduce_response_rows(model, s_in, targets.mask, kl)
        total += float(loss) * n
        weight += n
    return total / weight if weight else float("nan")
