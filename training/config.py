"""Typed run configuration, with the paper's defaults (see docs/TRAINING.md, "Configs").

One dataclass per concern; every field has a help string (metadata["help"]) and
__post_init__ checks that say how to fix a bad value. `load_config(path)` reads YAML shaped
like seed 000's train_config.yaml:

    training:
      pretrain:  {method: SFT, batch_size: 32, epochs: 10}
      reinforce: {algorithm: FD-GRPO, feedback_weight: schedule, exploration_rate: 0.0}
    resources:   {gpu_allocation: 0.8, memory_limit: 12GB}

plus the sections model, data, fd, grpo, optimizer, coach, evaluation, checkpoints, run.
Unknown keys are errors (a typo must not silently fall back to a default).
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ALGORITHMS = ("SFT", "FD", "GRPO", "FD-GRPO", "mixed")
STAGE_FOR_ALGORITHM = {
    "SFT": "sft",
    "FD": "fd",
    "GRPO": "grpo",
    "FD-GRPO": "fd-grpo",
    "mixed": "mixed",
}


def _help(text: str) -> dict[str, str]:
    return {"help": text}


class ConfigError(ValueError):
    """A config value is wrong; the message says which key and how to fix it."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


@dataclass
class ModelConfig:
    path: str = field(
        default="",
        metadata=_help(
            "Directory of a Hugging Face causal LM and its tokenizer (local only; nothing is downloaded)."
        ),
    )
    dtype: str = field(
        default="float32",
        metadata=_help(
            "Compute dtype of forward and backward: float32 (CPU) or bfloat16 (GPU); see master_weights."
        ),
    )
    master_weights: str = field(
        default="float32",
        metadata=_help(
            "float32: parameters, AdamW state and the EMA teacher stay fp32, compute runs in dtype (autocast, or FSDP's MixedPrecisionPolicy); model_dtype: store weights in dtype (lossy: at lr 1e-6 most bf16 updates round away)."
        ),
    )
    max_turns: int = field(
        default=4, metadata=_help("Most assistant turns per rollout (tool calls in between).")
    )
    max_new_tokens: int = field(
        default=512, metadata=_help("Most tokens the policy may write per turn.")
    )
    max_total_tokens: int = field(
        default=4096,
        metadata=_help("Most tokens in a whole trajectory (prompt, turns, tool outputs)."),
    )
    temperature: float = field(
        default=1.0, metadata=_help("Sampling temperature of training rollouts.")
    )
    top_p: float = field(default=1.0, metadata=_help("Nucleus sampling mass of training rollouts."))
    rollout_backend: str = field(
        default="hf",
        metadata=_help(
            "Who generates rollouts: hf (the live training model, any host) or vllm (GPU hosts: a colocated engine, weights loaded in place; docs/TRAINING.md)."
        ),
    )
    vllm_mode: str = field(
        default="colocate",
        metadata=_help(
            "vllm backend: colocate (an engine on each training GPU, weights loaded in place) or server (a separate `vllm serve` at vllm_server_url samples; weights pushed to it over NCCL after updates; docs/TRAINING.md)."
        ),
    )
    vllm_server_url: str = field(
        default="http://127.0.0.1:8000",
        metadata=_help(
            "vllm_mode server: base URL of the vLLM server (without /v1). Unreachable is an error, never a fallback."
        ),
    )
    vllm_server_timeout_s: float = field(
        default=600.0,
        metadata=_help("vllm_mode server: seconds one HTTP call may take (a long rollout turn)."),
    )
    vllm_sync_every: int = field(
        default=1,
        metadata=_help(
            "vllm backend: load the live weights into the engine after every N optimizer steps (1: strictly on-policy)."
        ),
    )
    vllm_gpu_memory_utilization: float = field(
        default=0.3,
        metadata=_help(
            "vllm backend: the engine's share of GPU memory; with resources.gpu_allocation at most 0.95."
        ),
    )
    loss_chunk_tokens: int = field(
        default=1024,
        metadata=_help(
            "Response positions per chunk of the output projection in the FD / GRPO losses: the [N, V] logits never exist at once (0: the full-logits reference path)."
        ),
    )
    gradient_checkpointing: bool = field(
        default=False,
        metadata=_help(
            "Recompute activations in backward to save memory (GPU runs of real-size models)."
        ),
    )

    def __post_init__(self) -> None:
        _require(
            self.dtype in ("float32", "bfloat16", "float16"),
            f"model.dtype must be float32, bfloat16 or float16, got {self.dtype!r}",
        )
        _require(
            self.master_weights in ("float32", "model_dtype"),
            f"model.master_weights must be float32 or model_dtype, got {self.master_weights!r}",
        )
        _require(
            self.max_turns >= 1, "model.max_turns must be >= 1 (one turn writes and checks a proof)"
        )
        _require(self.max_new_tokens >= 1, "model.max_new_tokens must be >= 1")
        _require(
            self.max_total_tokens > self.max_new_tokens,
            "model.max_total_tokens must exceed model.max_new_tokens",
        )
        _require(
            self.temperature > 0,
            "model.temperature must be > 0 (use a small value such as 0.01 for near-greedy)",
        )
        _require(0 < self.top_p <= 1, "model.top_p must be in (0, 1]")
        _require(
            self.loss_chunk_tokens >= 0, "model.loss_chunk_tokens must be >= 0 (0: no chunking)"
        )
        _require(self.vllm_sync_every >= 1, "model.vllm_sync_every must be >= 1")
        _require(
            0.05 <= self.vllm_gpu_memory_utilization <= 0.95,
            "model.vllm_gpu_memory_utilization must be in [0.05, 0.95]",
        )
        _require(
            self.vllm_mode in ("colocate", "server"),
            f"model.vllm_mode must be colocate or server, got {self.vllm_mode!r}",
        )
        _require(
            self.vllm_server_url.startswith(("http://", "https://")),
            f"model.vllm_server_url must be an http(s) URL, got {self.vllm_server_url!r}",
        )
        _require(self.vllm_server_timeout_s > 0, "model.vllm_server_timeout_s must be > 0")
        _require(
            self.rollout_backend in ("hf", "vllm"),
            f"model.rollout_backend must be hf or vllm, got {self.rollout_backend!r}",
        )


@dataclass
class DataConfig:
    train: str = field(
        default="",
        metadata=_help(
            "JSONL of training problems (fields of shared/data/minif2f.jsonl: name, formal_statement, header; optional informal_prefix, proof)."
        ),
    )
    eval: str = field(
        default="",
        metadata=_help(
            "JSONL of held-out problems for evaluation (same fields); empty: no evaluation during training."
        ),
    )
    snapshot: str = field(
        default="",
        metadata=_help(
            "JSONL snapshot exported by the web app (continual distillation); see docs/TRAINING.md."
        ),
    )
    max_problems: int = field(
        default=0,
        metadata=_help("Use only the first N training problems (0: all). Handy for smoke runs."),
    )

    def __post_init__(self) -> None:
        _require(self.max_problems >= 0, "data.max_problems must be >= 0 (0 means all)")


@dataclass
class OptimizerConfig:
    lr: float = field(
        default=1e-6,
        metadata=_help(
            "AdamW learning rate (the paper's value was not given; 1e-6 is usual for RL on 8-9B models)."
        ),
    )
    weight_decay: float = field(default=0.0, metadata=_help("AdamW weight decay."))
    betas: tuple[float, float] = field(default=(0.9, 0.999), metadata=_help("AdamW betas."))
    grad_clip: float = field(
        default=1.0, metadata=_help("Clip the global gradient norm to this (0: no clipping).")
    )
    warmup_steps: int = field(default=0, metadata=_help("Linear learning-rate warmup steps."))
    micro_batch_size: int = field(
        default=4,
        metadata=_help(
            "Trajectories per forward/backward; gradients accumulate up to the step's batch."
        ),
    )

    def __post_init__(self) -> None:
        self.betas = (float(self.betas[0]), float(self.betas[1]))
        _require(self.lr > 0, "optimizer.lr must be > 0")
        _require(self.weight_decay >= 0, "optimizer.weight_decay must be >= 0")
        _require(all(0 <= b < 1 for b in self.betas), "optimizer.betas must both be in [0, 1)")
        _require(self.grad_clip >= 0, "optimizer.grad_clip must be >= 0 (0 disables clipping)")
        _require(self.warmup_steps >= 0, "optimizer.warmup_steps must be >= 0")
        _require(self.micro_batch_size >= 1, "optimizer.micro_batch_size must be >= 1")


@dataclass
class PretrainConfig:
    method: str = field(
        default="SFT",
        metadata=_help("Only SFT: next-token cross-entropy on (problem, proof) pairs."),
    )
    batch_size: int = field(
        default=32, metadata=_help("(problem, proof) pairs per optimizer step (seed 000: 32).")
    )
    epochs: int = field(default=10, metadata=_help("Passes over the SFT data (seed 000: 10)."))
    max_length: int = field(
        default=2048,
        metadata=_help("Longest SFT example in tokens; longer episodes are left out, not cut."),
    )

    def __post_init__(self) -> None:
        _require(self.method == "SFT", f"training.pretrain.method must be SFT, got {self.method!r}")
        _require(self.batch_size >= 1, "training.pretrain.batch_size must be >= 1")
        _require(self.epochs >= 1, "training.pretrain.epochs must be >= 1")
        _require(self.max_length >= 8, "training.pretrain.max_length must be >= 8")


@dataclass
class ReinforceConfig:
    algorithm: str = field(
        default="FD-GRPO",
        metadata=_help(
            "FD, GRPO, FD-GRPO (FD then GRPO at switch_step) or mixed; the CLI subcommand must agree."
        ),
    )
    total_steps: int = field(
        default=1000, metadata=_help("Optimizer steps of the whole run (all stages).")
    )
    switch_step: int = field(
        default=200,
        metadata=_help(
            "FD-GRPO: the step at which FD hands over to GRPO (paper: 200, 300 or 400)."
        ),
    )
    feedback_weight: str | float = field(
        default="schedule",
        metadata=_help(
            "mixed: w in w*L_FD + (1-w)*L_GRPO; 'schedule' = seed 000's 0.3 before 50% of total_steps, 0.6 to 80%, 0.9 after; or a constant in [0, 1]."
        ),
    )
    exploration_rate: float = field(
        default=0.0,
        metadata=_help(
            "Seed 000's option, off by default: the share of rollouts sampled at exploration_temperature; decays 5% per 1000 steps, floor 0.1 when on."
        ),
    )
    exploration_temperature: float = field(
        default=1.5,
        metadata=_help("Temperature of the exploration rollouts (exploration_rate > 0)."),
    )

    def __post_init__(self) -> None:
        _require(
            self.algorithm in ALGORITHMS,
            f"training.reinforce.algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}",
        )
        _require(self.total_steps >= 1, "training.reinforce.total_steps must be >= 1")
        _require(
            0 <= self.switch_step <= self.total_steps,
            f"training.reinforce.switch_step must be in [0, total_steps={self.total_steps}] (paper: 200, 300 or 400)",
        )
        if isinstance(self.feedback_weight, str):
            _require(
                self.feedback_weight == "schedule",
                "training.reinforce.feedback_weight must be 'schedule' or a number in [0, 1]",
            )
        else:
            self.feedback_weight = float(self.feedback_weight)
            _require(
                0 <= self.feedback_weight <= 1,
                "training.reinforce.feedback_weight must be in [0, 1]",
            )
        _require(
            0 <= self.exploration_rate <= 1,
            "training.reinforce.exploration_rate must be in [0, 1] (seed 000 suggests 0.3-0.5; 0 turns it off)",
        )
        _require(
            self.exploration_temperature > 0,
            "training.reinforce.exploration_temperature must be > 0",
        )


@dataclass
class TrainingConfig:
    pretrain: PretrainConfig = field(
        default_factory=PretrainConfig, metadata=_help("The SFT stage.")
    )
    reinforce: ReinforceConfig = field(
        default_factory=ReinforceConfig,
        metadata=_help("The FD / GRPO stages and how they combine."),
    )


@dataclass
class FDConfig:
    top_k: int = field(
        default=25,
        metadata=_help("Teacher's top-k tokens per position that the KL covers (paper: 25)."),
    )
    tail: bool = field(
        default=True,
        metadata=_help(
            "Lump the rest of the vocabulary into one tail bucket (on); off renormalises over the top-k."
        ),
    )
    kl_direction: str = field(
        default="forward", metadata=_help("forward KL(teacher || student) (paper) or reverse.")
    )
    ema_alpha: float = field(
        default=0.9,
        metadata=_help(
            "Teacher EMA: theta_T <- alpha theta_T + (1 - alpha) theta (paper 0.9; 1 freezes, 0 = live student)."
        ),
    )
    ema_every: int = field(
        default=5, metadata=_help("Apply the EMA every N optimizer steps (paper: 5).")
    )
    batch_size: int = field(default=128, metadata=_help("Trajectories per FD step (paper: 128)."))

    def __post_init__(self) -> None:
        _require(self.top_k >= 1, "fd.top_k must be >= 1 (paper: 25)")
        _require(
            self.kl_direction in ("forward", "reverse"),
            f"fd.kl_direction must be forward or reverse, got {self.kl_direction!r}",
        )
        _require(0 <= self.ema_alpha <= 1, "fd.ema_alpha must be in [0, 1] (paper: 0.9)")
        _require(self.ema_every >= 1, "fd.ema_every must be >= 1 (paper: 5)")
        _require(self.batch_size >= 1, "fd.batch_size must be >= 1 (paper: 128)")


@dataclass
class GRPOConfig:
    group_size: int = field(
        default=10,
        metadata=_help(
            "G: samples per problem (paper: 10, with 64 problems = 640 trajectories per step)."
        ),
    )
    problems_per_step: int = field(
        default=64,
        metadata=_help(
            "Problems per GRPO step; trajectories per step = problems_per_step * group_size."
        ),
    )
    clip_eps: float = field(
        default=0.2, metadata=_help("PPO clip epsilon of the ratio (paper: 0.2).")
    )
    beta: float = field(
        default=0.0,
        metadata=_help("Weight of KL(pi_theta || pi_ref) against the initial policy (paper: 0)."),
    )
    scale_advantages: bool = field(
        default=True, metadata=_help("Divide group-centred rewards by the group std (+1e-6).")
    )
    updates_per_batch: int = field(
        default=1,
        metadata=_help(
            "Optimizer passes over each batch of rollouts (1: on-policy, ratio = 1 at the first pass)."
        ),
    )

    sampler_correction: str = field(
        default="truncated_is",
        metadata=_help(
            "truncated_is: weight each token by min(pi_trainer / pi_sampler, is_cap), the sampler's own log-probs stored per token (TRL's vLLM correction); none: ignore the mismatch."
        ),
    )
    is_cap: float = field(
        default=2.0, metadata=_help("Truncation of the sampler importance weight (>= 1).")
    )

    def __post_init__(self) -> None:
        _require(
            self.sampler_correction in ("truncated_is", "none"),
            f"grpo.sampler_correction must be truncated_is or none, got {self.sampler_correction!r}",
        )
        _require(self.is_cap >= 1, "grpo.is_cap must be >= 1 (2 is usual)")
        _require(
            self.group_size >= 2,
            "grpo.group_size must be >= 2 (a group of one has no baseline; paper: 10)",
        )
        _require(self.problems_per_step >= 1, "grpo.problems_per_step must be >= 1")
        _require(0 <= self.clip_eps < 1, "grpo.clip_eps must be in [0, 1) (paper: 0.2)")
        _require(self.beta >= 0, "grpo.beta must be >= 0 (paper: 0)")
        _require(self.updates_per_batch >= 1, "grpo.updates_per_batch must be >= 1")

    @property
    def trajectories_per_step(self) -> int:
        return self.group_size * self.problems_per_step


COACH_SOURCES = ("llm", "ground_truth", "compiler", "self", "fixed")


@dataclass
class CoachConfig:
    source: str = field(
        default="llm",
        metadata=_help("Feedback source: llm, ground_truth, compiler, self or fixed."),
    )
    prompt: str = field(
        default="P4",
        metadata=_help(
            "Coach prompt variant P1 (bare) .. P4 (format, self-contained, tool use; paper default)."
        ),
    )
    fixed_text: str = field(
        default="Think before you answer.",
        metadata=_help("The constant feedback of source=fixed (e.g. 'Be concise.')."),
    )
    options: dict[str, Any] = field(
        default_factory=dict,
        metadata=_help(
            "Extra keyword arguments passed to tutor.coach.make_coach (API model, base_url, ...)."
        ),
    )
    concurrency: int = field(
        default=16,
        metadata=_help(
            "Most coach calls in flight at once (a bounded thread pool; 1: one after another)."
        ),
    )
    drop_fallback: bool = field(
        default=False,
        metadata=_help(
            "Leave out of the FD batch the trajectories whose feedback fell back to the compiler rules (an llm run stays an llm run); the fallback rate is logged either way."
        ),
    )

    def __post_init__(self) -> None:
        _require(
            self.source in COACH_SOURCES,
            f"coach.source must be one of {COACH_SOURCES}, got {self.source!r}",
        )
        _require(
            self.prompt in ("P1", "P2", "P3", "P4"),
            f"coach.prompt must be P1, P2, P3 or P4, got {self.prompt!r}",
        )
        _require(self.concurrency >= 1, "coach.concurrency must be >= 1")


@dataclass
class EvaluationConfig:
    every: int = field(
        default=50, metadata=_help("Evaluate on data.eval every N steps (0: only at the end).")
    )
    n_samples: int = field(
        default=16, metadata=_help("Samples per held-out problem (>= the largest k).")
    )
    ks: list[int] = field(
        default_factory=lambda: [1, 2, 4, 8, 16], metadata=_help("The k of pass@k.")
    )
    max_problems: int = field(
        default=0, metadata=_help("Evaluate on the first N held-out problems only (0: all).")
    )
    select_metric: str = field(
        default="pass@1",
        metadata=_help(
            "The evaluation metric that picks the best checkpoint (accuracy collapses late: keep the best, not the last)."
        ),
    )

    def __post_init__(self) -> None:
        _require(self.every >= 0, "evaluation.every must be >= 0")
        _require(
            bool(self.ks) and all(k >= 1 for k in self.ks),
            "evaluation.ks must be a non-empty list of k >= 1",
        )
        _require(
            self.n_samples >= max(self.ks),
            f"evaluation.n_samples ({self.n_samples}) must be >= the largest k ({max(self.ks)})",
        )
        _require(self.max_problems >= 0, "evaluation.max_problems must be >= 0")


@dataclass
class ClassroomConfig:
    """Continual distillation's classroom data and its promotion gate (training.classroom)."""

    max_solutions: int = field(
        default=256,
        metadata=_help("Most verified student solutions used as SFT examples per round."),
    )
    max_attempts: int = field(
        default=256,
        metadata=_help(
            "Most student attempts with teacher-curated feedback used as off-policy FD examples per round."
        ),
    )
    max_curated_prompts: int = field(
        default=256,
        metadata=_help("Most curated suggestions the `curated` coach matches rollouts against."),
    )
    human_token_share: float = field(
        default=0.5,
        metadata=_help(
            "Most share of an FD step's response tokens that may be human (students' proofs)."
        ),
    )
    sft_per_step: int = field(
        default=2, metadata=_help("Student solutions in each continual step's SFT term.")
    )
    search_dead_ends_per_tree: int = field(
        default=4,
        metadata=_help(
            "Most FD examples one prover search tree gives (rejected tactics with the coach's "
            "feedback; tutor.prover.search_examples.FailedBranchConfig). 0: none."
        ),
    )
    sft_weight: float = field(
        default=1.0, metadata=_help("Weight of the SFT term added to the FD loss of a step.")
    )
    eval_fraction: float = field(
        default=0.2,
        metadata=_help(
            "Share of each course's problems held out (deterministic, never trained on); split into selection and gate problems by gate_fraction."
        ),
    )
    gate_fraction: float = field(
        default=0.5,
        metadata=_help(
            "Share of each course's held-out problems that only the gate sees (the rest pick the run's best checkpoint); 1: no selection, the last checkpoint is the candidate."
        ),
    )
    min_eval_problems: int = field(
        default=5,
        metadata=_help(
            "Fewer gate problems than this: never promote (and never fewer than the exact test needs to reach gate_alpha: ceil(log2(1/gate_alpha)), 5 at 0.05)."
        ),
    )
    min_improvement: float = field(
        default=0.0,
        metadata=_help("The mean pass@1 gain over the serving checkpoint must exceed this."),
    )
    gate_alpha: float = field(
        default=0.05,
        metadata=_help(
            "Promote only when the exact one-sided sign-flip test over the gate problems gives p <= this (its false-promotion rate)."
        ),
    )

    def __post_init__(self) -> None:
        for name in ("max_solutions", "max_attempts", "max_curated_prompts", "sft_per_step",
                     "search_dead_ends_per_tree"):  # fmt: skip
            _require(getattr(self, name) >= 0, f"classroom.{name} must be >= 0")
        _require(0 <= self.human_token_share <= 1, "classroom.human_token_share must be in [0, 1]")
        _require(self.sft_weight >= 0, "classroom.sft_weight must be >= 0")
        _require(0 <= self.eval_fraction < 1, "classroom.eval_fraction must be in [0, 1)")
        _require(self.min_eval_problems >= 1, "classroom.min_eval_problems must be >= 1")
        _require(0 < self.gate_alpha <= 1, "classroom.gate_alpha must be in (0, 1]")
        _require(0 < self.gate_fraction <= 1, "classroom.gate_fraction must be in (0, 1]")


@dataclass
class CheckpointConfig:
    registry: str = field(
        default="var/checkpoints",
        metadata=_help(
            "Registry root (the web app uses the same, var/checkpoints): runs/<run>/step-N/ and serving.json live here."
        ),
    )
    every: int = field(
        default=50, metadata=_help("Save a checkpoint every N steps (and always at the end).")
    )
    keep_last: int = field(
        default=3,
        metadata=_help(
            "Keep the last N stable checkpoints of a run (seed 000: 3); best and serving are never deleted."
        ),
    )
    resume: bool = field(
        default=True, metadata=_help("Resume from the run's latest checkpoint if one exists.")
    )

    def __post_init__(self) -> None:
        _require(self.every >= 1, "checkpoints.every must be >= 1")
        _require(self.keep_last >= 1, "checkpoints.keep_last must be >= 1 (seed 000: 3)")


@dataclass
class ResourcesConfig:
    gpu_allocation: float = field(
        default=0.8,
        metadata=_help(
            "Share of GPU memory this run may use (torch memory fraction; vLLM gpu_memory_utilization). Ignored on CPU."
        ),
    )
    memory_limit: str = field(
        default="",
        metadata=_help(
            "Host memory ceiling, e.g. 12GB: the run stops with a clear error after a step whose peak RSS exceeds it (empty: none)."
        ),
    )

    def __post_init__(self) -> None:
        _require(0 < self.gpu_allocation <= 1, "resources.gpu_allocation must be in (0, 1]")
        if self.memory_limit:
            parse_bytes(self.memory_limit)

    @property
    def memory_limit_bytes(self) -> int | None:
        return parse_bytes(self.memory_limit) if self.memory_limit else None


@dataclass
class RunConfig:
    name: str = field(
        default="run",
        metadata=_help("Run name: the folder under output_dir and under the checkpoint registry."),
    )
    output_dir: str = field(
        default="var/runs", metadata=_help("Where metrics.jsonl, plots and logs of runs go.")
    )
    seed: int = field(default=0, metadata=_help("Random seed (torch, sampling order)."))
    device: str = field(
        default="auto",
        metadata=_help(
            "cpu, cuda, or auto (cuda when available). Under torchrun each rank uses its local GPU."
        ),
    )
    distributed: str = field(
        default="none",
        metadata=_help("none, or fsdp (launch with torchrun / accelerate; see docs/TRAINING.md)."),
    )
    log_every: int = field(default=1, metadata=_help("Write metrics every N steps."))

    def __post_init__(self) -> None:
        _require(
            bool(re.fullmatch(r"[A-Za-z0-9._-]+", self.name)),
            f"run.name must be letters, digits, . _ - only (it names folders), got {self.name!r}",
        )
        _require(
            self.device in ("auto", "cpu", "cuda"),
            f"run.device must be auto, cpu or cuda, got {self.device!r}",
        )
        _require(
            self.distributed in ("none", "fsdp"),
            f"run.distributed must be none or fsdp, got {self.distributed!r}",
        )
        _require(self.log_every >= 1, "run.log_every must be >= 1")


@dataclass
class Config:
    """The whole run. Sections map one to one onto the YAML file's top-level keys."""

    run: RunConfig = field(
        default_factory=RunConfig, metadata=_help("Name, output folder, seed, device.")
    )
    model: ModelConfig = field(
        default_factory=ModelConfig, metadata=_help("The policy model and its sampling.")
    )
    data: DataConfig = field(
        default_factory=DataConfig, metadata=_help("Training, evaluation and snapshot files.")
    )
    training: TrainingConfig = field(
        default_factory=TrainingConfig,
        metadata=_help("Seed 000's section: pretrain (SFT) and reinforce (FD / GRPO)."),
    )
    optimizer: OptimizerConfig = field(
        default_factory=OptimizerConfig, metadata=_help("AdamW and gradient accumulation.")
    )
    fd: FDConfig = field(default_factory=FDConfig, metadata=_help("Feedback Distillation."))
    grpo: GRPOConfig = field(default_factory=GRPOConfig, metadata=_help("GRPO."))
    coach: CoachConfig = field(
        default_factory=CoachConfig, metadata=_help("Where FD's feedback comes from.")
    )
    evaluation: EvaluationConfig = field(
        default_factory=EvaluationConfig, metadata=_help("Held-out evaluation.")
    )
    checkpoints: CheckpointConfig = field(
        default_factory=CheckpointConfig, metadata=_help("Checkpoint registry and retention.")
    )
    classroom: ClassroomConfig = field(
        default_factory=ClassroomConfig,
        metadata=_help("Continual distillation: classroom data caps and the promotion gate."),
    )
    resources: ResourcesConfig = field(
        default_factory=ResourcesConfig,
        metadata=_help("Seed 000's section: GPU share and memory ceiling."),
    )

    def __post_init__(self) -> None:
        # A colocated vLLM engine and the trainer share each GPU: the engine's share plus
        # the trainer's must leave room for the CUDA context and fragmentation.
        # (Server mode samples on other GPUs: nothing shared here.)
        if self.model.rollout_backend == "vllm" and self.model.vllm_mode == "colocate":
            total = self.model.vllm_gpu_memory_utilization + self.resources.gpu_allocation
            _require(
                total <= 0.95,
                f"model.vllm_gpu_memory_utilization ({self.model.vllm_gpu_memory_utilization}) + "
                f"resources.gpu_allocation ({self.resources.gpu_allocation}) = {total:.2f} > 0.95: "
                "the colocated engine and the trainer would not both fit (e.g. 0.3 + 0.6)",
            )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def parse_bytes(text: str) -> int:
    """'12GB' / '512MiB' / '1000000' -> bytes (decimal and binary units)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(i?)B?\s*", str(text), re.IGNORECASE)
    if not match:
        raise ConfigError(
            f"cannot read a memory size from {text!r}: write e.g. 12GB, 512MiB or a number of bytes"
        )
    number, unit, binary = float(match.group(1)), match.group(2).upper(), bool(match.group(3))
    base = 1024 if binary else 1000
    power = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}[unit]
    return int(number * base**power)


def _build(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where or 'the config'} must be a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown key(s) {unknown} in {where or 'the config'}; known keys: {sorted(known)}"
        )
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        hint = hints[name]
        key = f"{where}.{name}" if where else name
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            kwargs[name] = _build(hint, value or {}, key)
        elif typing.get_origin(hint) is tuple and isinstance(value, list):
            kwargs[name] = tuple(value)
        else:
            kwargs[name] = _coerce_scalar(hint, value, key)
    return cls(**kwargs)


def _coerce_scalar(hint: Any, value: Any, key: str) -> Any:
    """YAML gives ints where floats are meant (lr: 1) and strings for 1e-6: accept both."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return value
    if hint is float and isinstance(value, (int, str)) and not isinstance(value, bool):
        try:
            return float(value)
        except ValueError as exc:
            raise ConfigError(f"{key} must be a number, got {value!r}") from exc
    if hint is bool and not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    if hint is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{key} must be an integer, got {value!r}")
    return value


def config_from_dict(data: dict[str, Any]) -> Config:
    return _build(Config, data or {}, "")


def load_config(path: str | Path) -> Config:
    """Read a YAML config; missing sections and keys take their defaults."""
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    try:
        return config_from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from exc


def feedback_weight(config: ReinforceConfig, step: int) -> float:
    """The mixed mode's w at a step: seed 000's schedule or the configured constant.

    Progress = step / total_steps: w = 0.3 before 50%, 0.6 from 50% to 80%, 0.9 from 80% on.
    """
    if not isinstance(config.feedback_weight, str):
        return float(config.feedback_weight)
    progress = step / config.total_steps
    if progress < 0.5:
        return 0.3
    if progress < 0.8:
        return 0.6
    return 0.9


def exploration_rate(config: ReinforceConfig, step: int) -> float:
    """Seed 000's exploration share: initial rate, -5% (relative) per 1000 steps, floor 0.1."""
    if config.exploration_rate == 0:
        return 0.0
    decayed = config.exploration_rate * 0.95 ** (step // 1000)
    return max(decayed, 0.1)


def tiny_cpu_config(model_path: str, train: str, eval_path: str = "", name: str = "tiny") -> Config:
    """A preset that runs in seconds on a CPU: every shrink against the paper is listed here.

    Use it for smoke runs and tests, never for results.
    """
    return Config(
        run=RunConfig(name=name, device="cpu"),
        model=ModelConfig(path=model_path, max_turns=2, max_new_tokens=12, max_total_tokens=1024),
        data=DataConfig(train=train, eval=eval_path),
        training=TrainingConfig(
            pretrain=PretrainConfig(batch_size=2, epochs=1, max_length=2048),
            # 4 steps instead of ~1000, switch at 2 instead of 200-400.
            reinforce=ReinforceConfig(total_steps=4, switch_step=2),
        ),
        optimizer=OptimizerConfig(lr=1e-3, micro_batch_size=2),  # big lr: visible change in 4 steps
        fd=FDConfig(batch_size=2, ema_every=2),  # 2 trajectories, not 128; EMA every 2, not 5
        grpo=GRPOConfig(group_size=2, problems_per_step=1),  # 2 trajectories, not 640
        coach=CoachConfig(source="fixed"),  # no API key needed
        evaluation=EvaluationConfig(every=0, n_samples=2, ks=[1, 2], max_problems=2),
        checkpoints=CheckpointConfig(every=2),
    )
