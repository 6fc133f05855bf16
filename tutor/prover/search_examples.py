"""Training examples from search: a found proof's path as tactic-level SFT examples, and
the tree's dead ends as Feedback Distillation examples.

A search trajectory (mode "search") has no token stream of its own: its proof was found a
tactic at a time. Each step of the found path becomes one example in the Trajectory format
the trainers read (token_ids, mask, logprobs): the prompt the search asks the policy for a
tactic with (search.propose_tactics: the same system text and "Proof state" layout, through
the tokenizer's chat template when it has one), then the tactic as the answer (mask 1),
closed by the end token. Only verified proofs (verdict valid) give examples.

Dead ends (`failed_branch_examples`): every tactic Lean rejected during the search, found or
not, with the path that led to it. Each becomes one FD example: the prompt asks for a tactic
proof of the statement (PROOF_PROMPT), the response is the partial proof up to and including
the rejected tactic, and the example carries what the coach reads in an agent rollout:
`final_proof` (the Lean file of that partial proof) and `check` (Lean's message, placed at
the rejected tactic's line). training.rollouts.attach_feedback then asks the configured coach
exactly as it does for rollouts, and training.fd trains on them unchanged. A branch that
ended without a proof and without a Lean error (an open leaf when the budget ran out) has no
message for the coach to read and gives no example.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tutor.lean.messages import classify
from tutor.lean.types import CheckResult, Diagnostic
from tutor.prover.problem import Problem
from tutor.prover.search import TACTIC_PROMPT
from tutor.prover.trajectory import Trajectory, Verdict

PROOF_PROMPT = (
    "You are a Lean 4 expert. Write a tactic proof of the theorem below: the tactics after "
    "`:= by`, one per line, and nothing else."
)


@dataclass(frozen=True)
class FailedBranchConfig:
    """How many FD examples one search tree gives."""

    # A tree holds dozens of rejected tactics, mostly the portfolio failing the same way on
    # sibling states; a few per tree keep one hard problem from filling the FD batch.
    max_per_tree: int = 4

    def __post_init__(self) -> None:
        if self.max_per_tree < 0:
            raise ValueError("max_per_tree must be >= 0 (0 turns failed-branch examples off)")


def tactic_prompt(goals: list[str], tokenizer: Any) -> str:
    state = "\n\n".join(goals) if goals else "no goals"
    if getattr(tokenizer, "chat_template", None):
        messages = [
            {"role": "system", "content": TACTIC_PROMPT},
            {"role": "user", "content": f"Proof state:\n{state}\n\nNext tactic:"},
        ]
        return str(
            tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        )
    return f"{TACTIC_PROMPT}\n\nProof state:\n{state}\n\nNext tactic:"


def tactic_examples(trajectory: Trajectory, tokenizer: Any, max_length: int) -> list[Trajectory]:
    """One SFT example per step of a verified search proof (none otherwise)."""
    steps = (trajectory.search or {}).get("steps") or []
    if trajectory.mode != "search" or trajectory.verdict is not Verdict.VALID:
        return []
    out = []
    for number, step in enumerate(steps):
        prompt = tokenizer.encode(tactic_prompt(step["goals"], tokenizer), add_special_tokens=False)
        answer = tokenizer.encode(str(step["tactic"]), add_special_tokens=False)
        answer.append(int(tokenizer.eos_token_id))
        ids = [*prompt, *answer]
        if len(ids) > max_length:
            continue  # a cut example would teach half a prompt
        out.append(
            Trajectory(
                problem_id=f"{trajectory.problem_id}#step{number}",
                statement=trajectory.statement,
                mode="search_step",
                prompt_messages=[],
                tools=[],
                token_ids=ids,
                mask=[0] * len(prompt) + [1] * len(answer),
                logprobs=[0.0] * len(ids),
                prompt_length=len(prompt),
                verdict=Verdict.VALID,
                reward=1.0,
                model=trajectory.model,
                sampling=_derived_sampling(trajectory, f"step{number}"),
                search={"from": "search", "step": number, "tactic": step["tactic"]},
            )
        )
    return out


def dead_ends(trajectory: Trajectory) -> list[dict[str, Any]]:
    """The search's rejected tactics with Lean's message and their path, first tried first,
    each (path, tactic) once (several MCTS workers may try the same one)."""
    if trajectory.mode != "search":
        return []
    seen: set[tuple[str, ...]] = set()
    out = []
    for record in (trajectory.search or {}).get("expansions") or []:
        if record.get("status") != "error" or not record.get("error") or "path" not in record:
            continue  # records made before paths were kept cannot be rebuilt
        key = (*record["path"], record["tactic"])
        if key not in seen:
            seen.add(key)
            out.append(record)
    return out


def proof_prompt_messages(problem: Problem) -> list[dict[str, Any]]:
    user = f"Prove the following theorem in Lean 4.\n\n```lean\n{problem.statement_head} := by\n```"
    return [{"role": "system", "content": PROOF_PROMPT}, {"role": "user", "content": user}]


def dead_end_check(problem: Problem, record: dict[str, Any]) -> tuple[str, CheckResult]:
    """The partial proof's Lean file and Lean's message on it, at the rejected tactic's line
    (the tactic is the file's last line, indented by two spaces: Problem.with_proof)."""
    code = problem.with_proof("\n".join([*record["path"], record["tactic"]]))
    line = len(code.rstrip("\n").splitlines())
    message = str(record["error"])
    goal = "\n\n".join(record.get("goals") or []) or None
    diagnostic = Diagnostic(line, 2, line, 2 + len(record["tactic"]), "error", message,
                            classify(message), goal)  # fmt: skip
    return code, CheckResult(valid=False, diagnostics=[diagnostic])


def failed_branch_examples(
    trajectory: Trajectory,
    tokenizer: Any,
    max_length: int,
    config: FailedBranchConfig | None = None,
) -> list[Trajectory]:
    """Up to config.max_per_tree FD examples from a search's dead ends (any verdict).

    The tokenizer needs a chat template: the FD teacher renders the prompt with the feedback
    through it (training.batches.teacher_batch), so the student's prompt is rendered the same
    way. No feedback is attached here: training.rollouts.attach_feedback asks the coach."""
    config = config or FailedBranchConfig()
    if not getattr(tokenizer, "chat_template", None):
        return []
    # The statement recorded is header + statement: as the problem's statement it renders
    # the same file.
    problem = Problem(trajectory.problem_id, trajectory.statement)
    messages = proof_prompt_messages(problem)
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    prompt = list(tokenizer.encode(str(text), add_special_tokens=False))
    out: list[Trajectory] = []
    for record in dead_ends(trajectory):
        if len(out) >= config.max_per_tree:
            break
        code, check = dead_end_check(problem, record)
        script = "\n".join([*record["path"], record["tactic"]])
        answer = [*tokenizer.encode(script, add_special_tokens=False), int(tokenizer.eos_token_id)]
        ids = [*prompt, *answer]
        if len(ids) > max_length:
            continue  # a cut example would teach half a proof
        out.append(
            Trajectory(
                problem_id=trajectory.problem_id,
                statement=trajectory.statement,
                mode="search_dead_end",
                prompt_messages=[dict(m) for m in messages],
                tools=[],
                token_ids=ids,
                mask=[0] * len(prompt) + [1] * len(answer),
                logprobs=[0.0] * len(ids),
                prompt_length=len(prompt),
                verdict=Verdict.INVALID,
                final_proof=code,
                check=check.to_dict(),
                reward=0.0,
                model=trajectory.model,
                sampling=_derived_sampling(trajectory, f"dead{len(out)}"),
                search={
                    "from": "search",
                    "path": list(record["path"]),
                    "tactic": record["tactic"],
                    "error": record["error"],
                },  # fmt: skip
            )
        )
    return out


def _derived_sampling(trajectory: Trajectory, suffix: str) -> dict[str, Any]:
    """Snapshot id of an example made from a snapshot trajectory (lineage counts it)."""
    source = trajectory.sampling.get("snapshot_id")
    if source is None:
        return {}
    return {"snapshot_id": f"{source}#{suffix}", "search_source": str(source)}
