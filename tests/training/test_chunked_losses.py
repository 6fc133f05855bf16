"""The chunked FD and log-prob paths equal the reference to 1e-6 and hold less memory.

Peak memory is measured with torch's CPU profiler (profile_memory=True): the running sum of
its allocation events inside the measured call (it reads the profiler's kineto event list,
a private but stable attribute)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from training.batches import token_logprobs
from training.losses import (
    chunked_fd_peak_bytes,
    chunked_feedback_distillation_loss,
    chunked_token_logprobs,
    feedback_distillation_loss,
    teacher_top_k,
)
from training.metrics import mean_token_entropy

N, H, V, K = 96, 16, 512, 25  # shrunk: 96 positions, hidden 16, vocabulary 512


def _peak_bytes(fn: Callable[[], None]) -> int:
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    current = peak = 0
    for event in sorted(events, key=lambda e: e.start_ns()):
        current += event.nbytes()
        peak = max(peak, current)
    return peak


def _setup(seed: int = 0, n: int = N, vocab: int = V):
    torch.manual_seed(seed)
    student_rows = torch.randn(n, H, requires_grad=True)
    teacher_rows = torch.randn(n, H)
    head = torch.nn.Linear(H, vocab, bias=False)
    teacher_head = torch.nn.Linear(H, vocab, bias=False)
    weights = (torch.rand(n) > 0.2).float()
    return student_rows, teacher_rows, head, teacher_head, weights


@pytest.mark.parametrize("tail", [True, False])
@pytest.mark.parametrize("direction", ["forward", "reverse"])
@pytest.mark.parametrize("chunk", [7, 32, 1000])
def test_chunked_fd_loss_and_gradients_equal_the_reference(tail, direction, chunk):
    student_rows, teacher_rows, head, teacher_head, weights = _setup()
    student_logits = head(student_rows)
    with torch.no_grad():
        teacher_logits = teacher_head(teacher_rows)
    reference = feedback_distillation_loss(
        student_logits[None], teacher_logits[None], weights[None], top_k=K, tail=tail,
        direction=direction,
    )  # fmt: skip
    ref_grads = torch.autograd.grad(reference, [student_rows, head.weight])

    top = teacher_top_k(teacher_rows, K, head=teacher_head, chunk=chunk)
    loss, entropy = chunked_feedback_distillation_loss(
        student_rows, top, weights, head=head, tail=tail, direction=direction, chunk=chunk
    )
    grads = torch.autograd.grad(loss, [student_rows, head.weight])
    assert abs(loss.item() - reference.item()) < 1e-6
    for got, want in zip(grads, ref_grads, strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=1e-6)
    expected_entropy = mean_token_entropy(student_logits.detach()[None], weights[None])
    assert abs((entropy * weights).sum().item() / weights.sum().item() - expected_entropy) < 1e-5


def test_chunked_fd_on_logit_rows_equals_the_reference():
    student_rows, teacher_rows, head, teacher_head, weights = _setup(1)
    logits = head(student_rows).detach().requires_grad_(True)
    teacher_logits = teacher_head(teacher_rows).detach()
    reference = feedback_distillation_loss(logits[None], teacher_logits[None], weights[None])
    loss, _ = chunked_feedback_distillation_loss(
        logits, teacher_top_k(teacher_logits), weights, chunk=10
    )
    assert abs(loss.item() - reference.item()) < 1e-6


@pytest.mark.parametrize("chunk", [5, 1000])
def test_chunked_token_logprobs_use_each_rows_temperature(chunk):
    student_rows, _, head, _, _ = _setup(2)
    targets = torch.randint(0, V, (N,))
    temps = torch.where(torch.arange(N) % 3 == 0, 1.5, 0.7)
    logits = head(student_rows)
    expected = torch.stack(
        [
            token_logprobs(logits[i : i + 1], targets[i : i + 1], float(temps[i]))[0]
            for i in range(N)
        ]
    )
    got, _ = chunked_token_logprobs(student_rows, targets, temps, head=head, chunk=chunk)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-6)
    g1 = torch.autograd.grad(got.sum(), head.weight)[0]
    g2 = torch.autograd.grad(expected.sum(), head.weight)[0]
    # a sum over 96 rows of O(1) terms: float32 summation order shows at ~1e-6 relative
    torch.testing.assert_close(g1, g2, rtol=1e-6, atol=1e-6)


def test_chunking_cuts_peak_memory_to_the_documented_bound():
    n, vocab, chunk = 256, 4096, 32
    student_rows, teacher_rows, head, teacher_head, weights = _setup(3, n=n, vocab=vocab)

    def reference() -> None:
        with torch.no_grad():
            teacher_logits = teacher_head(teacher_rows)
        loss = feedback_distillation_loss(
            head(student_rows)[None], teacher_logits[None], weights[None]
        )
        loss.backward()

    def chunked() -> None:
        top = teacher_top_k(teacher_rows, K, head=teacher_head, chunk=chunk)
        loss, _ = chunked_feedback_distillation_loss(
            student_rows, top, weights, head=head, chunk=chunk
        )
        loss.backward()

    ref_peak, chunk_peak = _peak_bytes(reference), _peak_bytes(chunked)
    full_logits = 4 * n * vocab
    assert ref_peak >= 3 * full_logits  # student, teacher and their fp32/scatter copies
    assert chunk_peak <= chunked_fd_peak_bytes(n, H, vocab, K, chunk)
    assert chunk_peak < full_logits  # less than even one [N, V] fp32 tensor
    assert chunk_peak * 5 < ref_peak


def test_the_trainers_hidden_state_path_equals_full_logits_on_the_tiny_model(tiny_model_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.training.scripted_rollouts import scripted_trajectory
    from training.batches import (
        hidden_state_head,
        response_logits,
        response_rows,
        response_targets,
        student_batch,
    )
    from training.ema import make_teacher
    from tutor.prover.problem import Problem

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    teacher = make_teacher(model)
    with torch.no_grad():
        for p in teacher.parameters():
            p.add_(0.02 * torch.randn_like(p))
    problems = [Problem(id=f"p{i}", statement=f"theorem p{i} : {i} = {i} := by") for i in range(3)]
    trajs = [scripted_trajectory(tokenizer, p, 1.0) for p in problems]
    trajs[1].mask[-2], trajs[1].logprobs[-2] = 0, 0.0  # a hole, as tool outputs make
    batch, targets = student_batch(trajs, 0), response_targets(trajs)
    assert hidden_state_head(model) is not None

    width = targets.mask.shape[1]
    reference = feedback_distillation_loss(
        response_logits(model, batch, width),
        response_logits(teacher, batch, width).detach(),
        targets.mask,
    )
    with torch.no_grad():
        t_rows = response_rows(teacher, batch, targets.mask)
        top = teacher_top_k(t_rows.rows, 25, head=t_rows.head, chunk=5)
    rows = response_rows(model, batch, targets.mask)
    assert rows.rows.shape[-1] == model.config.hidden_size  # no [N, V] logits were made
    loss, _ = chunked_feedback_distillation_loss(
        rows.rows, top, rows.weights, head=rows.head, chunk=5
    )
    assert abs(loss.item() - reference.item()) < 1e-6


def test_sft_and_evaluation_take_the_chunked_path_and_equal_full_logits(
    tiny_model_dir, monkeypatch
):
    """SFT's loss, the eval entropy and the eval student-teacher KL never build [B, L, V]
    logits by default (response_logits, the full-logits forward, is made to fail), and give
    what the full-logits reference (model.loss_chunk_tokens: 0) gives."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import training.evaluate as evaluate_module
    import training.sft as sft_module
    from tests.training.scripted_rollouts import scripted_trajectory
    from training.config import tiny_cpu_config
    from training.ema import make_teacher
    from training.evaluate import _student_teacher_kl, policy_entropy
    from training.session import open_session
    from tutor.coach.fixed import FixedCoach
    from tutor.prover.problem import Problem

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    teacher = make_teacher(model)
    with torch.no_grad():
        for p in teacher.parameters():
            p.add_(0.02 * torch.randn_like(p))
    problems = [Problem(id=f"p{i}", statement=f"theorem p{i} : {i} = {i} := by") for i in range(3)]
    trajs = [scripted_trajectory(tokenizer, p, 1.0, sample=1) for p in problems]  # failed ones
    trajs[1].mask[-2], trajs[1].logprobs[-2] = 0, 0.0
    config = tiny_cpu_config(str(tiny_model_dir), "")
    config.checkpoints.resume = False
    session = open_session(config, "sft", model_and_tokenizer=(model, tokenizer))

    def measure() -> tuple[float, list[torch.Tensor], float, float]:
        model.zero_grad()
        loss, _ = sft_module.sft_loss_on(session, trajs)
        loss.backward()
        grads = [p.grad.clone() for p in model.parameters() if p.grad is not None]
        entropy = policy_entropy(
            model, tokenizer, trajs, 0, "cpu", 2, config.model.loss_chunk_tokens
        )
        kl = _student_teacher_kl(model, teacher, tokenizer, FixedCoach(), trajs, config, 0)
        return float(loss.detach()), grads, entropy, kl

    config.model.loss_chunk_tokens = 0
    reference = measure()

    def no_full_logits(*args, **kwargs):
        raise AssertionError("full [B, L, V] logits were computed")

    monkeypatch.setattr(sft_module, "response_logits", no_full_logits)
    monkeypatch.setattr(evaluate_module, "response_logits", no_full_logits)
    config.model.loss_chunk_tokens = 5
    chunked = measure()
    assert chunked[0] == pytest.approx(reference[0], abs=1e-6)
    for got, want in zip(chunked[1], reference[1], strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-7)
    assert chunked[2] == pytest.approx(reference[2], abs=1e-5)
    assert reference[3] > 0 and chunked[3] == pytest.approx(reference[3], abs=1e-6)
