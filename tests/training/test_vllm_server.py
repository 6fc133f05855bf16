"""vLLM server mode (training/vllm_server.py) against a fake `vllm serve` that speaks the
same JSON (tests/training/fake_vllm_server.py): rollouts through the real agent loop,
tool environment and checker double; weight pushes after each update; no fallback."""

from __future__ import annotations

import socket

import pytest
import torch

from tests.training.fake_vllm_server import FakeEngineFactory, FakeVLLMServer, fake_logprob
from training.config import Config, ConfigError, ModelConfig, ResourcesConfig
from training.rollouts import vllm_rollout, vllm_server_rollout
from training.vllm_server import ServerClient, ServerPolicy, ServerSync, VLLMServerUnreachable
from tutor.prover.policy.base import SamplingConfig
from tutor.prover.problem import Problem


def _proof_answer(tokenizer):
    ids = tokenizer.encode("```lean\nsimp\n```", add_special_tokens=False)
    return lambda prompt: ids + [tokenizer.convert_tokens_to_ids("<|im_end|>")]


def _server_config(url: str, path: str = "", **kw) -> ModelConfig:
    return ModelConfig(path=path, vllm_mode="server", vllm_server_url=url, max_turns=1, **kw)


def test_rollouts_store_the_servers_logprobs_and_temperature(
    tiny_model_dir, fake_checker, tools_factory
):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    problem = Problem(id="t", statement="theorem t (n : Nat) : n + 0 = n := by")
    with FakeVLLMServer(_proof_answer(tokenizer)) as server:
        rollout = vllm_server_rollout(
            model,
            tokenizer,
            checker=fake_checker,
            tools_factory=tools_factory,
            model_config=_server_config(server.url, str(tiny_model_dir), rollout_backend="vllm"),
            engine_factory=FakeEngineFactory(),
        )
        trajectories = rollout([problem], 2, 0.7, seed=3)
    assert len(trajectories) == 2
    requests = server.calls("/v1/completions")
    assert len(requests) == 2  # one per sample: the agent batches them, one request each
    for body, trajectory in zip(requests, trajectories, strict=True):
        assert body is not None
        assert body["prompt"] == trajectory.token_ids[: trajectory.prompt_length]
        assert body["temperature"] == 0.7 and body["logprobs"] == 0
        assert body["return_tokens_as_token_ids"] is True and body["model"] == "tiny"
        sampled = [lp for lp, m in zip(trajectory.logprobs, trajectory.mask, strict=True) if m]
        assert sampled == [fake_logprob(i) for i in range(len(sampled))]  # stored per token
        assert trajectory.sampling["temperature"] == 0.7  # and per trajectory
        assert trajectory.final_proof is not None and "simp" in trajectory.final_proof
    first, second = requests
    assert first is not None and second is not None
    assert first["seed"] != second["seed"]  # identical prompts, different samples


def test_weights_are_pushed_after_each_update_through_vllms_protocol():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 3)
    factory = FakeEngineFactory()
    with FakeVLLMServer(lambda prompt: [1]) as server:
        sync = ServerSync(ServerClient(server.url), model, torch.bfloat16, factory)
        sync.before_rollout()  # first rollout: push what we hold
        sync.before_rollout()  # no optimizer step since: nothing to push
        with torch.no_grad():
            model.weight.add_(1.0)
        sync.mark_stale()  # what optimizer_step does
        sync.before_rollout()
        assert server.weight_version == "step-1" and not server.updating
        paths = [p for p, _ in server.requests]
    assert sync.pushed_versions == ["step-0", "step-1"]
    assert server.calls("/finish_weight_update") == [
        {"weight_version": "step-0"},
        {"weight_version": "step-1"},
    ]
    one_push = ["/pause", "/start_weight_update", "/update_weights", "/finish_weight_update",
                "/resume"]  # fmt: skip
    assert paths == ["/get_world_size", "/init_weight_transfer_engine", *one_push, *one_push]
    assert server.calls("/start_weight_update") == [None, None]  # the route takes no body
    [engine] = factory.engines  # made once, kept
    info = server.calls("/update_weights")[-1]
    assert info == {
        "update_info": {
            "names": ["weight", "bias"],
            "dtype_names": ["bfloat16", "bfloat16"],
            "shapes": [[3, 4], [3]],
        }
    }
    assert len(engine.pushes) == 2
    torch.testing.assert_close(engine.pushes[1]["weight"], model.weight.detach().bfloat16())
    assert not torch.equal(engine.pushes[0]["weight"], engine.pushes[1]["weight"])


def test_the_fake_server_refuses_what_vllm_refuses():
    """The double's rules (fake_vllm_server.py, each cited from vLLM 0.30.0): the update
    info of the old design (with "packed") and updates outside start/finish fail."""
    from training.vllm_server import VLLMServerError

    with FakeVLLMServer(lambda prompt: [1]) as server:
        client = ServerClient(server.url)
        names = {"names": ["w"], "dtype_names": ["bfloat16"], "shapes": [[1]]}
        with pytest.raises(VLLMServerError, match="500.*not initialized"):
            client.post("/start_weight_update")
            client.post("/update_weights", {"update_info": names})
        client.post("/finish_weight_update")
        client.post(
            "/init_weight_transfer_engine",
            {"init_info": {"master_address": "h", "master_port": 1, "rank_offset": 1,
                           "world_size": 2}},
        )  # fmt: skip
        with pytest.raises(VLLMServerError, match="500.*before update_weights"):
            client.post("/update_weights", {"update_info": names})
        client.post("/start_weight_update")
        with pytest.raises(VLLMServerError, match="500.*Invalid update_info"):
            client.post("/update_weights", {"update_info": {**names, "packed": True}})
        with pytest.raises(VLLMServerError, match="500.*already active"):
            client.post("/start_weight_update")
        client.post("/update_weights", {"update_info": names})
        client.post("/finish_weight_update", {"weight_version": "v"})
        with pytest.raises(VLLMServerError, match="500.*without a matching"):
            client.post("/finish_weight_update")


def test_a_sharded_source_declares_what_it_sends():
    from training.vllm_server import ComputeDtypeSource

    model = torch.nn.Linear(2, 3)
    source = ComputeDtypeSource(model, torch.bfloat16)
    meta = source.metadata()
    sent = list(source)
    assert [(m.name, m.dtype, m.shape) for m in meta] == [
        (name, t.dtype, tuple(t.shape)) for name, t in sent
    ]
    assert list(source) and len(list(source)) == 2  # a fresh pass every time


def test_sync_every_n_steps_pushes_less_often():
    with FakeVLLMServer(lambda prompt: [1]) as server:
        sync = ServerSync(
            ServerClient(server.url), torch.nn.Linear(2, 2), torch.float32, FakeEngineFactory(),
            every=2,
        )  # fmt: skip
        sync.before_rollout()
        for _ in range(3):
            sync.mark_stale()
            sync.before_rollout()
    assert sync.pushed_versions == ["step-0", "step-2"]


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there once the socket is closed


def test_an_unreachable_server_is_a_clear_error_at_start_not_a_fallback():
    url = _closed_port_url()
    config = _server_config(url, rollout_backend="vllm")
    with pytest.raises(VLLMServerUnreachable, match=rf"{url} is unreachable.*vllm serve.*colocate"):
        vllm_rollout(
            torch.nn.Linear(2, 2), None, checker=None, tools_factory=None, model_config=config
        )


def test_a_server_that_goes_away_mid_run_is_an_error_too(tiny_model_dir):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    with FakeVLLMServer(_proof_answer(tokenizer)) as server:
        policy = ServerPolicy(ServerClient(server.url, timeout_s=5), tokenizer)
    with pytest.raises(VLLMServerUnreachable, match="unreachable"):
        policy.generate_ids([[1, 2, 3]], SamplingConfig(max_tokens=4))


def test_the_mode_is_a_checked_config_field():
    assert ModelConfig().vllm_mode == "colocate"
    assert ModelConfig().vllm_server_url == "http://127.0.0.1:8000"
    with pytest.raises(ConfigError, match="vllm_mode must be colocate or server"):
        ModelConfig(vllm_mode="remote")
    with pytest.raises(ConfigError, match="vllm_server_url must be an http"):
        ModelConfig(vllm_mode="server", vllm_server_url="localhost:8000")
    # The server samples on its own GPUs: the colocated memory-share check does not apply.
    Config(
        model=ModelConfig(rollout_backend="vllm", vllm_mode="server"),
        resources=ResourcesConfig(gpu_allocation=0.9),
    )
