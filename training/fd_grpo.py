"""FD then GRPO: the paper's headline recipe. FD for the first reinforce.switch_step steps
(paper: 200, 300 or 400; every switch point beat pure GRPO), then GRPO to total_steps.

Run: `python -m training fd-grpo --config FILE`. The two stages share the optimizer state
and the rollout path; the EMA teacher is dropped at the switch (GRPO does not use it).
Metrics carry stage "fd" or "grpo" per step so the plots show where the switch happened.
"""

from __future__ import annotations

from typing import Any

from training.fd import fd_step
from training.grpo import grpo_step
from training.session import Session, TrainResult, run_loop


def stage_at(session: Session, step: int) -> str:
    return "fd" if step < session.config.training.reinforce.switch_step else "grpo"


def fd_grpo_step(session: Session) -> dict[str, Any]:
    if stage_at(session, session.step) == "fd":
        return fd_step(session)
    if session.teacher is not None:
        session.teacher = None  # free its memory: GRPO has no teacher
    return grpo_step(session)


def train_fd_grpo(session: Session) -> TrainResult:
    total = session.config.training.reinforce.total_steps
    return run_loop(
        session, fd_grpo_step, total, stage_of_step=lambda step: stage_at(session, step)
    )
