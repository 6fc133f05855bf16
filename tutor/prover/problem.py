"""A problem the prover is asked to prove."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    id: str
    statement: str  # Lean: "theorem name (args) : goal := by" (with or without `:= by`)
    header: str = ""  # imports / opens placed before the statement, e.g. "import Mathlib\n"
    informal: str = ""  # the problem in words, if known
    reference_proof: str | None = None  # a known proof body (ground-truth coach, evaluation)

    def __post_init__(self) -> None:
        if not self.statement.strip():
            raise ValueError("a problem needs a Lean statement")

    @property
    def uses_mathlib(self) -> bool:
        return "import Mathlib" in self.header or "import Mathlib" in self.statement

    @property
    def statement_head(self) -> str:
        """The statement without a trailing `:= by` / `:=`, for `... := by <tactics>`."""
        text = self.statement.rstrip()
        for suffix in (":= by", ":="):
            if text.endswith(suffix):
                return text[: -len(suffix)].rstrip()
        return text

    def with_proof(self, tactics: str) -> str:
        """The complete Lean file: header, statement, and the tactic proof indented."""
        body = "\n".join("  " + line if line.strip() else line for line in tactics.splitlines())
        return f"{self.header}{self.statement_head} := by\n{body}\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Problem:
        """Reads our own fields and the miniF2F / Lean Workbook JSONL fields."""
        return cls(
            id=str(data.get("id") or data.get("name") or ""),
            statement=str(data.get("statement") or data["formal_statement"]),
            header=str(data.get("header", "")),
            informal=str(data.get("informal") or data.get("informal_prefix") or ""),
            reference_proof=data.get("reference_proof"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "statement": self.statement,
            "header": self.header,
            "informal": self.informal,
            "reference_proof": self.reference_proof,
        }
