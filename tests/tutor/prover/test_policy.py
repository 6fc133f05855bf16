"""HFPolicy sampling, model resolution (paths, serving slot, GGUF default) and the vLLM
boundary's conversion of engine outputs."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import torch

from tutor.prover.policy import ModelNotFound, Policy, SamplingConfig, resolve_model_source
from tutor.prover.policy.hf import HFPolicy, _nucleus

CHAT = [{"role": "user", "content": "Prove 1 + 1 = 2"}]


def test_its_completions_keep_the_policy_contract(tiny_policy: HFPolicy) -> None:
    """What the agent, the search and training read from every completion (Completion in
    tutor/prover/policy/base.py): one log-probability (a real one, at most 0) per token, the
    text its tokens decode to less a final end token, and a finish reason that says whether
    max_tokens cut it. A model loaded from a folder, not the serving slot, never reloads."""
    assert isinstance(tiny_policy, Policy)
    ids = tiny_policy.prompt_to_ids(CHAT)
    end_ids = tiny_policy.end_token_ids()
    reasons: set[str] = set()
    for max_tokens in (1, 12):
        sampling = SamplingConfig(n=3, temperature=1.0, max_tokens=max_tokens, seed=5)
        for completion in tiny_policy.generate_ids([ids], sampling)[0]:
            tokens = completion.token_ids
            assert 1 <= len(tokens) == len(completion.logprobs) <= max_tokens
            assert all(float("-inf") < lp <= 0 for lp in completion.logprobs)
            assert not end_ids & set(tokens[:-1])  # nothing is sampled after the end
            ended = tokens[-1] in end_ids
            # The end token is kept in the ids (it was sampled: trained on), not in the text.
            assert completion.text == tiny_policy.decode(tokens[:-1] if ended else tokens)
            # No stop strings here: "stop" exactly when the model ended its turn, else
            # max_tokens cut it ("length": the agent and training treat it as truncated).
            assert completion.finish_reason == ("stop" if ended else "length")
            assert ended or len(tokens) == max_tokens
            reasons.add(completion.finish_reason)
    assert "length" in reasons, reasons
    assert tiny_policy.reload_if_changed() is False


def test_batched_greedy_decoding_matches_one_prompt_at_a_time(tiny_policy: HFPolicy) -> None:
    long_ids = tiny_policy.prompt_to_ids(CHAT)
    short_ids = long_ids[:5]  # a shorter prompt forces left padding in the batch
    sampling = SamplingConfig(temperature=0, max_tokens=12)
    batched = tiny_policy.generate_ids([long_ids, short_ids], sampling)
    alone = tiny_policy.generate_ids([short_ids], sampling)
    assert batched[1][0].token_ids == alone[0][0].token_ids
    assert batched[1][0].logprobs == pytest.approx(alone[0][0].logprobs, abs=1e-4)


def test_logprobs_are_those_of_the_sampling_distribution(tiny_policy: HFPolicy) -> None:
    ids = tiny_policy.prompt_to_ids(CHAT)
    sampling = SamplingConfig(n=2, temperature=0.7, top_p=0.9, max_tokens=10, seed=3)
    for completion in tiny_policy.generate_ids([ids], sampling)[0]:
        full = torch.tensor([ids + completion.token_ids])
        with torch.no_grad():
            logits = tiny_policy.model(full).logits[0].float()
        for i, token in enumerate(completion.token_ids):
            logp = _nucleus(torch.log_softmax(logits[len(ids) - 1 + i] / 0.7, -1)[None], 0.9)[0]
            assert logp[token].item() == pytest.approx(completion.logprobs[i], abs=1e-4)
            assert logp[token].item() > float("-inf")  # never samples outside the nucleus


def test_generate_takes_chat_messages_and_strings_with_n_samples(tiny_policy: HFPolicy) -> None:
    out = tiny_policy.generate([CHAT, "theorem"], n=3, max_tokens=6, seed=1)
    assert [len(group) for group in out] == [3, 3]
    for completion in out[0] + out[1]:
        assert len(completion.token_ids) == len(completion.logprobs) <= 6
        assert completion.finish_reason in ("stop", "length")
    again = tiny_policy.generate([CHAT, "theorem"], n=3, max_tokens=6, seed=1)
    assert [c.token_ids for c in again[0]] == [c.token_ids for c in out[0]]  # seeded


def test_a_stop_string_ends_the_completion(tiny_policy: HFPolicy) -> None:
    free = tiny_policy.generate(["theorem"], max_tokens=30, temperature=0, stop=None)[0][0]
    assert len(free.text) > 2
    stop = free.text[1:3]
    stopped = tiny_policy.generate(["theorem"], max_tokens=30, temperature=0, stop=[stop])[0][0]
    assert stopped.finish_reason == "stop" and stop in stopped.text
    assert len(stopped.token_ids) <= len(free.token_ids)


def test_sampling_config_explains_bad_values() -> None:
    with pytest.raises(ValueError, match="top_p"):
        SamplingConfig(top_p=0)
    with pytest.raises(ValueError, match="temperature"):
        SamplingConfig(temperature=-1)


def test_a_serving_slot_is_followed_and_a_promotion_reloads(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = tmp_path / "ckpt-1"
    second = tmp_path / "ckpt-2"
    shutil.copytree(tiny_model_dir, first)
    shutil.copytree(tiny_model_dir, second)
    slot = tmp_path / "SERVING"
    slot.write_text("ckpt-1\n")  # relative to the slot file
    monkeypatch.setenv("LEANCOACH_SERVING_CHECKPOINT", str(slot))
    policy = HFPolicy.load(None)
    assert policy.name == str(first.resolve())
    assert policy.reload_if_changed() is False
    slot.write_text(json.dumps({"path": str(second)}))  # promotion flips the slot
    assert policy.reload_if_changed() is True
    assert policy.name == str(second.resolve())
    assert resolve_model_source(tmp_path).directory == str(second.resolve())  # dir with SERVING


def test_missing_models_say_what_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ModelNotFound, match="no model at"):
        resolve_model_source(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelNotFound, match="neither a model directory"):
        resolve_model_source(tmp_path / "empty")
    with pytest.raises(ModelNotFound, match="LEANCOACH_SERVING_CHECKPOINT"):
        resolve_model_source(None)


def test_the_vllm_backend_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tiny_model_dir: Path
) -> None:
    from tutor.prover.policy.vllm import VLLMPolicy, VLLMUnavailable

    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm -> ImportError
    with pytest.raises(VLLMUnavailable, match=r"pip install -e '\.\[gpu\]'"):
        VLLMPolicy.load(tiny_model_dir)


def test_the_vllm_backend_converts_engine_outputs(
    monkeypatch: pytest.MonkeyPatch, tiny_model_dir: Path
) -> None:
    """Against a stand-in for vllm's offline API (LLM, SamplingParams, outputs with
    per-step {token_id: Logprob} dicts): the calls we make and what we read back."""
    calls: dict[str, Any] = {}

    class Logprob:
        def __init__(self, logprob: float) -> None:
            self.logprob = logprob

    class LLM:
        def __init__(self, **kwargs: Any) -> None:
            calls["engine"] = kwargs

        def generate(
            self, prompts: list[dict[str, Any]], sampling_params: Any, use_tqdm: bool
        ) -> Any:
            calls["prompts"] = prompts
            calls["params"] = sampling_params
            assert len(sampling_params) == len(prompts)  # one per prompt, as vLLM allows
            eos = 2
            outputs = [
                types.SimpleNamespace(
                    token_ids=[5, 6, eos],
                    logprobs=[
                        {5: Logprob(-0.1), 9: Logprob(-3.0)},
                        {6: Logprob(-0.2)},
                        {eos: Logprob(-0.3)},
                    ],
                    finish_reason="stop",
                )
                for _ in range(sampling_params[0].n)
            ]
            return [types.SimpleNamespace(outputs=outputs) for _ in prompts]

    fake = types.ModuleType("vllm")
    fake.LLM = LLM  # type: ignore[attr-defined]
    fake.SamplingParams = lambda **kw: types.SimpleNamespace(**kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fake)
    from tutor.prover.policy.vllm import VLLMPolicy

    policy = VLLMPolicy.load(tiny_model_dir)
    assert calls["engine"]["logprobs_mode"] == "processed_logprobs"
    [[a, b]] = policy.generate([CHAT], n=2, max_tokens=8)
    assert calls["prompts"][0]["prompt_token_ids"] == policy.prompt_to_ids(CHAT)
    assert (
        a.token_ids == [5, 6, 2] and a.logprobs == [-0.1, -0.2, -0.3] and a.finish_reason == "stop"
    )
    assert a.text == policy.decode([5, 6])  # the end token is not part of the text
    # A group sends one prompt several times: each request gets its own seed, or vLLM would
    # return the same sample for all of them.
    policy.generate([CHAT, CHAT, CHAT], n=1, max_tokens=8, seed=7)
    assert [p.seed for p in calls["params"]] == [7, 8, 9]


def test_the_training_registrys_serving_json_is_understood(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    """training/checkpoints.py writes <root>/serving.json with a path relative to root."""
    step = tmp_path / "runs" / "fd" / "step-000040"
    shutil.copytree(tiny_model_dir, step)
    state: dict[str, Any] = {
        "path": "runs/fd/step-000040",
        "previous": None,
        "version": 1,
        "history": [],
    }
    (tmp_path / "serving.json").write_text(json.dumps(state, indent=2, sort_keys=True))
    source = resolve_model_source(tmp_path)  # LEANCOACH_SERVING_CHECKPOINT=<registry root>
    assert source.directory == str(step.resolve()) and source.from_slot
