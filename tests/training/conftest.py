"""Fixtures for the training tests: the tiny Qwen3 model, a LeanChecker on the REPL
protocol double (tests/fakes/fake_repl.py, a real subprocess), the prover's rollout on the
live tiny model, and a scripted policy that writes known proofs through the same agent loop
(so GRPO groups hold both verified and failed attempts, judged by the checker double)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.support.fixtures import tiny_model_dir  # noqa: F401  (session fixture)
from training.rollouts import RolloutFn, prover_rollout
from tutor.lean import LeanChecker
from tutor.prover.agent import AgentConfig
from tutor.prover.agent import rollout as agent_rollout
from tutor.prover.lean_adapter import lean_tools_factory
from tutor.prover.policy.base import ChatPolicyBase, Completion, SamplingConfig
from tutor.prover.problem import Problem

FAKE_REPL = Path(__file__).resolve().parents[1] / "fakes" / "fake_repl.py"

# Problems without Mathlib (the checker double does not care, but the loader skips Mathlib
# problems when Mathlib is not installed, which is the case here).
PROBLEMS = [
    {
        "name": "add_zero_t",
        "formal_statement": "theorem add_zero_t (n : Nat) : n + 0 = n := by",
        "header": "",
        "reference_proof": "simp",
    },
    {
        "name": "two_mul_t",
        "formal_statement": "theorem two_mul_t (a : Nat) : 2 * a = a + a := by",
        "header": "",
        "reference_proof": "exact Nat.two_mul a",
    },
    {
        "name": "and_t",
        "formal_statement": "theorem and_t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
        "header": "",
        "reference_proof": "exact ⟨hp, hq⟩",
    },
]


@pytest.fixture(autouse=True)
def _one_thread_and_isolated_lean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    for name in ("LEAN_REPL_CMD", "LEANCOACH_REQUIRE_SANDBOX", "FAKE_REPL_WORDING"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEANCOACH_LEAN_HOME", str(tmp_path / "lean-home"))


@pytest.fixture
def problems_file(tmp_path: Path) -> Path:
    path = tmp_path / "problems.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PROBLEMS), encoding="utf-8")
    return path


@pytest.fixture
def fake_checker() -> Iterator[LeanChecker]:
    checker = LeanChecker(
        repl_command=[sys.executable, str(FAKE_REPL)],
        timeout_s=10.0,
        memory_mb=512,
        max_processes=1,
        sandbox=False,
    )
    yield checker
    checker.close()


@pytest.fixture
def tools_factory(fake_checker: LeanChecker) -> Any:
    """The prover's own tools factory (a LeanWorkspace per attempt) on the checker double."""
    return lean_tools_factory(fake_checker)


class ScriptedPolicy(ChatPolicyBase):
    """Answers every prompt with a fixed fenced Lean block: a known-good proof for the
    problems in `good`, `sorry` otherwise. Test double for the policy only: the agent loop,
    the tool environment and the checker double are the real ones."""

    name = "scripted"

    def __init__(self, tokenizer: Any, good: set[str]) -> None:
        self._tokenizer = tokenizer
        self.good = good
        self.current: Problem | None = None

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]:
        out = []
        for ids in prompt_ids:
            prompt = self.decode(list(ids))
            proof = next(
                (
                    p["reference_proof"]
                    for p in PROBLEMS
                    if p["name"] in self.good and p["formal_statement"] in prompt
                ),
                "sorry",
            )
            text = f"```lean\n{proof}\n```"
            tokens = self.encode(text) + [self._tokenizer.convert_tokens_to_ids("<|im_end|>")]
            out.append(
                [
                    Completion(
                        text=text,
                        token_ids=tokens,
                        logprobs=[-1.0] * len(tokens),
                        finish_reason="stop",
                    )
                    for _ in range(sampling.n)
                ]
            )
        return out


@pytest.fixture
def rollout_factory(fake_checker: LeanChecker, tools_factory: Any) -> Any:
    """(model, tokenizer) -> rollout: per problem, half the group from the live tiny model
    (the prover's rollout) and half from the scripted policy, grouped problem-major."""

    def build(model: Any, tokenizer: Any, model_config: Any) -> RolloutFn:
        live = prover_rollout(
            model,
            tokenizer,
            checker=fake_checker,
            tools_factory=tools_factory,
            model_config=model_config,
        )
        scripted = ScriptedPolicy(tokenizer, good={"add_zero_t", "two_mul_t"})

        def rollout(
            problems: Sequence[Problem], samples: int, temperature: float, *, seed: Any = None
        ) -> list[Any]:
            n_live = max(1, samples // 2)
            out: list[Any] = []
            for i, problem in enumerate(problems):
                out += live([problem], n_live, temperature, seed=None if seed is None else seed + i)
                if samples > n_live:
                    config = AgentConfig(
                        max_turns=1,
                        max_turn_tokens=64,
                        max_total_tokens=4096,
                        temperature=temperature,
                    )
                    out += agent_rollout(
                        scripted,
                        [problem],
                        n=samples - n_live,
                        config=config,
                        checker=fake_checker,
                        tools_factory=tools_factory,
                    )
            return out

        return rollout

    return build
