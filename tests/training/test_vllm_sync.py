"""vLLM in place: the engine options, the launcher environment and the sleep / wake /
load_weights protocol, through the product's VLLMEngine adapter on a fake vllm.LLM that
enforces what vLLM 0.30.0 enforces (tests/training/fake_vllm.py)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from tests.training.conftest import ScriptedPolicy
from tests.training.fake_vllm import FakeLLM
from training.config import Config, ConfigError, ModelConfig, ResourcesConfig
from training.rollouts import vllm_rollout
from training.vllm_sync import (
    InPlaceSync,
    VLLMEngine,
    engine_options,
    ensure_launcher_env,
    start_colocated_engine,
)
from tutor.prover.problem import Problem

LAUNCHER = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@pytest.fixture
def one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """No launcher variables, as in a single process started without torchrun."""
    for name in LAUNCHER:
        monkeypatch.delenv(name, raising=False)


def _engine() -> FakeLLM:
    ensure_launcher_env()
    options = engine_options(ModelConfig(path="/m"), world_size=1, rank=0, seed=0)
    return FakeLLM(**options)


def test_external_launcher_on_one_gpu_and_on_eight(one_process):
    config = ModelConfig(path="/m", dtype="bfloat16", vllm_gpu_memory_utilization=0.3)
    one = engine_options(config, world_size=1, rank=0, seed=7)
    eight = engine_options(config, world_size=8, rank=3, seed=7)
    # TRL's colocate mode always uses it: without it one GPU runs the engine core in a
    # subprocess and loading weights in place is impossible.
    assert one["distributed_executor_backend"] == "external_launcher"
    assert eight["distributed_executor_backend"] == "external_launcher"
    assert eight["enable_sleep_mode"] and eight["gpu_memory_utilization"] == 0.3
    assert eight["logprobs_mode"] == "processed_logprobs"
    assert (one["seed"], eight["seed"]) == (7, 10)  # ranks sample different rollouts
    with pytest.raises(KeyError, match="RANK"):  # what vLLM needs from the launcher
        FakeLLM(**one)
    ensure_launcher_env()
    llm = FakeLLM(**one)
    assert llm.apply_model(lambda model: model is llm.model) == [True]
    # Another backend on one GPU: the model is in another process, nothing loads in place.
    other = FakeLLM(**{**one, "distributed_executor_backend": "uni"})
    with pytest.raises(RuntimeError, match="subprocess"):
        VLLMEngine(other).load_weights([("w", torch.zeros(1))])


def test_the_launcher_environment_is_set_only_where_missing(monkeypatch: pytest.MonkeyPatch):
    for name in LAUNCHER:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MASTER_PORT", "29999")
    ensure_launcher_env(rank=0, local_rank=0, world_size=1)
    import os

    assert os.environ["RANK"] == "0" and os.environ["LOCAL_RANK"] == "0"
    assert os.environ["MASTER_ADDR"] == "127.0.0.1" and os.environ["MASTER_PORT"] == "29999"
    monkeypatch.setenv("RANK", "5")
    ensure_launcher_env(rank=0)
    assert os.environ["RANK"] == "5"  # torchrun's value stands


def test_weights_load_in_place_only_awake_and_only_after_a_step(one_process):
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    llm = _engine()
    sync = InPlaceSync(VLLMEngine(llm), model, torch.bfloat16)
    assert llm.sleeping  # asleep until the first rollout: the trainer has the GPU
    sync.before_rollout()
    llm.check_can_generate()  # everything awake for sampling
    sync.after_rollout()
    sync.before_rollout()  # no optimizer step in between: nothing to load
    sync.after_rollout()
    assert llm.events == [
        "sleep:1", "wake:weights", "load:2", "reset_prefix_cache", "wake:kv_cache", "sleep:1",
        "wake:weights", "wake:kv_cache", "sleep:1",
    ]  # fmt: skip
    with torch.no_grad():
        model.weight.add_(1.0)
    sync.mark_stale()
    sync.before_rollout()
    assert llm.events[-4:] == ["wake:weights", "load:2", "reset_prefix_cache", "wake:kv_cache"]
    torch.testing.assert_close(llm.model.weights["weight"], model.weight.detach().bfloat16())
    assert llm.model.weights["weight"].dtype == torch.bfloat16
    # A load while the weights are offloaded is refused, as it would write unmapped memory.
    sync.after_rollout()
    with pytest.raises(RuntimeError, match="offloaded"):
        VLLMEngine(llm).load_weights([("weight", model.weight.detach())])


def test_sync_every_n_steps_and_resync(one_process):
    llm = _engine()
    sync = InPlaceSync(VLLMEngine(llm), torch.nn.Linear(2, 2), torch.float32, every=2)
    sync.before_rollout()
    for _ in range(3):
        sync.mark_stale()
        sync.after_rollout()
        sync.before_rollout()
    assert sync.loads == 2  # the first load, then after steps 2 (not 1 or 3)
    sync.after_rollout()
    sync.resync()  # weights replaced outside a step (a checkpoint loaded for evaluation)
    sync.before_rollout()
    assert sync.loads == 3


class AwakePolicy(ScriptedPolicy):
    """The scripted policy, sampling only where the fake engine would serve a request."""

    def __init__(self, tokenizer: Any, llm: FakeLLM) -> None:
        super().__init__(tokenizer, good={"t"})
        self.llm = llm

    def generate_ids(self, prompt_ids: Any, sampling: Any) -> Any:
        self.llm.check_can_generate()
        return super().generate_ids(prompt_ids, sampling)


def test_rollouts_go_through_the_engine_protocol(
    tiny_model_dir, fake_checker, tools_factory, one_process
):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    llm = _engine()
    rollout = vllm_rollout(
        model,
        tokenizer,
        checker=fake_checker,
        tools_factory=tools_factory,
        model_config=ModelConfig(path=str(tiny_model_dir), max_turns=1),
        policy=AwakePolicy(tokenizer, llm),
        engine=VLLMEngine(llm),
    )
    problem = Problem(id="t", statement="theorem t (n : Nat) : n + 0 = n := by")
    trajectories = rollout([problem], 2, 1.0, seed=5)
    assert len(trajectories) == 2 and llm.sleeping
    assert len(llm.model.weights) == len(model.state_dict())
    rollout.sync.mark_stale()  # type: ignore[attr-defined]  # what optimizer_step does
    rollout([problem], 1, 1.0, seed=6)
    loads = [e for e in llm.events if e.startswith("load")]
    assert loads == ["load:" + str(len(llm.model.weights))] * 2


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


def test_one_vllm_pin_everywhere():
    """pyproject's `gpu` extra and the prover's install hint name the same vLLM, the one
    whose own pins agree with torch 2.13.0 and transformers 5.24 (0.30.0)."""
    import re
    import tomllib
    from pathlib import Path

    from tutor.prover.policy.vllm import INSTALL_HINT

    root = Path(__file__).resolve().parents[2]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    [gpu] = project["optional-dependencies"]["gpu"]
    pins = {d.split("==")[0]: d.split("==")[1] for d in project["dependencies"] if "==" in d}
    assert gpu == "vllm==0.30.0" and pins["torch"] == "2.13.0"
    assert re.findall(r"vllm==[\d.]+", INSTALL_HINT) == [gpu]
