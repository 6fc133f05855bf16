"""Benchmark the coach: localisation accuracy and latency per feedback source.

Run:  .venv/bin/python bench/bench_coach.py [--data bench/data/coach_labelled.jsonl] [--repeat 5]

For every labelled broken attempt (problem, attempt, the REPL messages real Lean gives, the
line that really needs changing) each source that can run here advises once per repeat.
Printed per source:
- hit@any: share of attempts where some suggestion is anchored on the labelled line
  (the deployment guide's bar for error localisation is > 85%);
- hit@1: the same for the first suggestion only (stricter: extra suggestions cannot help);
- latency p50 / p95 / p99 in ms over all calls;
- the ratio of hit@any against the baseline measured in the same run: "anchor on the first
  error line Lean reports" (the naive rule the compiler source improves on).
Sources: compiler, ground_truth (uses each entry's reference proof), fixed (anchors no line:
a floor), and llm only when LEANCOACH_COACH_* is configured (see docs/COACH.md).

Advice correctness: realistic beginner mistakes in core Lean and Mathlib with real Lean wording,
each with accepted fixes and known-wrong advice; the compiler coach is told each case's library,
as the web app tells it the course's. Printed per source and per part: line hit, right (names an
accepted fix and no known-wrong one), wrong (names a known-wrong fix), "I don't know" (neither),
and explained (where the message shows a `?m`, `↑`, `case`, `✝` or `sorryAx`, the advice says
what it means). The llm source runs against the local fake server
(tests/tutor/coach/fake_llm_server.py): it has no model, so it measures the pipeline (prompt with
teacher examples, parsing, validation, fallback), not a model's quality.

The parts and their provenance:
- tuning: bench/data/coach_advice.jsonl (built by bench/data/build_coach_advice.py), rounds 1
  and 2 split by a fixed hash, and rounds 6, 7 and 8 whole: written alongside the rules.
- heldout: the same file's rounds 1-2 (hashed) and 3, 4, 5 (whole), printed per round. A
  held-out round's first measure is the fresh one; after it, its misses may have been read.
- fresh: set B, bench/data/coach_fresh.jsonl (round 9), written blind by a teacher who never
  read the coach (bench/data/coach_fresh.README.md); first measured blind at 62/84 right, 4
  wrong; tuning data since. Printed as its own part and by library (core / Mathlib).
- fresh2: set C, bench/data/coach_fresh2.jsonl (round 10), written blind the same way
  (bench/data/coach_fresh2.README.md); first measured blind at 68/90 right, 5 wrong, 17 "I
  don't know"; tuning data since (in-sample). Printed as its own part and by library.
- fresh3: set D, bench/data/coach_fresh3.jsonl (round 11), written blind the same way
  (bench/data/coach_fresh3.README.md); first measured blind at 58/80 right, 0 wrong, 22 "I
  don't know"; tuning data since (in-sample). Printed as its own part and by library.
- fresh4: set E, bench/data/coach_fresh4.jsonl (round 12), written blind the same way
  (bench/data/coach_fresh4.README.md); first measured blind at 43/60 right, 0 wrong, 17 "I
  don't know"; tuning data since (in-sample). Printed as its own part and by library.
- fresh5: set F, bench/data/coach_fresh5.jsonl (round 13, mostly Mathlib), written blind the
  same way (bench/data/coach_fresh5.README.md); first measured blind at 42/60 right, 0 wrong,
  18 "I don't know"; tuning data since (in-sample). Printed as its own part and by library.
- fresh6: set G, bench/data/coach_fresh6.jsonl (round 14, 40 core / 20 Mathlib), written blind
  the same way (bench/data/coach_fresh6.README.md); first measured blind at 47/60 right, 0
  wrong, 13 "I don't know"; tuning data since (in-sample). Printed as its own part.
- fresh7: set H, bench/data/coach_fresh7.jsonl (round 15, 30 core / 30 Mathlib), written blind
  the same way (bench/data/coach_fresh7.README.md); first measured blind at 48/60 right, 0
  wrong, 12 "I don't know"; tuning data since (in-sample). Printed as its own part and by
  library.
- fresh8, fresh9: sets I (40 core / 20 Mathlib) and J (20 core / 40 Mathlib), the same way
  (bench/data/coach_fresh8.README.md, coach_fresh9.README.md); first measured blind at 48/60
  and 37/60 right, 0 wrong; tuning data since (in-sample).
- fresh10, fresh11: sets K (30 core / 30 Mathlib) and L (15 core / 45 Mathlib), the same way;
  first measured blind at 51/60 and 52/60 right, 0 wrong; tuning data since (in-sample).
- fresh12, fresh13: sets M (35 core / 25 Mathlib) and N (25 core / 35 Mathlib), the same way;
  first measured blind at 52/60 right each (M 2 wrong, N 0 wrong); tuning data since.
- locked: below. The measure of generalisation.

The advice table's baseline is the classifier-only coach ("kind only": one fixed hint per
message kind, anchored on Lean's line, the advice the issue quotes); right, wrong and "I don't
know" are printed as ratios against it, measured in the same run.

The locked split (bench/data/coach_locked.jsonl, same schema plus who wrote each case and
when): cases written by people who never read the coach's rules, never used to write or adjust
one. It is measured apart and printed as aggregate counts only (n, line hit, right, wrong, "I
don't know", and the kind-only baseline measured in the same run): never a case's id, text,
labels or the advice given on it, and a case the coach raises on is counted, not shown. Until
the file exists the bench says it is missing. `--only-locked` measures just that split.

Caveat printed with the figures: the "dev" split was written alongside the rules, so the
compiler's accuracy on it is in-sample; the "heldout" split (9 attempts) was labelled before
the coach was run on it. Figures are printed per split.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402
from tutor.coach import CoachUnavailable, make_coach  # noqa: E402
from tutor.coach.compiler import CompilerCoach  # noqa: E402
from tutor.lean.types import Diagnostic, DiagnosticKind  # noqa: E402

try:  # the Lean engineer's classifier, when present
    from tutor.lean.messages import classify, extract_goal

    HAVE_CLASSIFIER = True
except ImportError:  # pragma: no cover - a small adapter for when tutor.lean lacks it
    HAVE_CLASSIFIER = False

_OPENINGS = (
    ("unsolved goals", DiagnosticKind.UNSOLVED_GOALS),
    ("type mismatch", DiagnosticKind.TYPE_MISMATCH),
    ("application type mismatch", DiagnosticKind.TYPE_MISMATCH),
    ("unknown identifier", DiagnosticKind.UNKNOWN_IDENTIFIER),
    ("unknown constant", DiagnosticKind.UNKNOWN_CONSTANT),
    ("linarith failed", DiagnosticKind.LINARITH_FAILED),
    ("omega could not", DiagnosticKind.OMEGA_FAILED),
    ("simp made no progress", DiagnosticKind.SIMP_NO_PROGRESS),
    ("tactic rewrite failed", DiagnosticKind.REWRITE_FAILED),
    ("declaration uses sorry", DiagnosticKind.SORRY),
    ("unexpected", DiagnosticKind.SYNTAX),
)


def _fallback_kind(message: str) -> DiagnosticKind:
    opening = message.split("\n", 1)[0].replace("'", "").replace("`", "").lower()
    for prefix, kind in _OPENINGS:
        if opening.startswith(prefix):
            return kind
    return DiagnosticKind.OTHER


def to_diagnostic(message: dict[str, Any]) -> Diagnostic:
    data = message["data"]
    kind = classify(data) if HAVE_CLASSIFIER else _fallback_kind(data)
    goal = extract_goal(data, kind) if HAVE_CLASSIFIER else None
    end = message.get("endPos") or {}
    return Diagnostic(
        line=message["pos"]["line"],
        column=message["pos"]["column"],
        end_line=end.get("line"),
        end_column=end.get("column"),
        severity=message["severity"],
        message=data,
        kind=kind,
        goal=goal,
    )


@dataclass
class Result:
    name: str
    hits_any: int = 0
    hits_first: int = 0
    total: int = 0
    fallbacks: int = 0
    latencies_ms: list[float] | None = None
    by_split: dict[str, list[int]] | None = None  # split -> [hits@any, total]

    def share(self, hits: int) -> float:
        return hits / self.total if self.total else 0.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def run_source(name: str, coach: Any, entries: list[dict[str, Any]], repeat: int) -> Result:
    result = Result(name, latencies_ms=[], by_split={})
    for entry in entries:
        diagnostics = [to_diagnostic(m) for m in entry["messages"]]
        feedback = None
        for _ in range(repeat):
            started = time.perf_counter()
            feedback = coach.advise(
                entry["problem"], entry["attempt"], diagnostics, entry.get("reference_proof")
            )
            assert result.latencies_ms is not None
            result.latencies_ms.append((time.perf_counter() - started) * 1000)
        assert feedback is not None
        lines = [s.line for s in feedback.suggestions]
        result.total += 1
        hit = entry["label_line"] in lines
        result.hits_any += hit
        assert result.by_split is not None
        split = result.by_split.setdefault(entry.get("split", "dev"), [0, 0])
        split[0] += hit
        split[1] += 1
        result.hits_first += bool(lines) and lines[0] == entry["label_line"]
        result.fallbacks += feedback.fell_back
    return result


class BaselineCoach:
    """Anchor on the first error (else first message) line Lean reports: the naive rule."""

    def advise(
        self, statement: str, attempt: str, diagnostics: list[Diagnostic], reference: Any = None
    ) -> Any:
        from tutor.coach import Feedback, Suggestion

        errors = [d for d in diagnostics if d.severity == "error"] or diagnostics
        first = min(errors, key=lambda d: (d.line, d.column)) if errors else None
        line = first.line if first else None
        text = "Do fix the line Lean reports: read its message and change that step accordingly."
        return Feedback([Suggestion(line, text)], source="baseline")


class KindOnlyCoach:
    """The classifier-only baseline: one fixed hint per message kind, anchored on Lean's line.

    This is what a coach does that only knows the kind of message (the classifier's output),
    without reading the goal, the hypotheses or the student's line: the fix it names is the
    one most often right for that kind. The compiler coach's rules improve on it.
    """

    HINTS = {
        DiagnosticKind.UNSOLVED_GOALS: "Do add a step after line {n}: the goal is still open; "
        "use `intro` for → and ∀, `constructor` for ∧ and ↔, `omega` for arithmetic.",
        DiagnosticKind.TYPE_MISMATCH: "Do make the term on line {n} match the expected type: "
        "rewrite it first (`rw [...] at h`) or use `.symm` if the sides are swapped.",
        DiagnosticKind.UNKNOWN_IDENTIFIER: "Do check the spelling of the name on line {n}: "
        "Lean 4 names capitalise namespaces such as `Nat.` and `List.`.",
        DiagnosticKind.UNKNOWN_CONSTANT: "Do check the spelling of the name on line {n}: "
        "Lean 4 names capitalise namespaces such as `Nat.` and `List.`.",
        DiagnosticKind.OMEGA_FAILED: "Do state the nonlinear fact omega needs before line {n}, "
        "for example with `Nat.mul_le_mul h₁ h₂`: omega only does linear arithmetic.",
        DiagnosticKind.SIMP_NO_PROGRESS: "Don't keep `simp` on line {n}: it made no progress. "
        "Use `omega`, `rfl` or `rw [h]` there instead.",
        DiagnosticKind.REWRITE_FAILED: "Do rewrite in the other direction on line {n} with "
        "`rw [← h]`: the left side of the rule does not appear in the goal.",
        DiagnosticKind.SYNTAX: "Do fix the syntax on line {n} first: Lean stopped reading "
        "there, so nothing after this point was checked.",
        DiagnosticKind.SORRY: "Do replace the `sorry` on line {n} with a proof of that step: "
        "Lean counts a proof with `sorry` as unproved.",
        DiagnosticKind.FAILED_TO_SYNTHESIZE: "Do give the numbers on line {n} an explicit "
        "type, such as `(2 : ℝ)`, so Lean can find the operation.",
        DiagnosticKind.RFL_FAILED: "Don't use `rfl` on line {n}: the sides are not equal by "
        "computation. Use `simp` or `omega` instead.",
        DiagnosticKind.DECIDE_FAILED: "Don't use `decide` on line {n}: it only evaluates "
        "closed statements. Use `omega` or `simp` instead.",
        DiagnosticKind.APPLY_FAILED: "Do check that the lemma's conclusion on line {n} matches "
        "the goal; find one that does with `exact?`.",
        DiagnosticKind.INTRO_FAILED: "Do use fewer names in `intro` on line {n}: the goal has "
        "fewer binders than names.",
        DiagnosticKind.CASES_ERROR: "Do add one alternative per constructor on line {n}, such "
        "as `| zero => ...` and `| succ k ih => ...`.",
        DiagnosticKind.NO_GOALS: "Don't keep the tactic on line {n}: the goal was already "
        "closed. Delete this line.",
        DiagnosticKind.CALC_ERROR: "Do start the calc step on line {n} with `_`: each step "
        "begins where the previous one ended.",
    }
    DEFAULT = "Do fix line {n}: read Lean's message there and change that step accordingly."

    def advise(
        self, statement: str, attempt: str, diagnostics: list[Diagnostic], reference: Any = None
    ) -> Any:
        from tutor.coach import Feedback, Suggestion

        errors = [d for d in diagnostics if d.severity == "error"] or diagnostics
        if not errors:
            return Feedback([Suggestion(None, self.DEFAULT.format(n="?"))], source="kind-only")
        first = min(errors, key=lambda d: (d.line, d.column))
        text = self.HINTS.get(first.kind, self.DEFAULT).format(n=first.line)
        return Feedback([Suggestion(first.line, text)], source="kind-only")


ADVICE = ROOT / "bench/data/coach_advice.jsonl"
# Set B: written blind by a teacher who never read the coach; measured once unseen, then
# opened as tuning data (bench/data/coach_fresh.README.md).
FRESH = ROOT / "bench/data/coach_fresh.jsonl"
FRESH_PROVENANCE = "round 9: first measured blind at 62/84 right, 4 wrong; tuning data since"
# Set C: written blind the same way, measured once unseen, then opened as tuning data
# (bench/data/coach_fresh2.README.md); its later figures are in-sample.
FRESH2 = ROOT / "bench/data/coach_fresh2.jsonl"
FRESH2_PROVENANCE = (
    "round 10: first measured blind at 68/90 right, 5 wrong, 17 I don't know; "
    "tuning data since (in-sample)"
)
# Set D: written blind the same way, measured once unseen, then opened as tuning data
# (bench/data/coach_fresh3.README.md); its later figures are in-sample.
FRESH3 = ROOT / "bench/data/coach_fresh3.jsonl"
FRESH3_PROVENANCE = (
    "round 11: first measured blind at 58/80 right, 0 wrong, 22 I don't know; "
    "tuning data since (in-sample)"
)
# Set E: written blind the same way, measured once unseen, then opened as tuning data
# (bench/data/coach_fresh4.README.md); its later figures are in-sample.
FRESH4 = ROOT / "bench/data/coach_fresh4.jsonl"
FRESH4_PROVENANCE = (
    "round 12: first measured blind at 43/60 right, 0 wrong, 17 I don't know; "
    "tuning data since (in-sample)"
)
# Set F: written blind the same way, measured once unseen, then opened as tuning data
# (bench/data/coach_fresh5.README.md); its later figures are in-sample.
FRESH5 = ROOT / "bench/data/coach_fresh5.jsonl"
FRESH5_PROVENANCE = (
    "round 13: first measured blind at 42/60 right, 0 wrong, 18 I don't know; "
    "tuning data since (in-sample)"
)

# Set G: written blind the same way (40 core, 20 Mathlib), measured once unseen, then opened
# as tuning data (bench/data/coach_fresh6.README.md); its later figures are in-sample.
FRESH6 = ROOT / "bench/data/coach_fresh6.jsonl"
FRESH6_PROVENANCE = (
    "round 14: first measured blind at 47/60 right, 0 wrong, 13 I don't know; "
    "tuning data since (in-sample)"
)
# Set H: written blind the same way (30 core, 30 Mathlib), measured once unseen, then opened
# as tuning data (bench/data/coach_fresh7.README.md); its later figures are in-sample.
FRESH7 = ROOT / "bench/data/coach_fresh7.jsonl"
FRESH7_PROVENANCE = (
    "round 15: first measured blind at 48/60 right, 0 wrong, 12 I don't know; "
    "tuning data since (in-sample)"
)

# Set I: written blind the same way (40 core, 20 Mathlib), measured once unseen, then opened
# as tuning data (bench/data/coach_fresh8.README.md); its later figures are in-sample.
FRESH8 = ROOT / "bench/data/coach_fresh8.jsonl"
FRESH8_PROVENANCE = (
    "round 16: first measured blind at 48/60 right, 0 wrong, 12 I don't know; "
    "tuning data since (in-sample)"
)
# Set J: written blind the same way (20 core, 40 Mathlib), measured once unseen, then opened
# as tuning data (bench/data/coach_fresh9.README.md); its later figures are in-sample.
FRESH9 = ROOT / "bench/data/coach_fresh9.jsonl"
FRESH9_PROVENANCE = (
    "round 17: first measured blind at 37/60 right, 0 wrong, 23 I don't know; "
    "tuning data since (in-sample)"
)

# Sets K and L: written blind the same way, measured once unseen, then opened as tuning data
# (bench/data/coach_fresh10.README.md, coach_fresh11.README.md); later figures in-sample.
FRESH10 = ROOT / "bench/data/coach_fresh10.jsonl"
FRESH10_PROVENANCE = (
    "round 18: first measured blind at 51/60 right, 0 wrong, 9 I don't know; "
    "tuning data since (in-sample)"
)
FRESH11 = ROOT / "bench/data/coach_fresh11.jsonl"
FRESH11_PROVENANCE = (
    "round 19: first measured blind at 52/60 right, 0 wrong, 8 I don't know; "
    "tuning data since (in-sample)"
)

# Sets M and N: written blind the same way, measured once unseen, then opened as tuning data
# (bench/data/coach_fresh12.README.md, coach_fresh13.README.md); later figures in-sample.
FRESH12 = ROOT / "bench/data/coach_fresh12.jsonl"
FRESH12_PROVENANCE = (
    "round 20: first measured blind at 52/60 right, 2 wrong, 6 I don't know; "
    "tuning data since (in-sample)"
)
FRESH13 = ROOT / "bench/data/coach_fresh13.jsonl"
FRESH13_PROVENANCE = (
    "round 21: first measured blind at 52/60 right, 0 wrong, 8 I don't know; "
    "tuning data since (in-sample)"
)


@dataclass(frozen=True)
class BlindSet:
    """A set written blind by a helper who never read the coach, measured once unseen; its
    part of the advice table, its name, and the figures of that one blind measure."""

    path: Path
    part: str
    label: str
    provenance: str


BLIND_SETS = (
    BlindSet(FRESH, "fresh", "set B", FRESH_PROVENANCE),
    BlindSet(FRESH2, "fresh2", "set C", FRESH2_PROVENANCE),
    BlindSet(FRESH3, "fresh3", "set D", FRESH3_PROVENANCE),
    BlindSet(FRESH4, "fresh4", "set E", FRESH4_PROVENANCE),
    BlindSet(FRESH5, "fresh5", "set F", FRESH5_PROVENANCE),
    BlindSet(FRESH6, "fresh6", "set G", FRESH6_PROVENANCE),
    BlindSet(FRESH7, "fresh7", "set H", FRESH7_PROVENANCE),
    BlindSet(FRESH8, "fresh8", "set I", FRESH8_PROVENANCE),
    BlindSet(FRESH9, "fresh9", "set J", FRESH9_PROVENANCE),
    BlindSet(FRESH10, "fresh10", "set K", FRESH10_PROVENANCE),
    BlindSet(FRESH11, "fresh11", "set L", FRESH11_PROVENANCE),
    BlindSet(FRESH12, "fresh12", "set M", FRESH12_PROVENANCE),
    BlindSet(FRESH13, "fresh13", "set N", FRESH13_PROVENANCE),
)

# What counts as explaining a symbol a beginner cannot read (inside the suggestion).
EXPLAIN_WORDS = {
    "?m": ("placeholder", "not yet known", "could not work out", "fill"),
    "?n": ("placeholder", "not yet known", "could not work out", "fill"),
    "?a": ("placeholder", "not yet known", "could not work out", "fill"),
    "↑": ("cast", "coercion", "conver"),
    "case": ("case", "branch", "goal left"),
    "✝": ("inaccessible", "cannot type", "can't type", "rename_i", "made-up", "unnamed"),
    "sorryAx": ("sorry",),
}


def _matches(pattern: str, text: str) -> bool:
    import re

    if pattern.startswith("re:"):
        return re.search(pattern[3:], text) is not None
    return pattern in text


def judge(entry: dict[str, Any], texts: list[str]) -> str:
    """right / wrong / idk for one feedback's suggestion texts against the labels."""
    text = "\n".join(texts)
    if any(_matches(p, text) for p in entry["wrong"]):
        return "wrong"
    if any(_matches(p, text) for p in entry["accept"]):
        return "right"
    return "idk"


def explained(entry: dict[str, Any], texts: list[str]) -> bool:
    text = "\n".join(texts).lower()
    return all(any(w in text for w in EXPLAIN_WORDS[token]) for token in entry["explain"])


@dataclass
class AdviceRow:
    n: int = 0
    hit: int = 0
    right: int = 0
    wrong: int = 0
    idk: int = 0
    explain_n: int = 0
    explain_ok: int = 0
    fallbacks: int = 0


def coach_for(entry: dict[str, Any], coach: Any = None) -> Any:
    """The compiler coach as the web app builds it for this case's course: told whether the
    exercise has Mathlib (its header, here the case's `library`); other coaches unchanged."""
    if coach is None:
        coach = make_coach("compiler")
    if not isinstance(coach, CompilerCoach) or entry.get("library") not in ("core", "mathlib"):
        return coach
    return CompilerCoach(replace(coach.config, mathlib=entry["library"] == "mathlib"))


def run_advice(coach: Any, entries: list[dict[str, Any]]) -> dict[str, AdviceRow]:
    rows: dict[str, AdviceRow] = {}
    for entry in entries:
        diagnostics = [to_diagnostic(m) for m in entry["messages"]]
        feedback = coach_for(entry, coach).advise(entry["problem"], entry["attempt"], diagnostics)
        texts = [s.text for s in feedback.suggestions]
        for part in (entry["split"], "all"):
            row = rows.setdefault(part, AdviceRow())
            row.n += 1
            row.hit += entry["label_line"] in [s.line for s in feedback.suggestions]
            verdict = judge(entry, texts)
            row.right += verdict == "right"
            row.wrong += verdict == "wrong"
            row.idk += verdict == "idk"
            row.fallbacks += feedback.fell_back
            if entry["explain"]:
                row.explain_n += 1
                row.explain_ok += explained(entry, texts)
    return rows


ADVICE_PARTS = ("tuning", "heldout", *(b.part for b in BLIND_SETS), "all")


def _ratio(value: int, base: int) -> str:
    """value/base as `1.23x`; `n/a` when the baseline measured zero (no ratio exists)."""
    return f"{value / base:.2f}x" if base else "n/a"


def print_advice(results: list[tuple[str, dict[str, AdviceRow]]], baseline: str) -> None:
    """The table, with right/wrong/idk as ratios against `baseline` measured in this run."""
    base_rows = dict(results)[baseline]
    header = (
        f"{'source':26} {'part':8} {'n':>4} {'line hit':>9} {'right':>7} {'wrong':>7} "
        f"{'idk':>7} {'right/b':>8} {'wrong/b':>8} {'idk/b':>7} {'explained':>10} {'fallbk':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, rows in results:
        for part in ADVICE_PARTS:
            r, b = rows.get(part), base_rows.get(part)
            if r is None or b is None:
                continue
            explain = f"{r.explain_ok}/{r.explain_n}" if r.explain_n else "-"
            print(
                f"{name:26} {part:8} {r.n:4d} {r.hit / r.n:9.1%} {r.right / r.n:7.1%} "
                f"{r.wrong / r.n:7.1%} {r.idk / r.n:7.1%} {_ratio(r.right, b.right):>8} "
                f"{_ratio(r.wrong, b.wrong):>8} {_ratio(r.idk, b.idk):>7} {explain:>10} "
                f"{r.fallbacks:6d}"
            )
    print(f"ratios (x/b) are against '{baseline}', measured in this run on the same cases")


ADVICE_BASELINE = "baseline: kind only"


def advice_sources() -> list[tuple[str, Any, Any]]:
    """(name, coach, cleanup) for the advice table; llm runs against the local fake server."""
    sources: list[tuple[str, Any, Any]] = [
        (ADVICE_BASELINE, KindOnlyCoach(), None),
        ("baseline: Lean's line", BaselineCoach(), None),
        ("compiler", make_coach("compiler"), None),
    ]
    try:
        from tests.tutor.coach.fake_llm_server import FakeLLMServer, echo_replies
        from tutor.coach.llm_client import LLMConfig
    except ImportError as why:  # the bench runs from a checkout that has tests/
        print(f"llm (fake server): skipped ({why})")
        return sources
    server = FakeLLMServer().start()
    server.responder = echo_replies
    config = LLMConfig(
        provider="openai", model="fake", api_key="x", base_url=server.url + "/v1", max_retries=0
    )
    sources.append(
        ("llm (local fake server)", make_coach("llm", config=config, cache=False), server.stop)
    )
    return sources


def load_fresh(path: Path, part: str = "fresh") -> list[dict[str, Any]]:
    """A blind set's cases, each in `part` (whatever split its file records); [] without it."""
    if not path.exists():
        return []
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [dict(case, split=part) for case in cases]


def print_fresh(
    fresh: list[dict[str, Any]],
    part: str = "fresh",
    label: str = "set B",
    provenance: str = FRESH_PROVENANCE,
    path: Path = FRESH,
) -> None:
    """A blind set (BLIND_SETS) by library, with the kind-only baseline measured in this run."""
    if not fresh:
        print(f"\n{part} ({label}): missing ({path.relative_to(ROOT)} not in this checkout)")
        return
    print(f"\n{part} ({label}, {provenance})")
    for name, coach in (("compiler", make_coach("compiler")), (ADVICE_BASELINE, KindOnlyCoach())):
        by_library = run_advice(coach, [dict(e, split=e["library"]) for e in fresh])
        for library in ("core", "mathlib", "all"):
            row = by_library.get(library)
            if row is not None:
                print(
                    f"{name} {part}, {library}: n {row.n}, right {row.right}, wrong {row.wrong}, "
                    f"I don't know {row.idk}"
                )


LOCKED = ROOT / "bench/data/coach_locked.jsonl"
LOCKED_TARGETS = (0.90, 0.03)  # right at least, wrong at most (issue 30)


@dataclass
class LockedReport:
    """Aggregate counts only: nothing here can name a case."""

    compiler: AdviceRow
    baseline: AdviceRow
    unreadable: int = 0  # lines that are not a case of the schema (counted, never shown)
    failed: int = 0  # cases the coach raised on (counted, never shown)
    libraries: dict[str, AdviceRow] | None = None


def _locked_cases(path: Path) -> tuple[list[dict[str, Any]], int]:
    cases, unreadable = [], 0
    needed = ("problem", "attempt", "messages", "label_line", "accept", "wrong")
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        try:
            case = json.loads(raw)
        except ValueError:
            unreadable += 1
            continue
        if not isinstance(case, dict) or any(k not in case for k in needed):
            unreadable += 1
            continue
        cases.append(case)
    return cases, unreadable


def _score(row: AdviceRow, entry: dict[str, Any], feedback: Any) -> None:
    texts = [s.text for s in feedback.suggestions]
    verdict = judge(entry, texts)
    row.n += 1
    row.hit += entry["label_line"] in [s.line for s in feedback.suggestions]
    row.right += verdict == "right"
    row.wrong += verdict == "wrong"
    row.idk += verdict == "idk"


def measure_locked(path: Path) -> LockedReport:
    """The compiler and the kind-only baseline on the locked split, counted, never shown: a
    case whose advice raises is counted as failed (and scored as "I don't know"), with no
    traceback (it could quote the case)."""
    cases, unreadable = _locked_cases(path)
    compiler, baseline = make_coach("compiler"), KindOnlyCoach()
    report = LockedReport(AdviceRow(), AdviceRow(), unreadable=unreadable, libraries={})
    assert report.libraries is not None
    for entry in cases:
        try:
            diagnostics = [to_diagnostic(m) for m in entry["messages"]]
            feedback = coach_for(entry, compiler).advise(
                entry["problem"], entry["attempt"], diagnostics
            )
            base = baseline.advise(entry["problem"], entry["attempt"], diagnostics)
        except Exception:  # noqa: BLE001 - counted; its text could name the case
            report.failed += 1
            report.compiler.n += 1
            report.compiler.idk += 1
            continue
        _score(report.compiler, entry, feedback)
        _score(report.baseline, entry, base)
        library = str(entry.get("library"))
        library = library if library in ("core", "mathlib") else "other"
        _score(report.libraries.setdefault(library, AdviceRow()), entry, feedback)
    return report


def _share(value: int, total: int) -> str:
    return f"{value}/{total} = {value / total:.1%}" if total else f"{value}/0"


def print_locked(path: Path) -> None:
    """The locked split's aggregate figures (n, line hit, right, wrong, I don't know), with the
    kind-only baseline measured in this run: never a case's id, text or verdict."""
    print(f"\nlocked split ({path.name}): never read while writing or adjusting a rule")
    if not path.exists():
        print(
            "locked split: missing (not in this checkout); its author adds it and the lead "
            "runs this measurement, aggregate counts only"
        )
        return
    report = measure_locked(path)
    r, b = report.compiler, report.baseline
    print(
        f"compiler locked: n {r.n}, line hit {_share(r.hit, r.n)}, right {_share(r.right, r.n)}, "
        f"wrong {_share(r.wrong, r.n)}, I don't know {_share(r.idk, r.n)}"
    )
    print(
        f"baseline (kind only) locked: right {_share(b.right, b.n)}, wrong "
        f"{_share(b.wrong, b.n)}; compiler vs baseline: right {_ratio(r.right, b.right)}, "
        f"wrong {_ratio(r.wrong, b.wrong)}, I don't know {_ratio(r.idk, b.idk)}"
    )
    for library, row in sorted((report.libraries or {}).items()):
        print(
            f"compiler locked, {library}: n {row.n}, right {row.right}, wrong {row.wrong}, "
            f"I don't know {row.idk}"
        )
    if report.unreadable or report.failed:
        print(
            f"locked: {report.unreadable} line(s) not a case of the schema, {report.failed} "
            "case(s) where the coach raised (counted as I don't know)"
        )
    right_bar, wrong_bar = LOCKED_TARGETS
    met = r.n > 0 and r.right / r.n >= right_bar and r.wrong / r.n <= wrong_bar
    print(
        f"targets on the locked split: right >= {right_bar:.0%}, wrong <= {wrong_bar:.0%}: "
        f"{'met' if met else 'not met'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT / "bench/data/coach_labelled.jsonl"))
    parser.add_argument("--repeat", type=int, default=5, help="calls per attempt (latency)")
    parser.add_argument("--locked", default=str(LOCKED), help="the locked split (counts only)")
    parser.add_argument(
        "--only-locked", action="store_true", help="measure the locked split and nothing else"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    if args.only_locked:
        print_locked(Path(args.locked))
        return 0
    entries = [json.loads(line) for line in Path(args.data).read_text().splitlines() if line]
    core = sum(e["library"] == "core" for e in entries)
    print(f"labelled attempts: {len(entries)} ({core} core Lean, {len(entries) - core} Mathlib)")
    print(f"classifier: {'tutor.lean.messages' if HAVE_CLASSIFIER else 'bench adapter'}")

    sources: list[tuple[str, Any, int]] = [
        ("baseline: Lean's reported line", BaselineCoach(), args.repeat),
        ("compiler", make_coach("compiler"), args.repeat),
        ("ground_truth", make_coach("ground_truth"), args.repeat),
        ("fixed", make_coach("fixed"), args.repeat),
    ]
    try:
        sources.append(("llm", make_coach("llm"), 1))
    except CoachUnavailable as why:
        print(f"llm: skipped ({why})")

    results = [run_source(name, coach, entries, repeat) for name, coach, repeat in sources]
    baseline = results[0].share(results[0].hits_any) or 1e-9
    header = (
        f"{'source':32} {'hit@any':>8} {'hit@1':>7} {'vs base':>8} "
        f"{'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'fallbk':>6}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        lat = r.latencies_ms or [0.0]
        print(
            f"{r.name:32} {r.share(r.hits_any):8.1%} {r.share(r.hits_first):7.1%} "
            f"{r.share(r.hits_any) / baseline:7.2f}x {percentile(lat, 50):8.3f} "
            f"{percentile(lat, 95):8.3f} {percentile(lat, 99):8.3f} {r.fallbacks:6d}"
        )
    compiler = results[1]
    p95 = percentile(compiler.latencies_ms or [0.0], 95)
    print(
        f"\ncompiler: hit@any {compiler.share(compiler.hits_any):.1%} (bar > 85%), "
        f"p95 {p95:.2f} ms (bar < 50 ms); mean {statistics.fmean(compiler.latencies_ms or [0]):.2f} ms"
    )
    for r in results[:3]:
        splits = ", ".join(
            f"{name} {hits}/{total}" for name, (hits, total) in sorted((r.by_split or {}).items())
        )
        print(f"hit@any by split, {r.name}: {splits}")
    print(
        "caveat: the 'dev' split was written alongside the rules (in-sample); the 'heldout' split "
        "was labelled before the coach saw it. Lean messages are transcribed by hand, not "
        "captured from a live Lean run."
    )
    advice = [json.loads(line) for line in ADVICE.read_text().splitlines() if line]
    blind = [(b, load_fresh(b.path, b.part)) for b in BLIND_SETS]
    sets = "; ".join(
        f"plus {b.label}, {len(written)} cases in part '{b.part}' ({b.provenance})"
        for b, written in blind
    )
    print(
        f"\nadvice correctness: {len(advice)} labelled mistakes "
        f"({sum(e['split'] == 'heldout' for e in advice)} held out); wording from the "
        f"recorded corpus for {sum(e['wording'] == 'corpus' for e in advice)}; {sets}"
    )
    advice = advice + [case for _, written in blind for case in written]
    table = []
    for name, coach, cleanup in advice_sources():
        table.append((name, run_advice(coach, advice)))
        if cleanup:
            cleanup()
    print_advice(table, ADVICE_BASELINE)
    compiler_rows = dict(table)["compiler"]
    by_round = run_advice(
        make_coach("compiler"),
        [dict(e, split=f"round {e['round']}") for e in advice if e["split"] == "heldout"],
    )
    for part, cases in sorted(by_round.items()):
        if part != "all":
            print(
                f"compiler heldout, {part} cases: right {cases.right}/{cases.n}, "
                f"wrong {cases.wrong}/{cases.n}, idk {cases.idk}/{cases.n}"
            )
    print("targets on held-out: right >= 90%, wrong <= 3%")
    for part in ("heldout", "tuning", *(b.part for b in BLIND_SETS)):
        row = compiler_rows.get(part)
        if row is None:
            continue
        print(
            f"compiler {part}: right {row.right}/{row.n} = {row.right / row.n:.1%}, "
            f"wrong {row.wrong}/{row.n} = {row.wrong / row.n:.1%}, "
            f"idk {row.idk}/{row.n} = {row.idk / row.n:.1%}"
        )
    for b, written in blind:
        print_fresh(written, b.part, b.label, b.provenance, b.path)
    print_locked(Path(args.locked))
    if args.markdown:
        print_markdown(table, Path(args.locked), machine)
    return 0


def print_markdown(
    advised: list[tuple[str, dict[str, AdviceRow]]], locked: Path, machine: str
) -> None:
    """bench/README.md's table: each source's advice on each part of the advice set, and the
    compiler's and the kind-only baseline's on the locked split (counts only, as above)."""
    rows: list[tuple[object, ...]] = []

    def add(name: str, part: str, r: AdviceRow) -> None:
        shares = (
            f"{count / r.n:.1%}" if r.n else "-" for count in (r.hit, r.right, r.wrong, r.idk)
        )
        rows.append((name, part, r.n, *shares))

    for name, parts in advised:
        for part in ADVICE_PARTS:
            if part in parts:
                add(name, part, parts[part])
    if locked.exists():
        report = measure_locked(locked)
        add("compiler", "locked", report.compiler)
        add(ADVICE_BASELINE, "locked", report.baseline)
    headers = ["source", "part", "n", "line hit", "right", "wrong", "I don't know"]
    md_table.print_table(headers, rows, machine)


if __name__ == "__main__":
    raise SystemExit(main())
