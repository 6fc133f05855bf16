"""The entry points the CLI, a Celery task and a notebook share.

    from training.api import run_stage
    result = run_stage("fd", load_config("run.yaml"), callback=push_to_console, stop=flag)

`run_stage` never imports Django; the web app wraps it in a `train`-queue task and passes a
callback (each metrics record) and a StopFlag (the console's stop button). Failures that
mean "this cannot run here" (no Lean, no coach API key, no model) raise with a message that
says how to fix them; nothing is made up in their place.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any

from training import distributed
from training.config import STAGE_FOR_ALGORITHM, Config
from training.rollouts import RolloutFn, prover_rollout, vllm_rollout
from training.runlog import MetricsCallback, StopFlag
from training.session import Session, TrainResult, open_session

log = logging.getLogger(__name__)

STAGES = ("sft", "fd", "grpo", "fd-grpo", "mixed", "eval")
NEEDS_ROLLOUTS = {"fd", "grpo", "fd-grpo", "mixed", "eval"}
NEEDS_COACH = {"fd", "fd-grpo", "mixed"}

RolloutFactory = Callable[[Any, Any], RolloutFn]


def make_coach_for(config: Config) -> Any:
    """The coach of coach.source, built by tutor.coach.make_coach; coach.options are passed
    through (e.g. llm: config / cache; compiler: mathlib). The self coach is a frozen copy of
    the initial student (model.path), prompted as coach."""
    from tutor.coach import make_coach

    source = config.coach.source
    options = dict(config.coach.options)
    if source == "fixed":
        options.setdefault("text", config.coach.fixed_text)
    elif source in ("llm", "self"):
        options.setdefault("prompt", config.coach.prompt)
    if source == "self" and "policy" not in options:
        from tutor.prover.policy import load_policy

        options["policy"] = load_policy(
            config.model.path, backend="hf", device="cpu" if config.run.device == "cpu" else "auto"
        )
    return make_coach(source, **options)


def lean_rollout_factory(config: Config) -> RolloutFactory:
    """Rollouts in the real Lean tool environment (the process-wide checker)."""
    from tutor.lean.checker import get_checker
    from tutor.lean.types import LeanUnavailable
    from tutor.prover.lean_adapter import lean_tools_factory

    checker = get_checker()
    if not checker.available:
        raise LeanUnavailable(f"rollouts need Lean, and {checker.unavailable_reason}")
    tools_factory = lean_tools_factory(checker)

    def factory(model: Any, tokenizer: Any) -> RolloutFn:
        if config.model.rollout_backend == "vllm":
            return vllm_rollout(
                model,
                tokenizer,
                checker=checker,
                tools_factory=tools_factory,
                model_config=config.model,
                engine_seed=config.run.seed,
                world_size=distributed.world_size(),
                rank=distributed.rank(),
            )
        return prover_rollout(
            model,
            tokenizer,
            checker=checker,
            tools_factory=tools_factory,
            model_config=config.model,
        )

    return factory


def check_stage_matches(stage: str, config: Config) -> None:
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}: one of {STAGES}")
    algorithm = config.training.reinforce.algorithm
    if stage in ("fd", "grpo", "fd-grpo", "mixed") and STAGE_FOR_ALGORITHM[algorithm] != stage:
        raise ValueError(
            f"the config says training.reinforce.algorithm: {algorithm} but the stage run is {stage!r}; make them agree"
        )


def run_stage(
    stage: str,
    config: Config,
    *,
    callback: MetricsCallback | None = None,
    stop: StopFlag | None = None,
    rollout_factory: RolloutFactory | None = None,
    coach: Any = None,
    model_and_tokenizer: tuple[Any, Any] | None = None,
) -> TrainResult:
    """Run one stage to the end (or until stop is set); returns what happened."""
    check_stage_matches(stage, config)
    if stage == "eval" and config.checkpoints.resume:
        # eval measures model.path as given, never a run's latest checkpoint.
        config = copy.deepcopy(config)
        config.checkpoints.resume = False
    if stage in NEEDS_ROLLOUTS and rollout_factory is None:
        rollout_factory = lean_rollout_factory(config)
    if stage in NEEDS_COACH and coach is None:
        coach = make_coach_for(config)
    session = open_session(
        config,
        stage,
        callback=callback,
        stop=stop,
        rollout_factory=rollout_factory,
        coach=coach,
        model_and_tokenizer=model_and_tokenizer,
    )
    return dispatch(stage, session)


def dispatch(stage: str, session: Session) -> TrainResult:
    if stage == "sft":
        from training.sft import train_sft

        return train_sft(session)
    if stage == "fd":
        from training.fd import train_fd

        return train_fd(session)
    if stage == "grpo":
        from training.grpo import train_grpo

        return train_grpo(session)
    if stage == "fd-grpo":
        from training.fd_grpo import train_fd_grpo

        return train_fd_grpo(session)
    if stage == "mixed":
        from training.mixed import train_mixed

        return train_mixed(session)
    return evaluate_stage(session)


def evaluate_stage(session: Session) -> TrainResult:
    """`eval`: evaluate the model of model.path on data.eval; metrics logged at the current step."""
    from training.evaluate import evaluate
    from training.session import eval_seed

    if not session.eval_problems:
        raise ValueError(
            "eval needs held-out problems: set data.eval (problems that need Mathlib are skipped where it is absent)"
        )
    assert session.rollout is not None
    result = evaluate(
        session.rollout_model,
        session.tokenizer,
        session.rollout,
        session.eval_problems,
        session.config,
        pad_id=session.pad_id,
        lemmas_seen=set(),
        seed=eval_seed(session.config),
    )
    record = session.logger.log(
        session.step, "eval", {f"eval/{k}": v for k, v in result.metrics.items()}
    )
    (session.logger.run_dir / "eval_per_problem.json").write_text(
        __import__("json").dumps(result.per_problem, indent=2)
    )
    return TrainResult(
        run=session.config.run.name,
        stage="eval",
        steps_done=session.step,
        metrics_path=session.logger.path,
        final_metrics=record,
        plots=session.logger.plot(),
    )
