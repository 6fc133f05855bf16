"""The added cost of the independent verification step (tutor/lean/kernel_check.py) over the
fast path (pooled REPL diagnostics), measured in one run as a ratio.

    .venv/bin/python bench/bench_verify.py              # the test doubles
    .venv/bin/python bench/bench_verify.py --real -n 10 # the installed REPL + verifier

Fast path: check_proof with verification switched off (the REPL's diagnostics only; such a
result never says "proved"). Verified: the same checks, each confirmed by compiling the
submission with `lean -o` and kernel-replaying it in the verifier (the reference statement is
compiled once and cached). On the doubles the figure measures the step's machinery (three
process starts per check: compile, verify, plus the cached reference), not Lean's speed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tutor.lean import LeanChecker  # noqa: E402
from tutor.lean.kernel_check import VerifyConfig  # noqa: E402

FAKE_REPL = [sys.executable, str(ROOT / "tests" / "fakes" / "fake_repl.py")]
FAKE_LEAN = (sys.executable, str(ROOT / "tests" / "fakes" / "fake_lean.py"))
STATEMENT = "theorem bench (n : Nat) : n + 0 = n := by"


def latencies(checker: LeanChecker, n: int, header: str) -> tuple[list[float], int]:
    times, valid = [], 0
    checker.check_proof(STATEMENT, "  simp", header)  # warm: spawn + header + reference
    for _ in range(n):
        started = time.perf_counter()
        valid += checker.check_proof(STATEMENT, "  simp", header).valid
        times.append(time.perf_counter() - started)
    return times, valid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--real", action="store_true", help="use the installed Lean")
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--header", default="")
    args = parser.parse_args()
    if args.real:
        verified = LeanChecker(max_processes=1)
        if not verified.available or verified.verifier.unavailable_reason:
            print("Lean or its verifier is unavailable:", verified.status().reason)
            return 1
        fast = LeanChecker(max_processes=1, verify=VerifyConfig())
    else:
        config = VerifyConfig(compile_command=FAKE_LEAN, verifier_command=FAKE_LEAN)
        verified = LeanChecker(FAKE_REPL, max_processes=1, sandbox=False, verify=config)
        fast = LeanChecker(
            FAKE_REPL, max_processes=1, sandbox=False, verify=replace(config, compile_command=None)
        )
    try:
        fast_t, _ = latencies(fast, args.n, args.header)
        slow_t, valid = latencies(verified, args.n, args.header)
    finally:
        fast.close()
        verified.close()
    f, s = statistics.median(fast_t), statistics.median(slow_t)
    print(f"fast path (REPL diagnostics): median {f * 1000:.1f} ms over {args.n} checks")
    print(
        f"verified (+ compile + kernel replay): median {s * 1000:.1f} ms, {valid}/{args.n} proved"
    )
    print(f"ratio verified/fast: {s / f:.1f}x  (added {1000 * (s - f):.1f} ms per 'proved')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
