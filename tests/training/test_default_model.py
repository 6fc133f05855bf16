"""The CPU default prover's SFT (training/default_model.py): example format, caching and a
short run on the tiny model; one slow test on the real SmolLM2 GGUF."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from training.default_model import (
    CLOSING_TEXT,
    PREPARED_FILE,
    DefaultModelConfig,
    build_examples,
    example_loss,
    format_example,
    is_prepared,
    load_model,
    load_tokenizer,
    prefix_cache,
    prepare_default_prover,
    proof_file,
    read_prepared,
    shared_prefix_length,
    starter_problems,
    valid_check_report,
)
from tutor.prover.agent import AgentConfig, rollout
from tutor.prover.policy import ModelNotFound, load_policy, resolve_model_source
from tutor.prover.policy.base import ChatPolicyBase, Completion, SamplingConfig
from tutor.prover.problem import Problem
from tutor.prover.tools import ToolOutcome, parse_tool_calls

REPO = Path(__file__).resolve().parents[2]

PROBLEMS = [
    Problem(
        "t_id", "theorem t_id (p : Prop) : p → p := by", reference_proof="  intro hp\n  exact hp"
    ),
    Problem("t_add", "theorem t_add (n : Nat) : n + 0 = n := by", reference_proof="simp"),
    Problem(
        "t_and",
        "theorem t_and (p q : Prop) (h : p ∧ q) : q ∧ p := by",
        informal="Swap a conjunction.",
        reference_proof="exact ⟨h.2, h.1⟩",
    ),
    Problem("t_two", "theorem t_two : 2 + 2 = 4 := by", reference_proof="rfl"),
    Problem("t_none", "theorem t_none : True := by"),  # no reference proof: skipped
]


def tiny_config(tiny_model_dir: Path, **overrides: Any) -> DefaultModelConfig:
    fields: dict[str, Any] = {
        "base_model": str(tiny_model_dir),
        "epochs": 6,
        "batch_size": 2,
        "learning_rate": 3e-3,
        "warmup_steps": 1,
        "trainable_layers": None,
        "threads": 1,
        "max_length": 4096,  # the tiny tokenizer spends many tokens on the tool schemas
    }
    fields.update(overrides)
    return DefaultModelConfig(**fields)


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir: Path) -> Any:
    return load_tokenizer(resolve_model_source(str(tiny_model_dir)))


def spans(example: Any) -> list[tuple[int, list[int]]]:
    """Runs of equal mask values: [(flag, token ids), ...]."""
    out: list[tuple[int, list[int]]] = []
    for token, flag in zip(example.token_ids, example.mask, strict=True):
        if out and out[-1][0] == flag:
            out[-1][1].append(token)
        else:
            out.append((flag, [token]))
    return out


def test_loss_mask_covers_exactly_the_two_assistant_turns(tokenizer: Any) -> None:
    problem = PROBLEMS[0]
    example = format_example(problem, tokenizer)
    example.check_alignment()
    runs = spans(example)
    assert [flag for flag, _ in runs] == [0, 1, 0, 1]
    prompt, call, tool_turn, closing = (tokenizer.decode(ids) for _, ids in runs)
    assert len(runs[0][1]) == example.prompt_length
    assert prompt.endswith("<|im_start|>assistant\n")
    assert call.endswith("</tool_call><|im_end|>")
    assert closing == CLOSING_TEXT + "<|im_end|>"
    # The tool's answer and the role headers around it are context, never targets.
    assert valid_check_report(proof_file(problem)) in tool_turn
    assert "<tool_response>" in tool_turn and tool_turn.endswith("<|im_start|>assistant\n")


def test_the_trained_call_parses_as_a_write_of_the_reference_proof(tokenizer: Any) -> None:
    problem = PROBLEMS[2]
    example = format_example(problem, tokenizer)
    call_ids = spans(example)[1][1]
    [call] = parse_tool_calls(tokenizer.decode(call_ids[:-1]))
    assert call.error is None and call.name == "lean_write_file"
    assert call.arguments["file_name"] == "proof.lean"
    code = call.arguments["code"]
    # The posed statement unchanged, then the dedented reference proof indented once.
    assert code == problem.statement + "\n  exact ⟨h.2, h.1⟩\n"
    assert proof_file(PROBLEMS[0]).endswith(":= by\n  intro hp\n  exact hp\n")


class _ReplayPolicy(ChatPolicyBase):
    """Answers each agent turn with the next assistant span of an SFT example."""

    def __init__(self, tokenizer: Any, turns: list[list[int]]) -> None:
        self._tokenizer = tokenizer
        self.turns = list(turns)
        self.name = "replay"

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]:
        ids = self.turns.pop(0)
        text = self.decode(ids[:-1])
        return [[Completion(text, list(ids), [-0.5] * len(ids), "stop")] for _ in prompt_ids]


class _AnsweringTools:
    """Answers lean_write_file with a fixed report (no verdict, so the attempt goes on)."""

    def __init__(self, report: str) -> None:
        self.report = report
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        self.calls.append((name, arguments))
        return ToolOutcome(text=self.report)

    def close(self) -> None:
        pass


def test_examples_are_token_for_token_what_the_agent_rollout_records(tokenizer: Any) -> None:
    problem = PROBLEMS[2]
    example = format_example(problem, tokenizer)
    assistant_turns = [ids for flag, ids in spans(example) if flag]
    tools = _AnsweringTools(valid_check_report(proof_file(problem)))
    [trajectory] = rollout(
        _ReplayPolicy(tokenizer, assistant_turns),
        [problem],
        config=AgentConfig(max_turns=4),
        tools_factory=lambda _problem, _index: tools,
    )
    assert tools.calls == [
        ("lean_write_file", {"code": proof_file(problem), "file_name": "proof.lean"})
    ]
    assert trajectory.token_ids == example.token_ids
    assert trajectory.mask == example.mask
    assert trajectory.prompt_length == example.prompt_length
    assert trajectory.prompt_messages == example.prompt_messages


def test_examples_skip_problems_without_proofs_and_drop_overlong_ones(tokenizer: Any) -> None:
    examples, dropped = build_examples(PROBLEMS, tokenizer, max_length=4096)
    assert [e.problem_id for e in examples] == ["t_id", "t_add", "t_and", "t_two"]
    assert dropped == []
    shortest = min(len(e.token_ids) for e in examples)
    examples, dropped = build_examples(PROBLEMS, tokenizer, max_length=shortest)
    assert len(examples) == 1 and len(dropped) == 3


def test_the_shared_prompt_prefix_does_not_change_the_loss(tiny_model_dir: Path) -> None:
    import torch

    source = resolve_model_source(str(tiny_model_dir))
    tokenizer, model = load_tokenizer(source), load_model(source)
    examples, _ = build_examples(PROBLEMS, tokenizer, 4096)
    shared = shared_prefix_length(examples)
    assert 10 < shared < min(e.prompt_length for e in examples)
    prefix = prefix_cache(model, examples[0].token_ids[:shared])
    with torch.no_grad():
        for example in examples:
            full, n_full = example_loss(model, example)
            cached, n_cached = example_loss(model, example, prefix)
            assert n_full == n_cached == sum(example.mask)
            assert float(cached) == pytest.approx(float(full), rel=1e-4)


def test_sft_lowers_the_loss_and_saves_a_folder_the_prover_loads(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    progress: list[tuple[int, int, float]] = []
    out = prepare_default_prover(
        PROBLEMS,
        tmp_path / "prover",
        config=tiny_config(tiny_model_dir),
        on_progress=lambda *args: progress.append(args),
    )
    assert out == tmp_path / "prover"
    info = read_prepared(out)
    assert info is not None
    assert info.examples == 4 and info.steps == 12 == len(progress)
    assert [p[0] for p in progress] == list(range(1, 13)) and {p[1] for p in progress} == {12}
    losses = info.losses
    assert sum(losses[-2:]) / 2 < 0.5 * sum(losses[:2]) / 2, losses
    assert list(out.glob("*.safetensors")) and not list(tmp_path.glob(".prover*"))
    policy = load_policy(str(out), device="cpu")
    [[completion]] = policy.generate(["theorem"], max_tokens=4, temperature=0)
    assert 0 < len(completion.token_ids) <= 4


def test_a_second_call_reuses_the_cached_model(tiny_model_dir: Path, tmp_path: Path) -> None:
    config = tiny_config(tiny_model_dir, epochs=1)
    out = tmp_path / "prover"
    assert not is_prepared(PROBLEMS, out, config)
    prepare_default_prover(PROBLEMS, out, config=config)
    weights = {p: p.stat().st_mtime_ns for p in out.glob("*.safetensors")}
    assert is_prepared(PROBLEMS, out, config)

    steps: list[int] = []
    prepare_default_prover(
        PROBLEMS, out, config=config, on_progress=lambda s, _t, _loss: steps.append(s)
    )
    assert steps == []
    assert {p: p.stat().st_mtime_ns for p in out.glob("*.safetensors")} == weights

    # Other data or another config means another model; force retrains regardless.
    assert not is_prepared(PROBLEMS[:2], out, config)
    assert not is_prepared(PROBLEMS, out, tiny_config(tiny_model_dir, epochs=2))
    assert is_prepared(PROBLEMS, out, tiny_config(tiny_model_dir, epochs=1, threads=2))
    prepare_default_prover(
        PROBLEMS, out, config=config, force=True, on_progress=lambda s, _t, _loss: steps.append(s)
    )
    assert steps == [1, 2]


def test_a_damaged_cache_is_not_trusted(tiny_model_dir: Path, tmp_path: Path) -> None:
    config = tiny_config(tiny_model_dir, epochs=1)
    out = prepare_default_prover(PROBLEMS, tmp_path / "prover", config=config)
    (out / PREPARED_FILE).write_text("{not json", encoding="utf-8")
    assert read_prepared(out) is None and not is_prepared(PROBLEMS, out, config)
    meta = {"base_model": "x", "data_hash": "y", "config_hash": "z"}
    (out / PREPARED_FILE).write_text(json.dumps(meta), encoding="utf-8")
    assert not is_prepared(PROBLEMS, out, config)


def test_bad_inputs_say_how_to_fix_them(tiny_model_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no problem has a reference proof"):
        prepare_default_prover(PROBLEMS[4:], tmp_path / "x", config=tiny_config(tiny_model_dir))
    with pytest.raises(ValueError, match="raise it"):
        prepare_default_prover(
            PROBLEMS, tmp_path / "x", config=tiny_config(tiny_model_dir, max_length=64)
        )
    with pytest.raises(ModelNotFound):
        prepare_default_prover(PROBLEMS, tmp_path / "x", config=tiny_config(tmp_path / "no-model"))
    with pytest.raises(ValueError, match="trainable_layers"):
        DefaultModelConfig(trainable_layers=0)
    with pytest.raises(ValueError, match="learning_rate"):
        DefaultModelConfig(learning_rate=3.0)


def test_the_starter_course_loads_without_django_or_the_webapp() -> None:
    script = (
        "import sys\n"
        "from training.default_model import starter_problems\n"
        "problems = starter_problems()\n"
        "assert not any(m == 'django' or m.startswith(('django.', 'webapp')) for m in sys.modules)\n"
        "print(len(problems), sum(bool(p.reference_proof) for p in problems))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    total, with_proofs = map(int, done.stdout.split())
    assert total >= 40 and with_proofs == total
    problems = starter_problems()
    assert all(p.statement.rstrip().endswith(":= by") for p in problems)


@pytest.mark.slow
def test_two_steps_on_the_real_smollm2(tmp_path: Path) -> None:
    """The GGUF dequantises, trains, saves as safetensors and loads back (~60 s)."""
    try:
        resolve_model_source("smollm2")
    except ModelNotFound as exc:
        pytest.skip(str(exc))
    config = DefaultModelConfig(max_examples=2, epochs=1, batch_size=1, threads=2)
    out = prepare_default_prover(starter_problems(), tmp_path / "smollm2-sft", config=config)
    info = read_prepared(out)
    assert info is not None and info.steps == 2
    assert all(0 < loss < 10 for loss in info.losses)
    saved = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert saved["num_hidden_layers"] == 30 and "quantization_config" not in saved
    policy = load_policy(str(out), device="cpu")
    ids = policy.tokenizer.encode("<|im_end|>", add_special_tokens=False)
    assert len(ids) == 1 and policy.tokenizer.decode(ids) == "<|im_end|>"


def test_the_default_serves_only_when_nothing_else_does(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    from training.checkpoints import CheckpointRegistry
    from training.default_model import serve_if_unserved

    out = prepare_default_prover(
        PROBLEMS, tmp_path / "prover", config=tiny_config(tiny_model_dir, epochs=1)
    )
    root = tmp_path / "registry"
    first = serve_if_unserved(out, root)
    assert first.ok and first.serving is not None
    registry = CheckpointRegistry(root)
    served = registry.serving_path()
    assert served is not None and (served / "model.safetensors").is_file()
    # The prover follows the registry root as its serving slot.
    assert resolve_model_source(str(root)).directory == str(served.resolve())
    again = serve_if_unserved(out, root)
    assert not again.ok and "already serves" in again.reason
    assert len(registry.list("default-smollm2-sft")) == 1
    assert not serve_if_unserved(tmp_path / "nothing", root).ok
