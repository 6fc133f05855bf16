"""Contract tests for training.losses, against independent computations: Python loops over
positions and vocabulary with the math module, never the code under test."""

from __future__ import annotations

import math

import pytest
import torch

from training.losses import feedback_distillation_loss, group_advantages, grpo_loss


def _softmax(row: list[float]) -> list[float]:
    top = max(row)
    exps = [math.exp(x - top) for x in row]
    total = sum(exps)
    return [e / total for e in exps]


def _hand_fd(student, teacher, mask, top_k, tail, reverse=False) -> float:
    """Loop over every (b, t); sort the teacher's probabilities by hand to get S_t."""
    num = den = 0.0
    for b in range(len(mask)):
        for t in range(len(mask[b])):
            m = float(mask[b][t])
            if m == 0:
                continue
            p_t = _softmax(teacher[b][t])
            p_s = _softmax(student[b][t])
            order = sorted(range(len(p_t)), key=lambda v: -p_t[v])[:top_k]
            pt = [p_t[v] for v in order]
            ps = [p_s[v] for v in order]
            if tail:
                pt.append(1.0 - sum(pt))
                ps.append(1.0 - sum(ps))
            else:
                st, ss = sum(pt), sum(ps)
                pt = [x / st for x in pt]
                ps = [x / ss for x in ps]
            a, c = (ps, pt) if reverse else (pt, ps)
            loss_t = sum(
                x * (math.log(x) - math.log(y)) for x, y in zip(a, c, strict=True) if x > 0
            )
            num += m * loss_t
            den += m
    return num / den


@pytest.fixture
def logits():
    gen = torch.Generator().manual_seed(0)
    student = torch.randn(2, 3, 7, generator=gen, dtype=torch.float64) * 2
    teacher = torch.randn(2, 3, 7, generator=gen, dtype=torch.float64) * 2
    return student, teacher


@pytest.mark.parametrize("tail", [True, False])
@pytest.mark.parametrize("top_k", [1, 3, 7])
def test_fd_loss_matches_a_hand_loop(logits, tail, top_k):
    student, teacher = logits
    mask = [[1, 1, 0], [0, 1, 1]]
    got = feedback_distillation_loss(student, teacher, torch.tensor(mask), top_k=top_k, tail=tail)
    want = _hand_fd(student.tolist(), teacher.tolist(), mask, top_k, tail)
    assert got.item() == pytest.approx(want, rel=1e-5, abs=1e-6)


def test_fd_reverse_kl_matches_a_hand_loop(logits):
    student, teacher = logits
    mask = [[1, 0, 1], [1, 1, 1]]
    got = feedback_distillation_loss(
        student, teacher, torch.tensor(mask), top_k=3, direction="reverse"
    )
    want = _hand_fd(student.tolist(), teacher.tolist(), mask, 3, True, reverse=True)
    assert got.item() == pytest.approx(want, rel=1e-5)


def test_fd_top_k_comes_from_the_teacher_not_the_student():
    # Teacher: token 0 dominant; student: token 3 dominant. With top_k=1 and no tail, the loss
    # is over S = {0} only, renormalised: both put probability 1 there, so the loss is 0.
    teacher = torch.tensor([[[5.0, 0.0, 0.0, 0.0]]])
    student = torch.tensor([[[0.0, 0.0, 0.0, 5.0]]])
    mask = torch.ones(1, 1)
    assert feedback_distillation_loss(
        student, teacher, mask, top_k=1, tail=False
    ).item() == pytest.approx(0.0, abs=1e-7)
    # With the tail bucket: p_T({0}) = e^5/(e^5+3), p_S({0}) = 1/(e^5+3).
    pt0 = math.exp(5) / (math.exp(5) + 3)
    ps0 = 1 / (math.exp(5) + 3)
    want = pt0 * math.log(pt0 / ps0) + (1 - pt0) * math.log((1 - pt0) / (1 - ps0))
    got = feedback_distillation_loss(student, teacher, mask, top_k=1, tail=True).item()
    assert got == pytest.approx(want, rel=1e-5)


def test_fd_tail_bucket_covers_the_rest_of_the_vocabulary():
    # Two distributions that agree on the top-2 but differ in how they split the rest:
    # the bucketed KL is 0 (the tail masses are equal), the full KL would not be.
    teacher = torch.tensor([[[3.0, 2.0, 0.0, -5.0]]])
    student = torch.tensor([[[3.0, 2.0, -5.0, 0.0]]])
    got = feedback_distillation_loss(student, teacher, torch.ones(1, 1), top_k=2, tail=True)
    assert got.item() == pytest.approx(0.0, abs=1e-6)
    full = feedback_distillation_loss(student, teacher, torch.ones(1, 1), top_k=4, tail=True)
    assert full.item() > 0.1


def test_fd_paper_example_pulls_student_towards_real():
    # Student 56.1% on "π" (index 0), teacher 98.1% on "Real" (index 1); the gradient on the
    # student's "Real" logit must be negative (descending the loss raises it).
    vocab = 30
    teacher_p = torch.full((vocab,), 0.019 / (vocab - 1))
    teacher_p[1] = 0.981
    student_p = torch.full((vocab,), 0.439 / (vocab - 1))
    student_p[0] = 0.561
    teacher = teacher_p.log().view(1, 1, vocab)
    student = student_p.log().view(1, 1, vocab)
    student.requires_grad_(True)
    loss = feedback_distillation_loss(student, teacher, torch.ones(1, 1, dtype=torch.bool))
    loss.backward()
    assert student.grad is not None
    assert student.grad[0, 0, 1] < 0 < student.grad[0, 0, 0]


def test_fd_no_gradient_flows_into_the_teacher(logits):
    student, teacher = (x.clone().requires_grad_(True) for x in logits)
    loss = feedback_distillation_loss(student, teacher, torch.ones(2, 3), top_k=3)
    loss.backward()
    assert teacher.grad is None
    assert student.grad is not None and student.grad.abs().sum() > 0


def test_fd_bool_and_01_masks_agree_and_masked_positions_do_not_matter(logits):
    student, teacher = logits
    as_bool = torch.tensor([[True, False, True], [False, False, True]])
    as_float = as_bool.float()
    a = feedback_distillation_loss(student, teacher, as_bool, top_k=3)
    b = feedback_distillation_loss(student, teacher, as_float, top_k=3)
    assert a.item() == pytest.approx(b.item(), rel=1e-6)
    # Scramble the masked-out positions: nothing changes.
    student2 = student.clone()
    student2[0, 1] = 100.0
    student2[1, 0] = -100.0
    c = feedback_distillation_loss(student2, teacher, as_bool, top_k=3)
    assert c.item() == pytest.approx(a.item(), rel=1e-6)


def test_fd_is_a_token_mean_across_the_batch_not_a_mean_of_sequence_means(logits):
    student, teacher = logits
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    per_position = []
    for b, t in [(0, 0), (0, 1), (0, 2), (1, 0)]:
        one = torch.zeros(2, 3)
        one[b, t] = 1
        per_position.append(feedback_distillation_loss(student, teacher, one, top_k=3).item())
    got = feedback_distillation_loss(student, teacher, mask, top_k=3).item()
    assert got == pytest.approx(sum(per_position) / 4, rel=1e-6)
    seq_means = (sum(per_position[:3]) / 3 + per_position[3]) / 2
    assert got != pytest.approx(seq_means, rel=1e-3)


def test_fd_identical_distributions_give_zero(logits):
    student, _ = logits
    assert feedback_distillation_loss(
        student, student.clone(), torch.ones(2, 3)
    ).item() == pytest.approx(0.0, abs=1e-9)


def test_fd_empty_mask_gives_zero_with_a_graph(logits):
    student, teacher = logits
    student = student.clone().requires_grad_(True)
    loss = feedback_distillation_loss(student, teacher, torch.zeros(2, 3))
    loss.backward()
    assert loss.item() == 0.0


def test_fd_rejects_bad_shapes(logits):
    student, teacher = logits
    with pytest.raises(ValueError, match="mask"):
        feedback_distillation_loss(student, teacher, torch.ones(3, 2))
    with pytest.raises(ValueError, match="same shape"):
        feedback_distillation_loss(student, teacher[:, :2], torch.ones(2, 3))


# --- GRPO ---------------------------------------------------------------------------------


def test_group_advantages_by_hand_with_unbiased_std():
    rewards = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]  # two groups of 3
    got = group_advantages(torch.tensor(rewards), group_size=3)
    want = []
    for g in range(2):
        grp = rewards[3 * g : 3 * g + 3]
        mean = sum(grp) / 3
        std = math.sqrt(sum((r - mean) ** 2 for r in grp) / (3 - 1))  # n - 1
        want += [(r - mean) / (std + 1e-6) for r in grp]
    assert got.tolist() == pytest.approx(want, rel=1e-5, abs=1e-6)
    # The all-correct group: zero advantage, no NaN.
    assert got[3:].tolist() == [0.0, 0.0, 0.0]


def test_group_advantages_without_scaling_only_centres():
    got = group_advantages(torch.tensor([1.0, 0.0, 0.0, 0.0]), group_size=2, scale=False)
    assert got.tolist() == [0.5, -0.5, 0.0, 0.0]


def test_group_advantages_rejects_ragged_groups():
    with pytest.raises(ValueError, match="whole groups"):
        group_advantages(torch.zeros(5), group_size=2)
    with pytest.raises(ValueError, match="group_size"):
        group_advantages(torch.zeros(4), group_size=1)


def _hand_grpo(logp, old, adv, mask, eps, ref=None, beta=0.0) -> float:
    num = den = kl = 0.0
    for b in range(len(logp)):
        for t in range(len(logp[b])):
            m = float(mask[b][t])
            rho = math.exp(logp[b][t] - old[b][t])
            clipped_rho = min(max(rho, 1 - eps), 1 + eps)
            num += m * min(rho * adv[b], clipped_rho * adv[b])
            den += m
            if ref is not None:
                d = ref[b][t] - logp[b][t]
                kl += m * (math.exp(d) - d - 1)
    return -num / den + beta * kl / den


def test_grpo_loss_matches_a_hand_loop_and_clips_both_sides():
    # Ratios chosen to hit every case: rho > 1+eps with A > 0 (clipped), rho < 1-eps with
    # A < 0 (clipped), and the unclipped sides (rho > 1+eps with A < 0, rho < 1-eps with A > 0).
    old = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    logp = [[math.log(1.5), math.log(0.5), math.log(1.1)], [math.log(1.5), math.log(0.5), 0.0]]
    adv = [2.0, -1.0]
    mask = [[1, 1, 1], [1, 1, 0]]
    got = grpo_loss(torch.tensor(logp), torch.tensor(old), torch.tensor(adv), torch.tensor(mask))
    want = _hand_grpo(logp, old, adv, mask, 0.2)
    assert got.item() == pytest.approx(want, rel=1e-6)
    # Spelled out: row 0 (A=2): min(3.0, 2.4)=2.4, min(1.0, 1.6)=1.0, min(2.2, 2.2)=2.2;
    # row 1 (A=-1): min(-1.5, -1.2)=-1.5, min(-0.5, -0.8)=-0.8.
    assert got.item() == pytest.approx(-(2.4 + 1.0 + 2.2 - 1.5 - 0.8) / 5, rel=1e-6)


def test_grpo_clipped_tokens_get_no_gradient():
    logp = torch.tensor([[math.log(1.5), math.log(1.1)]], requires_grad=True)
    loss = grpo_loss(logp, torch.zeros(1, 2), torch.tensor([1.0]), torch.ones(1, 2))
    loss.backward()
    assert logp.grad is not None
    assert logp.grad[0, 0] == 0  # rho = 1.5 > 1.2 with A > 0: clipped, constant
    assert logp.grad[0, 1] == pytest.approx(-1.1 / 2)  # d(-rho*A/2)/dlogp = -rho*A/2


def test_grpo_ref_kl_term_with_beta():
    logp = [[-1.0, -2.0], [-0.5, -0.1]]
    old = [[-1.1, -2.0], [-0.5, -0.3]]
    ref = [[-1.5, -1.0], [-0.2, -0.1]]
    adv = [0.5, -0.5]
    mask = [[True, True], [True, False]]
    t_logp, t_old, t_adv, t_mask = (torch.tensor(x) for x in (logp, old, adv, mask))
    got = grpo_loss(t_logp, t_old, t_adv, t_mask, ref_logprobs=torch.tensor(ref), beta=0.1)
    assert got.item() == pytest.approx(_hand_grpo(logp, old, adv, mask, 0.2, ref, 0.1), rel=1e-6)
    # beta = 0 (the default) ignores the reference entirely.
    no_kl = grpo_loss(t_logp, t_old, t_adv, t_mask, ref_logprobs=torch.tensor(ref))
    assert no_kl.item() == pytest.approx(_hand_grpo(logp, old, adv, mask, 0.2), rel=1e-6)


def test_grpo_bool_and_01_masks_agree():
    gen = torch.Generator().manual_seed(1)
    logp, old = torch.randn(2, 4, 3, generator=gen).unbind(-1)[:2]
    adv = torch.tensor([1.0, -1.0])
    mask = torch.tensor([[1, 1, 0, 0], [1, 0, 1, 1]])
    a = grpo_loss(logp, old, adv, mask.bool())
    b = grpo_loss(logp, old, adv, mask.float())
    assert a.item() == pytest.approx(b.item(), rel=1e-6)


def test_grpo_needs_ref_logprobs_when_beta_is_positive():
    with pytest.raises(ValueError, match="ref_logprobs"):
        grpo_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.zeros(1), torch.ones(1, 2), beta=0.1)
