"""clip_fraction counts the tokens whose PPO clip is active: where the loss takes the
clipped branch and the token gets no gradient. That depends on the advantage's sign: a
ratio above 1 + eps clips a positive advantage only, below 1 - eps a negative one. The old
figure counted |ratio - 1| > eps whatever the sign."""

from __future__ import annotations

import torch

from training.grpo import clipped_tokens
from training.losses import grpo_loss


def test_clip_is_counted_only_where_the_loss_clips():
    eps = 0.2
    old = torch.zeros(4, 3)
    # Ratios per row: far above the band, far below, inside; same for every token of a row.
    logratio = torch.tensor([0.5, -0.5, 0.1, 0.5]).unsqueeze(-1).expand(4, 3).clone()
    advantages = torch.tensor([1.0, 1.0, -1.0, -1.0])
    clipped = clipped_tokens(logratio, old, advantages, eps)
    # Row 0: rho 1.65, A > 0: clipped. Row 1: rho 0.61, A > 0: not clipped (min keeps rho A).
    # Row 2: inside the band. Row 3: rho 1.65, A < 0: not clipped (rho A is the smaller).
    assert clipped[:, 0].tolist() == [1.0, 0.0, 0.0, 0.0]
    # It agrees with the loss: exactly the counted tokens get no gradient.
    logprobs = logratio.clone().requires_grad_(True)
    grpo_loss(logprobs, old, advantages, torch.ones(4, 3), clip_eps=eps).backward()
    assert logprobs.grad is not None
    assert torch.equal((logprobs.grad == 0).float(), clipped)
