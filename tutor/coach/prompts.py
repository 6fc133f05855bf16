"""Coach prompt variants P1..P4, of increasing structure (paper section 8); P4 is the default.

P1 asks for advice and nothing more; P2 adds the "Do X" / "Don't do X" form and the 1-3
count; P3 adds the line-anchored output format and the 10-50 word rule; P4 adds
self-containedness, "do not write the proof", where to anchor, and encouragement to use the
tools (lean_check_file, rg_in_mathlib, exact?). Each variant carries a version string that
is stored with every Feedback and is part of the cache key: change the text, bump the version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tutor.lean.types import Diagnostic


@dataclass(frozen=True)
class PromptVariant:
    name: str
    version: str
    system: str
    instructions: str


_SYSTEM = "You are a patient coach for students writing proofs in Lean 4."

_FORMAT = (
    "Write each suggestion on its own line as `[line N] Do ...` or `[line N] Don't ...`, "
    "where N is the line number of the attempt the suggestion is about (write `[line none]` "
    "if it is about no single line). Each suggestion has 10 to 50 words. Output only the "
    "suggestions."
)

_SELF_CONTAINED = (
    "Each suggestion must be self-contained: someone who sees only the problem and your "
    "suggestion, not this attempt or Lean's messages, must understand it, so name the goal, "
    "hypothesis, tactic or lemma it refers to. Do not write out a full proof. Anchor each "
    "suggestion on the line the student should change, which is not always the line Lean "
    "reports: unsolved goals are reported at `by`, `·` or `=>` but the fix goes after the last "
    "tactic of that block, and a `sorry` warning sits on the theorem name but the fix replaces "
    "the `sorry`. Where it helps, encourage using the tools: lean_check_file to check a step, "
    "rg_in_mathlib to find the exact name of a lemma, and `exact?` to search for a lemma."
)

VARIANTS: dict[str, PromptVariant] = {
    "P1": PromptVariant("P1", "P1.v1", _SYSTEM, "Give some advice to improve this attempt."),
    "P2": PromptVariant(
        "P2",
        "P2.v1",
        _SYSTEM,
        "Give 1 to 3 suggestions to improve this attempt, each phrased as 'Do X' or 'Don't do X'.",
    ),
    "P3": PromptVariant(
        "P3",
        "P3.v1",
        _SYSTEM,
        "Give 1 to 3 suggestions to improve this attempt, each phrased as 'Do X' or "
        f"'Don't do X'. {_FORMAT}",
    ),
    "P4": PromptVariant(
        "P4",
        "P4.v1",
        _SYSTEM,
        "Give 1 to 3 suggestions to improve this attempt, each phrased as 'Do X' or "
        f"'Don't do X'. {_FORMAT} {_SELF_CONTAINED}",
    ),
}
DEFAULT_PROMPT = "P4"


def get_variant(name: str) -> PromptVariant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown coach prompt {name!r}: use one of {sorted(VARIANTS)}") from None


def numbered(attempt: str) -> str:
    lines = attempt.split("\n")
    width = len(str(len(lines)))
    return "\n".join(f"{i:>{width}} | {line}" for i, line in enumerate(lines, start=1))


def render_messages(diagnostics: Sequence[Diagnostic]) -> str:
    if not diagnostics:
        return "(none: Lean accepted the attempt)"
    rows = []
    for d in diagnostics:
        body = "\n    ".join(d.message.split("\n"))
        rows.append(f"- line {d.line}, column {d.column} ({d.severity}): {body}")
    return "\n".join(rows)


def render_user(
    variant: PromptVariant,
    statement: str,
    attempt: str,
    diagnostics: Sequence[Diagnostic],
    examples: str = "",
) -> str:
    """The user message; `examples` is teaching.render_examples(...) (teacher few-shot)."""
    block = f"{examples.strip()}\n\n" if examples.strip() else ""
    return (
        f"Problem:\n{statement.strip()}\n\n"
        f"Attempt (with line numbers):\n{numbered(attempt)}\n\n"
        f"Lean's messages:\n{render_messages(diagnostics)}\n\n"
        f"{block}{variant.instructions}"
    )


def repair_request(problems: Sequence[str]) -> str:
    listed = "; ".join(problems[:4]) or "the format was not followed"
    return (
        f"Your answer could not be used ({listed}). Answer again with 1 to 3 lines, each "
        "`[line N] Do ...` or `[line N] Don't ...`, 10 to 50 words each, and nothing else."
    )
