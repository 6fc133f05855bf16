"""What one GPU holds in a sharded run, by arithmetic: the model docs/TRAINING.md ("Memory at
8B on 8 x H200") prints and tests/training/test_memory_model.py checks.

Each term names the code that allocates it. Persistent (every step, every rank):
  - fp32 master weights, their fp32 gradients and AdamW's two fp32 moments, sharded over
    the ranks by FSDP2 (training.distributed.wrap_model): 16 bytes x P / ranks;
  - FD's fp32 EMA teacher, sharded exactly like the student (training.session.open_session
    copies it from the full student before sharding; training.ema.ema_update_ works shard
    by shard): 4 P / ranks;
  - GRPO's frozen reference when grpo.beta > 0, sharded the same way: 4 P / ranks;
  - the rollout replica every rank samples from, in the compute dtype (bf16: 2 P;
    training.distributed.make_replica).
Transient, by phase (the peak is the largest phase):
  - step: FSDP's gathered units in bf16 (the root unit, embeddings + head, stays gathered
    around the rows method; two decoder layers at a time with prefetch), the checkpointed
    layer inputs, one layer recomputed with its backward, the chunked loss (rows kept, one
    chunk's [c, V] temporaries: training.losses.chunked_fd_peak_bytes), the root's
    gradients before their fp32 reduce-scatter, and a fixed allowance for the CUDA
    context, NCCL buffers and allocator slack;
  - replica sync after each optimizer step: one parameter gathered in fp32 at a time
    (training.distributed.sync_replica), never the whole model;
  - load: the full fp32 student as read from disk plus its fp32 teacher copy, before both
    are sharded (nothing else exists yet).
Checkpoints gather to rank 0's host memory one tensor at a time (cpu_offload), so they
cost about one tensor of GPU memory, like the sync.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GB = 1e9
H200_BYTES = 141e9  # HBM3e of one H200 (NVIDIA's data sheet: 141 GB)
OVERHEAD_BYTES = 4e9  # CUDA context, NCCL buffers, allocator slack (an allowance, not measured)


@dataclass(frozen=True)
class ModelShape:
    """A Llama/Qwen-style decoder: the widths that decide its parameter count."""

    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tied: bool
    qk_norm: bool = True  # Qwen3 normalises q and k per head

    @classmethod
    def from_config(cls, config: Any) -> ModelShape:
        """From a transformers config (Qwen2/Qwen3/Llama field names)."""
        heads = int(config.num_attention_heads)
        return cls(
            hidden=int(config.hidden_size),
            intermediate=int(config.intermediate_size),
            layers=int(config.num_hidden_layers),
            heads=heads,
            kv_heads=int(config.num_key_value_heads),
            head_dim=int(getattr(config, "head_dim", None) or config.hidden_size // heads),
            vocab=int(config.vocab_size),
            tied=bool(config.tie_word_embeddings),
            qk_norm=config.model_type == "qwen3",
        )

    @property
    def layer_params(self) -> int:
        attention = (
            self.hidden * self.heads * self.head_dim * 2  # q and o projections
            + self.hidden * self.kv_heads * self.head_dim * 2  # k and v
            + (2 * self.head_dim if self.qk_norm else 0)
        )
        return attention + 3 * self.hidden * self.intermediate + 2 * self.hidden

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden * (1 if self.tied else 2)

    @property
    def params(self) -> int:
        return self.layers * self.layer_params + self.embedding_params + self.hidden

    @property
    def largest_tensor(self) -> int:
        return max(self.vocab * self.hidden, self.hidden * self.intermediate)


# Qwen3-8B's published config (8.19 B parameters, untied embeddings): the 8B of the issue.
QWEN3_8B = ModelShape(
    hidden=4096, intermediate=12288, layers=36, heads=32, kv_heads=8, head_dim=128,
    vocab=151936, tied=False,
)  # fmt: skip


@dataclass(frozen=True)
class RunShape:
    """The run settings that decide memory (the paper preset's by default:
    training/presets/paper_fd_grpo.yaml)."""

    ranks: int = 8
    micro_batch: int = 4  # optimizer.micro_batch_size
    tokens: int = 8192  # model.max_total_tokens: a trajectory's longest
    chunk: int = 1024  # model.loss_chunk_tokens
    top_k: int = 25
    teacher: bool = True  # FD stages
    reference: bool = False  # grpo.beta > 0
    replica: bool = True  # FSDP runs sample from a replica; one process samples the model
    compute_bytes: int = 2  # bf16
    gpu_allocation: float = 0.6  # resources.gpu_allocation
    device_bytes: float = H200_BYTES

    @property
    def cap(self) -> float:
        return self.gpu_allocation * self.device_bytes


def persistent(shape: ModelShape, run: RunShape) -> dict[str, float]:
    p, w = shape.params, run.ranks
    out = {
        "fp32 master weights (sharded)": 4 * p / w,
        "fp32 gradients (sharded)": 4 * p / w,
        "AdamW moments, fp32 (sharded)": 8 * p / w,
    }
    if run.replica:
        out["rollout replica (compute dtype)"] = float(run.compute_bytes * p)
    if run.teacher:
        out["fp32 EMA teacher (sharded)"] = 4 * p / w
    if run.reference:
        out["GRPO reference, fp32 (sharded)"] = 4 * p / w
    return out


def step_transients(shape: ModelShape, run: RunShape) -> dict[str, float]:
    cb, n = run.compute_bytes, run.micro_batch * run.tokens
    per_token_layer = (
        2 * shape.heads * shape.head_dim  # q, attention output
        + 2 * shape.kv_heads * shape.head_dim  # k, v
        + 4 * shape.hidden  # two norms' outputs, o-projection and down-projection outputs
        + 4 * shape.intermediate  # gate, up, activation, product
    )
    return {
        "root unit gathered (embeddings + head)": float(cb * shape.embedding_params),
        "two decoder layers gathered": float(2 * cb * shape.layer_params),
        "checkpointed layer inputs": float(shape.layers * n * shape.hidden * cb),
        "one layer recomputed + its backward": float(2 * n * per_token_layer * cb),
        "chunked loss: rows + teacher top-k": float(
            n * shape.hidden * cb + n * (2 * run.top_k + 2) * 4
        ),
        "chunked loss: one chunk's [c, V] temporaries": float(6 * 4 * run.chunk * shape.vocab),
        "root gradients before the fp32 reduce-scatter": float((cb + 4) * shape.embedding_params),
        "CUDA context, NCCL, allocator slack": OVERHEAD_BYTES,
    }


def budget(shape: ModelShape, run: RunShape) -> dict[str, dict[str, float]]:
    """Bytes per component, per phase: "step", "sync", "load"."""
    kept = persistent(shape, run)
    copies = 2 if run.teacher else 1
    return {
        "step": {**kept, **step_transients(shape, run)},
        "sync": {
            **kept,
            "one parameter gathered in fp32": float(4 * shape.largest_tensor),
            "CUDA context, NCCL, allocator slack": OVERHEAD_BYTES,
        },
        "load": {
            "full fp32 student before sharding"
            + (" + its fp32 teacher copy" if run.teacher else ""): float(4 * shape.params * copies)
            + (4.0 * shape.params if run.reference else 0.0),
            "CUDA context, NCCL, allocator slack": OVERHEAD_BYTES,
        },
    }


def peak(shape: ModelShape, run: RunShape) -> tuple[str, float]:
    """(phase, bytes) of the largest phase."""
    totals = {phase: sum(parts.values()) for phase, parts in budget(shape, run).items()}
    phase = max(totals, key=lambda k: totals[k])
    return phase, totals[phase]


def old_design_step(shape: ModelShape, run: RunShape) -> float:
    """What the previous design held per rank before activations (the issue's 86 GB): an
    unsharded fp32 replica, a whole-model fp32 gather per step to sync it, and the sharded
    state."""
    p, w = shape.params, run.ranks
    return 4 * p + 4 * p + (4 + 4 + 8 + (4 if run.teacher else 0)) * p / w


def table(shape: ModelShape = QWEN3_8B, run: RunShape | None = None) -> str:
    """The Markdown table docs/TRAINING.md prints (GB, one decimal)."""
    run = run or RunShape()
    lines = ["| phase | component | GB |", "|---|---|---|"]
    for phase, parts in budget(shape, run).items():
        for name, value in parts.items():
            lines.append(f"| {phase} | {name} | {value / GB:.1f} |")
        lines.append(f"| {phase} | **total** | **{sum(parts.values()) / GB:.1f}** |")
    return "\n".join(lines)
