"""CLI: python -m training {sft,fd,grpo,fd-grpo,mixed,eval} --config FILE [--set key=value ...]

Examples:
    python -m training fd-grpo --config training/presets/paper_fd_grpo.yaml
    python -m training fd --config run.yaml --set run.name=fd-a09 --set fd.ema_alpha=0.9
    torchrun --nproc_per_node 8 -m training grpo --config run.yaml --set run.distributed=fsdp
    python -m training help-config          # every config key with its default and help
Exit codes: 0 done (or stopped), 1 the run failed, 2 it cannot run here (config, Lean, coach).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import signal
import sys
from typing import Any

import yaml

from training.config import Config, ConfigError, config_from_dict

# torch and transformers load only once a run starts: --help and config errors stay fast.
STAGES = ("sft", "fd", "grpo", "fd-grpo", "mixed", "eval")


def _apply_override(data: dict[str, Any], assignment: str) -> None:
    key, sep, raw = assignment.partition("=")
    if not sep:
        raise ConfigError(f"--set needs key=value, got {assignment!r}")
    node = data
    parts = key.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = yaml.safe_load(raw)


def describe_config(cls: type = Config, prefix: str = "") -> list[str]:
    lines = []
    instance = cls()
    for f in dataclasses.fields(cls):
        value = getattr(instance, f.name)
        key = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            lines.append(f"{key}:  # {f.metadata.get('help', '')}")
            lines += describe_config(type(value), key + ".")
        else:
            lines.append(f"{key} = {value!r}  # {f.metadata.get('help', '')}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training",
        description="Train the LeanCoach prover: SFT, Feedback Distillation, GRPO.",
    )
    parser.add_argument("stage", choices=[*STAGES, "help-config"])
    parser.add_argument(
        "--config",
        help="YAML config (see docs/TRAINING.md); omitted keys take the paper's defaults",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a key, e.g. --set fd.top_k=25",
    )
    parser.add_argument(
        "--stop-file", help="stop cleanly after the current step when this file appears"
    )
    args = parser.parse_args(argv)
    if args.stage == "help-config":
        print("\n".join(describe_config()))
        return 0
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        data: dict[str, Any] = {}
        if args.config:
            with open(args.config, encoding="utf-8") as handle:
                data = yaml.safe_load(handle) or {}
        for assignment in args.set:
            _apply_override(data, assignment)
        config = config_from_dict(data)
        if args.stage in ("fd", "grpo", "fd-grpo", "mixed") and "algorithm" not in data.get(
            "training", {}
        ).get("reinforce", {}):
            # No algorithm in the file: the subcommand says which.
            config.training.reinforce.algorithm = {
                "fd": "FD",
                "grpo": "GRPO",
                "fd-grpo": "FD-GRPO",
                "mixed": "mixed",
            }[args.stage]
    except (ConfigError, OSError, yaml.YAMLError) as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 2

    from training.api import run_stage
    from training.runlog import StopFlag

    stop = StopFlag(args.stop_file)
    signal.signal(signal.SIGTERM, lambda *_: stop.set())  # finish the step, checkpoint, exit
    from training import distributed

    try:
        result = run_stage(args.stage, config, stop=stop)
        prints_summary = distributed.is_main()
        distributed.leave_process_group()
    except Exception as exc:
        name = type(exc).__name__
        if name in (
            "LeanUnavailable",
            "CoachUnavailable",
            "ConfigError",
            "FileNotFoundError",
            "ModelNotFound",
        ) or isinstance(exc, ValueError):
            print(f"cannot run {args.stage}: {exc}", file=sys.stderr)
            return 2
        raise
    if not prints_summary:
        return 0
    summary = {
        "run": result.run,
        "stage": result.stage,
        "steps_done": result.steps_done,
        "stopped_early": result.stopped_early,
        "last_checkpoint": str(result.last_checkpoint) if result.last_checkpoint else None,
        "best_checkpoint": str(result.best_checkpoint) if result.best_checkpoint else None,
        "metrics": str(result.metrics_path) if result.metrics_path else None,
        "final": {
            k: v for k, v in result.final_metrics.items() if isinstance(v, (int, float, str))
        },
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
