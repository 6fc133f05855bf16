"""The small library every trainer uses: load the model, the optimizer, resume, log,
checkpoint, evaluate, and the step loop with its progress bar and stop flag.

The stage modules (sft.py, fd.py, grpo.py, fd_grpo.py, mixed.py) each define what one step
does; `run_loop` here does everything around it, identically for all of them.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from training import distributed
from training.checkpoints import CheckpointInfo, CheckpointRegistry
from training.config import Config, exploration_rate
from training.data import ProblemCursor, load_problems
from training.ema import make_teacher
from training.rollouts import RolloutFn
from training.runlog import MetricsCallback, MetricsLogger, StopFlag
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory

log = logging.getLogger(__name__)


StepFn = Callable[["Session"], dict[str, Any]]


class MemoryLimitExceeded(RuntimeError):
    """The run's peak RSS passed resources.memory_limit."""


@dataclass
class TrainResult:
    """What a run did. error is set (and nothing is claimed) when it failed."""

    run: str
    stage: str
    steps_done: int
    stopped_early: bool = False
    last_checkpoint: Path | None = None
    best_checkpoint: Path | None = None
    metrics_path: Path | None = None
    plots: list[Path] = field(default_factory=list)
    final_metrics: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass
class Session:
    config: Config
    stage: str
    model: Any  # the module trained (under FSDP: sharded in place)
    tokenizer: Any
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    device: torch.device
    logger: MetricsLogger
    registry: CheckpointRegistry
    stop: StopFlag
    rollout: RolloutFn | None = None
    coach: Any = None
    cursor: ProblemCursor | None = None  # this rank's slice of the training problems
    train_problems: list[Problem] = field(default_factory=list)  # all of them (SFT's examples)
    eval_problems: list[Problem] = field(default_factory=list)
    teacher: nn.Module | None = None
    rollout_model: Any = None  # what generates: the model itself, or (FSDP) a synced replica
    reference: nn.Module | None = None  # GRPO's frozen initial policy (only when grpo.beta > 0)
    replay: list[Trajectory] = field(
        default_factory=list
    )  # FD: snapshot trajectories with approved feedback
    replay_position: int = 0
    step: int = 0
    trajectories_seen: int = 0
    lemmas_seen: set[str] = field(default_factory=set)
    data_snapshot: dict[str, Any] = field(default_factory=dict)
    last_eval_per_problem: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # stage-specific state (continual)

    @property
    def pad_id(self) -> int:
        for candidate in (self.tokenizer.pad_token_id, self.tokenizer.eos_token_id):
            if candidate is not None:
                return int(candidate)
        return 0

    @property
    def problems_by_id(self) -> dict[str, Problem]:
        return {p.id: p for p in self.cursor.problems} if self.cursor else {}

    def ensure_teacher(self) -> nn.Module:
        """FD's EMA teacher, created from the student on first use (under FSDP open_session
        makes it, sharded like the student, before the student's full weights are gone)."""
        if self.teacher is None:
            if distributed.is_sharded(self.model):
                raise RuntimeError(
                    "a sharded run's teacher is made when the session opens (stage fd, "
                    "fd-grpo, mixed or continual); this stage has none"
                )
            self.teacher = make_teacher(self.model)
        return self.teacher

    def autocast(self) -> Any:
        """The compute-precision context of every training forward (training.precision)."""
        from training.precision import autocast

        return autocast(self.config.model, self.device, sharded=distributed.is_sharded(self.model))

    def take_replay(self, n: int) -> list[Trajectory]:
        """Up to n replayed trajectories, round robin over the pool."""
        if not self.replay:
            return []
        out = []
        for _ in range(min(n, len(self.replay))):
            out.append(self.replay[self.replay_position % len(self.replay)])
            self.replay_position += 1
        return out

    def placeholder(self) -> Trajectory:
        """The zero-weight micro-batch of a rank that has run out of real ones
        (agreed_micro_batches); made once per session."""
        from training.batches import placeholder_trajectory

        if "placeholder" not in self.extra:
            self.extra["placeholder"] = placeholder_trajectory(self.tokenizer)
        return self.extra["placeholder"]

    def require_rollout(self) -> RolloutFn:
        if self.rollout is None:
            raise RuntimeError(
                "this stage needs rollouts: pass a rollout function (see training.rollouts)"
            )
        return self.rollout


# --- building ---------------------------------------------------------------------------


def pick_device(config: Config) -> torch.device:
    if distributed.is_distributed() and torch.cuda.is_available() and config.run.device != "cpu":
        return torch.device("cuda", distributed.local_rank())
    if config.run.device == "cuda" or (config.run.device == "auto" and torch.cuda.is_available()):
        if not torch.cuda.is_available():
            raise RuntimeError(
                "run.device is cuda but no CUDA device is visible; use run.device: cpu"
            )
        return torch.device("cuda")
    return torch.device("cpu")


def load_model_and_tokenizer(config: Config, device: torch.device) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not config.model.path:
        raise ValueError(
            "model.path is empty: point it at a local model directory (config.json + weights)"
        )
    if not (Path(config.model.path) / "config.json").is_file():
        raise FileNotFoundError(
            f"model.path {config.model.path!r} has no config.json: nothing is downloaded, give a local directory"
        )
    from training.precision import param_dtype

    # fp32 master weights by default: the model computes in model.dtype under autocast.
    dtype = param_dtype(config.model)
    model: Any = AutoModelForCausalLM.from_pretrained(config.model.path, dtype=dtype)
    model = model.to(device)
    tokenizer = AutoTokenizer.from_pretrained(config.model.path)
    if config.model.gradient_checkpointing:
        model.activation_checkpointing_enable()  # transformers 5.x name (modeling_utils.py)
    model.train()
    return model, tokenizer


def make_optimizer(
    model: nn.Module, config: Config
) -> tuple[torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler]:
    opt = config.optimizer
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=opt.lr,
        betas=opt.betas,
        weight_decay=opt.weight_decay,
    )
    warmup = opt.warmup_steps

    def factor(step: int) -> float:
        return min(1.0, (step + 1) / warmup) if warmup else 1.0

    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def open_session(
    config: Config,
    stage: str,
    *,
    callback: MetricsCallback | None = None,
    stop: StopFlag | None = None,
    rollout_factory: Callable[[Any, Any], RolloutFn] | None = None,
    coach: Any = None,
    model_and_tokenizer: tuple[Any, Any] | None = None,
) -> Session:
    """Everything a trainer needs, resumed from the run's latest checkpoint when allowed.

    rollout_factory(model, tokenizer) builds the rollout function on the live model (the CLI
    passes the prover's; tests pass the same with a checker on the REPL test double).
    """
    torch.manual_seed(config.run.seed + distributed.rank())
    device = pick_device(config)
    if device.type == "cuda":
        torch.cuda.set_per_process_memory_fraction(config.resources.gpu_allocation, device)
    base_model, tokenizer = model_and_tokenizer or load_model_and_tokenizer(config, device)
    model, replica, teacher, reference = base_model, base_model, None, None
    if config.run.distributed == "fsdp":
        distributed.init_process_group()
        # The fp32 teacher (and GRPO's reference) are copied from the full student now and
        # sharded like it: later only shards exist (training.memory: no full fp32 copy per
        # rank). The rollout replica is a compute-dtype model filled from the shards one
        # tensor at a time.
        if stage in TEACHER_STAGES:
            teacher = distributed.wrap_model(make_teacher(base_model), config)
        if stage in GRPO_STAGES and config.grpo.beta > 0:
            reference = distributed.wrap_model(make_teacher(base_model), config)
        model = distributed.wrap_model(base_model, config)
        replica = distributed.make_replica(model, compute_dtype(config.model), device)
    optimizer, scheduler = make_optimizer(model, config)
    _state_batch_sizes(config, stage)
    run_dir = Path(config.run.output_dir) / config.run.name
    session = Session(
        config=config,
        stage=stage,
        model=model,
        tokenizer=tokenizer,
        optimizer=optimizer,
        scheduler=scheduler,
        device=device,
        logger=MetricsLogger(run_dir, callback=callback, enabled=distributed.is_main()),
        registry=CheckpointRegistry(config.checkpoints.registry),
        stop=stop or StopFlag(),
        coach=coach,
        rollout_model=replica,
        teacher=teacher,
        reference=reference,
    )
    if config.data.train:
        problem_set = load_problems(config.data.train, config.data.max_problems)
        session.train_problems = list(problem_set.problems)
        # Under torchrun each rank rolls out its own slice of the problems.
        mine = problem_set.problems[distributed.rank() :: distributed.world_size()]
        if mine:
            session.cursor = ProblemCursor(mine, seed=config.run.seed)
        session.data_snapshot["train"] = {
            "path": config.data.train,
            "problems": len(problem_set.problems),
            "skipped_needs_mathlib": problem_set.skipped_needs_mathlib,
        }
    if config.data.eval:
        eval_set = load_problems(config.data.eval, config.evaluation.max_problems)
        session.eval_problems = eval_set.problems
        session.data_snapshot["eval"] = {
            "path": config.data.eval,
            "problems": len(eval_set.problems),
            "skipped_needs_mathlib": eval_set.skipped_needs_mathlib,
        }
    if rollout_factory is not None:
        session.rollout = rollout_factory(replica, tokenizer)
    if config.checkpoints.resume:
        resume(session)
    return session


TEACHER_STAGES = ("fd", "fd-grpo", "mixed")
GRPO_STAGES = ("grpo", "fd-grpo", "mixed")


def compute_dtype(model_config: Any) -> torch.dtype:
    from training.precision import compute_dtype as dtype_of

    return dtype_of(model_config)


def _state_batch_sizes(config: Config, stage: str) -> None:
    """Check now (not at the switch to GRPO, hours in) that the global batches divide over
    the ranks, and say in the log what each rank does."""
    world = distributed.world_size()
    sizes = []
    if stage in ("fd", "fd-grpo"):
        sizes.append(("fd.batch_size", config.fd.batch_size, "trajectories"))
    if stage in ("grpo", "fd-grpo", "mixed"):
        sizes.append(("grpo.problems_per_step", config.grpo.problems_per_step, "problems"))
    for key, size, what in sizes:
        local = distributed.per_rank(size, key, world)
        log.info(
            "%s: %d %s per step in all, %d per rank on %d ranks", key, size, what, local, world
        )


def resume(session: Session) -> CheckpointInfo | None:
    """Continue the run from its latest stable checkpoint, exactly: weights, teacher,
    optimizer, scheduler, data cursor and replay position, and every random generator a
    step draws from (training.session.capture_rng; rollouts are seeded from the step, see
    rollout_seed), so N steps, or N/2 + resume + N/2, give the same losses and weights."""
    info = session.registry.latest(session.config.run.name)
    if info is None:
        return None
    state = session.registry.load_trainer_state(info.path) or {}
    if state.get("sharded_train_state"):
        # FSDP: each rank reads its own shards of the weights, AdamW's moments and the
        # teacher (torch.distributed.checkpoint); the replica is refilled from them.
        from training.train_state import load_train_state

        load_train_state(
            state["sharded_train_state"], session.model, session.optimizer, session.teacher
        )
        distributed.sync_replica(session.model, session.rollout_model)
    else:
        _resume_one_process(session, info.path, state)
    if "scheduler" in state:
        session.scheduler.load_state_dict(state["scheduler"])
    session.step = int(state.get("step", info.step))
    session.trajectories_seen = int(state.get("trajectories_seen", 0))
    session.lemmas_seen = set(state.get("lemmas_seen", []))
    session.replay_position = int(state.get("replay_position", 0))
    cursor_state = state.get("cursor")
    if cursor_state and session.cursor is not None:
        session.cursor = ProblemCursor(
            session.cursor.problems,
            cursor_state["seed"],
            cursor_state["epoch"],
            cursor_state["position"],
        )
    rng = state.get("rng")
    if isinstance(rng, list) and len(rng) == distributed.world_size():
        restore_rng(rng[distributed.rank()])
    else:
        log.warning(
            "resuming %s without this rank's random generator state (saved for %s ranks, now "
            "%d): dropout and unseeded draws will differ from the uninterrupted run",
            info.path, len(rng) if isinstance(rng, list) else "no", distributed.world_size(),
        )  # fmt: skip
    log.info("resumed run %s at step %d from %s", session.config.run.name, session.step, info.path)
    return info


def _resume_one_process(session: Session, path: Path, state: dict[str, Any]) -> None:
    from safetensors.torch import load_file

    weights = {}
    for file in sorted(path.glob("*.safetensors")):
        if file.name != "teacher.safetensors":
            weights.update(load_file(str(file)))
    distributed.load_full_state_dict(session.model, weights)
    teacher_state = session.registry.load_teacher_state(path)
    if teacher_state is not None:
        distributed.load_full_state_dict(session.ensure_teacher(), teacher_state)
    if "optimizer" in state:
        session.optimizer.load_state_dict(state["optimizer"])
    elif session.config.run.distributed == "fsdp":
        log.warning("resuming %s without optimizer state (none was saved)", path)


# --- random generators --------------------------------------------------------------------


def derived_seed(*parts: object) -> int:
    """A 48-bit seed from its parts (run seed, purpose, step, rank, ...): independent streams
    without a counter that would have to be saved."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:6], "big")


def rollout_seed(session: Session, part: int = 0) -> int:
    """The sampling seed of a training rollout call: a function of the run's seed, the step,
    the rank and the call's part of the step, so a resumed run samples what the
    uninterrupted one did."""
    return derived_seed(session.config.run.seed, "rollout", session.step, distributed.rank(), part)


def eval_seed(config: Config) -> int:
    """Every evaluation samples from the same seed: checkpoints (and the gate's serving
    baseline and candidate) are compared on the same draws."""
    return derived_seed(config.run.seed, "eval", distributed.rank())


def capture_rng() -> dict[str, Any]:
    """Python's, torch's (CPU and this process's CUDA devices) and numpy's global generator
    states: dropout, unseeded sampling (a self coach at temperature > 0) and shuffles draw
    from them."""
    state: dict[str, Any] = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    try:
        import numpy

        state["numpy"] = numpy.random.get_state()
    except ImportError:
        pass
    return state


def restore_rng(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
    if "numpy" in state:
        import numpy

        numpy.random.set_state(state["numpy"])


def sample(session: Session, problems: list[Problem], samples: int) -> list[Trajectory]:
    """Roll out `samples` per problem (grouped). With seed 000's exploration_rate on, that
    share of the problems is sampled at reinforce.exploration_temperature instead."""
    cfg = session.config
    rollout = session.require_rollout()
    rate = exploration_rate(cfg.training.reinforce, session.step)
    n_explore = round(rate * len(problems))
    explored = (
        rollout(
            problems[:n_explore],
            samples,
            cfg.training.reinforce.exploration_temperature,
            seed=rollout_seed(session, 0),
        )
        if n_explore
        else []
    )
    rest = (
        rollout(problems[n_explore:], samples, cfg.model.temperature, seed=rollout_seed(session, 1))
        if n_explore < len(problems)
        else []
    )
    return list(explored) + list(rest)


# --- one optimizer step -----------------------------------------------------------------


def optimizer_step(session: Session) -> float:
    """Clip, step, zero; returns the pre-clip gradient norm."""
    clip = session.config.optimizer.grad_clip
    params = [p for p in session.model.parameters() if p.requires_grad]
    norm = torch.nn.utils.clip_grad_norm_(params, clip if clip > 0 else float("inf"))
    session.optimizer.step()
    session.scheduler.step()
    session.optimizer.zero_grad(set_to_none=True)
    if session.rollout_model is not session.model:
        distributed.sync_replica(session.model, session.rollout_model)
    sync = getattr(session.rollout, "sync", None)
    if sync is not None:
        sync.mark_stale()  # a colocated vLLM engine loads the new weights before sampling
    return float(norm)


def token_weight(local_tokens: float, global_tokens: float) -> float:
    """Weight of a micro-batch's token-mean loss so the step's loss is the token mean over
    the whole (all-rank) batch: gradients are averaged over ranks, hence * world size.
    global_tokens comes from global_totals, reduced once per step (a collective per
    micro-batch would hang ranks that run different numbers of them)."""
    if global_tokens == 0:
        return 0.0
    return local_tokens / global_tokens * distributed.world_size()


def global_totals(*local: float) -> list[float]:
    """The step's token (or example) counts summed over ranks, in one collective."""
    return distributed.all_reduce_sums([float(v) for v in local])


def agreed_micro_batches(items: Sequence[Any], size: int) -> list[list[Any]]:
    """This rank's micro-batches, padded with empty ones to the most any rank has. Every
    micro-batch of a sharded model runs collectives (FSDP's gathers and reduce-scatters),
    so all ranks must run the same number; an empty one is run as a zero-weight placeholder
    (training.batches.placeholder_trajectory). One process: no padding."""
    from training.batches import micro_batches

    chunks = [list(c) for c in micro_batches(list(items), size)]
    count = distributed.all_reduce_max(len(chunks))
    return chunks + [[] for _ in range(int(count) - len(chunks))]


# --- checkpoints and evaluation -----------------------------------------------------------


TRAIN_STATE_DIR = "train_state"


def _save_sharded_train_state(session: Session) -> str | None:
    """Under FSDP: every rank writes its shards of model, AdamW state and teacher (DCP);
    only the newest is kept (it is what resume reads; a 9B run's AdamW state is ~72 GB)."""
    if session.config.run.distributed != "fsdp":
        return None
    import shutil

    from training.train_state import save_train_state

    root = session.registry.run_dir(session.config.run.name) / TRAIN_STATE_DIR
    path = root / f"step-{session.step:06d}"
    save_train_state(path, session.model, session.optimizer, session.teacher)
    distributed.barrier()
    if distributed.is_main():
        for old in root.glob("step-*"):
            if old != path:
                shutil.rmtree(old, ignore_errors=True)
    return str(path)


def save_checkpoint(session: Session, metrics: dict[str, Any]) -> CheckpointInfo | None:
    """Every rank calls this (under FSDP the gathers are collectives). The published weights
    and teacher are gathered to rank 0's CPU one tensor at a time (never a whole model on a
    GPU); the sharded training state goes through torch.distributed.checkpoint; every rank's
    random generators are gathered so a resume continues them."""
    sharded = distributed.is_sharded(session.model)
    weights = distributed.full_state_dict(session.model, to_rank0_cpu=True) if sharded else None
    teacher_state = (
        distributed.full_state_dict(session.teacher, to_rank0_cpu=True)
        if session.teacher is not None
        else None
    )
    sharded_state = _save_sharded_train_state(session)
    rng = distributed.gather_objects(capture_rng())
    if not distributed.is_main():
        distributed.barrier()
        return None
    trainer_state = {
        "step": session.step,
        "trajectories_seen": session.trajectories_seen,
        "lemmas_seen": sorted(session.lemmas_seen),
        "cursor": session.cursor.state() if session.cursor else None,
        "replay_position": session.replay_position,
        "scheduler": session.scheduler.state_dict(),
        "rng": rng,
    }
    if session.config.run.distributed == "none":
        trainer_state["optimizer"] = session.optimizer.state_dict()
    else:
        trainer_state["sharded_train_state"] = sharded_state
    info = session.registry.save(
        session.config.run.name,
        session.step,
        session.rollout_model,  # its config and generation config; FSDP: weights given below
        session.tokenizer,
        stage=session.stage,
        config=session.config.to_dict(),
        metrics={k: v for k, v in metrics.items() if isinstance(v, (int, float))},
        data_snapshot=session.data_snapshot,
        state_dict=weights,
        teacher=teacher_state,
        trainer_state=trainer_state,
    )
    session.registry.apply_retention(session.config.run.name, session.config.checkpoints.keep_last)
    distributed.barrier()
    return info


def evaluate_now(
    session: Session, problems: Sequence[Problem] | None = None, *, count_lemmas: bool = True
) -> dict[str, Any]:
    """Held-out evaluation of the live model on `problems` (default: data.eval), sharded
    over the ranks; returns the eval/ metrics and keeps the per-problem counts in
    session.last_eval_per_problem. Every rank calls this (it gathers the results).

    Each rank samples its slice of the problems (problems[rank::world]) with the unsharded
    rollout model, so no collective runs inside generation; the slices' results are
    gathered and merged (training.evaluate.merge_eval_results). Every evaluation samples
    from eval_seed, so two checkpoints are compared on the same draws. A sharded teacher
    gives no student_teacher_kl (its forward would be a collective the ranks do not share).
    count_lemmas: add the verified proofs' lemmas to the run's lemma discovery (not for
    the gate's evaluations, which are not part of training)."""
    problems = list(session.eval_problems if problems is None else problems)
    if not problems or session.rollout is None:
        return {}
    from training.evaluate import EvalResult, evaluate, merge_eval_results

    teacher = (
        session.teacher
        if session.teacher is not None and not distributed.is_sharded(session.teacher)
        else None
    )
    mine = problems[distributed.rank() :: distributed.world_size()]
    # Sampling is seeded per call (eval_seed); forwards that draw from torch's global
    # generator (none in eval mode) give it back too, so training continues undisturbed.
    rng = capture_rng()
    try:
        result = (
            evaluate(
                session.rollout_model,
                session.tokenizer,
                session.rollout,
                mine,
                session.config,
                pad_id=session.pad_id,
                teacher=teacher,
                coach=session.coach if teacher is not None else None,
                seed=eval_seed(session.config),
            )
            if mine
            else EvalResult({})
        )
    finally:
        restore_rng(rng)
    parts = distributed.gather_objects(result)
    merged = merge_eval_results(parts, [p.id for p in problems], session.config.evaluation.ks)
    if count_lemmas:
        session.lemmas_seen.update(merged.lemmas)
    merged.metrics["lemmas_discovered"] = float(len(session.lemmas_seen))
    session.last_eval_per_problem = merged.per_problem
    return {f"eval/{k}": v for k, v in merged.metrics.items()}


def record_evaluation(
    session: Session, checkpoint: CheckpointInfo | None, metrics: dict[str, Any]
) -> None:
    """Store an evaluation on its checkpoint (best.json follows evaluation.select_metric)."""
    if checkpoint is None or not distributed.is_main() or not metrics:
        return
    session.registry.record_eval(
        checkpoint.path,
        {k.removeprefix("eval/"): v for k, v in metrics.items()},
        session.config.evaluation.select_metric,
        per_problem=session.last_eval_per_problem,
    )


def _check_memory(session: Session) -> None:
    limit = session.config.resources.memory_limit_bytes
    if limit is None:
        return
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
    if peak > limit:
        raise MemoryLimitExceeded(
            f"peak RSS {peak / 1e9:.2f} GB passed resources.memory_limit={session.config.resources.memory_limit}; raise it or shrink the batch"
        )


# --- the loop -----------------------------------------------------------------------------


def run_loop(
    session: Session,
    step_fn: StepFn,
    total_steps: int,
    stage_of_step: Callable[[int], str] | None = None,
) -> TrainResult:
    """Call step_fn until total_steps (or the stop flag); log, checkpoint, evaluate, plot."""
    from tqdm import tqdm

    config = session.config
    result = TrainResult(
        run=config.run.name, stage=session.stage, steps_done=0, metrics_path=session.logger.path
    )
    last_metrics: dict[str, Any] = {}
    bar = tqdm(
        total=total_steps,
        initial=session.step,
        desc=f"{session.stage} {config.run.name}",
        disable=not distributed.is_main(),
        dynamic_ncols=True,
    )
    try:
        while session.step < total_steps:
            if session.stop.is_set():
                result.stopped_early = True
                break
            started = time.perf_counter()
            metrics = distributed.reduce_metrics(step_fn(session))
            session.step += 1
            metrics["step_time_s"] = time.perf_counter() - started
            if metrics.get("tokens"):
                metrics["tokens_per_s"] = metrics["tokens"] / metrics["step_time_s"]
            metrics["lr"] = session.scheduler.get_last_lr()[0]
            metrics["trajectories_seen"] = int(
                distributed.all_reduce_sum(session.trajectories_seen)
            )
            last_metrics = metrics
            stage = stage_of_step(session.step - 1) if stage_of_step else session.stage
            checkpoint = None
            at_end = session.step == total_steps
            eval_due = bool(config.evaluation.every and session.step % config.evaluation.every == 0)
            # Evaluate before saving, so the saved state (lemma set, generators) is what the
            # next step starts from whether or not the run is interrupted here. Every
            # evaluated step is saved too: each is a candidate, so best-by-eval exists.
            evaluation = evaluate_now(session) if eval_due or at_end else {}
            if session.step % config.checkpoints.every == 0 or at_end or eval_due:
                checkpoint = save_checkpoint(session, metrics)
                result.last_checkpoint = checkpoint.path if checkpoint else result.last_checkpoint
                record_evaluation(session, checkpoint, evaluation)
            metrics.update(evaluation)
            if session.step % config.run.log_every == 0 or at_end:
                session.logger.log(session.step, stage, metrics)
            _check_memory(session)
            loss = metrics.get("loss")
            bar.set_postfix(
                {
                    k: f"{v:.4g}"
                    for k, v in metrics.items()
                    if k in ("loss", "reward", "fd_kl") and isinstance(v, float)
                }
            )
            bar.update(1)
            if isinstance(loss, float) and not math.isfinite(loss):
                raise FloatingPointError(
                    f"loss became {loss} at step {session.step}: lower optimizer.lr or check the data"
                )
        if (
            result.stopped_early
            and session.step > 0
            and (
                result.last_checkpoint is None
                or not result.last_checkpoint.name.endswith(f"{session.step:06d}")
            )
        ):
            checkpoint = save_checkpoint(session, last_metrics)
            result.last_checkpoint = checkpoint.path if checkpoint else result.last_checkpoint
    finally:
        bar.close()
        result.steps_done = session.step
        result.final_metrics = last_metrics
        if distributed.is_main() and session.logger.path.exists():
            result.plots = session.logger.plot()
        best = session.registry.best(config.run.name)
        result.best_checkpoint = best[0] if best else None
    return result
