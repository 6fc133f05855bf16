"""Every message real Lean printed in the recorded corpus (../shared/data/lean_transcripts,
paired with the file that produced it) goes through the compiler coach's rules without a rule
failing on its text, and the advice keeps the coach's form: the wording the rules parse is the
wording Lean prints."""

from __future__ import annotations

import json
import logging

import pytest

from tests.tutor.lean.corpus import CORPUS, MISSING
from tutor.coach.compiler import CompilerCoach, CompilerCoachConfig
from tutor.coach.validation import text_problem
from tutor.lean.messages import classify, extract_goal
from tutor.lean.types import Diagnostic

pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason=MISSING)


def _paired() -> list[tuple[str, str, list[Diagnostic]]]:
    records = []
    for raw in (CORPUS / "lean4_messages.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        if not record.get("lean"):
            continue
        diagnostics = []
        for m in record["messages"]:
            if m["severity"] not in ("error", "warning"):
                continue
            kind = classify(m["text"])
            diagnostics.append(
                Diagnostic(
                    line=m["line"],
                    column=m["column"],
                    end_line=m.get("end_line"),
                    end_column=m.get("end_column"),
                    severity=m["severity"],
                    message=m["text"],
                    kind=kind,
                    goal=extract_goal(m["text"], kind),
                )
            )
        if diagnostics:
            records.append((record["test"], record["lean"], diagnostics))
    return records


@pytest.mark.parametrize("mathlib", [False, True], ids=["core", "mathlib"])
def test_no_rule_fails_on_what_lean_really_prints(
    mathlib: bool, caplog: pytest.LogCaptureFixture
) -> None:
    records = _paired()
    assert len(records) > 40
    coach = CompilerCoach(CompilerCoachConfig(mathlib=mathlib))
    with caplog.at_level(logging.ERROR, logger="tutor.coach.compiler"):
        for test, source, diagnostics in records:
            lines = source.split("\n")
            statement = next(
                (text for text in lines if text.lstrip().startswith(("theorem", "example"))), ""
            )
            feedback = coach.advise(statement, source, diagnostics)
            assert 1 <= len(feedback.suggestions) <= 3, test
            for s in feedback.suggestions:
                assert text_problem(s.text) is None, (test, s.text)
                assert s.line is None or 1 <= s.line <= len(lines), (test, s.line)
    failed = [r.getMessage() for r in caplog.records if "rule for" in r.getMessage()]
    assert not failed, failed


def test_recorded_type_inference_failures_are_answered_by_name() -> None:
    """Each recorded `failed to infer ... type` and `implicit argument` message gets advice
    about the binder or argument, not the general "read the message" hint."""
    coach = CompilerCoach(CompilerCoachConfig(mathlib=False))
    seen = 0
    for test, source, diagnostics in _paired():
        for d in diagnostics:
            lowered = d.message.lower()
            if not (lowered.startswith("failed to infer") or "implicit argument" in lowered):
                continue
            seen += 1
            feedback = coach.advise(source.split("\n")[0], source, [d])
            text = " ".join(s.text for s in feedback.suggestions)
            assert "a type on line" in text or "implicit argument `" in text, (test, text)
    assert seen >= 10
