"""Parse errors (`unexpected token ...; expected ...`): Lean stopped reading at this line."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.goals import (
    shorten,
)
from tutor.coach.rules.base import (
    Advice,
    Context,
    one,
    scene_at,
)
from tutor.lean.types import Diagnostic

_UNEXPECTED = re.compile(
    r"unexpected (?:token\s*['`]?(?P<tok>[^'`;]+)['`]?|(?P<what>\w[\w ]*?))[;:]"
)


def advise(d: Diagnostic, ctx: Context) -> list[Advice]:
    line = d.line
    message = d.message
    source_line = ctx.text.line(line)
    lowered = message.lower()
    lean4 = fixes.lean3_syntax(source_line.strip(), scene_at(d, ctx))
    if lean4:
        return one(
            line,
            f"Do write {lean4} on line {line}: this is Lean 3 syntax, which Lean 4 does not read.",
        )
    if "expected '['" in lowered or "expected `[`" in lowered:
        fixed = re.sub(
            r"\b(rw|rewrite|simp only|rwa)\s+(?!\[)([^\s\[]+)", r"\1 [\2]", source_line.strip()
        )
        return one(
            line,
            f"Do put the rewrite rules in square brackets on line {line}, as in `{fixed}`: "
            "Lean 4 writes `rw [h]` and `simp only [h]`, not `rw h`.",
        )
    if "'↦', '=>'" in message or "`↦`, `=>`" in message:
        return one(
            line,
            f"Do write `fun x => ...` on line {line}: Lean 4 puts `=>` (or `↦`) after the "
            "binder where Lean 3 used a comma.",
        )
    if "begin" in source_line.split() or source_line.strip() == "begin":
        return one(
            line,
            f"Don't use Lean 3 `begin ... end` on line {line}: in Lean 4 write `:= by` and "
            "then the tactics, one per line, indented under it.",
        )
    match = _UNEXPECTED.search(message)
    token = (match.group("tok") or match.group("what") or "").strip() if match else ""
    if token == ",":
        return one(
            line,
            f"Don't end or separate tactics with commas on line {line}: Lean 4 separates "
            "tactics by new lines or `;`, and uses `<;>` to run one on every goal.",
        )
    if token == "at":
        return one(
            line,
            f"Do check the tactic before `at` on line {line}: only some tactics take "
            "`at h`, such as `rw [..] at h`, `simp at h` and `norm_num at h`.",
        )
    first = shorten(message.splitlines()[0], 60)
    return one(
        line,
        f"Do fix the syntax on line {line} first: Lean stopped reading there ({first}), so "
        "nothing after this point was checked yet.",
    )
