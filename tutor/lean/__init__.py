"""The product's only boundary to Lean 4 (docs/LEAN.md).

from tutor.lean import LeanChecker, CheckResult, Diagnostic, LeanUnavailable
"""

from tutor.lean.checker import (
    LeanChecker,
    LeanConfig,
    ReplSession,
    TacticResult,
    get_checker,
    lean_status,
    proof_document,
    reset_checker,
    split_header,
)
from tutor.lean.repl import (
    ReplCrashed,
    ReplError,
    ReplProtocolError,
    ReplRefusedInput,
    ReplTimeout,
)
from tutor.lean.types import (
    CheckResult,
    Diagnostic,
    DiagnosticKind,
    LeanStatus,
    LeanUnavailable,
    Sorry,
)
from tutor.lean.verdict import ALLOWED_AXIOMS

__all__ = [
    "ALLOWED_AXIOMS",
    "CheckResult",
    "Diagnostic",
    "DiagnosticKind",
    "LeanChecker",
    "LeanConfig",
    "LeanStatus",
    "LeanUnavailable",
    "ReplCrashed",
    "ReplError",
    "ReplProtocolError",
    "ReplRefusedInput",
    "ReplSession",
    "ReplTimeout",
    "Sorry",
    "TacticResult",
    "get_checker",
    "lean_status",
    "proof_document",
    "reset_checker",
    "split_header",
]
