"""Continual distillation from a web-app snapshot: classroom data in the loss, a held-out
gate against the serving checkpoint, lineage in the run folder; both gate branches."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer

from tests.training.conftest import PROBLEMS, ScriptedPolicy
from training.batches import response_logits, response_targets, student_batch, token_logprobs
from training.checkpoints import CheckpointRegistry
from training.classroom import attempt_example, group_curated, held_out_ids
from training.config import tiny_cpu_config
from training.continual import continual_distill, read_snapshot
from tutor.coach.fixed import FixedCoach
from tutor.prover.agent import AgentConfig
from tutor.prover.agent import rollout as agent_rollout
from tutor.prover.problem import Problem

COURSE = "c"
EXTRA = {
    "name": "zero_add_t",
    "formal_statement": "theorem zero_add_t (n : Nat) : 0 + n = n := by",
    "header": "",
    "reference_proof": "simp",
}
# Enough problems that the gate has 5 of its own (the fewest the exact test can judge at
# alpha 0.05): 20 in one course, half held out, half of those for the gate.
GENERATED = [
    {
        "name": f"comm_{k}",
        "formal_statement": f"theorem comm_{k} (n : Nat) : n + {k} = {k} + n := by",
        "header": "",
        "reference_proof": "omega",
    }
    for k in range(10, 26)
]
ALL = [*PROBLEMS, EXTRA, *GENERATED]


def _problem(record: dict[str, Any]) -> Problem:
    return Problem(
        id=f"{COURSE}/{record['name']}",
        statement=record["formal_statement"],
        reference_proof=record["reference_proof"],
    )


def _feedback_record(pk: int, attempt: str, status: str, line: int, text: str) -> dict[str, Any]:
    """A feedback record exactly as webapp.attempts.export writes it (trajectory_id null)."""
    return {
        "kind": "feedback",
        "id": f"curated-{pk}",
        "status": status,
        "attempt_id": attempt,
        "trajectory_id": None,
        "problem_id": "x",
        "line": line,
        "feedback": {
            "suggestions": [{"line": line, "text": text, "kind": "do"}],
            "source": "compiler",
        },
    }


def _snapshot(tmp_path: Path, seed: int = 0) -> tuple[Path, list[str]]:
    """Problems of one course; on two training problems a verified solution and an attempt
    with two curated suggestions (edited + approved) and one rejected."""
    problems = [_problem(r) for r in ALL]
    held = held_out_ids(problems, 0.5, seed)
    train = [p for p in problems if p.id not in held]
    solved, reviewed = train[0], train[1]
    records: list[dict[str, Any]] = [
        {"kind": "meta", "version": 1, "exported_at": "2026-12-01T00:00:00Z"},
        *({"kind": "problem", "problem": p.to_dict()} for p in problems),
        {
            "kind": "attempt",
            "id": "attempt-1",
            "problem_id": solved.id,
            "student": "student-7",
            "code": solved.statement + "\n" + (solved.reference_proof or ""),
            "proof": solved.reference_proof,
            "valid": True,
            "diagnostics": [],
        },
        {
            "kind": "attempt",
            "id": "attempt-2",
            "problem_id": reviewed.id,
            "student": "student-8",
            "code": reviewed.statement + "\n  omega",
            "proof": "omega",
            "valid": False,
            "diagnostics": [
                {"line": 2, "severity": "error", "kind": "tactic_failed", "message": "omega failed"}
            ],
        },
        _feedback_record(11, "attempt-2", "edited", 2, "Use exact with the reference lemma."),
        _feedback_record(12, "attempt-2", "approved", 2, "Don't call omega on Props."),
        _feedback_record(13, "attempt-2", "rejected", 2, "Try ring."),
    ]
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path, sorted(held)


def test_export_shaped_feedback_is_grouped_per_attempt_and_self_contained(tmp_path: Path):
    path, _ = _snapshot(tmp_path)
    snap = read_snapshot(path)
    feedback = snap.approved_feedback["attempt-2"]
    texts = [s["text"] for s in feedback["suggestions"]]
    assert feedback["source"] == "curated" and len(texts) == 2  # the rejected one is out
    assert texts[0] == "At `omega`: Use exact with the reference lemma."  # edited first
    assert all(s["line"] is None for s in feedback["suggestions"])  # no "Line N"
    records = [_feedback_record(i, "a", "approved", 1, f"t{i}") for i in range(5)]
    grouped, used = group_curated(records, "theorem t : True := by")
    assert grouped is not None and len(grouped["suggestions"]) == 3 and len(used) == 3


def test_held_out_split_is_per_course_and_deterministic():
    problems = [
        Problem(id=f"{c}/p{i}", statement="theorem t : True := by") for c in "ab" for i in range(10)
    ]
    first = held_out_ids(problems, 0.2)
    assert first == held_out_ids(list(reversed(problems)), 0.2)
    assert (
        sum(p.startswith("a/") for p in first) == 2 and sum(p.startswith("b/") for p in first) == 2
    )
    # A new problem moves at most itself into the split.
    grown = held_out_ids([*problems, Problem(id="a/new", statement="theorem t : True := by")], 0.2)
    assert len(first - grown) <= 1
    assert held_out_ids([Problem(id="solo/p", statement="theorem t : True := by")], 0.5) == set()


def _config(tiny_model_dir: Path, tmp_path: Path, name: str) -> Any:
    config = tiny_cpu_config(str(tiny_model_dir), "", name=name)
    config.run.output_dir = str(tmp_path / "runs")
    config.checkpoints.registry = str(tmp_path / "registry")
    config.training.reinforce.total_steps = 2
    config.evaluation.n_samples, config.evaluation.ks = 2, [1, 2]
    config.evaluation.max_problems = 0
    config.classroom.eval_fraction = 0.5
    config.classroom.human_token_share = 1.0
    return config


def _mean_logprob(model: Any, tok: Any, problem: Problem) -> float:
    """How sure the model is of writing the reference proof (agent call format)."""
    example = attempt_example(problem, problem.reference_proof or "", tok)
    pad = tok.pad_token_id or 0
    with torch.no_grad():
        batch = student_batch([example], pad, "cpu")
        targets = response_targets([example], "cpu")
        logits = response_logits(model, batch, targets.mask.shape[1])
        lp = token_logprobs(logits, targets.token_ids)
    return float((lp * targets.mask).sum() / targets.mask.sum())


class KnownProofsPolicy(ScriptedPolicy):
    """ScriptedPolicy over ALL (the shared PROBLEMS plus this module's extra one)."""

    def generate_ids(self, prompt_ids: Any, sampling: Any) -> list[Any]:
        from tutor.prover.policy.base import Completion

        end = self._tokenizer.convert_tokens_to_ids("<|im_end|>")
        out = []
        for ids in prompt_ids:
            prompt = self.decode(list(ids))
            proof = next(
                (
                    p["reference_proof"]
                    for p in ALL
                    if p["name"] in self.good and p["formal_statement"] in prompt
                ),
                "sorry",
            )
            text = f"```lean\n{proof}\n```"
            tokens = [*self.encode(text), end]
            done = Completion(
                text=text, token_ids=tokens, logprobs=[-1.0] * len(tokens), finish_reason="stop"
            )
            out.append([done for _ in range(sampling.n)])
        return out


def confident_rollout_factory(fake_checker: Any, tools_factory: Any, thresholds: dict[str, float]):
    """Test double of a policy that learns: for each problem it writes the reference proof
    when the live model is more sure of that proof than `thresholds` (the base model's
    confidence plus a margin), else `sorry`. The agent loop and the checker double are
    the real ones; only the choice of text is scripted, and it follows the weights."""

    def build(model: Any, tok: Any) -> Any:
        scripted = KnownProofsPolicy(tok, good=set())

        def rollout(
            problems: Sequence[Problem], samples: int, temperature: float, *, seed: Any = None
        ) -> list[Any]:
            scripted.good = {
                p.id.split("/")[1]
                for p in problems
                if _mean_logprob(model, tok, p) > thresholds[p.id]
            }
            config = AgentConfig(max_turns=1, max_turn_tokens=64, max_total_tokens=4096)
            return agent_rollout(
                scripted, list(problems), n=samples, config=config,
                checker=fake_checker, tools_factory=tools_factory,
            )  # fmt: skip

        return rollout

    return build


def test_classroom_data_trains_and_the_gate_refuses_without_a_gain(
    tiny_model_dir: Path, tmp_path: Path, rollout_factory: Any
):
    config = _config(tiny_model_dir, tmp_path, "refused")
    snapshot, held = _snapshot(tmp_path)
    records: list[dict[str, Any]] = []
    factory = lambda model, tok: rollout_factory(model, tok, config.model)  # noqa: E731
    result = continual_distill(
        snapshot, config, rollout_factory=factory, coach=FixedCoach(), callback=records.append
    )
    assert result.error is None and result.steps_done == 2
    # The step's loss includes the student's attempt (human tokens, own loss) and solution.
    first = records[0]
    assert first["human_trajectories"] == 1 and first["human_tokens"] > 0
    assert first["human_fd_loss"] > 0 and first["sft_examples"] == 1 and first["sft_loss"] > 0
    # Weights changed.
    assert result.checkpoint is not None
    before = AutoModelForCausalLM.from_pretrained(tiny_model_dir).state_dict()
    after = load_file(str(result.checkpoint / "model.safetensors"))
    assert any(not torch.equal(before[k], after[k]) for k in after if k in before)
    # Lineage: exactly which attempts and reviews, in the run folder.
    assert result.run_dir is not None
    lineage = json.loads((result.run_dir / "lineage.json").read_text())
    assert lineage["attempts"] == ["attempt-1", "attempt-2"]
    assert lineage["reviews"] == ["curated-11", "curated-12"]
    assert lineage["students"] == ["student-7", "student-8"]
    assert lineage["held_out_problems"] == held
    assert not set(held) & set(lineage["train_problems"])
    # The gate: no gain on the held-out problems, nothing serves, the reason is recorded.
    assert not result.promoted and "not above" in result.reason
    assert CheckpointRegistry(config.checkpoints.registry).serving() is None
    gate_file = json.loads((result.run_dir / "gate.json").read_text())
    gate_problems = lineage["gate_problems"]
    assert gate_file["promoted"] is False and gate_file["problems"] == len(gate_problems) == 5
    # Selection and gate problems: disjoint, together the held-out split.
    assert sorted([*lineage["selection_problems"], *gate_problems]) == held
    assert not set(lineage["selection_problems"]) & set(gate_problems)


def test_a_significant_gain_on_held_out_problems_is_promoted(
    tiny_model_dir: Path, tmp_path: Path, fake_checker: Any, tools_factory: Any
):
    config = _config(tiny_model_dir, tmp_path, "promoted")
    config.classroom.sft_per_step = 1
    config.training.reinforce.total_steps = 3
    snapshot, held = _snapshot(tmp_path)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    problems = {p.id: p for p in read_snapshot(snapshot).problems}
    thresholds = {pid: _mean_logprob(model, tok, p) + 0.05 for pid, p in problems.items()}
    factory = confident_rollout_factory(fake_checker, tools_factory, thresholds)
    result = continual_distill(snapshot, config, rollout_factory=factory, coach=FixedCoach())
    assert result.error is None
    assert result.baseline["pass@1"] == 0.0 and result.candidate["pass@1"] == 1.0
    assert result.promoted, result.reason
    assert result.gate["p_value"] < config.classroom.gate_alpha
    registry = CheckpointRegistry(config.checkpoints.registry)
    assert result.checkpoint is not None
    assert registry.serving_path() == result.checkpoint.resolve()
    # Rollback stays one call: nothing previous here, so it says so.
    assert not registry.rollback("test").ok


def test_nothing_serving_changes_when_the_snapshot_is_empty(tmp_path: Path, tiny_model_dir: Path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"kind": "meta", "version": 1}) + "\n")
    result = continual_distill(path, _config(tiny_model_dir, tmp_path, "empty"))
    assert not result.promoted and "no problems" in result.reason
    path.write_text(json.dumps({"kind": "mystery"}) + "\n")
    with pytest.raises(ValueError, match="unknown record kind"):
        read_snapshot(path)


def _search_record(tmp_path: Path, problem_id: str) -> dict[str, Any]:
    """A real MCTS tree on the REPL double (the deceptive table of the prover tests: a found
    proof `intro; omega` and a dead end where Lean rejects `step`), as the export writes a
    prover trajectory. It is filed under a training problem of this snapshot's course."""
    import sys

    from tests.training.conftest import FAKE_REPL
    from tests.tutor.prover.doubles import ScriptedTacticPolicy
    from tests.tutor.prover.test_mcts import PROBLEM, SCRIPT, mcts_config
    from tests.tutor.prover.test_search_examples import DEAD_END_TABLE
    from tutor.lean import LeanChecker
    from tutor.prover.lean_adapter import lean_tactic_backend
    from tutor.prover.search import search

    table = tmp_path / "tactics.json"
    table.write_text(json.dumps(DEAD_END_TABLE, ensure_ascii=False))
    checker = LeanChecker(
        repl_command=["env", f"FAKE_REPL_TACTICS={table}", sys.executable, str(FAKE_REPL)],
        timeout_s=10.0, memory_mb=512, max_processes=1, sandbox=False,
    )  # fmt: skip
    try:
        [trajectory] = search(ScriptedTacticPolicy(SCRIPT), [PROBLEM], config=mcts_config(),
                              checker=checker, backend_factory=lean_tactic_backend(checker))  # fmt: skip
    finally:
        checker.close()
    trajectory.problem_id = problem_id
    return {"kind": "trajectory", "id": "trajectory-5", "trajectory": trajectory.to_dict()}


def test_search_examples_train_and_the_lineage_counts_them(
    tiny_model_dir: Path, tmp_path: Path, rollout_factory: Any
):
    config = _config(tiny_model_dir, tmp_path, "search")
    config.classroom.sft_per_step = 8  # every SFT example enters the first step
    snapshot, held = _snapshot(tmp_path)
    train = next(p.id for p in read_snapshot(snapshot).problems if p.id not in held)
    with snapshot.open("a") as handle:
        handle.write(json.dumps(_search_record(tmp_path, train)) + "\n")
    records: list[dict[str, Any]] = []
    factory = lambda model, tok: rollout_factory(model, tok, config.model)  # noqa: E731
    result = continual_distill(
        snapshot, config, rollout_factory=factory, coach=FixedCoach(), callback=records.append
    )
    assert result.error is None
    # 1 student solution + the found proof's 2 steps in the SFT term; the dead end replayed.
    assert records[0]["sft_examples"] == 3 and records[0]["replayed"] == 1
    assert result.run_dir is not None
    lineage = json.loads((result.run_dir / "lineage.json").read_text())
    assert lineage["counts"]["search_sft_examples"] == 2
    assert lineage["counts"]["search_fd_examples"] == 1
    assert lineage["search"]["trajectories"] == ["trajectory-5"]
    assert "trajectory-5" in lineage["trajectories"] and lineage["counts"]["trajectories"] == 1


def test_each_rank_trains_on_its_own_share_of_the_classroom_pools(
    tiny_model_dir: Path, tmp_path: Path, rollout_factory: Any, monkeypatch: pytest.MonkeyPatch
):
    """Rank 1 of 2 (its view in one process): the pools are split rank::world, so this
    rank trains on its share of them (every rank used to take the whole pools: each
    example world-size times per step)."""
    from training import distributed

    monkeypatch.setattr(distributed, "rank", lambda: 1)
    monkeypatch.setattr(distributed, "world_size", lambda: 2)
    config = _config(tiny_model_dir, tmp_path, "ranked")
    config.classroom.sft_per_step = 8
    config.fd.batch_size = 2  # 1 per rank
    snapshot, held = _snapshot(tmp_path)
    train = next(p.id for p in read_snapshot(snapshot).problems if p.id not in held)
    with snapshot.open("a") as handle:
        handle.write(json.dumps(_search_record(tmp_path, train)) + "\n")
    factory = lambda model, tok: rollout_factory(model, tok, config.model)  # noqa: E731
    result = continual_distill(snapshot, config, rollout_factory=factory, coach=FixedCoach())
    assert result.error is None
    # What entered this rank's losses: its share [the found proof's first step] of the SFT
    # pool [solution, step 1, step 2], and no share of the one reviewed attempt.
    assert result.lineage["counts"]["search_sft_examples"] == 1
    assert result.lineage["attempts"] == []
