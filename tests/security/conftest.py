"""Attack tests run against the REPL test double (a real subprocess that, like Lean,
lets elaborated code write into its own reply stream) and, marked `lean`, real Lean."""

from tests.tutor.lean.conftest import checker, isolated_lean_env, make_checker, real_checker

__all__ = ["checker", "isolated_lean_env", "make_checker", "real_checker"]
