"""Parse errors (`unexpected token ...; expected ...`): Lean stopped reading at this line."""

from __future__ import annotations

import re

from tutor.coach import fixes
from tutor.coach.context import facts_in_scope, proofs_of, traced_goal
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
    if "expected ':='" in lowered or "expected `:=`" in lowered:
        colon = re.fullmatch(
            r"(?P<head>(?:·\s*)?(?:obtain|have|let|rcases)\b.*?)\s:\s(?P<rest>[\w'₀-₉.]+)\s*",
            source_line.strip(),
        )
        if colon:
            fixed = f"{colon.group('head')} := {colon.group('rest')}"
            return one(
                line,
                f"Do write `{fixed}` on line {line}: the fact to take apart (or the proof) comes "
                "after `:=`; a single `:` would start a type, and a name is no type.",
            )
    bare = _bare_tactic(d, ctx)
    if bare:
        return [bare]
    if "'↦', '=>'" in message or "`↦`, `=>`" in message:
        lambda_line = _lean4_lambda(source_line.strip())
        shown = f"`{lambda_line}`" if lambda_line else "`fun x => ...`"
        return one(
            line,
            f"Do write {shown} on line {line}: Lean 3's comma (or `->`) after a `fun` binder "
            "is `=>` (or `↦`) in Lean 4, so `fun x => e`, not a comma.",
        )
    if "begin" in source_line.split() or source_line.strip() == "begin":
        return one(
            line,
            f"Don't use Lean 3 `begin ... end` on line {line}: in Lean 4 write `:= by` and "
            "then the tactics, one per line, indented under it.",
        )
    match = _UNEXPECTED.search(message)
    token = (match.group("tok") or match.group("what") or "").strip() if match else ""
    ascii_pair = re.search(r"<([^<>]*,[^<>]*)>", ctx.text.line(line))
    if token == "<" and ascii_pair:
        fixed = ctx.text.line(line).strip().replace(ascii_pair.group(0), f"⟨{ascii_pair.group(1)}⟩")
        return one(
            line,
            f"Do write `{shorten(fixed, 40)}` on line {line}: an anonymous constructor uses the "
            "angle brackets `⟨ ⟩` (typed `\\<` and `\\>`), not `<` and `>`, which are "
            "less-than and greater-than.",
        )
    if token == ",":
        return one(
            line,
            f"Do remove the comma on line {line}: commas between tactics are Lean 3 syntax; "
            "Lean 4 separates tactics by new lines or `;`, and uses `<;>` to run one on every "
            "goal.",
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


_LAMBDA = re.compile(r"(?:λ|fun)\s+((?:⟨[^⟨⟩]*⟩|[^,=⟨])+?)\s*(?:,|->)\s*")


def _lean4_lambda(source: str) -> str | None:
    """The student's line with each `λ x, e` / `fun x -> e` written `fun x => e`."""
    fixed = _LAMBDA.sub(lambda m: f"fun {m.group(1).strip()} => ", source)
    return fixed if fixed != source and len(fixed) <= 60 else None


_TERM_TACTICS = ("exact", "apply", "refine", "use", "exists", "calc", "show", "have")


def _bare_tactic(d: Diagnostic, ctx: Context) -> Advice | None:
    """`exact` (or `apply`, `use`, ...) with nothing after it: Lean reads on for the term and
    meets the end of the proof. The tactic needs its term; name one when the hypotheses in
    scope build the goal there (traced from the statement)."""
    code = ctx.text.line(d.line).split("--", 1)[0].strip().lstrip("·").strip()
    if (
        code not in _TERM_TACTICS
        or "end of input" not in d.message.lower()
        and "expected term" not in d.message.lower()
    ):
        return None
    goal = traced_goal(ctx.statement, ctx.text, d.line)
    proofs = proofs_of(goal, facts_in_scope(ctx.statement, ctx.text, d.line)) if goal else []
    example = f", here `exact {proofs[0]}`" if proofs and code in ("exact", "apply") else ""
    return Advice(
        d.line,
        f"Do give `{code}` the term it needs on line {d.line}{example}: `{code}` takes a proof "
        "(or value) after it, and with nothing there Lean reached the end of the input.",
    )
