"""The CLI, as a user runs it: `python -m training STAGE --config FILE`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _run(
    args: list[str], tmp_path: Path, lean: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LEANCOACH_LEAN_HOME": str(tmp_path / "no-lean"), "OMP_NUM_THREADS": "1"}
    env.pop("LEAN_REPL_CMD", None)
    if lean:
        env["LEAN_REPL_CMD"] = lean  # the REPL protocol double stands in for Lean
    return subprocess.run(
        [sys.executable, "-m", "training", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _write_config(
    tmp_path: Path, tiny_model_dir: Path, problems_file: Path, **reinforce: object
) -> Path:
    config = {
        "run": {"name": "cli", "output_dir": str(tmp_path / "runs"), "device": "cpu"},
        "model": {"path": str(tiny_model_dir), "max_new_tokens": 8, "max_total_tokens": 2048},
        "data": {"train": str(problems_file)},
        # Seed 000's section; shrunk: 3 examples, batch 2, 1 epoch -> 2 steps.
        "training": {
            "pretrain": {"method": "SFT", "batch_size": 2, "epochs": 1, "max_length": 2048},
            "reinforce": reinforce,
        },
        "optimizer": {"lr": 1e-3, "micro_batch_size": 2},
        "checkpoints": {"registry": str(tmp_path / "registry"), "every": 1},
        "coach": {"source": "fixed"},
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_sft_runs_from_the_cli(tiny_model_dir: Path, problems_file: Path, tmp_path: Path):
    config = _write_config(tmp_path, tiny_model_dir, problems_file)
    done = _run(["sft", "--config", str(config)], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout[done.stdout.index("{") :])
    assert summary["steps_done"] == 2 and summary["stage"] == "sft"
    assert summary["final"]["sft_loss"] > 0
    assert (Path(summary["last_checkpoint"]) / "model.safetensors").exists()
    assert "sft cli" in done.stderr  # the tqdm progress bar


def test_fd_without_lean_says_so_and_exits_2(
    tiny_model_dir: Path, problems_file: Path, tmp_path: Path
):
    config = _write_config(tmp_path, tiny_model_dir, problems_file)
    done = _run(["fd", "--config", str(config)], tmp_path)
    assert done.returncode == 2
    assert "rollouts need Lean" in done.stderr


def test_a_bad_config_value_exits_2_with_the_fix(tmp_path: Path):
    done = _run(["grpo", "--set", "grpo.group_size=1"], tmp_path)
    assert done.returncode == 2
    assert "grpo.group_size must be >= 2" in done.stderr


def test_stage_and_algorithm_must_agree(tiny_model_dir: Path, problems_file: Path, tmp_path: Path):
    config = _write_config(tmp_path, tiny_model_dir, problems_file, algorithm="GRPO")
    done = _run(["fd", "--config", str(config)], tmp_path)
    assert done.returncode == 2 and "make them agree" in done.stderr


def test_help_config_lists_every_key(tmp_path: Path):
    done = _run(["help-config"], tmp_path)
    assert done.returncode == 0
    assert "fd.top_k = 25  # Teacher's top-k" in done.stdout


def test_eval_runs_from_the_cli_against_the_checker_double(
    tiny_model_dir: Path, problems_file: Path, tmp_path: Path
):
    config = _write_config(tmp_path, tiny_model_dir, problems_file)
    env_fake = f"{sys.executable} {ROOT / 'tests' / 'fakes' / 'fake_repl.py'}"
    done = _run(
        [
            "eval",
            "--config",
            str(config),
            "--set",
            f"data.eval={problems_file}",
            "--set",
            "evaluation.n_samples=2",
            "--set",
            "evaluation.ks=[1, 2]",
            "--set",
            "model.max_turns=1",
        ],
        tmp_path,
        lean=env_fake,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout[done.stdout.index("{") :])
    # The random tiny model proves nothing: pass@k is 0, and that is reported, not hidden.
    assert summary["final"]["eval/pass@1"] == 0.0 and summary["final"]["eval/pass@2"] == 0.0
    assert summary["final"]["eval/entropy"] > 0
    per_problem = json.loads((tmp_path / "runs" / "cli" / "eval_per_problem.json").read_text())
    assert [p["problem"] for p in per_problem] == ["add_zero_t", "two_mul_t", "and_t"]
