"""The EMA teacher of Feedback Distillation: theta_T <- alpha * theta_T + (1 - alpha) * theta.

alpha = 1 freezes the teacher; alpha = 0 makes it the live student (paper: alpha = 0.9, applied
every 5 optimizer steps; see training.config.FDConfig).
"""

from __future__ import annotations

import copy

import torch
from torch import nn


def make_teacher(student: nn.Module, dtype: torch.dtype | None = torch.float32) -> nn.Module:
    """A frozen deep copy of the student: same weights, no gradients, eval mode.

    Kept in float32 by default whatever the student's dtype: with alpha = 0.9 the EMA moves
    each weight by a tenth of a small step, which a bf16 teacher would round away."""
    teacher = copy.deepcopy(student)
    if dtype is not None:
        teacher.to(dtype)
    teacher.eval()
    teacher.requires_grad_(False)
    return teacher


@torch.no_grad()
def ema_update_(teacher: nn.Module, student: nn.Module, alpha: float = 0.9) -> None:
    """In place on the teacher's parameters: t <- alpha * t + (1 - alpha) * s.

    The parameters are matched by name, so both modules must have the same architecture
    (under FSDP: wrapped the same way, so the local shards line up). Buffers are copied as-is.
    alpha = 1 and alpha = 0 are exact (no rounding): a no-op and a copy.
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(
            f"alpha must be in [0, 1] (paper: 0.9; 1 freezes the teacher), got {alpha}"
        )
    teacher_params = dict(teacher.named_parameters())
    student_params = dict(student.named_parameters())
    if teacher_params.keys() != student_params.keys():
        missing = sorted(set(student_params) ^ set(teacher_params))[:5]
        raise ValueError(f"teacher and student parameters differ (e.g. {missing}): same model?")
    if alpha == 1.0:
        return
    for name, t_param in teacher_params.items():
        s_param = student_params[name].detach().to(t_param.dtype)
        if alpha == 0.0:
            t_param.copy_(s_param)
        else:
            t_param.mul_(alpha).add_(s_param, alpha=1.0 - alpha)
    student_buffers = dict(student.named_buffers())
    for name, t_buf in teacher.named_buffers():
        if name in student_buffers:
            t_buf.copy_(student_buffers[name])
