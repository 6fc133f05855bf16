"""The compiler coach's rules: one module per kind of Lean message, each with `advise(d, ctx)`.

A rule reads one diagnostic (its kind, message, position and the goal Lean printed) and the
attempt (`base.Context`), and returns its advice, most important first: [] or a general hint
when it has no evidence for a concrete fix. `advice_for` picks the rule for the kind.
"""

from __future__ import annotations

from collections.abc import Callable

from tutor.coach.rules import (
    anonymous_constructor,
    apply,
    calc,
    cases,
    decide,
    failed_to_synthesize,
    intro,
    invalid_field,
    linarith,
    omega,
    other,
    placeholder,
    rewrite,
    rfl,
    simp,
    sorry,
    syntax,
    tactic_failed,
    timeout,
    type_mismatch,
    unknown_identifier,
    unknown_tactic,
    unsolved_goals,
)
from tutor.coach.rules.base import Advice, Context
from tutor.lean.types import Diagnostic, DiagnosticKind

Rule = Callable[[Diagnostic, Context], list[Advice]]

K = DiagnosticKind
RULES: dict[DiagnosticKind, Rule] = {
    K.UNSOLVED_GOALS: unsolved_goals.advise,
    K.SORRY: sorry.advise,
    K.UNKNOWN_IDENTIFIER: unknown_identifier.advise,
    K.UNKNOWN_CONSTANT: unknown_identifier.advise,
    K.TYPE_MISMATCH: type_mismatch.advise,
    K.LINARITH_FAILED: linarith.advise,
    K.OMEGA_FAILED: omega.advise,
    K.SIMP_NO_PROGRESS: simp.advise,
    K.REWRITE_FAILED: rewrite.advise,
    K.SYNTAX: syntax.advise,
    K.TIMEOUT: timeout.advise,
    K.OTHER: other.advise,
    K.INTRO_FAILED: intro.advise,
    K.UNKNOWN_TACTIC: unknown_tactic.advise,
    K.DECIDE_FAILED: decide.advise,
    K.FAILED_TO_SYNTHESIZE: failed_to_synthesize.advise,
    K.RFL_FAILED: rfl.advise,
    K.APPLY_FAILED: apply.advise,
    K.CASES_ERROR: cases.advise,
    K.CALC_ERROR: calc.advise,
    K.ANONYMOUS_CONSTRUCTOR: anonymous_constructor.advise,
    K.PLACEHOLDER: placeholder.advise,
    K.TACTIC_FAILED: tactic_failed.advise,
    K.INVALID_FIELD: invalid_field.advise,
}


def advice_for(d: Diagnostic, ctx: Context) -> list[Advice]:
    """The advice of the rule for `d`'s kind; kinds without a rule of their own read `other`."""
    return RULES.get(d.kind, other.advise)(d, ctx)


__all__ = ["RULES", "Advice", "Context", "advice_for"]
