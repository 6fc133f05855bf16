"""A verified search proof becomes tactic-level SFT examples in the trainers' format, and
the SFT loader reads them from a snapshot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.tutor.prover.doubles import ScriptedTacticPolicy
from tests.tutor.prover.test_mcts import PROBLEM, SCRIPT, TABLE, mcts_config
from tutor.prover.lean_adapter import lean_tactic_backend
from tutor.prover.search import search
from tutor.prover.search_examples import tactic_examples
from tutor.prover.trajectory import Verdict


def found(make_checker: Any, **options: Any) -> Any:
    checker = make_checker(tactics=TABLE)
    [trajectory] = search(ScriptedTacticPolicy(SCRIPT), [PROBLEM], config=mcts_config(**options),
                          checker=checker, backend_factory=lean_tactic_backend(checker))  # fmt: skip
    return trajectory


def test_a_found_path_gives_one_example_per_step(make_checker: Any, tiny_model_dir: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    trajectory = found(make_checker)
    assert [s["tactic"] for s in trajectory.search["steps"]] == ["intro", "omega"]
    assert trajectory.search["steps"][1]["goals"] == ["⊢ good 1"]
    examples = tactic_examples(trajectory, tokenizer, max_length=4096)
    assert len(examples) == 2
    for example, tactic in zip(examples, ["intro", "omega"], strict=True):
        example.check_alignment()
        answer = [t for t, m in zip(example.token_ids, example.mask, strict=True) if m]
        assert tokenizer.decode(answer[:-1]) == tactic and answer[-1] == tokenizer.eos_token_id
        assert example.prompt_length == example.mask.index(1)
    assert "⊢ good 1" in tokenizer.decode(examples[1].token_ids[: examples[1].prompt_length])
    assert tactic_examples(trajectory, tokenizer, max_length=10) == []  # too long: left out


def test_best_first_records_its_steps_too_and_failures_give_none(
    make_checker: Any, tiny_model_dir: Path, tmp_path: Path
) -> None:
    from transformers import AutoTokenizer

    from training.sft import snapshot_examples

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    proved = found(make_checker, algorithm="best_first")
    assert [s["tactic"] for s in proved.search["steps"]] == ["intro", "omega"]
    failed = found(make_checker, max_iterations=1)
    assert failed.verdict is Verdict.NO_PROOF and tactic_examples(failed, tokenizer, 4096) == []
    snapshot = tmp_path / "snapshot.jsonl"
    snapshot.write_text("\n".join(json.dumps({"kind": "trajectory", "trajectory": t.to_dict()})
                                  for t in (proved, failed)))  # fmt: skip
    examples = snapshot_examples(str(snapshot), 4096, tokenizer)
    assert [(e.search or {}).get("tactic") for e in examples] == ["intro", "omega"]
    assert snapshot_examples(str(snapshot), 4096) == []  # no tokenizer: no tokens to train on


# The decoy's second step is a tactic Lean rejects with a message (the coach reads it).
OMEGA_MESSAGE = (
    "omega could not prove the goal:\na possible counterexample may satisfy the constraints"
)
DEAD_END_TABLE = [*TABLE, {"goal": "⊢ deceptive 2", "tactic": "step", "error": OMEGA_MESSAGE}]


def dead_end_examples(make_checker: Any, tokenizer: Any, **options: Any) -> list[Any]:
    from tutor.prover.search_examples import FailedBranchConfig, failed_branch_examples

    checker = make_checker(tactics=DEAD_END_TABLE)
    [trajectory] = search(ScriptedTacticPolicy(SCRIPT), [PROBLEM], config=mcts_config(),
                          checker=checker, backend_factory=lean_tactic_backend(checker))  # fmt: skip
    assert trajectory.verdict is Verdict.VALID  # dead ends of a found proof teach too
    return failed_branch_examples(trajectory, tokenizer, 4096, FailedBranchConfig(**options))


def test_a_rejected_tactic_becomes_an_fd_example_with_the_coachs_advice(
    make_checker: Any, tiny_model_dir: Path
) -> None:
    from transformers import AutoTokenizer

    from training.rollouts import attach_feedback
    from tutor.coach import make_coach
    from tutor.coach.types import Feedback
    from tutor.lean.types import Diagnostic

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    [example] = dead_end_examples(make_checker, tokenizer)
    example.check_alignment()
    response = [t for t, m in zip(example.token_ids, example.mask, strict=True) if m]
    # The partial proof: the path to the decoy's second state, then the rejected step.
    assert tokenizer.decode(response[:-1]) == "cases n\nstep\nstep"
    assert example.final_proof == PROBLEM.with_proof("cases n\nstep\nstep")
    [diagnostic] = example.check["diagnostics"]
    step_line = len(example.final_proof.splitlines())  # the last line: the rejected step
    assert (diagnostic["line"], diagnostic["message"]) == (step_line, OMEGA_MESSAGE)
    assert diagnostic["goal"] == "⊢ deceptive 2"

    coach = make_coach("compiler")
    outcome = attach_feedback(coach, [example])
    assert outcome.with_feedback == [example] and not outcome.failures
    expected = coach.advise(PROBLEM.statement, example.final_proof,
                            [Diagnostic.from_dict(diagnostic)])  # fmt: skip
    assert outcome.texts == [expected.as_text()]
    got = Feedback.from_dict(example.feedback)
    assert [s.line for s in got.suggestions] == [s.line for s in expected.suggestions]
    assert step_line in [s.line for s in got.suggestions]  # advice about the rejected step
    assert expected.as_text() != coach.advise(PROBLEM.statement, example.final_proof, []).as_text()
    assert dead_end_examples(make_checker, tokenizer, max_per_tree=0) == []  # the cap


def test_the_fd_trainer_takes_dead_end_examples(
    make_checker: Any, tiny_model_dir: Path, tmp_path: Path
) -> None:
    import torch

    from training.config import tiny_cpu_config
    from training.fd import fd_step
    from training.session import open_session
    from tutor.coach import make_coach

    config = tiny_cpu_config(str(tiny_model_dir), "", name="dead-ends")
    config.run.output_dir = str(tmp_path / "runs")
    config.checkpoints.registry = str(tmp_path / "registry")
    session = open_session(config, "fd", coach=make_coach("compiler"))
    session.replay = dead_end_examples(make_checker, session.tokenizer)
    before = {k: v.detach().clone() for k, v in session.model.state_dict().items()}
    metrics = fd_step(session)  # no problems: the batch is the replayed dead ends alone
    assert metrics["replayed"] == 1 and metrics["coach_calls"] == 1
    assert not metrics.get("skipped") and metrics["fd_loss"] >= 0 and metrics["tokens"] > 0
    after = session.model.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in after)
