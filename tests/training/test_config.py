"""Configs: the paper's defaults, seed 000's YAML shape, help everywhere, errors that say how to fix."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from training.config import (
    Config,
    ConfigError,
    ReinforceConfig,
    config_from_dict,
    exploration_rate,
    feedback_weight,
    load_config,
    parse_bytes,
)

SEED_000_YAML = """\
training:
  pretrain:
    method: SFT
    batch_size: 32
    epochs: 10
  reinforce:
    algorithm: GRPO
    exploration_rate: 0.3
    feedback_weight: 0.7
resources:
  gpu_allocation: 0.8
  memory_limit: 12GB
"""


def test_defaults_are_the_papers():
    c = Config()
    assert (
        c.fd.top_k,
        c.fd.tail,
        c.fd.kl_direction,
        c.fd.ema_alpha,
        c.fd.ema_every,
        c.fd.batch_size,
    ) == (25, True, "forward", 0.9, 5, 128)
    assert (c.grpo.clip_eps, c.grpo.beta, c.grpo.trajectories_per_step) == (0.2, 0.0, 640)
    assert c.training.reinforce.switch_step == 200
    assert c.training.reinforce.feedback_weight == "schedule"
    assert c.checkpoints.keep_last == 3
    assert c.evaluation.ks == [1, 2, 4, 8, 16]


def test_seed_000_yaml_loads(tmp_path: Path):
    path = tmp_path / "train_config.yaml"
    path.write_text(SEED_000_YAML)
    c = load_config(path)
    assert c.training.pretrain.batch_size == 32 and c.training.pretrain.epochs == 10
    assert c.training.reinforce.algorithm == "GRPO"
    assert c.training.reinforce.exploration_rate == 0.3
    assert c.training.reinforce.feedback_weight == 0.7
    assert c.resources.memory_limit_bytes == 12 * 10**9
    assert c.fd.top_k == 25  # untouched sections keep their defaults


def test_every_field_has_help():
    def walk(cls: type) -> None:
        for f in dataclasses.fields(cls):
            assert f.metadata.get("help"), f"{cls.__name__}.{f.name} has no help"
            default = (
                f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
            )
            if dataclasses.is_dataclass(default):
                walk(type(default))

    walk(Config)


@pytest.mark.parametrize(
    ("data", "fix"),
    [
        ({"fd": {"top_k": 0}}, "fd.top_k must be >= 1"),
        ({"fd": {"ema_alpha": 1.5}}, "fd.ema_alpha must be in"),
        ({"grpo": {"group_size": 1}}, "group_size must be >= 2"),
        ({"training": {"reinforce": {"switch_step": 5000}}}, "switch_step must be in"),
        ({"training": {"reinforce": {"algorithm": "PPO"}}}, "algorithm must be one of"),
        ({"training": {"reinforce": {"feedback_weight": "sometimes"}}}, "'schedule' or a number"),
        ({"evaluation": {"n_samples": 4}}, "must be >= the largest k"),
        ({"resources": {"memory_limit": "lots"}}, "write e.g. 12GB"),
        ({"fd": {"topk": 25}}, "unknown key(s) ['topk'] in fd"),
        ({"fd": {"tail": "yes"}}, "fd.tail must be true or false"),
        ({"run": {"name": "a/b"}}, "run.name must be letters"),
    ],
)
def test_bad_values_say_how_to_fix(data, fix):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data)
    assert fix in str(info.value)


def test_yaml_numbers_are_coerced_to_floats():
    c = config_from_dict({"optimizer": {"lr": "3e-6"}, "fd": {"ema_alpha": 1}})
    assert c.optimizer.lr == 3e-6 and c.fd.ema_alpha == 1.0


def test_feedback_weight_schedule_of_seed_000():
    r = ReinforceConfig(total_steps=100, switch_step=0)
    assert [feedback_weight(r, s) for s in (0, 49, 50, 79, 80, 99)] == [
        0.3,
        0.3,
        0.6,
        0.6,
        0.9,
        0.9,
    ]
    assert feedback_weight(ReinforceConfig(feedback_weight=0.7), 10) == 0.7


def test_exploration_rate_decays_with_a_floor():
    r = ReinforceConfig(exploration_rate=0.3, total_steps=100000, switch_step=0)
    assert exploration_rate(r, 0) == 0.3
    assert exploration_rate(r, 1000) == pytest.approx(0.285)
    assert exploration_rate(r, 90000) == 0.1
    assert exploration_rate(ReinforceConfig(), 5) == 0.0


def test_parse_bytes_units():
    assert parse_bytes("12GB") == 12_000_000_000
    assert parse_bytes("512MiB") == 512 * 1024**2
    assert parse_bytes("1000") == 1000


@pytest.mark.parametrize("name", ["paper_fd_grpo.yaml", "tiny_cpu.yaml"])
def test_presets_load(name):
    preset = Path(__file__).resolve().parents[2] / "training" / "presets" / name
    config = load_config(preset)
    assert config.fd.top_k == 25 and config.fd.ema_alpha == 0.9


def test_paper_preset_has_the_papers_batches():
    preset = Path(__file__).resolve().parents[2] / "training" / "presets" / "paper_fd_grpo.yaml"
    config = load_config(preset)
    assert (
        config.fd.batch_size,
        config.grpo.trajectories_per_step,
        config.training.reinforce.switch_step,
    ) == (128, 640, 200)
