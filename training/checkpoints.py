"""The checkpoint registry: weights (safetensors) + readable JSON metadata, retention,
best-by-evaluation selection and the blue/green serving slot.

Layout (documented for the prover in docs/TRAINING.md, "Serving slot"; the prover reads
serving.json itself and never imports training):

    <root>/serving.json                      which checkpoint serves (see ServingState)
    <root>/runs/<run>/step-000040/
        config.json, model.safetensors, tokenizer files   (save_pretrained: loadable by
                                              AutoModelForCausalLM.from_pretrained(dir))
        meta.json                             step, stage, config, metrics, eval, data snapshot
        teacher.safetensors                   FD's EMA teacher (resume only)
        trainer_state.pt                      optimizer + data cursor (resume only)
    <root>/runs/<run>/best.json               the best checkpoint by evaluation

A checkpoint directory is written under a temporary name and renamed when complete, so a
crash never leaves a half-written step-N; "stable" means complete with finite metrics.
Only rank 0 writes (the caller passes a gathered full state dict under FSDP).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from torch import nn

SERVING_FILE = "serving.json"
META_FILE = "meta.json"
TEACHER_FILE = "teacher.safetensors"
TRAINER_STATE_FILE = "trainer_state.pt"


@dataclass
class CheckpointInfo:
    path: Path
    run: str
    step: int
    stage: str
    stable: bool
    metrics: dict[str, Any]
    eval: dict[str, Any]
    created: float

    @property
    def name(self) -> str:
        return self.path.name


@dataclass
class ServingState:
    """serving.json: `path` serves; `previous` is kept for rollback (blue/green).

    Paths are relative to the registry root (the folder holding serving.json), which is what
    tutor.prover.policy.models reads: `{"path": ...}` relative to the slot file. `version`
    increases on every change; prover workers also notice the new path's files change.
    """

    path: str
    previous: str | None = None
    version: int = 1
    updated: float = field(default_factory=time.time)
    history: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class PromotionResult:
    """promote() / rollback() outcome; ok=False says why nothing changed."""

    ok: bool
    serving: ServingState | None = None
    reason: str = ""


def _atomic_write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True, default=str)
        handle.write("\n")
    os.replace(tmp, path)


def _finite(metrics: dict[str, Any]) -> bool:
    return all(not (isinstance(v, float) and not math.isfinite(v)) for v in metrics.values())


def _detached_state(
    module_or_state: nn.Module | dict[str, torch.Tensor],
) -> dict[str, torch.Tensor]:
    """A state dict with no shared storage (safetensors refuses tied weights otherwise)."""
    state = (
        module_or_state.state_dict() if isinstance(module_or_state, nn.Module) else module_or_state
    )
    seen: set[int] = set()
    out = {}
    for key, tensor in state.items():
        ptr = tensor.untyped_storage().data_ptr()
        out[key] = (
            tensor.detach().clone().contiguous() if ptr in seen else tensor.detach().contiguous()
        )
        seen.add(ptr)
    return out


class CheckpointRegistry:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    # --- writing ---------------------------------------------------------------------

    def run_dir(self, run: str) -> Path:
        return self.root / "runs" / run

    def save(
        self,
        run: str,
        step: int,
        model: Any,
        tokenizer: Any = None,
        *,
        stage: str,
        config: dict[str, Any],
        metrics: dict[str, Any] | None = None,
        data_snapshot: dict[str, Any] | None = None,
        state_dict: dict[str, torch.Tensor] | None = None,
        teacher: nn.Module | dict[str, torch.Tensor] | None = None,
        trainer_state: dict[str, Any] | None = None,
    ) -> CheckpointInfo:
        """Write step-N of a run; returns its info. model: a transformers PreTrainedModel."""
        final = self.run_dir(run) / f"step-{step:06d}"
        tmp = final.with_name(final.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        model.save_pretrained(tmp, state_dict=state_dict, safe_serialization=True)
        if tokenizer is not None:
            tokenizer.save_pretrained(tmp)
        if teacher is not None:
            save_file(_detached_state(teacher), str(tmp / TEACHER_FILE))
        if trainer_state is not None:
            torch.save(trainer_state, tmp / TRAINER_STATE_FILE)
        metrics = dict(metrics or {})
        meta = {
            "run": run,
            "step": step,
            "stage": stage,
            "stable": _finite(metrics),
            "created": time.time(),
            "metrics": metrics,
            "eval": {},
            "config": config,
            "data_snapshot": data_snapshot or {},
        }
        _atomic_write_json(tmp / META_FILE, meta)
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        return self._info(final)

    def record_eval(
        self,
        path: str | Path,
        results: dict[str, Any],
        select_metric: str,
        per_problem: list[dict[str, Any]] | None = None,
    ) -> bool:
        """Store evaluation results in meta.json; returns True if this became the run's best.
        per_problem (problem, n, correct) is kept for the paired gate of continual training."""
        path = Path(path)
        meta = self.read_meta(path)
        meta["eval"] = results
        if per_problem is not None:
            meta["eval_per_problem"] = per_problem
        _atomic_write_json(path / META_FILE, meta)
        value = results.get(select_metric)
        if not isinstance(value, (int, float)):
            return False
        best = self.best(meta["run"])
        if best is not None and best[1] >= value and best[0] != path:
            return False
        best_file = self.run_dir(meta["run"]) / "best.json"
        _atomic_write_json(
            best_file,
            {
                "path": str(path.relative_to(self.root)),
                "metric": select_metric,
                "value": value,
                "step": meta["step"],
            },
        )
        return True

    def apply_retention(self, run: str, keep_last: int = 3) -> list[Path]:
        """Keep the last `keep_last` stable checkpoints, the best and the serving ones."""
        infos = self.list(run)
        stable = [i for i in infos if i.stable]
        keep = {i.path for i in stable[-keep_last:]}
        best = self.best(run)
        if best is not None:
            keep.add(best[0])
        serving = self.serving()
        if serving is not None:
            for rel in (serving.path, serving.previous):
                if rel:
                    keep.add(self.root / rel)
        removed = []
        for info in infos:
            if info.path not in keep:
                shutil.rmtree(info.path)
                removed.append(info.path)
        for stale in self.run_dir(run).glob("step-*.tmp"):
            shutil.rmtree(stale, ignore_errors=True)
        return removed

    # --- reading ---------------------------------------------------------------------

    @staticmethod
    def read_meta(path: str | Path) -> dict[str, Any]:
        with open(Path(path) / META_FILE, encoding="utf-8") as handle:
            return dict(json.load(handle))

    def _info(self, path: Path) -> CheckpointInfo:
        meta = self.read_meta(path)
        return CheckpointInfo(
            path=path,
            run=meta["run"],
            step=int(meta["step"]),
            stage=meta.get("stage", ""),
            stable=bool(meta.get("stable", False)),
            metrics=meta.get("metrics", {}),
            eval=meta.get("eval", {}),
            created=float(meta.get("created", 0.0)),
        )

    def list(self, run: str) -> list[CheckpointInfo]:
        """Complete checkpoints of a run, oldest step first."""
        run_dir = self.run_dir(run)
        if not run_dir.is_dir():
            return []
        paths = [
            p
            for p in run_dir.glob("step-*")
            if p.is_dir() and not p.name.endswith(".tmp") and (p / META_FILE).exists()
        ]
        return sorted((self._info(p) for p in paths), key=lambda i: i.step)

    def latest(self, run: str) -> CheckpointInfo | None:
        stable = [i for i in self.list(run) if i.stable]
        return stable[-1] if stable else None

    def best(self, run: str) -> tuple[Path, float] | None:
        best_file = self.run_dir(run) / "best.json"
        if not best_file.exists():
            return None
        data = json.loads(best_file.read_text(encoding="utf-8"))
        return self.root / data["path"], float(data["value"])

    def load_teacher_state(self, path: str | Path) -> dict[str, torch.Tensor] | None:
        file = Path(path) / TEACHER_FILE
        return load_file(str(file)) if file.exists() else None

    def load_trainer_state(self, path: str | Path) -> dict[str, Any] | None:
        file = Path(path) / TRAINER_STATE_FILE
        return torch.load(file, map_location="cpu", weights_only=False) if file.exists() else None

    # --- serving slot ----------------------------------------------------------------

    def serving(self) -> ServingState | None:
        file = self.root / SERVING_FILE
        if not file.exists():
            return None
        return ServingState(**json.loads(file.read_text(encoding="utf-8")))

    def serving_path(self) -> Path | None:
        state = self.serving()
        return self.root / state.path if state else None

    def promote(self, path: str | Path, reason: str = "") -> PromotionResult:
        """Point serving.json at a checkpoint; the old one becomes `previous`."""
        path = Path(path).resolve()
        if not (path / META_FILE).exists() or not (path / "config.json").exists():
            return PromotionResult(ok=False, reason=f"{path} is not a complete checkpoint")
        if not self.read_meta(path).get("stable", False):
            return PromotionResult(ok=False, reason=f"{path} is not stable (non-finite metrics)")
        rel = str(path.relative_to(self.root.resolve()))
        old = self.serving()
        if old is not None and old.path == rel:
            return PromotionResult(ok=False, serving=old, reason="already serving")
        state = ServingState(
            path=rel,
            previous=old.path if old else None,
            version=(old.version + 1) if old else 1,
            history=[
                *(old.history if old else []),
                {"action": "promote", "to": rel, "time": time.time(), "reason": reason},
            ],
        )
        _atomic_write_json(self.root / SERVING_FILE, asdict(state))
        return PromotionResult(ok=True, serving=state)

    def rollback(self, reason: str = "") -> PromotionResult:
        """Swap the serving path and the previous one (blue/green)."""
        old = self.serving()
        if old is None or not old.previous:
            return PromotionResult(
                ok=False, serving=old, reason="no previous checkpoint to roll back to"
            )
        if not (self.root / old.previous / META_FILE).exists():
            return PromotionResult(
                ok=False, serving=old, reason=f"previous checkpoint {old.previous} is gone"
            )
        state = ServingState(
            path=old.previous,
            previous=old.path,
            version=old.version + 1,
            history=[
                *old.history,
                {"action": "rollback", "to": old.previous, "time": time.time(), "reason": reason},
            ],
        )
        _atomic_write_json(self.root / SERVING_FILE, asdict(state))
        return PromotionResult(ok=True, serving=state)
