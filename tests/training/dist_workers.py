"""Worker processes for the 2-rank gloo tests (spawned by torch.multiprocessing, so they
live in an importable module; spawn_ranks runs them). Each builds a real Session through
open_session, as the CLI does under torchrun, with scripted rollouts and the fixed coach.
A worker joins; spawn_ranks leaves the group for it once the worker's frame is gone."""

from __future__ import annotations

import faulthandler
import gc
import json
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.multiprocessing as mp

from tests.training.scripted_rollouts import scripted_rollout_factory
from training import distributed
from training.config import (
    CheckpointConfig,
    CoachConfig,
    Config,
    DataConfig,
    EvaluationConfig,
    FDConfig,
    GRPOConfig,
    ModelConfig,
    OptimizerConfig,
    RunConfig,
)


def join(rank: int, world: int, port: int) -> None:
    torch.set_num_threads(1)
    if world > 1:
        os.environ.update(
            RANK=str(rank),
            WORLD_SIZE=str(world),
            LOCAL_RANK=str(rank),
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=str(port),
        )


def leave() -> None:
    distributed.leave_process_group()
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        os.environ.pop(key, None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def spawn_ranks(worker: Callable[..., None], *args: Any, world: int = 2) -> None:
    """Run worker(rank, world, port, *args) on `world` spawned gloo ranks; raises if any fails."""
    mp.start_processes(
        _as_rank, args=(worker, world, free_port(), *args), nprocs=world, start_method="spawn"
    )


def _as_rank(rank: int, worker: Callable[..., None], world: int, port: int, *args: Any) -> None:
    # A rank that dies in C++ prints every thread's Python stack, so CI shows where.
    faulthandler.enable(all_threads=True)
    worker(rank, world, port, *args)
    # The worker's models are gone with its frame; their FSDP state (cycles) holds the gloo
    # groups, so collect it while the group is still up, then leave together.
    gc.collect()
    leave()
    # The results are on disk and every rank has left the group. What remains is interpreter
    # teardown, where CI twice saw a rank abort ("terminate called without an active
    # exception") as gloo's C++ objects were destroyed; nothing the tests check runs there.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def small_config(model_dir: str, problems: str, out: str, world: int, **overrides: Any) -> Config:
    # Shrunk: 4 FD trajectories per step (not 128), 4 GRPO problems x 2 (not 64 x 10); every
    # problem is used, so one process and two ranks see the same trajectories.
    config = Config(
        run=RunConfig(
            name="gb",
            output_dir=str(Path(out) / "runs"),
            device="cpu",
            distributed="fsdp" if world > 1 else "none",
        ),
        model=ModelConfig(path=model_dir, max_new_tokens=8, max_total_tokens=1024),
        data=DataConfig(train=problems),
        optimizer=OptimizerConfig(lr=1e-3, grad_clip=0.0, micro_batch_size=1),
        fd=FDConfig(batch_size=4, ema_every=1),
        grpo=GRPOConfig(group_size=2, problems_per_step=4),
        coach=CoachConfig(source="fixed", fixed_text="Be concise."),
        evaluation=EvaluationConfig(every=0, n_samples=2, ks=[1, 2]),
        checkpoints=CheckpointConfig(registry=str(Path(out) / "registry"), resume=False),
    )
    for key, value in overrides.items():
        section, name = key.split("__")
        setattr(getattr(config, section), name, value)
    return config


def one_step_gradient(
    rank: int, world: int, port: int, model_dir: str, problems: str, out: str, stage: str
) -> None:
    """One FD or GRPO step with SGD(lr=1): the weight change is minus the step's gradient."""
    from training.fd import fd_step
    from training.grpo import grpo_step
    from training.session import open_session
    from tutor.coach import make_coach

    join(rank, world, port)
    config = small_config(model_dir, problems, out, world)
    session = open_session(
        config,
        stage,
        rollout_factory=scripted_rollout_factory,
        coach=make_coach("fixed", text="Be concise."),
    )
    before = distributed.full_state_dict(session.model)
    assert before is not None
    before = {k: v.detach().clone() for k, v in before.items()}
    session.optimizer = torch.optim.SGD(
        [p for p in session.model.parameters() if p.requires_grad], lr=1.0
    )
    if stage == "sft":
        from training.sft import build_examples, sft_step_fn

        step = sft_step_fn(build_examples(session))
    else:
        step = fd_step if stage == "fd" else grpo_step
    metrics = distributed.reduce_metrics(step(session))
    after = distributed.full_state_dict(session.model)
    assert after is not None
    if distributed.is_main():
        delta = {k: (after[k] - before[k]).float() for k in before}
        torch.save(delta, Path(out) / f"delta-{stage}-{world}.pt")
        keep = {k: v for k, v in metrics.items() if isinstance(v, (int, float))}
        (Path(out) / f"metrics-{stage}-{world}.json").write_text(json.dumps(keep))


def _toy(seed: int) -> torch.nn.Sequential:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))


def _fsdp_toy(seed: int) -> tuple[torch.nn.Module, torch.optim.Optimizer, torch.nn.Module]:
    from torch.distributed.fsdp import fully_shard

    from training.ema import make_teacher

    model = _toy(seed)
    teacher = make_teacher(model)
    for module in (model, teacher):  # shard the first layer, then the root
        fully_shard(next(iter(module.children())))
        fully_shard(module)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2), teacher


def _toy_step(model: Any, optimizer: Any, teacher: Any, step: int) -> float:
    from training.ema import ema_update_

    generator = torch.Generator().manual_seed(100 + step * 10 + distributed.rank())
    x = torch.randn(4, 8, generator=generator)
    with torch.no_grad():
        target = teacher(x)
    distributed.reshard(teacher)  # as fd_loss_on does after a no_grad forward
    loss = (model(x) - target).pow(2).mean() + model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    ema_update_(teacher, model, 0.5)
    return distributed.all_reduce_mean(float(loss))


def resume_matches(rank: int, world: int, port: int, out: str) -> None:
    """Uninterrupted: steps 0-3. Interrupted: steps 0-1, save, a fresh model and optimizer
    (other seed) load the state, steps 2-3. The losses of steps 2-3 must agree."""
    from training.train_state import load_train_state, save_train_state

    join(rank, world, port)
    torch.distributed.init_process_group("gloo")
    model, optimizer, teacher = _fsdp_toy(0)
    straight = [_toy_step(model, optimizer, teacher, s) for s in range(4)]

    model, optimizer, teacher = _fsdp_toy(0)
    first = [_toy_step(model, optimizer, teacher, s) for s in range(2)]
    save_train_state(Path(out) / "state", model, optimizer, teacher)
    model, optimizer, teacher = _fsdp_toy(123)  # different weights: the load must overwrite
    load_train_state(Path(out) / "state", model, optimizer, teacher)
    resumed = first + [_toy_step(model, optimizer, teacher, s) for s in range(2, 4)]
    if rank == 0:
        (Path(out) / "losses.json").write_text(
            json.dumps({"straight": straight, "resumed": resumed})
        )


def fsdp_losses(rank: int, world: int, port: int, model_dir: str, out: str) -> None:
    """Per trajectory, the chunked FD loss and GRPO's summed token log-probs of four fixed
    trajectories (rank r takes r::world), each through reduce_response_rows as fd.py and
    grpo.py call it, then the gradient of their sum; plus the width of the rows the losses
    saw (the hidden size on the memory-bounded path, the vocabulary on the full-logits one)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from tests.training.scripted_rollouts import scripted_trajectory
    from training.batches import ResponseRows, reduce_response_rows, response_targets, student_batch
    from training.ema import make_teacher
    from training.losses import (
        chunked_feedback_distillation_loss,
        chunked_token_logprobs,
        teacher_top_k,
    )
    from tutor.prover.problem import Problem

    join(rank, world, port)
    distributed.init_process_group()  # no-op for one process (no launcher variables)
    torch.manual_seed(0)
    model: Any = AutoModelForCausalLM.from_pretrained(model_dir)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    teacher: Any = make_teacher(model)
    with torch.no_grad():  # a teacher that differs from the student: a non-zero KL
        for p in teacher.parameters():
            p.add_(0.02 * torch.randn_like(p))
    if world > 1:
        model = distributed.wrap_model(model)
        teacher = distributed.wrap_model(teacher)
    problems = [
        Problem(id=f"p{i}", statement=f"theorem p{i} : {i} + 0 = {i} := by", reference_proof="simp")
        for i in range(4)
    ]
    trajs = [scripted_trajectory(tokenizer, p, 1.0, sample=i) for i, p in enumerate(problems)]
    widths: list[int] = []
    fd_losses: dict[int, float] = {}
    logprob_sums: dict[int, float] = {}
    for index in range(rank, len(trajs), world):
        batch, targets = student_batch([trajs[index]], 0), response_targets([trajs[index]])
        with torch.no_grad():
            top = reduce_response_rows(
                teacher,
                batch,
                targets.mask,
                lambda r: teacher_top_k(r.rows, 25, head=r.head, chunk=3),
            )
        if world > 1:
            distributed.reshard(teacher)

        def fd(rows: ResponseRows, top: Any = top) -> torch.Tensor:
            widths.append(rows.rows.shape[-1])
            loss, _ = chunked_feedback_distillation_loss(
                rows.rows, top, rows.weights, head=rows.head, chunk=3
            )
            return loss

        def logprob_sum(rows: ResponseRows, targets: Any = targets) -> torch.Tensor:
            temps = torch.ones(rows.rows.shape[0])
            values, _ = chunked_token_logprobs(
                rows.rows, targets.token_ids[rows.selected], temps, head=rows.head, chunk=3
            )
            return values.sum()

        loss = reduce_response_rows(model, batch, targets.mask, fd)
        total = reduce_response_rows(model, batch, targets.mask, logprob_sum)
        (loss + 0.01 * total).backward()
        fd_losses[index], logprob_sums[index] = float(loss.detach()), float(total.detach())
    grads = {}
    for name, param in model.named_parameters():
        grad = param.grad
        if grad is not None and hasattr(grad, "full_tensor"):
            grad = grad.full_tensor() * world  # FSDP averages over ranks; we want the sum
        grads[name] = None if grad is None else grad.detach().clone()
    parts = distributed.gather_objects({"fd": fd_losses, "logprob": logprob_sums, "widths": widths})
    if distributed.is_main():
        merged: dict[str, Any] = {"fd": {}, "logprob": {}, "widths": []}
        for part in parts:
            merged["fd"].update(part["fd"])
            merged["logprob"].update(part["logprob"])
            merged["widths"] += part["widths"]
        merged["hidden_size"] = model.config.hidden_size
        (Path(out) / f"losses-{world}.json").write_text(json.dumps(merged))
        torch.save(grads, Path(out) / f"grads-{world}.pt")


UNEVEN_UPDATES = (("fd", (3, 2)), ("grpo", (3, 2)), ("fd", (2, 0)))


def uneven_updates(rank: int, world: int, port: int, model_dir: str, out: str) -> None:
    """FD and GRPO updates where the ranks hold different numbers of trajectories (3 vs 2
    micro-batches, then 2 vs none): each update's logged loss and, at the end, the weights
    (SGD, lr 1). One process runs the same updates on all the trajectories at once."""
    from datetime import timedelta

    from tests.training.scripted_rollouts import scripted_trajectory
    from training.fd import fd_update
    from training.grpo import grpo_update
    from training.session import open_session
    from tutor.prover.problem import Problem

    join(rank, world, port)
    if world > 1:  # a hang fails the test in a minute, not after gloo's 30-minute default
        torch.distributed.init_process_group("gloo", timeout=timedelta(seconds=60))
    config = small_config(model_dir, "", out, world)
    config.optimizer.micro_batch_size = 1
    session = open_session(config, "fd-grpo", rollout_factory=scripted_rollout_factory)
    session.optimizer = torch.optim.SGD(
        [p for p in session.model.parameters() if p.requires_grad], lr=1.0
    )
    losses = []
    for number, (stage, counts) in enumerate(UNEVEN_UPDATES):
        problems = [
            Problem(id=f"u{number}-{i}", statement=f"theorem u{i} : {i} = {i} := by",
                    reference_proof="rfl")
            for i in range(sum(counts))
        ]  # fmt: skip
        every = [
            scripted_trajectory(session.tokenizer, p, 1.0, sample=i) for i, p in enumerate(problems)
        ]
        start = sum(counts[:rank]) if world > 1 else 0
        mine = every[start : start + counts[rank]] if world > 1 else every
        if stage == "fd":
            metrics = fd_update(session, mine, ["Be concise."] * len(mine))
        else:
            advantages = torch.tensor([1.0 if t.reward else -1.0 for t in mine])
            metrics = grpo_update(session, mine, advantages)
        losses.append(distributed.reduce_metrics(metrics)["loss"])
    weights = distributed.full_state_dict(session.model)
    assert weights is not None
    if distributed.is_main():
        (Path(out) / f"uneven-{world}.json").write_text(json.dumps(losses))
        torch.save(
            {k: v.detach().clone() for k, v in weights.items()}, Path(out) / f"uneven-{world}.pt"
        )


def memory_inventory(rank: int, world: int, port: int, model_dir: str, out: str) -> None:
    """Bytes this rank actually holds for each persistent term of training.memory after an
    FD step (AdamW state exists), with get_model_state_dict made to fail so a whole-model
    gather anywhere in the step or the replica sync shows; rank 0 writes them."""
    from torch.distributed.checkpoint import state_dict as dcp_state_dict
    from torch.distributed.tensor import DTensor

    from training.fd import fd_step
    from training.session import open_session
    from tutor.coach import make_coach

    join(rank, world, port)
    config = small_config(model_dir, "", out, world)
    problems = Path(out) / "problems.jsonl"
    problems.write_text(
        "".join(
            json.dumps({"name": f"m{i}", "formal_statement": f"theorem m{i} : {i} = {i} := by",
                        "header": "", "reference_proof": "rfl"}) + "\n"
            for i in range(world)
        )
    )  # fmt: skip
    config.data.train = str(problems)
    config.fd.batch_size = world
    config.model.dtype = "bfloat16"  # bf16 compute over fp32 master weights, as on GPUs
    session = open_session(
        config, "fd", rollout_factory=scripted_rollout_factory, coach=make_coach("fixed")
    )

    def whole_model_gather(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a whole-model state dict was gathered during a step")

    original = dcp_state_dict.get_model_state_dict
    dcp_state_dict.get_model_state_dict = whole_model_gather
    try:
        fd_step(session)  # forward, backward, AdamW step, EMA, replica sync
    finally:
        dcp_state_dict.get_model_state_dict = original

    def local_bytes(tensors: Any) -> int:
        total = 0
        for t in tensors:
            t = t.to_local() if isinstance(t, DTensor) else t
            total += t.numel() * t.element_size()
        return total

    moments = [
        v for state in session.optimizer.state.values() for k, v in state.items() if k != "step"
    ]
    assert session.teacher is not None
    measured = {
        "fp32 master weights (sharded)": local_bytes(session.model.parameters()),
        "AdamW moments, fp32 (sharded)": local_bytes(moments),
        "fp32 EMA teacher (sharded)": local_bytes(session.teacher.parameters()),
        "rollout replica (compute dtype)": local_bytes(session.rollout_model.parameters()),
        "replica dtype": str(next(session.rollout_model.parameters()).dtype),
    }
    parts = distributed.gather_objects(measured)
    if distributed.is_main():
        (Path(out) / "memory.json").write_text(json.dumps(parts))
