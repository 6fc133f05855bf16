"""The recorded real-Lean message corpus in ../shared/data/lean_transcripts, split for honesty.

A deterministic third of the recorded test files (by a hash of the test name) is held out: the
classifier's patterns were never tuned on its messages. Both the paired and the unpaired files
and every error/warning in the REPL's own transcripts are read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / ".." / "shared" / "data" / "lean_transcripts"
MISSING = f"the recorded Lean corpus is not at {CORPUS} (../shared from the repo root)"

# Corpus kinds (README "Kinds") -> the DiagnosticKind values that count as recognising them.
EXPECTED = {
    "unsolved_goals": {"unsolved_goals"},
    "type_mismatch": {"type_mismatch"},
    "app_type_mismatch": {"type_mismatch"},
    "unknown_identifier": {"unknown_identifier", "unknown_constant"},
    "unknown_constant": {"unknown_constant", "unknown_identifier"},
    "failed_to_synthesize": {"failed_to_synthesize"},
    "rfl_failure": {"rfl_failed"},
    "decide_failure": {"decide_failed"},
    "simp_failure": {"simp_no_progress", "tactic_failed"},
    "omega_failure": {"omega_failed"},
    "rewrite_failure": {"rewrite_failed"},
    "exact_apply_failure": {"apply_failed"},
    "induction_cases_error": {"cases_error"},
    "no_goals": {"no_goals"},
    "parse_error": {"syntax"},
    "deprecated": {"deprecated"},
    "sorry_warning": {"sorry"},
    "unused_variable": {"unused_variable"},
    "timeout_recursion": {"timeout", "failed_to_synthesize"},
    "termination": {"termination"},
    "universe_error": {"declaration"},
    "calc_error": {"calc_error"},
    "placeholder_synthesis": {"placeholder"},
    "function_expected": {"function_expected"},
    "infer_failure": {"infer_failed"},
    "match_pattern_error": {"cases_error"},
    "kernel_error": {"kernel"},
}
# Corpus kinds that only a declaration (inductive types, universes, unsafe code) produces,
# never a proof of a theorem: reported, but not part of the "proof messages" bar.
NOT_FROM_PROOFS = {"universe_error", "kernel_error"}


def held_out(test_name: str) -> bool:
    """A fixed third of the recorded test files, chosen by hash: never used to tune rules."""
    return hashlib.sha256(test_name.encode()).digest()[0] % 3 == 0


@dataclass(frozen=True)
class Recorded:
    test: str
    text: str
    severity: str
    corpus_kind: str  # the corpus label ("other" when the corpus has none either)
    source: str  # "paired" | "unpaired" | "repl"

    @property
    def held_out(self) -> bool:
        return held_out(self.test)


def load() -> list[Recorded]:
    items: list[Recorded] = []
    for name, source in (
        ("lean4_messages.jsonl", "paired"),
        ("lean4_messages_unpaired.jsonl", "unpaired"),
    ):
        for raw in (CORPUS / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(raw)
            for m in record["messages"]:
                items.append(
                    Recorded(record["test"], m["text"], m["severity"], m["kinds"][0], source)
                )
    for out in sorted((CORPUS / "repl").rglob("*.expected.out")):
        test = "repl/" + out.name.removesuffix(".expected.out")
        for chunk in out.read_text(encoding="utf-8").split("\n\n"):
            if not chunk.strip():
                continue
            reply = json.loads(chunk)
            for m in reply.get("messages", []):
                if m["severity"] in ("error", "warning"):
                    items.append(Recorded(test, m["data"], m["severity"], "", "repl"))
            text = reply.get("message", "")
            if len(reply) == 1 and text.startswith("Lean error:"):
                items.append(Recorded(test, text, "error", "", "repl"))
    return items
