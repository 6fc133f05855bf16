"""Step time and tokens/s of a Feedback Distillation step vs a GRPO step on the same batch.

    .venv/bin/python bench/bench_fd_vs_grpo.py                 # tiny random Qwen3 on CPU
    .venv/bin/python bench/bench_fd_vs_grpo.py --model DIR --device cuda --batch 16 --response 1024

Both steps run the project's own pieces (training.batches, training.losses, training.ema)
on identical trajectories: GRPO = student forward + backward + AdamW; FD = the same plus a
no-grad teacher forward over the longer teacher context (feedback appended to the prompt)
and the EMA every 5 steps (amortised). Rollout time is not included (it is the same path
for both). Prints the measured figures and FD's cost as a ratio of GRPO's, measured in the
same run. The paper's per-step batches differ (FD 128, GRPO 640 trajectories), so the
per-trajectory ratio is what compares sample costs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import torch

from training.batches import gather_response_logits, pad_sequences, token_logprobs
from training.ema import ema_update_, make_teacher
from training.losses import feedback_distillation_loss, group_advantages, grpo_loss


def tiny_model(vocab: int) -> torch.nn.Module:
    from transformers import AutoModelForCausalLM, Qwen3Config

    config = Qwen3Config(
        vocab_size=vocab,
        hidden_size=256,
        intermediate_size=512,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=64,
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config)


def make_batch(args: argparse.Namespace, vocab: int, device: str):
    gen = torch.Generator().manual_seed(0)
    rows, teacher_rows = [], []
    for _ in range(args.batch):
        prompt = torch.randint(0, vocab, (args.prompt,), generator=gen).tolist()
        feedback = torch.randint(0, vocab, (args.feedback,), generator=gen).tolist()
        response = torch.randint(0, vocab, (args.response,), generator=gen).tolist()
        rows.append(prompt + response)
        teacher_rows.append(prompt + feedback + response)
    student = pad_sequences(rows, [args.prompt] * args.batch, 0, device)
    teacher = pad_sequences(teacher_rows, [args.prompt + args.feedback] * args.batch, 0, device)
    targets = torch.tensor([r[args.prompt :] for r in rows], device=device)
    # Tool outputs inside y are mask 0: mark every 4th block of 16 tokens as environment text.
    mask = torch.ones(args.batch, args.response, device=device)
    for start in range(48, args.response, 64):
        mask[:, start : start + 16] = 0
    return student, teacher, targets, mask


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_steps(step, n: int, device: str) -> list[float]:
    times = []
    for _ in range(n):
        sync(device)
        start = time.perf_counter()
        step()
        sync(device)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="local model directory (default: a tiny random Qwen3)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--prompt", type=int, default=256)
    parser.add_argument("--feedback", type=int, default=48)
    parser.add_argument("--response", type=int, default=256)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    if args.model:
        from transformers import AutoModelForCausalLM

        model: Any = AutoModelForCausalLM.from_pretrained(
            args.model, dtype=torch.bfloat16 if args.device.startswith("cuda") else torch.float32
        )
    else:
        model = tiny_model(vocab=4096)
    model.to(args.device).train()
    vocab = model.config.vocab_size
    teacher = make_teacher(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)
    student_in, teacher_in, targets, mask = make_batch(args, vocab, args.device)
    advantages = group_advantages(
        torch.tensor([1.0, 0.0] * (args.batch // 2) + [0.0] * (args.batch % 2)),
        2 if args.batch % 2 == 0 else 1,
        scale=args.batch % 2 == 0,
    ).to(args.device)
    counter = {"fd": 0}

    def student_logits():
        out = model(
            input_ids=student_in.input_ids,
            attention_mask=student_in.attention_mask,
            use_cache=False,
        )
        return gather_response_logits(out.logits, student_in, args.response)

    def grpo_step() -> None:
        logits = student_logits()
        logprobs = token_logprobs(logits, targets)
        loss = grpo_loss(logprobs, logprobs.detach(), advantages, mask)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    def fd_step() -> None:
        with torch.no_grad():
            out = teacher(
                input_ids=teacher_in.input_ids,
                attention_mask=teacher_in.attention_mask,
                use_cache=False,
            )
            t_logits = gather_response_logits(out.logits, teacher_in, args.response)
        loss = feedback_distillation_loss(student_logits(), t_logits, mask)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        counter["fd"] += 1
        if counter["fd"] % 5 == 0:
            ema_update_(teacher, model, 0.9)

    grpo_step()  # warm-up (allocations, kernels)
    fd_step()
    grpo_times = time_steps(grpo_step, args.steps, args.device)
    fd_times = time_steps(fd_step, args.steps, args.device)
    tokens = float(mask.sum())
    grpo_s, fd_s = statistics.median(grpo_times), statistics.median(fd_times)
    params = sum(p.numel() for p in model.parameters())
    print(
        f"model: {args.model or 'tiny random Qwen3'} ({params / 1e6:.2f}M params), device {args.device}, threads {args.threads}"
    )
    print(
        f"batch: {args.batch} trajectories x (prompt {args.prompt} + response {args.response}), feedback {args.feedback} tokens, {tokens:.0f} generated tokens"
    )
    print(
        f"GRPO step: {grpo_s * 1000:8.1f} ms  {tokens / grpo_s:10.0f} tokens/s  (median of {args.steps})"
    )
    print(
        f"FD step:   {fd_s * 1000:8.1f} ms  {tokens / fd_s:10.0f} tokens/s  (median of {args.steps})"
    )
    print(
        f"ratio FD/GRPO step time: {fd_s / grpo_s:.2f}x   tokens/s: {grpo_s / fd_s:.2f}x of GRPO's"
    )
    print(
        f"per step at the paper's batches (FD 128, GRPO 640 trajectories): FD/GRPO = {fd_s / grpo_s * 128 / 640:.2f}x"
    )


if __name__ == "__main__":
    main()
