"""Continual distillation: what a class produced trains the model; a gate decides if it serves.

    from training.continual import continual_distill
    result = continual_distill("export.jsonl", config, callback=..., stop=...)

The web engineer wraps this in a `train`-queue Celery task. One call:
  1. reads the snapshot (format in docs/TRAINING.md, "Snapshot format"): problems, students'
     attempts, prover trajectories and teacher-curated feedback (grouped per attempt into one
     Feedback of 1-3 self-contained suggestions: training.classroom.group_curated);
  2. holds out a fixed, per-course share of the problems (training.classroom.held_out_ids):
     never trained on, the gate's evaluation set;
  3. starts from the checkpoint that serves now (serving.json), else from model.path, and
     evaluates it on the held-out problems (the baseline: same problems, same seed);
  4. runs training.reinforce.total_steps steps; each step's loss is the FD loss on fresh
     rollouts (coach `curated` where a rollout repeats a reviewed mistake, else the
     configured coach), on replayed prover trajectories with approved feedback, and on
     students' attempts with their curated feedback (off-policy, human tokens capped by
     classroom.human_token_share), and on the dead ends of prover searches (rejected tactics,
     the configured coach reading Lean's message: tutor.prover.search_examples), plus
     classroom.sft_weight times the SFT loss on verified student solutions and on the steps
     of proofs the prover's searches found;
  5. takes the best evaluated checkpoint (every evaluated step is a candidate), compares it
     with the baseline problem by problem (paired bootstrap) and promotes it only on a
     significant gain; otherwise the serving checkpoint keeps serving and the reason is
     recorded. lineage.json and gate.json in the run folder say exactly what was used.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from training.batches import feedback_text, render_prompt_ids
from training.classroom import (
    APPROVED,
    ClassroomData,
    CuratedCoach,
    GateDecision,
    build_classroom_data,
    gate,
    group_curated,
    held_out_split,
    human_admitted,
    write_json,
)
from training.config import Config
from training.runlog import MetricsCallback, StopFlag
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory

SNAPSHOT_VERSION = 1
LINEAGE_FILE = "lineage.json"
GATE_FILE = "gate.json"


@dataclass
class Snapshot:
    problems: list[Problem] = field(default_factory=list)
    trajectories: list[Trajectory] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    # trajectory id or attempt id -> one grouped Feedback dict (approved / edited only)
    approved_feedback: dict[str, dict[str, Any]] = field(default_factory=dict)
    # attempt id -> its feedback records (every status; grouping keeps approved / edited)
    curated_by_attempt: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ContinualResult:
    """What a continual round did. promoted is True only when the new checkpoint won."""

    promoted: bool
    reason: str
    checkpoint: Path | None = None
    baseline: dict[str, float] = field(default_factory=dict)
    candidate: dict[str, float] = field(default_factory=dict)
    steps_done: int = 0
    replayed_trajectories: int = 0
    skipped_trajectories: int = 0
    error: str | None = None
    gate: dict[str, Any] = field(default_factory=dict)
    lineage: dict[str, Any] = field(default_factory=dict)
    run_dir: Path | None = None
    run: str = ""


def read_snapshot(path: str | Path) -> Snapshot:
    """Parse the web app's JSONL export; unknown kinds are an error (a format drift)."""
    snapshot = Snapshot()
    by_id: dict[str, Problem] = {}
    per_trajectory: dict[str, list[dict[str, Any]]] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            kind = record.get("kind")
            if kind == "meta":
                if int(record.get("version", SNAPSHOT_VERSION)) != SNAPSHOT_VERSION:
                    raise ValueError(
                        f"{path}:{number}: snapshot version {record.get('version')} is not {SNAPSHOT_VERSION}"
                    )
                snapshot.meta = record
            elif kind == "problem":
                problem = Problem.from_dict(record["problem"])
                by_id[problem.id] = problem
            elif kind == "attempt":
                snapshot.attempts.append(record)
            elif kind == "trajectory":
                trajectory = Trajectory.from_dict(record["trajectory"])
                trajectory_id = str(record.get("id", len(snapshot.trajectories)))
                snapshot.trajectories.append(trajectory)
                trajectory.sampling.setdefault("snapshot_id", trajectory_id)
            elif kind == "feedback":
                if record.get("trajectory_id") is not None:
                    per_trajectory.setdefault(str(record["trajectory_id"]), []).append(record)
                elif record.get("attempt_id") is not None:
                    snapshot.curated_by_attempt.setdefault(str(record["attempt_id"]), []).append(
                        record
                    )
            else:
                raise ValueError(
                    f"{path}:{number}: unknown record kind {kind!r} (meta, problem, attempt, trajectory, feedback)"
                )
    snapshot.problems = list(by_id.values())
    code_of = {str(a.get("id")): str(a.get("code", "")) for a in snapshot.attempts}
    groups = [(k, v, "") for k, v in per_trajectory.items()]
    groups += [(k, v, code_of.get(k, "")) for k, v in snapshot.curated_by_attempt.items()]
    for key, records, code in groups:
        if any(r.get("status") in APPROVED for r in records):
            feedback, _ = group_curated(records, code)
            if feedback is not None:
                snapshot.approved_feedback[key] = feedback
    return snapshot


def replay_pool(snapshot: Snapshot, tokenizer: Any) -> tuple[list[Trajectory], int]:
    """Trajectories with teacher-approved feedback whose prompt re-tokenizes identically."""
    pool, skipped = [], 0
    for trajectory in snapshot.trajectories:
        feedback = snapshot.approved_feedback.get(str(trajectory.sampling.get("snapshot_id")))
        if feedback is None or not sum(trajectory.mask):
            continue
        try:
            trajectory.check_alignment()
            same = (
                render_prompt_ids(tokenizer, trajectory.prompt_messages, trajectory.tools)
                == trajectory.token_ids[: trajectory.prompt_length]
            )
        except (ValueError, TypeError):
            same = False
        if not same:
            skipped += 1
            continue
        trajectory.feedback = feedback  # the teacher's approved (or edited) text wins
        pool.append(trajectory)
    return pool, skipped


def search_pool(
    snapshot: Snapshot, tokenizer: Any, held_out: set[str], max_length: int, per_tree: int
) -> tuple[list[Trajectory], list[Trajectory]]:
    """Training examples from the snapshot's prover searches (never on held-out problems):
    tactic-level SFT examples from found proofs and FD examples from dead ends, each with a
    snapshot id `<trajectory id>#...` so the lineage counts what entered a loss."""
    from tutor.prover.search_examples import (
        FailedBranchConfig,
        failed_branch_examples,
        tactic_examples,
    )

    sft: list[Trajectory] = []
    fd: list[Trajectory] = []
    dead_ends = FailedBranchConfig(max_per_tree=per_tree)
    for trajectory in snapshot.trajectories:
        if trajectory.mode != "search" or trajectory.problem_id in held_out:
            continue
        sft += tactic_examples(trajectory, tokenizer, max_length)
        fd += failed_branch_examples(trajectory, tokenizer, max_length, dead_ends)
    return sft, fd


# --- one continual step ---------------------------------------------------------------------


def _take(session: Any, name: str, n: int) -> list[Trajectory]:
    """Up to n items of session.extra[name], round robin."""
    pool = session.extra.get(name) or []
    if not pool or n <= 0:
        return []
    position = session.extra.get(f"{name}_position", 0)
    out = [pool[(position + i) % len(pool)] for i in range(min(n, len(pool)))]
    session.extra[f"{name}_position"] = position + len(out)
    return out


def continual_step(session: Any) -> dict[str, Any]:
    """FD on fresh rollouts + replayed trajectories + students' attempts (human share
    capped), plus the SFT term on verified student solutions; one optimizer step."""
    from training.fd import fd_batch

    cfg = session.config
    metrics, usable, replayed = fd_batch(session)
    model_tokens = float(sum(sum(t.mask) for t, _ in usable))
    offered = _take(session, "human", cfg.fd.batch_size)
    human = human_admitted(offered, model_tokens, cfg.classroom.human_token_share)
    metrics["human_over_cap"] = len(offered) - len(human)
    human_pairs = [(t, feedback_text(t.feedback) or "") for t in human]
    sft = _take(session, "sft", cfg.classroom.sft_per_step)
    # Nothing to learn from on any rank: continual_update skips, and the log says so.
    metrics.update(continual_update(session, usable, human_pairs, sft))
    # Lineage counts only what entered a loss (a capped-out attempt was not used).
    used = session.extra.setdefault("used", set())
    # A replayed example whose coach call failed was dropped from the batch: not used.
    entered = {id(t) for t, _ in usable}
    replay_used = [t for t in replayed if id(t) in entered]
    used.update(str(t.sampling.get("snapshot_id")) for t in [*human, *sft, *replay_used])
    return metrics


def continual_update(
    session: Any,
    model_pairs: list[tuple[Trajectory, str]],
    human_pairs: list[tuple[Trajectory, str]],
    sft: list[Trajectory],
) -> dict[str, Any]:
    """One token-mean FD loss over model and human tokens (human chunks kept apart so they
    get their own loss figure), + sft_weight x the SFT token mean; backward, step, EMA.
    Token means are over all ranks' tokens (one collective for the three totals), and the
    ranks run the same number of micro-batches of each kind (placeholders pad)."""
    from training.fd import fd_loss_on, step_and_ema
    from training.session import agreed_micro_batches, global_totals, token_weight
    from training.sft import sft_loss_on

    cfg = session.config
    mb = cfg.optimizer.micro_batch_size
    local = {
        "model": float(sum(sum(t.mask) for t, _ in model_pairs)),
        "human": float(sum(sum(t.mask) for t, _ in human_pairs)),
        "sft": float(sum(sum(t.mask) for t in sft)),
    }
    model_tokens, human_tokens, sft_tokens = global_totals(*local.values())
    fd_tokens = model_tokens + human_tokens
    if fd_tokens + sft_tokens == 0:
        return {"skipped": True}
    sums = {"model": 0.0, "human": 0.0}
    for name, pairs in (("model", model_pairs), ("human", human_pairs)):
        for chunk in agreed_micro_batches(pairs, mb):
            trajs = [t for t, _ in chunk] or [session.placeholder()]
            loss, stats = fd_loss_on(session, trajs, [f for _, f in chunk] or [""])
            tokens = stats["tokens"] if chunk else 0.0
            (loss * token_weight(tokens, fd_tokens)).backward()
            sums[name] += loss.item() * tokens
    sft_sum = 0.0
    for sft_chunk in agreed_micro_batches(sft, mb):
        loss, n = sft_loss_on(session, sft_chunk or [session.placeholder()])
        tokens = n if sft_chunk else 0.0
        (loss * cfg.classroom.sft_weight * token_weight(tokens, sft_tokens)).backward()
        sft_sum += loss.item() * tokens
    grad_norm, ema_applied = step_and_ema(session)

    def share(total: float, tokens: float) -> float:
        return total / tokens if tokens else 0.0

    # Loss figures are this rank's shares of the global token means (reduce_metrics sums).
    fd_loss = share(sums["model"] + sums["human"], fd_tokens)
    sft_loss = share(sft_sum, sft_tokens)
    coach = session.coach
    return {
        "loss": fd_loss + cfg.classroom.sft_weight * sft_loss,
        "fd_loss": fd_loss,
        "fd_kl": fd_loss,
        "model_fd_loss": share(sums["model"], model_tokens),
        "human_fd_loss": share(sums["human"], human_tokens),
        "human_trajectories": len(human_pairs),
        "human_tokens": local["human"],
        "human_token_share": human_tokens / fd_tokens if fd_tokens else 0.0,
        "sft_loss": sft_loss,
        "sft_examples": len(sft),
        "sft_tokens": local["sft"],
        "curated_matches": float(getattr(coach, "matched", 0)),
        "grad_norm": grad_norm,
        "ema_applied": ema_applied,
        "tokens": local["model"] + local["human"] + local["sft"],
    }


# --- a round -------------------------------------------------------------------------------


def _write_problems(path: Path, problems: list[Problem]) -> str:
    path.write_text("".join(json.dumps(p.to_dict()) + "\n" for p in problems), encoding="utf-8")
    return str(path) if problems else ""


def lineage_of(
    snapshot_path: str | Path,
    snapshot: Snapshot,
    data: ClassroomData,
    replayed: list[Trajectory],
    held_out: set[str],
    train_problems: list[Problem],
    used: set[str],
    search_examples: tuple[list[Trajectory], list[Trajectory]] = ([], []),
) -> dict[str, Any]:
    """Exactly what a round trained on (ids that entered a loss), what it was offered, and
    the held-out problems it was judged on. search_examples: (SFT, FD) examples made from
    prover searches (search_pool); their source trajectories count as trajectories used."""
    trajectories = sorted(
        {str(t.sampling.get("snapshot_id")) for t in replayed if "search_source" not in t.sampling}
        & used
    )
    search = _search_lineage(search_examples, used)
    trained = data.trained_on(used)
    return {
        "snapshot": str(snapshot_path),
        "exported_at": snapshot.meta.get("exported_at"),
        **trained,
        "trajectories": sorted({*trajectories, *search["trajectories"]}),
        "search": search,
        "offered": {
            "attempts": data.used_attempts,
            "reviews": data.used_reviews,
            "students": data.used_students,
        },
        "train_problems": sorted(p.id for p in train_problems),
        "held_out_problems": sorted(held_out),
        "counts": {
            **data.counts,
            "attempts": len(trained["attempts"]),
            "reviews": len(trained["reviews"]),
            "trajectories": len({*trajectories, *search["trajectories"]}),
            "search_sft_examples": search["sft_examples"],
            "search_fd_examples": search["fd_examples"],
            "students": len(trained["students"]),
            "attempts_offered": len(data.used_attempts),
            "train_problems": len(train_problems),
            "held_out_problems": len(held_out),
        },
    }


def _search_lineage(
    search_examples: tuple[list[Trajectory], list[Trajectory]], used: set[str]
) -> dict[str, Any]:
    """How many search-made SFT and FD examples entered a loss, and which searches they
    came from (offered: how many were made)."""
    sft, fd = search_examples
    sft_used = [t for t in sft if str(t.sampling.get("snapshot_id")) in used]
    fd_used = [t for t in fd if str(t.sampling.get("snapshot_id")) in used]
    sources = {str(t.sampling["search_source"]) for t in [*sft_used, *fd_used]}
    return {
        "sft_examples": len(sft_used),
        "fd_examples": len(fd_used),
        "sft_offered": len(sft),
        "fd_offered": len(fd),
        "trajectories": sorted(sources),
    }


def continual_distill(
    snapshot_path: str | Path,
    config: Config,
    *,
    callback: MetricsCallback | None = None,
    stop: StopFlag | None = None,
    rollout_factory: Any = None,
    coach: Any = None,
    min_improvement: float | None = None,
) -> ContinualResult:
    from training import distributed
    from training.api import lean_rollout_factory, make_coach_for
    from training.checkpoints import CheckpointRegistry
    from training.session import evaluate_now, open_session, run_loop

    config = copy.deepcopy(config)
    config.training.reinforce.algorithm = "FD"
    config.checkpoints.resume = False  # every round starts from what serves, not a half run
    if min_improvement is not None:
        config.classroom.min_improvement = min_improvement
    if not config.run.name or config.run.name == "run":
        config.run.name = time.strftime("continual-%Y%m%d-%H%M%S")
    registry = CheckpointRegistry(config.checkpoints.registry)
    serving = registry.serving_path()
    if serving is not None:
        config.model.path = str(serving)
    snapshot = read_snapshot(snapshot_path)
    run_dir = Path(config.run.output_dir) / config.run.name
    if not snapshot.problems and not snapshot.trajectories:
        return ContinualResult(
            promoted=False, reason="the snapshot holds no problems and no trajectories"
        )
    run_dir.mkdir(parents=True, exist_ok=True)
    split = held_out_split(snapshot.problems, config.classroom, config.run.seed)
    held_out = split.held_out
    train_problems = [p for p in snapshot.problems if p.id not in held_out]
    selection_problems = [p for p in snapshot.problems if p.id in split.selection]
    gate_problems = [p for p in snapshot.problems if p.id in split.gate]
    config.data.train = _write_problems(run_dir / "snapshot_problems.jsonl", train_problems)
    # Only the selection problems are evaluated during the run (they pick the best
    # checkpoint); the gate problems are seen twice, by the serving checkpoint now and by
    # the one candidate at the end.
    config.data.eval = _write_problems(run_dir / "selection_problems.jsonl", selection_problems)
    _write_problems(run_dir / "gate_problems.jsonl", gate_problems)
    config.data.snapshot = str(snapshot_path)

    rollout_factory = rollout_factory or lean_rollout_factory(config)
    coach = coach or make_coach_for(config)
    session = open_session(
        config, "fd", callback=callback, stop=stop, rollout_factory=rollout_factory, coach=coach
    )
    data = build_classroom_data(
        snapshot, session.tokenizer, config.classroom, held_out, config.training.pretrain.max_length
    )
    if data.hints:
        session.coach = CuratedCoach(data.hints, coach, {p.id: p for p in snapshot.problems})
    replay, skipped = replay_pool(snapshot, session.tokenizer)
    search_sft, search_fd = search_pool(
        snapshot, session.tokenizer, held_out, config.training.pretrain.max_length,
        config.classroom.search_dead_ends_per_tree,
    )  # fmt: skip
    # Found paths join the SFT term; dead ends are replayed through FD, where
    # training.rollouts.attach_feedback asks the coach about Lean's message on them.
    # Under torchrun each rank trains on its own share of every pool (as with the
    # problems), so no example is taken world-size times per step.
    session.extra["sft"] = distributed.rank_share([*data.sft, *search_sft])
    session.extra["human"] = distributed.rank_share(data.human)
    session.replay = distributed.rank_share([*replay, *search_fd])
    all_replayed = [*replay, *search_fd]
    session.data_snapshot["snapshot"] = {
        "path": str(snapshot_path),
        "meta": snapshot.meta,
        "problems": len(snapshot.problems),
        "trajectories": len(snapshot.trajectories),
        "approved_feedback": len(snapshot.approved_feedback),
        "classroom": data.counts,
        "search_examples": {"sft": len(search_sft), "fd": len(search_fd)},
        "held_out_problems": sorted(held_out),
        "selection_problems": sorted(split.selection),
        "gate_problems": sorted(split.gate),
    }
    outcome = ContinualResult(
        promoted=False, reason="", run_dir=run_dir, run=config.run.name,
        skipped_trajectories=skipped, replayed_trajectories=len(all_replayed),
    )  # fmt: skip
    if session.cursor is None and not (all_replayed or data.human or data.sft or search_sft):
        outcome.reason = (
            "nothing to train on: no problems, no replayable trajectories and no classroom data"
        )
        return outcome

    # The serving checkpoint on the gate problems, before any training (same seeds as the
    # candidate's evaluation: training.session.eval_seed).
    baseline = _plain(evaluate_now(session, gate_problems, count_lemmas=False))
    baseline_per_problem = list(session.last_eval_per_problem)
    try:
        result = run_loop(session, continual_step, config.training.reinforce.total_steps)
    finally:
        used: set[str] = set().union(*distributed.gather_objects(session.extra.get("used", set())))
        outcome.lineage = lineage_of(
            snapshot_path, snapshot, data, all_replayed, held_out, train_problems, used,
            (search_sft, search_fd),
        )  # fmt: skip
        outcome.lineage["selection_problems"] = sorted(split.selection)
        outcome.lineage["gate_problems"] = sorted(split.gate)
        if distributed.is_main():
            write_json(run_dir / LINEAGE_FILE, outcome.lineage)
    outcome.baseline, outcome.steps_done, outcome.error = baseline, result.steps_done, result.error
    # The candidate: the best checkpoint on the selection problems (late collapse: keep the
    # best, not the last); with no selection problems, the last one.
    candidate = (result.best_checkpoint if selection_problems else None) or result.last_checkpoint
    outcome.checkpoint = candidate
    if candidate is None:
        outcome.reason = "no checkpoint was written (stopped before the first step)"
        return outcome
    if not gate_problems:
        # Empty only when nothing is held out (every course's held-out share has one).
        outcome.reason = (
            "no held-out problems (a course needs two or more): registered, not promoted"
        )
        return _record_gate(outcome, run_dir, None)
    _load_candidate(session, candidate)
    outcome.candidate = _plain(evaluate_now(session, gate_problems, count_lemmas=False))
    candidate_per_problem = list(session.last_eval_per_problem)
    decision = gate(baseline_per_problem, candidate_per_problem, config.classroom)
    decision.checkpoint = str(candidate)
    outcome.reason = decision.reason
    if decision.promote and distributed.is_main():
        promotion = registry.promote(candidate, reason=decision.reason)
        outcome.promoted = promotion.ok
        if not promotion.ok:
            outcome.reason = f"passed the gate but not promoted: {promotion.reason}"
    return _record_gate(outcome, run_dir, decision)


def _plain(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k.removeprefix("eval/"): v for k, v in metrics.items()}


def _load_candidate(session: Any, checkpoint: Path) -> None:
    """Put the candidate's weights where rollouts sample from (the live model, or under
    FSDP the replica), so its gate evaluation is of that checkpoint, not of the last step."""
    from safetensors.torch import load_file

    from training import distributed

    weights: dict[str, Any] = {}
    for file in sorted(checkpoint.glob("*.safetensors")):
        if file.name != "teacher.safetensors":
            weights.update(load_file(str(file)))
    distributed.load_full_state_dict(session.rollout_model, weights)
    resync = getattr(getattr(session.rollout, "sync", None), "resync", None)
    if callable(resync):
        resync()  # a vLLM engine loads these weights before its next rollout


def _record_gate(
    outcome: ContinualResult, run_dir: Path, decision: GateDecision | None
) -> ContinualResult:
    outcome.gate = {
        **(decision.to_dict() if decision else {}),
        "promoted": outcome.promoted,
        "reason": outcome.reason,
        "checkpoint": str(outcome.checkpoint) if outcome.checkpoint else None,
        "baseline": outcome.baseline,
        "candidate": outcome.candidate,
    }
    write_json(run_dir / GATE_FILE, outcome.gate)
    return outcome
