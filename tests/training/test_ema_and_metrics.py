"""Contract tests for training.ema.ema_update_ and training.metrics, by hand."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from training.ema import ema_update_, make_teacher
from training.metrics import hedging_frequency, mean_token_entropy, pass_at_k


def _pair():
    torch.manual_seed(0)
    student = nn.Linear(3, 2)
    teacher = make_teacher(student)
    with torch.no_grad():
        for p in student.parameters():
            p.add_(1.0)
    return teacher, student


def test_ema_moves_the_teacher_by_hand_formula():
    teacher, student = _pair()
    before = {n: p.clone() for n, p in teacher.named_parameters()}
    ema_update_(teacher, student, alpha=0.9)
    for name, t in teacher.named_parameters():
        s = dict(student.named_parameters())[name]
        for tv, bv, sv in zip(
            t.flatten().tolist(), before[name].flatten().tolist(), s.flatten().tolist(), strict=True
        ):
            assert tv == pytest.approx(0.9 * bv + 0.1 * sv, rel=1e-6)


def test_ema_alpha_one_freezes_and_alpha_zero_copies():
    teacher, student = _pair()
    before = [p.clone() for p in teacher.parameters()]
    ema_update_(teacher, student, alpha=1.0)
    assert all(torch.equal(a, b) for a, b in zip(before, teacher.parameters(), strict=True))
    ema_update_(teacher, student, alpha=0.0)
    assert all(
        torch.equal(a, b) for a, b in zip(student.parameters(), teacher.parameters(), strict=True)
    )


def test_ema_does_not_touch_the_student_or_track_gradients():
    teacher, student = _pair()
    before = [p.clone() for p in student.parameters()]
    ema_update_(teacher, student, alpha=0.5)
    assert all(torch.equal(a, b) for a, b in zip(before, student.parameters(), strict=True))
    assert all(not p.requires_grad for p in teacher.parameters())


def test_ema_rejects_a_bad_alpha_and_a_different_model():
    teacher, student = _pair()
    with pytest.raises(ValueError, match="alpha"):
        ema_update_(teacher, student, alpha=1.5)
    with pytest.raises(ValueError, match="differ"):
        ema_update_(nn.Sequential(nn.Linear(3, 2)), student)


def _comb(n, k):
    return math.factorial(n) // (math.factorial(k) * math.factorial(n - k))


@pytest.mark.parametrize(
    ("n", "c", "k"),
    [(16, 0, 1), (16, 3, 1), (16, 3, 4), (16, 15, 2), (10, 5, 8), (5, 5, 5), (20, 1, 16)],
)
def test_pass_at_k_is_the_binomial_ratio(n, c, k):
    want = 1.0 - (_comb(n - c, k) / _comb(n, k) if n - c >= k else 0.0)
    assert pass_at_k(n, c, k) == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_pass_at_1_is_the_fraction_correct():
    assert pass_at_k(8, 3, 1) == pytest.approx(3 / 8)


def test_pass_at_k_rejects_k_above_n():
    with pytest.raises(ValueError, match="k must be"):
        pass_at_k(4, 1, 8)


def test_mean_token_entropy_by_hand():
    logits = torch.tensor(
        [
            [[0.0, 0.0, 0.0, 0.0], [2.0, 1.0, 0.0, -1.0]],
            [[9.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
        ]
    )
    mask = torch.tensor([[True, True], [True, False]])

    def entropy(row):
        z = sum(math.exp(x) for x in row)
        return -sum(math.exp(x) / z * math.log(math.exp(x) / z) for x in row)

    want = (math.log(4) + entropy([2.0, 1.0, 0.0, -1.0]) + entropy([9.0, 0.0, 0.0, 0.0])) / 3
    assert mean_token_entropy(logits, mask) == pytest.approx(want, rel=1e-6)
    assert mean_token_entropy(logits, mask.long()) == pytest.approx(want, rel=1e-6)


def test_hedging_frequency_counts_whole_words_per_thousand():
    texts = ["Wait, perhaps we use simp.", "hmm waiting is not a hedge"]
    # 11 words; hits: wait, perhaps, hmm (not "waiting").
    assert hedging_frequency(texts) == pytest.approx(3000.0 / 11)
