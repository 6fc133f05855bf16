"""Parsing, validating and repairing model-written feedback."""

from __future__ import annotations

from tutor.coach.validation import parse_feedback, text_problem

TEN = "so that the proof of the goal can go on from here"  # 11 words of filler


def test_it_reads_a_line_anchored_list() -> None:
    raw = (
        "1. [line 3] Do add `exact hp` after the bullet on line 3 " + TEN + ".\n"
        "2. [line none] Don't guess lemma names, search with rg_in_mathlib " + TEN + "."
    )
    parsed = parse_feedback(raw, n_lines=5)
    assert parsed.ok and not parsed.repairs
    assert [(s.line, s.kind) for s in parsed.suggestions] == [(3, "do"), (None, "dont")]


def test_it_accepts_json_and_drops_reasoning_blocks() -> None:
    raw = '<think>long musing</think>[{"line": 2, "text": "Do use omega on line 2 ' + TEN + '."}]'
    parsed = parse_feedback(raw, n_lines=2)
    assert parsed.ok and parsed.suggestions[0].line == 2


def test_it_clamps_to_three_items_and_drops_lines_outside_the_attempt() -> None:
    items = "\n".join(f"- Line {n}: Do try step {n} " + TEN + "." for n in (1, 2, 9, 4))
    parsed = parse_feedback(items, n_lines=4)
    assert len(parsed.suggestions) == 3
    assert [s.line for s in parsed.suggestions] == [1, 2, None]
    assert any(r.startswith("clamp: line 9") for r in parsed.repairs)
    assert any("kept the first 3" in r for r in parsed.repairs)


def test_it_splits_and_trims_long_items() -> None:
    long_do = "Do " + " ".join(["rewrite"] * 30) + "."
    long_dont = "Don't " + " ".join(["guess"] * 30) + "."
    parsed = parse_feedback(f"[line 1] {long_do} {long_dont}", n_lines=1)
    assert parsed.ok and len(parsed.suggestions) == 2
    assert any(r.startswith("split") for r in parsed.repairs)
    huge = "[line 1] Do " + " ".join(["step"] * 80)
    parsed = parse_feedback(huge, n_lines=1)
    assert parsed.ok and len(parsed.suggestions[0].text.split()) == 50
    assert any(r.startswith("trim") for r in parsed.repairs)


def test_it_rejects_advice_that_is_not_imperative_or_too_short() -> None:
    parsed = parse_feedback("You could maybe try omega here.\n\nDo omega.", n_lines=3)
    assert not parsed.ok and len(parsed.problems) == 2
    assert not parse_feedback("", n_lines=3).ok


def test_text_rules() -> None:
    assert text_problem("Do " + "x " * 20) is None
    assert "fewer than" in (text_problem("Do it now.") or "")
    assert "more than" in (text_problem("Don't " + "x " * 60) or "")
    assert "start" in (text_problem("Try omega " + "x " * 20) or "")
