"""The classifier on real, recorded Lean output (../shared/data/lean_transcripts).

Coverage by corpus kind: a message counts as recognised when classify() gives it a kind other
than OTHER and, where the corpus labels it, a kind that matches the label (EXPECTED). The
held-out third of the recorded test files (corpus.held_out) was never looked at while writing
the patterns; its figures are printed separately and held to a lower bar.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.tutor.lean.corpus import CORPUS, EXPECTED, MISSING, NOT_FROM_PROOFS, Recorded, load
from tutor.lean.messages import classify, extract_goal, mismatch_parts, parse_goal_block
from tutor.lean.types import DiagnosticKind

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)

COUNTED_WARNINGS = {"sorry_warning", "deprecated", "unused_variable"}


def _counted(item: Recorded) -> bool:
    return item.severity == "error" or item.corpus_kind in COUNTED_WARNINGS


def _recognised(item: Recorded) -> bool:
    kind = classify(item.text)
    if kind is DiagnosticKind.OTHER:
        return False
    wanted = EXPECTED.get(item.corpus_kind)
    return wanted is None or str(kind) in wanted


def coverage(items: list[Recorded]) -> tuple[dict[str, tuple[int, int]], list[Recorded]]:
    by_kind: dict[str, list[int]] = {}
    misses = []
    for item in items:
        if not _counted(item):
            continue
        label = item.corpus_kind or f"repl:{classify(item.text)}"
        row = by_kind.setdefault(label, [0, 0])
        ok = _recognised(item)
        row[0] += ok
        row[1] += 1
        if not ok:
            misses.append(item)
    return {k: (v[0], v[1]) for k, v in by_kind.items()}, misses


def _report(name: str, table: dict[str, tuple[int, int]]) -> str:
    rows = [f"{name}: " + ", ".join(f"{k} {h}/{n}" for k, (h, n) in sorted(table.items()))]
    hit = sum(h for h, _ in table.values())
    total = sum(n for _, n in table.values())
    rows.append(f"{name}: {hit}/{total} = {hit / max(total, 1):.1%} recognised")
    return "\n".join(rows)


def _proof_messages(items: list[Recorded]) -> list[Recorded]:
    return [i for i in items if i.corpus_kind not in NOT_FROM_PROOFS]


def test_every_proof_message_in_the_tuning_part_is_recognised(capsys) -> None:
    items = [i for i in load() if not i.held_out]
    table, misses = coverage(_proof_messages(items))
    with capsys.disabled():
        print("\n" + _report("tuning part", table))
    assert sum(n for _, n in table.values()) > 150
    assert not misses, [(m.test, m.corpus_kind, classify(m.text), m.text[:80]) for m in misses]


def test_held_out_part_is_measured_separately(capsys) -> None:
    items = [i for i in load() if i.held_out]
    table, misses = coverage(_proof_messages(items))
    hit = sum(h for h, _ in table.values())
    total = sum(n for _, n in table.values())
    with capsys.disabled():
        print("\n" + _report("held-out part", table))
        for m in misses:
            print(f"  miss: {m.test} [{m.corpus_kind}] -> {classify(m.text)}: {m.text[:70]!r}")
    assert total > 60
    # The bar for messages no pattern was written against; the figure itself is printed.
    assert hit / total >= 0.9


def test_declaration_only_messages_are_not_mistaken_for_proof_errors() -> None:
    for item in load():
        if item.corpus_kind in NOT_FROM_PROOFS and not item.held_out:
            assert classify(item.text) in (DiagnosticKind.DECLARATION, DiagnosticKind.KERNEL)


def test_wording_variants_from_the_readme_get_one_kind() -> None:
    variants = {
        DiagnosticKind.UNKNOWN_IDENTIFIER: ["unknown identifier 'x'", "Unknown identifier `x`"],
        DiagnosticKind.NO_GOALS: ["no goals to be solved", "No goals to be solved"],
        DiagnosticKind.SORRY: ["declaration uses 'sorry'", "declaration uses `sorry`"],
        DiagnosticKind.TYPE_MISMATCH: [
            "application type mismatch\n  f a\nargument\n  a\nhas type\n  A\nbut is expected to have type\n  B",
            "Application type mismatch: In the application\n  f a\nthe argument\n  a\nhas type\n  A\nbut is expected to have type\n  B",
            "Application type mismatch: The argument\n  a\nhas type\n  A\nof sort `Type` but is expected to have type\n  B\nof sort `Type` in the application\n  f a",
            "type mismatch\n  a\nhas type\n  A\nbut is expected to have type\n  B",
            "Type mismatch\n  a\nhas type\n  A\nbut is expected to have type\n  B",
        ],
        DiagnosticKind.FAILED_TO_SYNTHESIZE: [
            "failed to synthesize\n  P 37",
            "failed to synthesize instance\n  OfNat Bool 0",
            "failed to synthesize instance of type class\n  P 37",
            "failed to synthesize Decidable (∀ n, n + 0 = n)",
            "typeclass instance problem is stuck, it is often due to metavariables",
        ],
        DiagnosticKind.REWRITE_FAILED: [
            "tactic 'rewrite' failed, did not find instance of the pattern in the target expression\n  a",
            "Tactic `rewrite` failed: Did not find an occurrence of the pattern\n  a",
        ],
        DiagnosticKind.CASES_ERROR: [
            "alternative 'isFalse' has not been provided",
            "Alternative `isFalse` has not been provided",
        ],
    }
    for kind, texts in variants.items():
        for text in texts:
            assert classify(text) is kind, text
            assert classify("error(lean.x): " + text) is kind, text
    assert classify("Lean error:\n<input>:1:1: unknown tactic") is DiagnosticKind.UNKNOWN_TACTIC


def test_every_mismatch_wording_yields_term_has_and_expected() -> None:
    seen: Counter[str] = Counter()
    for item in load():
        if item.held_out or classify(item.text) is not DiagnosticKind.TYPE_MISMATCH:
            continue
        if "has type" not in item.text or item.text.startswith("field"):
            continue
        parts = mismatch_parts(item.text)
        assert parts is not None, item.text
        assert parts.term and parts.has and parts.expected, item.text
        assert "of sort" not in parts.expected and "has type" not in parts.term
        seen[item.text.split("\n", 1)[0][:30]] += 1
    assert len(seen) >= 4  # the four recorded openings


def test_goals_case_tags_and_inaccessible_names_are_parsed() -> None:
    case_tags: set[str] = set()
    inaccessible: set[str] = set()
    goals_seen = 0
    for item in load():
        if item.held_out or "⊢" not in item.text:
            continue
        block = extract_goal(item.text)
        goals = parse_goal_block(block)
        assert goals, item.text
        goals_seen += len(goals)
        for goal in goals:
            assert goal.target and "⊢" not in goal.target
            if goal.case:
                case_tags.add(goal.case)
            inaccessible.update(goal.inaccessible)
    assert goals_seen > 40
    assert {"succ", "zero"} <= case_tags
    assert any(name.startswith("h✝") for name in inaccessible)


def test_a_goal_block_with_cases_and_dagger_names() -> None:
    goals = parse_goal_block("case inl\np q : Prop\nh✝ : p\n⊢ p ∨\n    q\n\ncase inr\na✝¹ : q\n⊢ q")
    assert [g.case for g in goals] == ["inl", "inr"]
    assert goals[0].target == "p ∨ q"
    assert goals[0].hypotheses[0].names == ("p", "q")
    assert goals[0].inaccessible == ("h✝",) and goals[1].inaccessible == ("a✝¹",)
