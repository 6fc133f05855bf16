"""vLLM in place: the sleep / wake / load_weights protocol, on a fake engine (CPU)."""

from __future__ import annotations

import pytest
import torch

from tests.training.conftest import ScriptedPolicy
from tests.training.fake_vllm import FakeEngine
from training.config import Config, ConfigError, ModelConfig, ResourcesConfig
from training.rollouts import vllm_rollout
from training.vllm_sync import InPlaceSync, engine_options, start_colocated_engine
from tutor.prover.problem import Problem


def test_engine_options_use_external_launcher_under_torchrun_and_sleep_mode():
    config = ModelConfig(path="/m", dtype="bfloat16", vllm_gpu_memory_utilization=0.3)
    one = engine_options(config, world_size=1, rank=0, seed=7)
    eight = engine_options(config, world_size=8, rank=3, seed=7)
    assert "distributed_executor_backend" not in one
    assert eight["distributed_executor_backend"] == "external_launcher"
    assert eight["enable_sleep_mode"] and eight["gpu_memory_utilization"] == 0.3
    assert eight["logprobs_mode"] == "processed_logprobs"
    assert (one["seed"], eight["seed"]) == (7, 10)  # ranks sample different rollouts


def test_weights_load_in_place_only_after_a_step_and_the_engine_sleeps_between():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    engine = FakeEngine()
    sync = InPlaceSync(engine, model, torch.bfloat16)
    sync.before_rollout()
    sync.after_rollout()
    sync.before_rollout()  # no optimizer step in between: nothing to load
    sync.after_rollout()
    assert engine.events == ["load:2", "sleep", "wake", "sleep"]
    with torch.no_grad():
        model.weight.add_(1.0)
    sync.mark_stale()
    sync.before_rollout()
    assert engine.events[-2:] == ["wake", "load:2"] and sync.loads == 2
    torch.testing.assert_close(engine.weights["weight"], model.weight.detach().to(torch.bfloat16))
    assert engine.weights["weight"].dtype == torch.bfloat16


def test_sync_every_n_steps():
    engine = FakeEngine()
    sync = InPlaceSync(engine, torch.nn.Linear(2, 2), torch.float32, every=2)
    sync.before_rollout()
    for _ in range(3):
        sync.mark_stale()
        sync.after_rollout()
        sync.before_rollout()
    assert sync.loads == 2  # the first load, then after steps 2 (not 1 or 3)


def test_rollouts_go_through_the_engine_protocol(tiny_model_dir, fake_checker, tools_factory):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    engine = FakeEngine()
    rollout = vllm_rollout(
        model,
        tokenizer,
        checker=fake_checker,
        tools_factory=tools_factory,
        model_config=ModelConfig(path=str(tiny_model_dir), max_turns=1),
        policy=ScriptedPolicy(tokenizer, good={"t"}),
        engine=engine,
    )
    problem = Problem(id="t", statement="theorem t (n : Nat) : n + 0 = n := by")
    trajectories = rollout([problem], 2, 1.0)
    assert len(trajectories) == 2 and engine.asleep
    assert len(engine.weights) == len(model.state_dict())
    rollout.sync.mark_stale()  # what optimizer_step does
    rollout([problem], 1, 1.0)
    assert [e for e in engine.events if e.startswith("load")] == [
        "load:" + str(len(engine.weights))
    ] * 2


def test_memory_shares_must_fit_together():
    with pytest.raises(ConfigError, match="0.3.*0.8.*> 0.95"):
        Config(
            model=ModelConfig(rollout_backend="vllm", vllm_gpu_memory_utilization=0.3),
            resources=ResourcesConfig(gpu_allocation=0.8),
        )
    Config(
        model=ModelConfig(rollout_backend="vllm", vllm_gpu_memory_utilization=0.3),
        resources=ResourcesConfig(gpu_allocation=0.6),
    )


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-host message")
def test_starting_an_engine_without_a_gpu_says_so():
    with pytest.raises(RuntimeError, match="no CUDA device.*rollout_backend: hf"):
        start_colocated_engine(ModelConfig(path="/m"), world_size=1, rank=0, seed=0)
