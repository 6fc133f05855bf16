"""Metrics to JSONL + a callback, PNG plots, the cooperative stop flag."""

from __future__ import annotations

import json
from pathlib import Path

from training.runlog import MetricsLogger, StopFlag, read_metrics


def test_records_go_to_the_file_and_the_callback_and_plots_are_written(tmp_path: Path):
    seen: list[dict] = []
    logger = MetricsLogger(tmp_path / "run", callback=seen.append)
    for step in (1, 2, 3):
        logger.log(step, "fd", {"loss": 1.0 / step, "reward": float("nan"), "note": "text"})
    records = read_metrics(logger.path)
    assert [r["step"] for r in records] == [1, 2, 3] == [r["step"] for r in seen]
    assert records[0]["reward"] is None  # NaN is not valid JSON: stored as null
    plots = logger.plot()
    names = sorted(p.name for p in plots)
    assert names == ["loss.png"]
    assert plots[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_failing_callback_is_reported_once_and_the_run_goes_on(tmp_path: Path):
    def broken(record):
        raise RuntimeError("console down")

    logger = MetricsLogger(tmp_path, callback=broken)
    logger.log(1, "grpo", {"loss": 1.0})
    logger.log(2, "grpo", {"loss": 0.5})
    lines = [json.loads(line) for line in logger.path.read_text().splitlines()]
    assert [line.get("callback_error") is not None for line in lines] == [False, True, False]


def test_stop_flag_by_call_and_by_file(tmp_path: Path):
    flag = StopFlag()
    assert not flag.is_set()
    flag.set()
    assert flag.is_set()
    stop_file = tmp_path / "STOP"
    by_file = StopFlag(stop_file)
    assert not by_file.is_set()
    stop_file.touch()
    assert by_file.is_set()


def test_memory_limit_stops_the_run_with_a_clear_error():
    from types import SimpleNamespace

    import pytest

    from training.config import Config, ResourcesConfig
    from training.session import MemoryLimitExceeded, _check_memory

    tight = SimpleNamespace(config=Config(resources=ResourcesConfig(memory_limit="1MB")))
    with pytest.raises(MemoryLimitExceeded, match="raise it or shrink the batch"):
        _check_memory(tight)  # type: ignore[arg-type]
    roomy = SimpleNamespace(config=Config(resources=ResourcesConfig(memory_limit="1TB")))
    _check_memory(roomy)  # type: ignore[arg-type]


def test_flat_and_one_point_series_get_no_picture(tmp_path: Path):
    from training.runlog import plot_metrics

    path = tmp_path / "metrics.jsonl"
    rows = [
        {"step": 1, "loss": 2.0, "entropy": 1.0, "could_not_check": 0, "grad_norm": 3.0},
        {"step": 2, "loss": 1.5, "entropy": 1.0, "could_not_check": 0, "grad_norm": 2.0,
         "eval/pass@1": 0.5},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    names = sorted(p.name for p in plot_metrics(path, tmp_path / "plots"))
    # entropy and could_not_check are flat, eval/pass@1 has one point, grad_norm is not a
    # headline metric (runlog.PLOTTED): its numbers are in the JSONL.
    assert names == ["loss.png"]
    everything = plot_metrics(path, tmp_path / "all", everything=True)
    assert len(everything) == 5


def test_sample_efficiency_is_plotted_per_trajectory(tmp_path: Path):
    from training.runlog import plot_metrics

    path = tmp_path / "metrics.jsonl"
    rows = [
        {"step": 1, "reward": 0.1, "trajectories_seen": 128},
        {"step": 2, "reward": 0.3, "trajectories_seen": 768},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    names = sorted(p.name for p in plot_metrics(path, tmp_path / "plots"))
    assert names == ["reward.png", "reward_by_trajectory.png", "trajectories_seen.png"]


def test_only_the_headline_and_eval_metrics_get_a_plot_unless_asked(tmp_path: Path):
    """A PNG costs a tenth of a second: by default only runlog.PLOTTED and eval/ metrics get
    one (docs/TRAINING.md); every other counter stays in the JSONL."""
    from training.runlog import plot_metrics

    path = tmp_path / "metrics.jsonl"
    rows = [{"step": s, "loss": 1.0 / s, "grad_norm": 0.5, "eval/pass@1": 0.1 * s} for s in (1, 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    names = sorted(p.name for p in plot_metrics(path, tmp_path / "headline"))
    assert names == ["eval_pass_1.png", "loss.png"]
    names = sorted(p.name for p in plot_metrics(path, tmp_path / "all", everything=True))
    assert names == ["eval_pass_1.png", "grad_norm.png", "loss.png"]
