"""The web layer's one boundary to `training/`: build a run's config from the console's
knobs, run it, and read / change the checkpoint registry.

Only training's public functions are called from here (training.config, training.runlog,
training.checkpoints and the trainer entry point). Nothing Django-specific crosses into
training: the task passes plain callbacks and a stop flag.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils import timezone

if TYPE_CHECKING:
    from training.checkpoints import CheckpointRegistry
    from training.config import Config
    from training.runlog import StopFlag
    from webapp.console.models import TrainingRun


class TrainingUnavailable(RuntimeError):
    """Training cannot start here; the message says why and what to do."""


@dataclass
class TrainingOutcome:
    """How a run ended, as reported by the trainer (stopped: the stop flag ended it early)."""

    stopped: bool = False
    checkpoint: str = ""
    final_metrics: dict[str, Any] = field(default_factory=dict)


def runs_root() -> Path:
    return Path(settings.VAR_DIR) / "runs"


def run_dir(run: TrainingRun) -> Path:
    """Where training writes this run's metrics.jsonl and plots/ (RunConfig: output_dir/name)."""
    return runs_root() / run.run_name


def registry() -> CheckpointRegistry:
    from training.checkpoints import CheckpointRegistry

    return CheckpointRegistry(settings.CHECKPOINT_ROOT)


# --- config -------------------------------------------------------------------------------


@dataclass
class ExportedProblems:
    """What export_problems wrote: exercise primary keys, in file order."""

    trained: list[int] = field(default_factory=list)
    with_proof: int = 0
    selection: list[int] = field(default_factory=list)  # the run's eval file
    gate: list[int] = field(default_factory=list)  # written nowhere: only gates judge them

    def lineage(self, max_problems: int, max_eval: int) -> dict[str, Any]:
        """The run's lineage in the shape of training.continual's lineage.json: the problems
        training reads (the first max_problems of the file, 0: all), the held-out split, and
        how many selection problems its evaluation reads (the first max_eval, 0: all)."""
        used = self.trained[:max_problems] if max_problems else self.trained
        evaluated = min(len(self.selection), max_eval) if max_eval else len(self.selection)
        return {
            "problems": [f"exercise-{pk}" for pk in used],
            "selection_problems": [f"exercise-{pk}" for pk in self.selection],
            "gate_problems": [f"exercise-{pk}" for pk in self.gate],
            "counts": {
                "problems": len(used),
                "held_out_problems": len(self.selection) + len(self.gate),
                "evaluated_problems": evaluated,
            },
        }


def export_problems(run: TrainingRun, target: Path) -> ExportedProblems:
    """Write the run's course as training problems (the fields of shared/data/minif2f.jsonl,
    as training.data reads them); returns which exercises went where.
    The held-out problems (continual distillation's split, held_out_split) are left out;
    the selection ones go to the run's eval file, the gate ones nowhere: no run trains or
    picks its best checkpoint on the problems the gate judges."""
    from webapp.courses.models import Exercise

    if run.course_id is None:
        raise TrainingUnavailable("choose a problem set (a course) for the run")
    exercises = Exercise.objects.filter(world__course_id=run.course_id).order_by(
        "world__order", "order", "pk"
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    selection, gate = held_out_names(run.course_id)
    out = ExportedProblems()
    with (
        target.open("w", encoding="utf-8") as handle,
        eval_file(target).open("w", encoding="utf-8") as held_handle,
    ):
        for exercise in exercises:
            if exercise.name in gate:
                out.gate.append(exercise.pk)
                continue
            if exercise.name in selection:
                held_handle.write(json.dumps(problem_fields(exercise), ensure_ascii=False) + "\n")
                out.selection.append(exercise.pk)
                continue
            record = problem_fields(exercise)
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.trained.append(exercise.pk)
            out.with_proof += bool(exercise.reference_proof.strip())
    if not out.trained:
        raise TrainingUnavailable(f"the course {run.course} has no exercises to train on")
    return out


def eval_file(problems: Path) -> Path:
    """The held-out problems a run evaluates on, next to the training ones."""
    return problems.with_name("held_out.jsonl")


# A YAML/JSON config for continual distillation (training.config.load_config); unset: defaults.
CONTINUAL_CONFIG_ENV = "LEANCOACH_CONTINUAL_CONFIG"


def continual_config(config_path: str | None) -> Any:
    """Continual distillation's config: the file given or named by the environment, with
    this site's run folder and checkpoint registry."""
    from training.config import Config, load_config

    path = config_path or os.environ.get(CONTINUAL_CONFIG_ENV, "")
    config = load_config(path) if path else Config()
    config.run.output_dir = str(Path(settings.VAR_DIR) / "runs")
    config.run.name = f"continual-{timezone.now():%Y%m%d-%H%M%S}"
    config.checkpoints.registry = str(settings.CHECKPOINT_ROOT)
    return config


def continual_split_settings() -> Config:
    """The configured continual-distillation config (LEANCOACH_CONTINUAL_CONFIG, else the
    defaults): its run.seed and classroom section decide the held-out split everywhere."""
    return continual_config(None)


def held_out_names(course_id: int) -> tuple[set[str], set[str]]:
    """The course's held-out exercises as (selection, gate) names: the split continual
    distillation uses (training.classroom.held_out_split with continual's configured seed
    and fractions), so no console run trains on a problem any gate judges."""
    from training.classroom import held_out_split
    from tutor.prover.problem import Problem
    from webapp.attempts.export import problem_id
    from webapp.courses.models import Exercise

    settings_config = continual_split_settings()
    exercises = list(
        Exercise.objects.filter(world__course_id=course_id).select_related("world__course")
    )
    problems = [Problem(id=problem_id(e), statement=e.formal_statement) for e in exercises]
    split = held_out_split(problems, settings_config.classroom, settings_config.run.seed)
    name_of = {problem_id(e): e.name for e in exercises}
    return {name_of[i] for i in split.selection}, {name_of[i] for i in split.gate}


def problem_fields(exercise: Any) -> dict[str, Any]:
    return {
        "name": exercise.name,
        "split": exercise.split,
        "informal_prefix": exercise.informal_prefix,
        "formal_statement": exercise.formal_statement,
        "goal": exercise.goal,
        "header": exercise.header,
        "reference_proof": exercise.reference_proof or None,
    }


def resolve_base_model(run: TrainingRun, on_phase: Callable[[str], None] | None = None) -> str:
    """The admin's choice, else the serving checkpoint; never a download. A GGUF choice (the
    default "smollm2" included) is converted once to a safetensors base in the registry,
    telling on_phase how the conversion goes."""
    if run.base_model.strip():
        from training.default_model import safetensors_base
        from tutor.prover.policy.models import ModelNotFound

        try:
            return str(safetensors_base(run.base_model.strip(), settings.CHECKPOINT_ROOT, on_phase))
        except ModelNotFound as exc:
            raise TrainingUnavailable(str(exc)) from exc
    serving = registry().serving_path()
    if serving is None:
        raise TrainingUnavailable(
            "no base model: type a local model directory (or 'smollm2') in the launch form, "
            "or promote a checkpoint to serving first"
        )
    return str(serving)


def launch_refusals(base_model: str, course: Any) -> dict[str, str]:
    """Why a run with this base model and problem set could not start, per form field (empty:
    it can). Asked before the run is queued, so the admin reads the reason on the form with
    her values kept, not in a run that fails seconds later. Paths are checked as this server
    sees them (the web and the `train` workers share the registry and the model folders)."""
    from tutor.prover.policy.models import ModelNotFound, resolve_model_source
    from webapp.courses.models import Exercise

    refusals: dict[str, str] = {}
    spec = base_model.strip()
    if spec:
        try:
            resolve_model_source(spec)
        except ModelNotFound as exc:
            refusals["base_model"] = (
                f"This base model cannot be loaded ({exc}). Type a local model folder, a "
                ".gguf file or 'smollm2' (the CPU default)."
            )
    elif registry().serving_path() is None:
        refusals["base_model"] = (
            "No checkpoint serves yet, so an empty base model has nothing to start from. Type "
            "a local model folder, a .gguf file or 'smollm2' (the CPU default), or promote a "
            "checkpoint first."
        )
    if course is not None and not Exercise.objects.filter(world__course=course).exists():
        refusals["course"] = f"The course {course} has no exercises to train on."
    return refusals


TINY_SFT_MAX_LENGTH = 2048
TINY_MAX_PROBLEMS = 8
TINY_HUMAN_TOKEN_SHARE = 0.9


def build_config(
    run: TrainingRun, problems: Path, on_phase: Callable[[str], None] | None = None
) -> Config:
    """The console's knobs over a preset, validated by training's own config checks."""
    from training.config import Config, config_from_dict, tiny_cpu_config

    model = resolve_base_model(run, on_phase)
    if run.preset == run.Preset.TINY:
        base = tiny_cpu_config(model, str(problems), name=run.run_name)
    else:
        base = Config()
    data = base.to_dict()
    if run.preset == run.Preset.TINY:
        # The tiny preset cuts SFT sequences at 256 tokens, shorter than the agent prompt with
        # its tool schemas (about 1,000 tokens with the tests' tiny tokenizer, more with a
        # course's longer statements): SFT would find no example. 2,048 fits them.
        data["training"]["pretrain"]["max_length"] = TINY_SFT_MAX_LENGTH
        # A smoke run: the first few problems of the set, not all of them.
        data["data"]["max_problems"] = TINY_MAX_PROBLEMS
        # Tiny rollouts write ~24 tokens while a student's proof file is ~100: at the paper
        # scale's 0.5 share no attempt would fit a step, so the tiny preset allows 0.9.
        data["classroom"]["human_token_share"] = TINY_HUMAN_TOKEN_SHARE
    data["run"].update(name=run.run_name, output_dir=str(runs_root()))
    data["model"]["path"] = model
    data["data"]["train"] = str(problems)
    held_out = eval_file(problems)
    if held_out.is_file() and held_out.stat().st_size:
        data["data"]["eval"] = str(held_out)  # every console run evaluates: best-by-eval exists
    if run.algorithm == run.Algorithm.CONTINUAL:
        # The same held-out split as the scheduled rounds: continual's seed and fractions.
        split = continual_split_settings()
        data["run"]["seed"] = split.run.seed
        data["classroom"]["eval_fraction"] = split.classroom.eval_fraction
        data["classroom"]["gate_fraction"] = split.classroom.gate_fraction
    reinforce = data["training"]["reinforce"]
    # Continual distillation is FD steps (training.continual sets it too).
    algorithm = "FD" if run.algorithm == run.Algorithm.CONTINUAL else run.algorithm
    reinforce.update(algorithm=algorithm, total_steps=run.steps)
    # switch_step only matters for FD-GRPO; elsewhere keep it inside [0, steps] so the
    # config check passes whatever the form said.
    reinforce["switch_step"] = min(run.switch_step, run.steps)
    data["fd"].update(top_k=run.top_k, ema_alpha=run.alpha)
    data["coach"]["source"] = run.feedback_source
    data["checkpoints"]["registry"] = str(settings.CHECKPOINT_ROOT)
    # Each console run is new (its name comes from a fresh primary key); a leftover folder
    # of the same name, e.g. after the database was reset, must not be resumed silently.
    data["checkpoints"]["resume"] = False
    return config_from_dict(data)


# --- running ------------------------------------------------------------------------------


def stage_for(run: TrainingRun) -> str:
    from training.config import STAGE_FOR_ALGORITHM

    if run.algorithm == run.Algorithm.CONTINUAL:
        return "continual"
    return STAGE_FOR_ALGORITHM[run.algorithm]


def expected_sft_steps(config: Config, n_problems_with_proof: int) -> int:
    """SFT's length follows from the data: epochs x batches (training.sft.train_sft)."""
    pretrain = config.training.pretrain
    n = n_problems_with_proof
    if config.data.max_problems:
        n = min(n, config.data.max_problems)
    return max(1, -(-n // pretrain.batch_size) * pretrain.epochs)


def new_stop_flag() -> StopFlag:
    from training.runlog import StopFlag

    return StopFlag()


def train(
    stage: str,
    config: Config,
    on_metrics: Callable[[dict[str, Any]], None],
    stop_flag: StopFlag,
) -> TrainingOutcome:
    """training.api.run_stage; raises what it raises (the task records it as the failure)."""
    from training.api import run_stage

    result = run_stage(stage, config, callback=on_metrics, stop=stop_flag)
    if result.error:
        raise RuntimeError(result.error)
    checkpoint = result.best_checkpoint or result.last_checkpoint
    return TrainingOutcome(
        stopped=bool(result.stopped_early),
        checkpoint=str(checkpoint) if checkpoint else "",
        final_metrics=dict(result.final_metrics),
    )


@dataclass
class ContinualOutcome(TrainingOutcome):
    promoted: bool = False
    reason: str = ""
    gate: dict[str, Any] = field(default_factory=dict)
    lineage: dict[str, Any] = field(default_factory=dict)


def continual(
    snapshot: Path,
    config: Config,
    on_metrics: Callable[[dict[str, Any]], None],
    stop_flag: StopFlag,
) -> ContinualOutcome:
    """training.continual.continual_distill on a snapshot; the gate decides promotion."""
    from training.continual import continual_distill

    result = continual_distill(snapshot, config, callback=on_metrics, stop=stop_flag)
    if result.error:
        raise RuntimeError(result.error)
    return ContinualOutcome(
        stopped=bool(stop_flag.is_set()),
        checkpoint=str(result.checkpoint) if result.checkpoint else "",
        promoted=result.promoted,
        reason=result.reason,
        gate=result.gate,
        lineage=result.lineage,
    )


def write_plots(directory: Path) -> list[Path]:
    from training.runlog import plot_metrics

    metrics = directory / "metrics.jsonl"
    return plot_metrics(metrics, directory / "plots") if metrics.exists() else []


# --- checkpoints --------------------------------------------------------------------------


@dataclass
class CheckpointRow:
    rel_path: str  # relative to the registry root: what promote() takes back
    run: str
    step: int
    stage: str
    stable: bool
    evaluation: dict[str, Any]
    serving: bool
    previous: bool
    best: bool


def list_checkpoints() -> list[CheckpointRow]:
    reg = registry()
    runs_dir = reg.root / "runs"
    serving = reg.serving()
    rows: list[CheckpointRow] = []
    if not runs_dir.is_dir():
        return rows
    for run_folder in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
        best = reg.best(run_folder.name)
        for info in reg.list(run_folder.name):
            rel = str(info.path.relative_to(reg.root))
            rows.append(
                CheckpointRow(
                    rel_path=rel,
                    run=info.run,
                    step=info.step,
                    stage=info.stage,
                    stable=info.stable,
                    evaluation=info.eval,
                    serving=bool(serving and serving.path == rel),
                    previous=bool(serving and serving.previous == rel),
                    best=bool(best and best[0] == info.path),
                )
            )
    return rows


def serving_state() -> dict[str, Any] | None:
    state = registry().serving()
    if state is None:
        return None
    return {"path": state.path, "previous": state.previous, "version": state.version}


def checkpoint_evaluation(rel_path: str) -> dict[str, Any]:
    """A registry checkpoint's recorded held-out evaluation ({} when it was not evaluated)."""
    path = Path(settings.CHECKPOINT_ROOT) / rel_path
    if not (path / "meta.json").is_file():
        return {}
    evaluation = registry().read_meta(path).get("eval") or {}
    return dict(evaluation) if isinstance(evaluation, dict) else {}


@dataclass
class SlotChange:
    ok: bool
    message: str


def promote(rel_path: str, reason: str) -> SlotChange:
    known = {row.rel_path for row in list_checkpoints()}
    if rel_path not in known:
        return SlotChange(False, f"{rel_path!r} is not a checkpoint in the registry")
    result = registry().promote(Path(settings.CHECKPOINT_ROOT) / rel_path, reason=reason)
    if not result.ok:
        return SlotChange(False, f"not promoted: {result.reason}")
    return SlotChange(True, f"{rel_path} now serves (version {result.serving.version})")  # type: ignore[union-attr]


def rollback(reason: str) -> SlotChange:
    result = registry().rollback(reason=reason)
    if not result.ok:
        return SlotChange(False, f"not rolled back: {result.reason}")
    return SlotChange(True, f"rolled back: {result.serving.path} serves again")  # type: ignore[union-attr]
