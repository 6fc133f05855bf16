"""The checker's public result types: a contract that the coach, the prover, training
and the web app all read. Change a field only with every caller.

What a verdict covers: see CheckResult.valid.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class LeanUnavailable(RuntimeError):
    """No Lean REPL could be found or started. The message says what to do about it."""


class DiagnosticKind(StrEnum):
    UNSOLVED_GOALS = "unsolved_goals"
    TYPE_MISMATCH = "type_mismatch"
    UNKNOWN_IDENTIFIER = "unknown_identifier"
    UNKNOWN_CONSTANT = "unknown_constant"
    LINARITH_FAILED = "linarith_failed"
    OMEGA_FAILED = "omega_failed"
    SIMP_NO_PROGRESS = "simp_no_progress"
    REWRITE_FAILED = "rewrite_failed"
    SYNTAX = "syntax"
    TIMEOUT = "timeout"
    SORRY = "sorry"
    # Added for the real-message corpus (issue 15); OTHER means "not recognised".
    FAILED_TO_SYNTHESIZE = "failed_to_synthesize"
    RFL_FAILED = "rfl_failed"
    DECIDE_FAILED = "decide_failed"
    APPLY_FAILED = "apply_failed"  # apply / exact / constructor could not use the term
    INTRO_FAILED = "intro_failed"  # intro with more names than binders
    CASES_ERROR = "cases_error"  # induction / cases / match alternatives and targets
    NO_GOALS = "no_goals"
    CALC_ERROR = "calc_error"
    PLACEHOLDER = "placeholder"  # a `_` or implicit argument Lean could not fill
    FUNCTION_EXPECTED = "function_expected"
    INFER_FAILED = "infer_failed"
    INVALID_FIELD = "invalid_field"  # h.left on an ∨, dotted names that do not resolve
    ANONYMOUS_CONSTRUCTOR = "anonymous_constructor"  # ⟨_, _⟩ where no structure is expected
    AMBIGUOUS = "ambiguous"
    TACTIC_FAILED = "tactic_failed"  # any other named tactic that failed (ring, norm_num...)
    UNKNOWN_TACTIC = "unknown_tactic"
    TERMINATION = "termination"
    KERNEL = "kernel"
    DEPRECATED = "deprecated"
    UNUSED_VARIABLE = "unused_variable"
    DECLARATION = "declaration"  # about a declaration's shape (inductive, universe...), not a proof
    OTHER = "other"


@dataclass(frozen=True)
class Diagnostic:
    """One Lean message, positioned in the code the caller passed (not the REPL's view)."""

    line: int  # 1-based
    column: int  # 0-based codepoints, as Lean reports
    end_line: int | None
    end_column: int | None
    severity: str  # "error" | "warning" | "info"
    message: str
    kind: DiagnosticKind = DiagnosticKind.OTHER
    goal: str | None = None  # the goal text Lean printed with the message, if any

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = str(self.kind)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diagnostic:
        return cls(
            line=int(data["line"]),
            column=int(data["column"]),
            end_line=data.get("end_line"),
            end_column=data.get("end_column"),
            severity=str(data["severity"]),
            message=str(data["message"]),
            kind=DiagnosticKind(data.get("kind", "other")),
            goal=data.get("goal"),
        )


@dataclass(frozen=True)
class Sorry:
    goal: str
    line: int
    column: int


@dataclass(frozen=True)
class TacticStep:
    """One tactic as the REPL's `allTactics` reports it, positioned like Diagnostic.

    `goals_before` is the REPL's own `goals` text (Lean's pretty-printed goals, `case` names
    included, goals separated by a blank line). `goals_after` is derived, not reported: the
    goals before the next step that starts after this one ends; "" means no goals remain
    (the check passed and nothing follows); None means unknown (an error stopped the proof).
    """

    line: int
    column: int
    end_line: int
    end_column: int
    tactic: str
    goals_before: str
    goals_after: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TacticStep:
        return cls(
            line=int(data["line"]),
            column=int(data["column"]),
            end_line=int(data["end_line"]),
            end_column=int(data["end_column"]),
            tactic=str(data["tactic"]),
            goals_before=str(data.get("goals_before", "")),
            goals_after=data.get("goals_after"),
        )


@dataclass
class CheckResult:
    """The outcome of one check.

    valid is True only when Lean ran to the end with no error message, no sorry, (for
    check_proof) the posed statement unchanged, and `#print axioms` listing nothing beyond
    propext, Classical.choice and Quot.sound. timed_out / crashed / error mean "could not
    check": valid is then False, but callers must not read that as "the proof is wrong".
    """

    valid: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sorries: list[Sorry] = field(default_factory=list)
    timed_out: bool = False
    crashed: bool = False
    error: str | None = None
    elapsed_s: float = 0.0
    axioms: list[str] | None = None
    tactics: list[TacticStep] = field(default_factory=list)  # check_proof asks allTactics

    @property
    def could_not_check(self) -> bool:
        return self.timed_out or self.crashed or self.error is not None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "sorries": [asdict(s) for s in self.sorries],
            "timed_out": self.timed_out,
            "crashed": self.crashed,
            "error": self.error,
            "elapsed_s": self.elapsed_s,
            "axioms": self.axioms,
            "tactics": [t.to_dict() for t in self.tactics],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CheckResult:
        return cls(
            valid=bool(data["valid"]),
            diagnostics=[Diagnostic.from_dict(d) for d in data.get("diagnostics", [])],
            sorries=[Sorry(**s) for s in data.get("sorries", [])],
            timed_out=bool(data.get("timed_out", False)),
            crashed=bool(data.get("crashed", False)),
            error=data.get("error"),
            elapsed_s=float(data.get("elapsed_s", 0.0)),
            axioms=data.get("axioms"),
            tactics=[TacticStep.from_dict(t) for t in data.get("tactics", [])],
        )


@dataclass(frozen=True)
class LeanStatus:
    """Whether Lean checks can run here (for /healthz and the UI); computed cheaply."""

    available: bool
    reason: str  # a sentence a user can act on
    repl_command: list[str] | None
    sandboxed: bool
    limits: str = ""  # which per-process limits hold (rlimits, cgroup, seccomp) and why not

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
