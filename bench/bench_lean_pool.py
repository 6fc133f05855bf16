"""Checks per second with the REPL pool (header imported once per process) vs a fresh
REPL per check (max_uses=1: spawn, import the header, check, kill), in one run.

    .venv/bin/python bench/bench_lean_pool.py                 # the test double
    .venv/bin/python bench/bench_lean_pool.py --real          # the detected real REPL
    .venv/bin/python bench/bench_lean_pool.py --real --header "import Mathlib" -n 20

On the double, --import-delay sets what one import costs (FAKE_REPL_IMPORT_DELAY_S);
real Lean's cost is what it is (core Init: ~0.3 s; Mathlib: seconds). The double's
figure measures the pool's machinery and the saved spawns/imports, not Lean's speed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import md_table  # noqa: E402
from tutor.lean import LeanChecker  # noqa: E402
from tutor.lean.detect import detect_repl  # noqa: E402
from tutor.lean.kernel_check import VerifyConfig  # noqa: E402

FAKE = [
    sys.executable,
    str(Path(__file__).resolve().parents[1] / "tests" / "fakes" / "fake_repl.py"),
]
PROOFS = [
    "theorem bench_{i} (n : Nat) : n + 0 = n := by\n  simp\n",
    "theorem bench_{i} (a b : Nat) : a + b = b + a := by\n  omega\n",
    "theorem bench_{i} (p : Prop) (hp : p) : p ∧ True := by\n  exact ⟨hp, trivial⟩\n",
]


def run(checker: LeanChecker, header: str, n: int) -> tuple[float, int]:
    """(checks per second, valid count) over n sequential checks."""
    valid = 0
    started = time.perf_counter()
    for i in range(n):
        code = f"{header}\n" + PROOFS[i % len(PROOFS)].format(i=i)
        result = checker.check(code)
        # The verifier is off here (bench_verify.py measures it), so every result is "could
        # not confirm independently"; any other failure means the bench is broken.
        unconfirmed = (result.error or "").startswith("could not confirm the proof")
        if result.could_not_check and not unconfirmed:
            raise SystemExit(f"check {i} could not run: {result.error}")
        valid += result.valid
    return n / (time.perf_counter() - started), valid


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=30, help="checks per configuration")
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs per configuration; the median is shown"
    )
    parser.add_argument(
        "--header", default="import Mathlib", help="the import lines of every check"
    )
    parser.add_argument(
        "--import-delay", type=float, default=0.05, help="double only: seconds per import"
    )
    parser.add_argument("--real", action="store_true", help="use the detected real Lean REPL")
    parser.add_argument(
        "--sandbox", action="store_true", help="run under bubblewrap (when it works here)"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()

    if args.real:
        detected = detect_repl()
        if detected.command is None:
            raise SystemExit(detected.reason)
        command, cwd, paths = detected.command, detected.cwd, detected.sandbox_paths
        extra_env = {}
        what = f"real Lean REPL ({' '.join(command)})"
    else:
        extra_env = {"FAKE_REPL_IMPORT_DELAY_S": str(args.import_delay)}
        command, cwd, paths = FAKE, None, []
        what = f"test double, {args.import_delay:g} s per import"

    def build(max_uses: int) -> LeanChecker:
        return LeanChecker(
            command,
            cwd=cwd,
            sandbox_paths=paths,
            sandbox=bool(args.sandbox),
            max_processes=1,
            max_uses=max_uses,
            timeout_s=300,
            header_timeout_s=600,
            extra_env=extra_env,
            verify=VerifyConfig(),  # the pool alone: no verification step is configured
        )

    rates: dict[str, list[float]] = {"pool": [], "fresh": []}
    for _ in range(args.repeats):
        for name, max_uses in (("pool", 10_000), ("fresh", 1)):
            checker = build(max_uses)
            try:
                rate, valid = run(checker, args.header, args.n)
            finally:
                checker.close()
            rates[name].append(rate)
    pool, fresh = statistics.median(rates["pool"]), statistics.median(rates["fresh"])
    print(
        f"backend: {what}; header: {args.header!r}; {args.n} checks x {args.repeats} runs (median)"
    )
    print(f"pool (reuse, header once):  {pool:8.2f} checks/s")
    print(f"fresh REPL per check:       {fresh:8.2f} checks/s")
    print(f"ratio pool / fresh:         {pool / fresh:8.2f}x")
    if args.markdown:
        md_table.print_table(
            [
                "backend",
                "header",
                "pool (header once), checks/s",
                "fresh REPL per check, checks/s",
                "pool / fresh",
            ],
            [
                (
                    what,
                    args.header or "(none)",
                    f"{pool:.2f}",
                    f"{fresh:.2f}",
                    f"{pool / fresh:.2f}x",
                )
            ],
            machine,
        )


if __name__ == "__main__":
    main()
