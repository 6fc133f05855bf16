"""Sampler log-probs and truncated importance sampling, against hand-computed values."""

from __future__ import annotations

import math

import pytest
import torch

from tests.training.scripted_rollouts import scripted_trajectory
from training.batches import trajectory_temperatures
from training.losses import grpo_loss, truncated_importance_weights


def test_weights_are_the_trainer_sampler_ratio_truncated_at_the_cap():
    trainer = torch.tensor([[-1.0, -2.0, -0.5, -3.0]])
    sampler = torch.tensor([[-1.2, -1.0, -2.0, 0.0]])
    mask = torch.tensor([[1, 1, 1, 0]])
    w = truncated_importance_weights(trainer, sampler, mask, cap=2.0)
    # exp(0.2) = 1.2214; exp(-1) = 0.3679; exp(1.5) = 4.48 -> capped at 2; off-mask -> 1
    expected = torch.tensor([[math.exp(0.2), math.exp(-1.0), 2.0, 1.0]])
    torch.testing.assert_close(w, expected)


def test_cap_below_one_is_refused():
    with pytest.raises(ValueError, match="cap"):
        truncated_importance_weights(torch.zeros(1, 1), torch.zeros(1, 1), torch.ones(1, 1), 0.5)


def test_grpo_loss_multiplies_the_clipped_objective_by_the_weights():
    logprobs = torch.tensor([[-1.0, -2.0], [-0.5, -0.7]], requires_grad=True)
    old = logprobs.detach().clone()  # first pass: ratio 1
    advantages = torch.tensor([1.0, -0.5])
    mask = torch.tensor([[1, 1], [1, 0]])
    weights = torch.tensor([[0.5, 2.0], [1.5, 1.0]])
    loss = grpo_loss(logprobs, old, advantages, mask, is_weights=weights)
    # ratio = 1 everywhere: L = -(0.5*1 + 2*1 + 1.5*(-0.5)) / 3 = -1.75 / 3
    assert loss.item() == pytest.approx(-1.75 / 3, abs=1e-7)
    (grad,) = torch.autograd.grad(loss, logprobs)
    # d/dlogp of -w*A*rho/3 at rho = 1: -w*A/3 on masked tokens
    expected = torch.tensor([[-0.5 / 3, -2.0 / 3], [0.75 / 3, 0.0]])
    torch.testing.assert_close(grad, expected)


def test_weights_leave_the_clipped_tokens_clipped():
    logprobs = torch.tensor([[math.log(1.5)]], requires_grad=True)  # rho = 1.5 > 1 + eps
    old = torch.zeros(1, 1)
    loss = grpo_loss(
        logprobs, old, torch.tensor([2.0]), torch.ones(1, 1), is_weights=torch.tensor([[0.8]])
    )
    assert loss.item() == pytest.approx(-0.8 * 1.2 * 2.0, abs=1e-6)
    (grad,) = torch.autograd.grad(loss, logprobs)
    assert grad.item() == 0.0  # clipped: no gradient, whatever the weight


def test_each_trajectory_is_scored_at_its_own_sampling_temperature(tiny_model_dir):
    from transformers import AutoTokenizer

    from tutor.prover.problem import Problem

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    problem = Problem(id="p", statement="theorem p : 1 = 1 := by")
    explore = scripted_trajectory(tokenizer, problem, 1.5)
    plain = scripted_trajectory(tokenizer, problem, 0.7)
    unknown = scripted_trajectory(tokenizer, problem, 0.7)
    unknown.sampling = {}
    temps = trajectory_temperatures([explore, plain, unknown], default=1.0)
    assert temps.tolist() == pytest.approx([1.5, 0.7, 1.0])
