"""Problems for training and evaluation, read from JSONL.

Fields (those of ../shared/data/minif2f.jsonl): name, formal_statement (ends with `:= by`),
header (imports/opens), optional informal_prefix and split, and optional `reference_proof`
(a proof body: used by SFT and by the ground_truth coach). Records become the prover's own
tutor.prover.problem.Problem. Problems whose header imports Mathlib are
only usable where Mathlib is installed; elsewhere they are skipped and counted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tutor.prover.problem import Problem


@dataclass
class ProblemSet:
    problems: list[Problem]
    skipped_needs_mathlib: int = 0


def mathlib_installed() -> bool:
    """True when the Lean installation the checker uses has Mathlib (installer manifest)."""
    from tutor.lean import detect

    path = detect.manifest_path()
    if not path.is_file():
        return False
    try:
        return bool(json.loads(path.read_text(encoding="utf-8")).get("mathlib", False))
    except (OSError, ValueError):
        return False


def load_problems(
    path: str | Path, max_problems: int = 0, split: str = "", mathlib: bool | None = None
) -> ProblemSet:
    """Read problems; drop those that need Mathlib when it is not installed (counted)."""
    have_mathlib = mathlib_installed() if mathlib is None else mathlib
    problems, skipped = [], 0
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                problem = Problem.from_dict(record)
            except (ValueError, KeyError) as exc:
                raise ValueError(f"{path}:{number}: {exc}") from exc
            if split and record.get("split", "") != split:
                continue
            if problem.uses_mathlib and not have_mathlib:
                skipped += 1
                continue
            problems.append(problem)
            if max_problems and len(problems) >= max_problems:
                break
    return ProblemSet(problems, skipped)


class ProblemCursor:
    """Endless shuffled passes over the problems; its state goes into checkpoints."""

    def __init__(
        self, problems: Sequence[Problem], seed: int, epoch: int = 0, position: int = 0
    ) -> None:
        if not problems:
            raise ValueError(
                "no training problems (check data.train, and whether they all need Mathlib)"
            )
        self.problems = list(problems)
        self.seed = seed
        self.epoch = epoch
        self.position = position
        self._order = self._shuffled(epoch)

    def _shuffled(self, epoch: int) -> list[int]:
        order = list(range(len(self.problems)))
        random.Random(self.seed * 1_000_003 + epoch).shuffle(order)
        return order

    def take(self, n: int) -> list[Problem]:
        out = []
        for _ in range(n):
            if self.position >= len(self._order):
                self.epoch += 1
                self.position = 0
                self._order = self._shuffled(self.epoch)
            out.append(self.problems[self._order[self.position]])
            self.position += 1
        return out

    def state(self) -> dict[str, int]:
        return {"epoch": self.epoch, "position": self.position, "seed": self.seed}

    def __iter__(self) -> Iterator[Problem]:
        while True:
            yield from self.take(1)
