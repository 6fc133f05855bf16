"""The CPU default prover: SmolLM2-135M-Instruct fine-tuned on the project's own exercises.

    from training.default_model import prepare_default_prover, starter_problems
    path = prepare_default_prover(starter_problems(), "var/models/smollm2-sft")
    # -> a Hugging Face folder (safetensors) that tutor.prover's load_policy(path) loads

Untrained, SmolLM2 answers in prose and never calls a tool. One small SFT pass teaches it
the agent's protocol. Each example is one agent episode, token for token what
`tutor.prover.rollout` would record had the model written it (docs/PROVER.md):

    prompt        initial_messages() rendered by the tokenizer's chat template, with the
                  tools described in the system turn when the template ignores `tools`
    assistant     <tool_call>{"name": "lean_write_file", "arguments": {"code": <file>,
                  "file_name": "proof.lean"}}</tool_call> + end of turn          (trained)
    tool turn     the workspace's report of a valid check, rendered by tool_turn_text()
    assistant     a short closing sentence + end of turn                          (trained)

The loss is the mean cross-entropy over the assistant tokens only (mask 1, as in a
Trajectory). Results are cached in `out_dir`: `prepared.json` records the hashes of the
data, the config and the base model, and a later call with the same three returns at once.
The folder is written under a temporary name and renamed, so a crash never leaves half a
model where the prover looks.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import logging
import math
import os
import random
import shutil
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from training.checkpoints import CheckpointRegistry, PromotionResult
from tutor.prover.agent import AgentConfig, prompt_messages, tool_turn_text
from tutor.prover.policy.base import ChatPolicyBase
from tutor.prover.policy.models import SMOLLM2, ModelSource, resolve_model_source
from tutor.prover.problem import Problem
from tutor.prover.tools import TOOL_SCHEMAS
from tutor.prover.trajectory import Trajectory

log = logging.getLogger(__name__)

PREPARED_FILE = "prepared.json"
FORMAT_VERSION = 1  # bump when the example layout changes: cached models are then retrained
PROOF_FILE_NAME = "proof.lean"
CLOSING_TEXT = "The file is valid: the theorem is proved."
REPO_ROOT = Path(__file__).resolve().parents[1]
STARTER_COURSE_FILE = REPO_ROOT / "webapp" / "courses" / "data" / "core_lean.py"

ProgressCallback = Callable[[int, int, float], None]  # (step done, total steps, loss)


@dataclass(frozen=True)
class DefaultModelConfig:
    """SFT settings sized for a 2-core CPU: a few minutes on the starter course (docs/PROVER.md,
    "The default CPU model")."""

    base_model: str = SMOLLM2  # any tutor.prover model spec: "smollm2", a folder, a .gguf
    epochs: int = 2
    batch_size: int = 4  # examples per optimizer step (forwarded one at a time)
    learning_rate: float = 1e-4
    warmup_steps: int = 2
    final_lr_fraction: float = 0.1  # linear decay from learning_rate to this fraction of it
    weight_decay: float = 0.0
    grad_clip: float = 1.0
    max_length: int = 1024  # tokens; a longer example is dropped (cutting it loses the call)
    # None trains every weight. N trains only the top N blocks and the final norm (the
    # rest, embeddings included, frozen, so backward stops early): on SmolLM2, N=8 saved
    # a fifth of the time but ended at 4x the loss and emitted broken proofs (docs/PROVER.md).
    trainable_layers: int | None = None
    # Every example starts with the same system turn (~250 tokens: the tool descriptions).
    # Run it once per step without gradients and let each example continue from its cache:
    # the loss is the same number, the gradient drops only the path through that shared
    # turn's keys and values, and a step costs about a third as much.
    share_prompt_prefix: bool = True
    max_examples: int | None = None  # use only the first N problems (tests, quick tries)
    seed: int = 0
    threads: int | None = None  # torch CPU threads; None leaves torch's setting alone

    def __post_init__(self) -> None:
        if self.epochs < 1:
            raise ValueError("epochs must be at least 1")
        if self.batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if not 0 < self.learning_rate < 1:
            raise ValueError("learning_rate must be in (0, 1), e.g. 1e-4")
        if self.warmup_steps < 0:
            raise ValueError("warmup_steps must be >= 0 (0: no warmup)")
        if not 0 <= self.final_lr_fraction <= 1:
            raise ValueError("final_lr_fraction must be in [0, 1]")
        if self.grad_clip <= 0:
            raise ValueError("grad_clip must be > 0 (e.g. 1.0)")
        if self.max_length < 64:
            raise ValueError("max_length must be at least 64 tokens (the prompt alone is ~500)")
        if self.trainable_layers is not None and self.trainable_layers < 1:
            raise ValueError("trainable_layers must be >= 1, or None to train every weight")
        if self.max_examples is not None and self.max_examples < 1:
            raise ValueError("max_examples must be >= 1, or None for all problems")
        if self.threads is not None and self.threads < 1:
            raise ValueError("threads must be >= 1, or None to keep torch's setting")

    def training_fields(self) -> dict[str, Any]:
        """What determines the weights (threads only change speed, not the result)."""
        data = asdict(self)
        data.pop("threads")
        return data


@dataclass
class PreparedInfo:
    """prepared.json: what the cached model was trained from, and how it went."""

    base_model: str  # base_model_id(): spec plus the weight files' names and sizes
    data_hash: str
    config_hash: str
    format_version: int = FORMAT_VERSION
    examples: int = 0
    dropped: list[str] = field(default_factory=list)  # problem ids over max_length
    steps: int = 0
    losses: list[float] = field(default_factory=list)  # per optimizer step
    wall_s: float = 0.0  # whole preparation: loading, training, saving
    train_s: float = 0.0
    created: float = 0.0
    config: dict[str, Any] = field(default_factory=dict)

    def matches(self, other: PreparedInfo) -> bool:
        return (
            self.base_model == other.base_model
            and self.data_hash == other.data_hash
            and self.config_hash == other.config_hash
            and self.format_version == other.format_version
        )


# --- data ---------------------------------------------------------------------------


def starter_problems(path: str | Path = STARTER_COURSE_FILE) -> list[Problem]:
    """The starter course's exercises with their reference proofs.

    The course is a plain data module of the web app; it is loaded from its file path so
    training never imports Django or the webapp package."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location("_leancoach_starter_course", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise FileNotFoundError(f"no starter course data at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    records = getattr(module, "problems", None)
    if not callable(records):
        raise ValueError(f"{path} defines no problems() function returning exercise records")
    return [Problem.from_dict(record) for record in records()]


def proof_file(problem: Problem) -> str:
    """The complete Lean file the agent writes: statement unchanged, then the proof."""
    assert problem.reference_proof is not None
    return problem.with_proof(textwrap.dedent(problem.reference_proof).strip("\n"))


def valid_check_report(code: str) -> str:
    """The lean_write_file answer for a valid file, in the workspace's report shape
    (tutor.lean.tools: ok, path, bytes, then the check's fields). The model never trains
    on it (mask 0); it only has to look like what the agent feeds back."""
    report = {
        "ok": True,
        "path": PROOF_FILE_NAME,
        "bytes": len(code.encode("utf-8")),
        "valid": True,
        "messages": [],
        "sorries": [],
        "axioms": [],
        "timed_out": False,
        "crashed": False,
        "error": None,
    }
    return json.dumps(report, ensure_ascii=False)


def write_call_text(code: str) -> str:
    """A lean_write_file call in the `<tool_call>` format tutor.prover.tools parses."""
    call = {"name": "lean_write_file", "arguments": {"code": code, "file_name": PROOF_FILE_NAME}}
    return f"<tool_call>\n{json.dumps(call, ensure_ascii=False)}\n</tool_call>"


class _TemplateOnly(ChatPolicyBase):
    """The chat rendering of a policy without its weights: the agent's own helpers
    (render_chat, encode, turn_end_id) then format examples exactly as a rollout does."""

    def __init__(self, tokenizer: Any, name: str = "sft") -> None:
        self._tokenizer = tokenizer
        self.name = name

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer


def agent_prompt(renderer: ChatPolicyBase, problem: Problem) -> list[dict[str, Any]]:
    """The prompt the agent starts an attempt with (tutor.prover.agent.prompt_messages)."""
    return prompt_messages(renderer, problem, AgentConfig(), TOOL_SCHEMAS)


def format_example(problem: Problem, tokenizer: Any) -> Trajectory:
    """One agent episode as training tokens: mask 1 exactly on the assistant's tokens."""
    if not problem.reference_proof:
        raise ValueError(f"problem {problem.id!r} has no reference proof to learn from")
    renderer = _TemplateOnly(tokenizer)
    messages = agent_prompt(renderer, problem)
    prompt_ids = renderer.encode(renderer.render_chat(messages, tools=TOOL_SCHEMAS))
    end_id = renderer.turn_end_id()
    code = proof_file(problem)
    call_text = write_call_text(code)
    report = valid_check_report(code)
    tool_message = {"role": "tool", "name": "lean_write_file", "content": report}
    between = tool_turn_text(renderer, [tool_message], TOOL_SCHEMAS, renderer.decode([end_id]))
    segments = [
        (prompt_ids, 0),
        ([*renderer.encode(call_text), end_id], 1),
        (renderer.encode(between), 0),
        ([*renderer.encode(CLOSING_TEXT), end_id], 1),
    ]
    ids = [token for tokens, _ in segments for token in tokens]
    mask = [flag for tokens, flag in segments for _ in tokens]
    return Trajectory(
        problem_id=problem.id,
        statement=problem.header + problem.statement,
        mode="sft",
        prompt_messages=[dict(m) for m in messages],
        tools=TOOL_SCHEMAS,
        token_ids=ids,
        mask=mask,
        logprobs=[0.0] * len(ids),
        prompt_length=len(prompt_ids),
        messages=[
            *messages,
            {"role": "assistant", "content": call_text},
            tool_message,
            {"role": "assistant", "content": CLOSING_TEXT},
        ],
        final_proof=code,
    )


def build_examples(
    problems: Sequence[Problem], tokenizer: Any, max_length: int
) -> tuple[list[Trajectory], list[str]]:
    """Examples for every problem with a reference proof; ids of those over max_length."""
    examples, dropped = [], []
    for problem in problems:
        if not problem.reference_proof:
            continue
        example = format_example(problem, tokenizer)
        if len(example.token_ids) > max_length:
            dropped.append(problem.id)
            continue
        examples.append(example)
    return examples, dropped


def data_hash(examples: Sequence[Trajectory]) -> str:
    """The exact training tokens: changes with the problems, the agent's prompt and tool
    format, the chat template and the tokenizer, and nothing else."""
    payload = {
        "format": FORMAT_VERSION,
        "examples": [[e.problem_id, e.token_ids, e.mask] for e in examples],
    }
    return _sha256(payload)


def config_hash(config: DefaultModelConfig) -> str:
    return _sha256(config.training_fields())


def base_model_id(source: ModelSource) -> str:
    """The base weights by name and size (not mtime: reinstalling the same package
    must not force a retrain)."""
    directory = Path(source.directory)
    if source.gguf_file:
        files = [directory / source.gguf_file]
    else:
        files = [directory / "config.json", *sorted(directory.glob("*.safetensors"))]
    parts = [f"{file.name}:{file.stat().st_size}" for file in files if file.exists()]
    return f"{source.spec or source.label}|{','.join(parts)}"


def _sha256(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- cache --------------------------------------------------------------------------


def read_prepared(out_dir: str | Path) -> PreparedInfo | None:
    """The metadata of a prepared model folder, or None when there is no complete one."""
    out_dir = Path(out_dir)
    meta = out_dir / PREPARED_FILE
    if not meta.is_file() or not (out_dir / "config.json").is_file():
        return None
    if not any(out_dir.glob("*.safetensors")):
        return None
    try:
        return PreparedInfo(**json.loads(meta.read_text(encoding="utf-8")))
    except (ValueError, TypeError):
        return None  # unreadable or from an incompatible version: prepare again


def is_prepared(
    problems: Sequence[Problem], out_dir: str | Path, config: DefaultModelConfig | None = None
) -> bool:
    """True when out_dir already holds the model these problems and config would give
    (loads only the tokenizer to find out)."""
    config = config or DefaultModelConfig()
    found = read_prepared(out_dir)
    if found is None:
        return False
    return found.matches(_wanted(problems, config)[0])


def _wanted(
    problems: Sequence[Problem], config: DefaultModelConfig
) -> tuple[PreparedInfo, ModelSource, Any, list[Trajectory]]:
    """What a model prepared now would record, with the inputs it would be made from."""
    source = resolve_model_source(config.base_model)
    chosen = selected_problems(problems, config)
    if not chosen:
        raise ValueError("no problem has a reference proof: nothing to fine-tune on")
    tokenizer = load_tokenizer(source)
    examples, dropped = build_examples(chosen, tokenizer, config.max_length)
    if not examples:
        raise ValueError(
            f"every example is longer than max_length={config.max_length} tokens: raise it"
        )
    info = PreparedInfo(
        base_model=base_model_id(source),
        data_hash=data_hash(examples),
        config_hash=config_hash(config),
        config=config.training_fields(),
        dropped=dropped,
        examples=len(examples),
    )
    return info, source, tokenizer, examples


def selected_problems(problems: Sequence[Problem], config: DefaultModelConfig) -> list[Problem]:
    """The problems the default prover is fine-tuned on: those with a reference proof."""
    chosen = [p for p in problems if p.reference_proof]
    return chosen[: config.max_examples] if config.max_examples else chosen


# --- training -----------------------------------------------------------------------


def prepare_default_prover(
    problems: Sequence[Problem],
    out_dir: str | Path,
    *,
    config: DefaultModelConfig | None = None,
    on_progress: ProgressCallback | None = None,
    force: bool = False,
) -> Path:
    """Fine-tune the base model on the problems' reference proofs; return out_dir.

    Skips all work when out_dir already holds a model made from the same data, config
    and base model (unless force). Raises ModelNotFound when the base model is missing
    and ValueError when no problem carries a reference proof."""
    import torch

    config = config or DefaultModelConfig()
    out_dir = Path(out_dir)
    started = time.monotonic()
    wanted, source, tokenizer, examples = _wanted(problems, config)
    found = read_prepared(out_dir)
    if not force and found is not None and found.matches(wanted):
        log.info("prepared prover model is up to date at %s", out_dir)
        return out_dir
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    model = load_model(source)
    train_started = time.monotonic()
    wanted.losses = train(model, examples, config, on_progress)
    wanted.train_s = time.monotonic() - train_started
    wanted.steps = len(wanted.losses)
    wanted.created = time.time()
    wanted.wall_s = time.monotonic() - started  # saving adds a few seconds on top
    save_atomically(model, tokenizer, wanted, out_dir)
    return out_dir


def load_tokenizer(source: ModelSource) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(source.directory, **_offline(source))


def load_model(source: ModelSource) -> Any:
    """The base model in float32 (a GGUF is dequantised); offline."""
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(
        source.directory, dtype=torch.float32, **_offline(source)
    )
    _forget_gguf_origin(model)
    return model


def _forget_gguf_origin(model: Any) -> None:
    """A GGUF loads through transformers' GGUF quantizer, which then refuses save_pretrained
    even when every weight was dequantised into a plain float tensor (no GGUF kernels
    installed: the case here). Drop that marker; keep refusing packed weights."""
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is None:
        return
    dequantized = bool(getattr(quantizer.quantization_config, "dequantize", False))
    packed = getattr(quantizer, "quantized", None)  # weights kept in GGUF blocks, by name
    if packed and not dequantized:
        raise ValueError(
            "the base model kept its quantized GGUF blocks (the `kernels` package is "
            "installed); fine-tuning needs plain weights: uninstall `kernels` or pass a "
            "Hugging Face model folder as base_model"
        )
    quantizer.remove_quantization_config(model)


def _offline(source: ModelSource) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"local_files_only": True}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    return kwargs


def freeze_lower_layers(model: Any, trainable_layers: int | None) -> int:
    """Leave only the top `trainable_layers` blocks and the final norm trainable; returns
    the number of trainable parameters."""
    if trainable_layers is not None:
        blocks = _decoder_blocks(model)
        for parameter in model.parameters():
            parameter.requires_grad_(False)
        for block in list(blocks)[-trainable_layers:]:
            for parameter in block.parameters():
                parameter.requires_grad_(True)
        norm = getattr(model.get_decoder(), "norm", None)
        if norm is not None:
            for parameter in norm.parameters():
                parameter.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def _decoder_blocks(model: Any) -> Any:
    layers = getattr(model.get_decoder(), "layers", None)
    if layers is None:
        raise ValueError(
            f"{type(model).__name__} has no decoder `layers`: set trainable_layers=None "
            "to fine-tune every weight"
        )
    return layers


def shared_prefix_length(examples: Sequence[Trajectory]) -> int:
    """How many leading tokens all examples share, stopping before any example's last
    prompt token (whose logits predict the first trained token)."""
    limit = min(example.prompt_length for example in examples) - 1
    first = examples[0].token_ids
    length = 0
    while length < limit and all(e.token_ids[length] == first[length] for e in examples):
        length += 1
    return length


def prefix_cache(model: Any, prefix_ids: Sequence[int]) -> Any:
    """The key/value cache of the shared prefix, computed without gradients."""
    import torch

    if not prefix_ids:
        return None
    with torch.no_grad():
        out = model(input_ids=torch.tensor([list(prefix_ids)]), use_cache=True)
    return out.cache


def example_loss(model: Any, example: Trajectory, prefix: Any = None) -> tuple[Any, int]:
    """Summed cross-entropy of the assistant tokens, and how many there are.

    prefix: a prefix_cache() of the example's first tokens, or None to run it all.
    Logits are computed only at the positions that predict a trained token (the vocabulary
    projection of the long prompt would cost as much as a few transformer blocks)."""
    import torch

    start = 0 if prefix is None else prefix.get_seq_length()
    ids = torch.tensor([example.token_ids[start:]], dtype=torch.long)
    targets = [i for i, flag in enumerate(example.mask) if flag and i > 0]
    positions = torch.tensor([i - 1 - start for i in targets], dtype=torch.long)
    cache = None if prefix is None else copy.deepcopy(prefix)  # the forward extends it
    out = model(input_ids=ids, cache=cache, use_cache=cache is not None, logits_to_keep=positions)
    logits = out.logits[0].float()
    labels = torch.tensor([example.token_ids[i] for i in targets], dtype=torch.long)
    loss = torch.nn.functional.cross_entropy(logits, labels, reduction="sum")
    return loss, len(targets)


def train(
    model: Any,
    examples: list[Trajectory],
    config: DefaultModelConfig,
    on_progress: ProgressCallback | None = None,
) -> list[float]:
    """AdamW over the examples; returns each step's token-mean loss."""
    import torch

    torch.manual_seed(config.seed)
    freeze_lower_layers(model, config.trainable_layers)
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        parameters, lr=config.learning_rate, weight_decay=config.weight_decay
    )
    per_epoch = math.ceil(len(examples) / config.batch_size)
    total = per_epoch * config.epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _schedule(config, total))
    shared = shared_prefix_length(examples) if config.share_prompt_prefix else 0
    model.train()
    losses: list[float] = []
    for step in range(total):
        batch = _batch_for_step(examples, config, step, per_epoch)
        n_tokens = sum(sum(example.mask[1:]) for example in batch)
        prefix = prefix_cache(model, examples[0].token_ids[:shared])  # weights just changed
        loss_sum = 0.0
        for example in batch:
            loss, _ = example_loss(model, example, prefix)
            (loss / n_tokens).backward()  # token mean over the whole batch
            loss_sum += float(loss.detach())
        torch.nn.utils.clip_grad_norm_(parameters, config.grad_clip)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss_sum / max(n_tokens, 1))
        if on_progress is not None:
            on_progress(step + 1, total, losses[-1])
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(True)  # leave the model as from_pretrained made it
    return losses


def _schedule(config: DefaultModelConfig, total: int) -> Callable[[int], float]:
    def factor(step: int) -> float:
        if step < config.warmup_steps:
            return (step + 1) / (config.warmup_steps + 1)
        span = max(total - config.warmup_steps, 1)
        done = min((step - config.warmup_steps) / span, 1.0)
        return 1.0 - (1.0 - config.final_lr_fraction) * done

    return factor


def _batch_for_step(
    examples: list[Trajectory], config: DefaultModelConfig, step: int, per_epoch: int
) -> list[Trajectory]:
    epoch, index = divmod(step, per_epoch)
    order = list(range(len(examples)))
    random.Random(config.seed + epoch).shuffle(order)
    chosen = order[index * config.batch_size : (index + 1) * config.batch_size]
    return [examples[i] for i in chosen]


def save_atomically(model: Any, tokenizer: Any, info: PreparedInfo, out_dir: Path) -> None:
    """Write the folder under a temporary name, then swap it in with renames."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.with_name(f".{out_dir.name}.tmp-{os.getpid()}")
    old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        (tmp / PREPARED_FILE).write_text(
            json.dumps(asdict(info), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        if out_dir.exists():
            os.replace(out_dir, old)
        os.replace(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


# --- serving ------------------------------------------------------------------------

DEFAULT_RUN = "default-smollm2-sft"


def serve_if_unserved(
    model_dir: str | Path, registry_root: str | Path, run: str = DEFAULT_RUN
) -> PromotionResult:
    """Register a prepared model in training's checkpoint registry and make it serve,
    but only when nothing serves yet: a checkpoint the trainer promoted is never replaced
    by the untrained-on-feedback default. ok=False says why nothing changed."""
    model_dir = Path(model_dir)
    info = read_prepared(model_dir)
    if info is None:
        return PromotionResult(ok=False, reason=f"{model_dir} holds no prepared model")
    registry = CheckpointRegistry(registry_root)
    serving = registry.serving()
    if serving is not None:
        return PromotionResult(
            ok=False, serving=serving, reason=f"{serving.path} already serves; left as it is"
        )
    checkpoint = _registered_copy(registry, run, info)
    if checkpoint is None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(model_dir)
        checkpoint = registry.save(
            run,
            info.steps,
            model,
            tokenizer,
            stage="sft",
            config=info.config,
            metrics={"loss": info.losses[-1] if info.losses else float("nan")},
            data_snapshot=_identity(info),
        ).path
    return registry.promote(checkpoint, reason="the CPU default prover (nothing served yet)")


def _identity(info: PreparedInfo) -> dict[str, Any]:
    return {
        "base_model": info.base_model,
        "data_hash": info.data_hash,
        "config_hash": info.config_hash,
        "format_version": info.format_version,
    }


def _registered_copy(registry: CheckpointRegistry, run: str, info: PreparedInfo) -> Path | None:
    """A checkpoint of this run already holding the same prepared model, if any."""
    for checkpoint in registry.list(run):
        meta = registry.read_meta(checkpoint.path)
        if meta.get("data_snapshot") == _identity(info):
            return Path(checkpoint.path)
    return None


PhaseCallback = Callable[[str], None]  # a sentence saying what the conversion is doing now
HEARTBEAT_S = 5.0  # how often a long conversion says it is still going


def safetensors_base(
    spec: str,
    registry_root: str | Path,
    on_phase: PhaseCallback | None = None,
    heartbeat_s: float = HEARTBEAT_S,
) -> Path:
    """A model directory the trainers can load (config.json + safetensors) for any prover
    model spec. A folder is returned as is; a GGUF (e.g. the default "smollm2") is
    dequantised once (load_model) and saved under <registry>/bases/<name>-<hash>/, reused by
    every later run with the same weights file.

    on_phase hears each phase of a conversion, and every heartbeat_s seconds while the
    dequantisation runs (minutes on a small CPU: it must never look stuck). It is called
    from the caller's thread; the dequantisation runs in a helper thread meanwhile."""
    say = on_phase or (lambda text: None)
    source = resolve_model_source(spec)
    if not source.gguf_file:
        return Path(source.directory)
    identity = hashlib.sha256(base_model_id(source).encode("utf-8")).hexdigest()[:12]
    stem = Path(source.gguf_file).stem.replace(".", "-")
    target = Path(registry_root) / "bases" / f"{stem}-{identity}"
    if (target / "config.json").is_file():
        return target
    tensors = gguf_tensor_count(Path(source.directory) / source.gguf_file)
    what = f"converting the base model {source.gguf_file} ({tensors} tensors) to safetensors"
    say(f"{what}: dequantising")
    model, tokenizer = with_heartbeat(
        lambda: (load_model(source), load_tokenizer(source)), what, say, heartbeat_s
    )
    say(f"{what}: saving")
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    log.info("converted the GGUF base %s to %s", source.label, target)
    say(f"{what}: done")
    return target


def gguf_tensor_count(path: Path) -> int:
    """How many tensors a GGUF file holds (read from its header, memory-mapped)."""
    from gguf import GGUFReader

    return len(GGUFReader(str(path)).tensors)


def with_heartbeat(work: Callable[[], Any], what: str, say: PhaseCallback, every_s: float) -> Any:
    """work() in a helper thread; say "<what>: N s so far" every every_s seconds until it
    ends; its result, or its exception re-raised here."""
    import threading

    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    started = time.monotonic()
    thread = threading.Thread(target=run, name="gguf-conversion", daemon=True)
    thread.start()
    while True:
        thread.join(every_s)
        if not thread.is_alive():
            break
        say(f"{what}: dequantising, {time.monotonic() - started:.0f} s so far")
    if "error" in box:
        raise box["error"]
    return box["result"]
