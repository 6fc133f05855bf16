"""What a class produced, turned into training data, and the gate a candidate must pass.

Continual distillation (training.continual) reads the web app's snapshot and uses three
kinds of classroom data, each capped by `classroom.*` in the config:
  - verified student solutions (valid by the checker) -> SFT examples in the agent episode
    format (training.default_model.format_example, with the student's proof);
  - student attempts with teacher-approved or edited suggestions -> off-policy FD examples:
    the agent prompt, the student's proof written as the lean_write_file call (the response
    tokens, mask 1), and the curated feedback in the teacher's context only;
  - exercises with curated feedback -> on-policy prompts for the `curated` coach: a fresh
    rollout whose Lean messages match a curated suggestion's kind and line gets that curated
    text as f; any other rollout gets the configured coach's feedback.
All curated suggestions of one attempt become one Feedback of 1-3 self-contained
suggestions (the line is quoted, never "Line N", so the text reads alone).

The held-out split is per course and deterministic (a hash of the problem id), so it never
changes between rounds and no held-out problem is ever trained on. The gate compares the
candidate with the serving checkpoint on that split, same problems and seeds, by a paired
bootstrap over problems of the per-problem pass rate difference.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from training.config import ClassroomConfig
from tutor.coach.types import MAX_SUGGESTIONS, Feedback, Suggestion
from tutor.lean.types import Diagnostic
from tutor.prover.problem import Problem
from tutor.prover.trajectory import Trajectory

APPROVED = ("approved", "edited")
QUOTE_CHARS = 80


# --- curated feedback, grouped per attempt -------------------------------------------------


def quoted_line(code: str, line: int | None) -> str:
    """The text of a 1-based line of the attempt's code, trimmed, for a self-contained quote."""
    if line is None:
        return ""
    lines = code.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    text = lines[line - 1].strip()
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


def self_contained(text: str, quote: str) -> str:
    return f"At `{quote}`: {text}" if quote else text


def group_curated(
    records: Sequence[dict[str, Any]], code: str
) -> tuple[dict[str, Any] | None, list[str]]:
    """One Feedback dict (1-3 suggestions) from an attempt's approved/edited feedback records,
    and the ids of the records used. Edited suggestions first (a teacher wrote them), then by
    line; the rest are left out (at most MAX_SUGGESTIONS, the coach's own limit)."""
    kept = [r for r in records if r.get("status") in APPROVED]
    kept.sort(key=lambda r: (r.get("status") != "edited", r.get("line") or 0, str(r.get("id"))))
    kept = kept[:MAX_SUGGESTIONS]
    suggestions = []
    for record in kept:
        for s in record["feedback"]["suggestions"]:
            line = s.get("line")
            suggestions.append(
                Suggestion(
                    line=None,
                    text=self_contained(str(s["text"]), quoted_line(code, line)),
                    kind="dont" if s.get("kind") == "dont" else "do",
                )
            )
    suggestions = suggestions[:MAX_SUGGESTIONS]
    if not suggestions:
        return None, []
    feedback = Feedback(suggestions=suggestions, source="curated")
    return feedback.to_dict(), [str(r.get("id")) for r in kept]


# --- held-out split ------------------------------------------------------------------------


def course_of(problem_id: str) -> str:
    return problem_id.split("/", 1)[0] if "/" in problem_id else ""


def _rank(problem_id: str, seed: int | str) -> str:
    return hashlib.sha256(f"{seed}:{problem_id}".encode()).hexdigest()


def held_out_ids(problems: Sequence[Problem], fraction: float, seed: int = 0) -> set[str]:
    """Per course, the ceil(fraction * n) problems with the smallest hash of their id (at
    least one when a course has two or more problems, none when it has one). Deterministic:
    the same problems stay held out round after round, and adding a problem moves at most
    itself into the split."""
    by_course: dict[str, list[str]] = {}
    for problem in problems:
        by_course.setdefault(course_of(problem.id), []).append(problem.id)
    out: set[str] = set()
    for ids in by_course.values():
        if len(ids) < 2 or fraction <= 0:
            continue
        n = min(len(ids) - 1, max(1, math.ceil(fraction * len(ids))))
        out.update(sorted(ids, key=lambda i: _rank(i, seed))[:n])
    return out


# --- examples ------------------------------------------------------------------------------


def _problem_with_proof(problem: Problem, proof: str) -> Problem:
    data = problem.to_dict()
    data["reference_proof"] = proof
    return Problem.from_dict(data)


def solution_example(problem: Problem, proof: str, tokenizer: Any) -> Trajectory:
    """A verified student proof as the agent episode SFT trains on."""
    from training.default_model import format_example

    example = format_example(_problem_with_proof(problem, proof), tokenizer)
    example.mode = "classroom-sft"
    return example


def attempt_example(problem: Problem, proof: str, tokenizer: Any) -> Trajectory:
    """A student's attempt as an off-policy FD example: the agent's prompt, then the student's
    proof written as the lean_write_file call (mask 1: the tokens the loss is on). The
    checker's answer is not appended: the student's file was not necessarily valid."""
    from training.default_model import _TemplateOnly, agent_prompt, proof_file, write_call_text
    from tutor.prover.tools import TOOL_SCHEMAS

    renderer = _TemplateOnly(tokenizer)
    messages = agent_prompt(renderer, problem)
    prompt_ids = renderer.encode(renderer.render_chat(messages, tools=TOOL_SCHEMAS))
    code = proof_file(_problem_with_proof(problem, proof))
    call_text = write_call_text(code)
    response = [*renderer.encode(call_text), renderer.turn_end_id()]
    ids = [*prompt_ids, *response]
    return Trajectory(
        problem_id=problem.id,
        statement=problem.header + problem.statement,
        mode="classroom-attempt",
        prompt_messages=[dict(m) for m in messages],
        tools=TOOL_SCHEMAS,
        token_ids=ids,
        mask=[0] * len(prompt_ids) + [1] * len(response),
        logprobs=[0.0] * len(ids),
        prompt_length=len(prompt_ids),
        messages=[*messages, {"role": "assistant", "content": call_text}],
        final_proof=code,
    )


@dataclass
class CuratedHint:
    """A curated suggestion as the curated coach matches it: Lean message kind + line."""

    problem_id: str
    kind: str
    line: int  # 1-based in statement + proof (no header), as the export writes lines
    text: str


@dataclass
class ClassroomData:
    """The classroom examples of one round, with exactly which records they came from."""

    sft: list[Trajectory] = field(default_factory=list)
    human: list[Trajectory] = field(default_factory=list)  # off-policy FD, feedback attached
    hints: list[CuratedHint] = field(default_factory=list)
    used_attempts: list[str] = field(default_factory=list)  # offered to training
    used_reviews: list[str] = field(default_factory=list)
    used_students: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    reviews_of: dict[str, list[str]] = field(default_factory=dict)  # attempt id -> review ids
    student_of: dict[str, str] = field(default_factory=dict)  # attempt id -> student id

    def trained_on(self, attempt_ids: set[str]) -> dict[str, list[str]]:
        """The attempts, reviews and students among those that entered a loss."""
        attempts = sorted(a for a in attempt_ids if a in self.student_of)
        reviews: set[str] = set()
        for a in attempts:
            reviews.update(self.reviews_of.get(a, []))
        students = {self.student_of[a] for a in attempts if self.student_of[a]}
        return {"attempts": attempts, "reviews": sorted(reviews), "students": sorted(students)}


def build_classroom_data(
    snapshot: Any,
    tokenizer: Any,
    cfg: ClassroomConfig,
    held_out: set[str],
    max_length: int,
) -> ClassroomData:
    """SFT examples, off-policy FD examples and curated hints from a snapshot, capped."""
    problems = {p.id: p for p in snapshot.problems}
    data = ClassroomData()
    attempts_used: set[str] = set()
    students: set[str] = set()
    skipped = {"held_out": 0, "too_long": 0, "unknown_problem": 0, "over_cap": 0}
    for attempt in snapshot.attempts:
        pid = str(attempt.get("problem_id", ""))
        problem = problems.get(pid)
        if problem is None:
            skipped["unknown_problem"] += 1
            continue
        if pid in held_out:
            skipped["held_out"] += 1
            continue
        aid = str(attempt.get("id"))
        proof = str(attempt.get("proof") or "")
        if attempt.get("valid") is True and proof.strip():
            if len(data.sft) >= cfg.max_solutions:
                skipped["over_cap"] += 1
            else:
                example = solution_example(problem, proof, tokenizer)
                if len(example.token_ids) > max_length:
                    skipped["too_long"] += 1
                else:
                    example.sampling["snapshot_id"] = aid
                    data.sft.append(example)
                    data.student_of[aid] = str(attempt.get("student", ""))
                    attempts_used.add(aid)
                    students.add(str(attempt.get("student", "")))
        feedback, review_ids = group_curated(
            snapshot.curated_by_attempt.get(aid, []), str(attempt.get("code", ""))
        )
        if feedback is None or not proof.strip():
            continue
        data.hints += curated_hints(attempt, snapshot.curated_by_attempt.get(aid, []))
        if len(data.human) >= cfg.max_attempts:
            skipped["over_cap"] += 1
            continue
        example = attempt_example(problem, proof, tokenizer)
        if len(example.token_ids) > max_length:
            skipped["too_long"] += 1
            continue
        example.feedback = feedback
        example.sampling["snapshot_id"] = aid
        data.human.append(example)
        data.used_reviews += review_ids
        data.reviews_of[aid] = review_ids
        data.student_of[aid] = str(attempt.get("student", ""))
        attempts_used.add(aid)
        students.add(str(attempt.get("student", "")))
    data.hints = data.hints[: cfg.max_curated_prompts]
    data.used_attempts = sorted(attempts_used)
    data.used_reviews = sorted(set(data.used_reviews))
    data.used_students = sorted(s for s in students if s)
    data.counts = {
        "solutions_sft": len(data.sft),
        "attempts_fd": len(data.human),
        "curated_prompts": len({h.problem_id for h in data.hints}),
        **{f"skipped_{k}": v for k, v in skipped.items()},
    }
    return data


def curated_hints(attempt: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[CuratedHint]:
    """Each approved/edited suggestion with the kind of the Lean message on its line."""
    kinds_at: dict[int, list[str]] = {}
    for d in attempt.get("diagnostics", []):
        if d.get("line") is not None and d.get("severity") == "error":
            kinds_at.setdefault(int(d["line"]), []).append(str(d.get("kind") or "other"))
    code = str(attempt.get("code", ""))
    out = []
    for record in records:
        if record.get("status") not in APPROVED or record.get("line") is None:
            continue
        line = int(record["line"])
        for kind in kinds_at.get(line, []):
            for s in record["feedback"]["suggestions"]:
                out.append(
                    CuratedHint(
                        problem_id=str(attempt.get("problem_id")),
                        kind=kind,
                        line=line,
                        text=self_contained(str(s["text"]), quoted_line(code, line)),
                    )
                )
    return out


class CuratedCoach:
    """Feedback source `curated`: a teacher's text where a fresh rollout hits the same Lean
    message kind on the same line as a reviewed attempt did; else the fallback coach."""

    source = "curated"

    def __init__(
        self, hints: Sequence[CuratedHint], fallback: Any, problems: dict[str, Problem]
    ) -> None:
        self.fallback = fallback
        self.by_statement: dict[str, list[CuratedHint]] = {}
        self.header_lines: dict[str, int] = {}
        for hint in hints:
            problem = problems.get(hint.problem_id)
            if problem is None:
                continue
            key = problem.header + problem.statement
            self.by_statement.setdefault(key, []).append(hint)
            self.header_lines[key] = problem.header.count("\n")
        self.matched = 0
        self.fell_back = 0

    def advise(
        self,
        statement: str,
        attempt: str,
        diagnostics: Sequence[Diagnostic],
        reference_proof: str | None = None,
    ) -> Feedback:
        hints = self.by_statement.get(statement, [])
        offset = self.header_lines.get(statement, 0)  # the rollout's file starts with the header
        seen = {
            ((d.kind or "other"), d.line - offset) for d in diagnostics if d.severity == "error"
        }
        texts = [h.text for h in hints if (h.kind, h.line) in seen]
        if texts:
            self.matched += 1
            unique = list(dict.fromkeys(texts))[:MAX_SUGGESTIONS]
            return Feedback([Suggestion(line=None, text=t) for t in unique], source="curated")
        self.fell_back += 1
        return self.fallback.advise(statement, attempt, diagnostics, reference_proof)


def human_admitted(
    candidates: Sequence[Trajectory], other_tokens: float, share: float
) -> list[Trajectory]:
    """The human (off-policy) trajectories a step may take so that their tokens stay within
    `share` of the step's tokens: human / (human + other) <= share."""
    if share >= 1.0:
        return list(candidates)
    allowed = share / (1.0 - share) * other_tokens if share > 0 else 0.0
    out, used = [], 0.0
    for t in candidates:
        n = float(sum(t.mask))
        if used + n <= allowed:
            out.append(t)
            used += n
    return out


# --- the gate ------------------------------------------------------------------------------
#
# Why this shape. A gate that picks the run's best checkpoint on some problems and then tests
# it on the same problems promotes the luckiest candidate: with a percentile bootstrap and the
# best of 5 truly-no-better checkpoints, 16-34% were promoted at a nominal 5%. So:
#   - the held-out problems are split once more, per course and deterministically, into a
#     *selection* set (evaluated during the run; it picks the best checkpoint) and a *gate*
#     set (evaluated twice, never during training: the serving checkpoint before the run,
#     the one chosen candidate after it). The candidate does not depend on the gate set, so
#     one test on it keeps its level;
#   - the test is an exact one-sided paired sign-flip (randomisation) test of the mean
#     per-problem pass-rate difference: under "no better" (the two models' samples on a
#     problem are exchangeable) every sign pattern of the per-problem differences is equally
#     likely, so P(p <= alpha) <= alpha. Its distribution is computed exactly (a convolution
#     over the integer differences), not resampled;
#   - with n gate problems the smallest p it can give is 1 / 2^n, so below
#     ceil(log2(1 / alpha)) problems (5 at alpha 0.05) no result could be significant, and
#     below classroom.min_eval_problems the gate refuses outright; both say why.
# tests/training/test_gate.py simulates thousands of rounds with candidates truly equal and
# truly worse and checks the false-promotion rate against alpha.


@dataclass(frozen=True)
class HeldOutSplit:
    """The held-out problems of a round: `selection` picks the best checkpoint during the
    run, `gate` judges the one candidate against the serving checkpoint after it."""

    selection: frozenset[str]
    gate: frozenset[str]

    @property
    def held_out(self) -> set[str]:
        return set(self.selection | self.gate)


def held_out_split(problems: Sequence[Problem], cfg: ClassroomConfig, seed: int) -> HeldOutSplit:
    """held_out_ids (classroom.eval_fraction, seed), then per course the ceil(gate_fraction
    * m) of its m held-out problems with the smallest second hash form the gate set (at
    least one), the rest the selection set. Deterministic, like the held-out split itself."""
    held = held_out_ids(problems, cfg.eval_fraction, seed)
    by_course: dict[str, list[str]] = {}
    for problem_id in sorted(held):
        by_course.setdefault(course_of(problem_id), []).append(problem_id)
    gate_ids: set[str] = set()
    for ids in by_course.values():
        n = max(1, math.ceil(cfg.gate_fraction * len(ids)))
        gate_ids.update(sorted(ids, key=lambda i: _rank(i, f"{seed}:gate"))[:n])
    return HeldOutSplit(selection=frozenset(held - gate_ids), gate=frozenset(gate_ids))


@dataclass
class GateDecision:
    promote: bool
    reason: str
    metric: str
    baseline: float
    candidate: float
    mean_difference: float
    p_value: float
    problems: int
    min_problems: int
    alpha: float
    min_improvement: float
    test: str = "exact one-sided paired sign-flip test over gate problems"
    checkpoint: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def per_problem_rates(per_problem: Sequence[dict[str, Any]]) -> dict[str, Fraction]:
    """problem id -> correct / n, exactly (the sign-flip test works on exact differences)."""
    return {
        str(p["problem"]): Fraction(int(p["correct"]), max(int(p["n"]), 1)) for p in per_problem
    }


def sign_flip_p_value(differences: Sequence[Fraction]) -> float:
    """P(S* >= S) where S is the sum of the differences and S* the same sum with each sign
    flipped independently with probability 1/2: the exact null distribution of the paired
    randomisation test, by convolution over the differences scaled to integers."""
    if not differences:
        return 1.0
    scale = math.lcm(*(d.denominator for d in differences))
    steps = [abs(int(d * scale)) for d in differences]
    observed = sum(int(d * scale) for d in differences)
    counts: dict[int, int] = {0: 1}
    for step in steps:
        nxt: dict[int, int] = {}
        for total, count in counts.items():
            for signed in (step, -step):
                nxt[total + signed] = nxt.get(total + signed, 0) + count
        counts = nxt
    at_least = sum(count for total, count in counts.items() if total >= observed)
    return at_least / 2 ** len(steps)


def smallest_testable(alpha: float) -> int:
    """Fewest problems for which the sign-flip test can reach p <= alpha (1 / 2^n <= alpha)."""
    return max(1, math.ceil(math.log2(1.0 / alpha) - 1e-12))


def gate(
    baseline_per_problem: Sequence[dict[str, Any]],
    candidate_per_problem: Sequence[dict[str, Any]],
    cfg: ClassroomConfig,
) -> GateDecision:
    """Promote the candidate only when its mean pass@1 over the gate problems beats the
    serving checkpoint's by more than classroom.min_improvement and the exact one-sided
    sign-flip test gives p <= classroom.gate_alpha, on at least classroom.min_eval_problems
    problems (and never fewer than the test needs to reach alpha at all)."""
    base = per_problem_rates(baseline_per_problem)
    cand = per_problem_rates(candidate_per_problem)
    shared = sorted(set(base) & set(cand))
    n = len(shared)
    diffs = [cand[k] - base[k] for k in shared]
    b = float(sum(base[k] for k in shared) / n) if n else 0.0
    c = float(sum(cand[k] for k in shared) / n) if n else 0.0
    diff = float(sum(diffs) / n) if n else 0.0
    needed = max(cfg.min_eval_problems, smallest_testable(cfg.gate_alpha))
    p = sign_flip_p_value(diffs) if n else 1.0
    decision = GateDecision(
        promote=False, reason="", metric="pass@1 (per-problem rate)", baseline=b, candidate=c,
        mean_difference=diff, p_value=p, problems=n, min_problems=needed,
        alpha=cfg.gate_alpha, min_improvement=cfg.min_improvement,
    )  # fmt: skip
    if n < needed:
        decision.reason = (
            f"only {n} gate problems, at least {needed} are needed "
            f"(classroom.min_eval_problems={cfg.min_eval_problems}; with n problems the "
            f"smallest p the test can give is 1/2^n, and 1/2^{n} = {0.5**n:.3g} "
            f"{'>' if 0.5**n > cfg.gate_alpha else '<='} alpha {cfg.gate_alpha}): not enough "
            "to judge, the serving checkpoint keeps serving; hold out more problems "
            "(classroom.eval_fraction, classroom.gate_fraction) or add exercises"
        )
    elif diff <= cfg.min_improvement:
        decision.reason = (
            f"pass@1 {c:.4f} vs serving {b:.4f} on {n} gate problems: a difference of "
            f"{diff:+.4f} is not above {cfg.min_improvement}; the serving checkpoint keeps serving"
        )
    elif p > cfg.gate_alpha:
        decision.reason = (
            f"pass@1 {c:.4f} vs serving {b:.4f} on {n} gate problems ({diff:+.4f}) is not "
            f"significant: sign-flip p = {p:.4f} > {cfg.gate_alpha}; the serving "
            "checkpoint keeps serving"
        )
    else:
        decision.promote = True
        decision.reason = (
            f"pass@1 {b:.4f} -> {c:.4f} on {n} gate problems ({diff:+.4f}), exact sign-flip "
            f"p = {p:.4f} <= {cfg.gate_alpha}"
        )
    return decision


def write_json(path: Any, data: Any) -> None:
    from pathlib import Path

    Path(path).write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
