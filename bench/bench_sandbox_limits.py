"""What the sandbox's limits cost: starting a REPL process (to its first reply) and one
check on a warm process, plain vs bubblewrap vs bubblewrap + the seccomp filter, as
ratios against bubblewrap alone measured in the same run.

    .venv/bin/python bench/bench_sandbox_limits.py           # the test double
    .venv/bin/python bench/bench_sandbox_limits.py --real    # the detected real Lean REPL

The rlimits cost nothing measurable (a few setrlimit calls between fork and exec); the
seccomp filter adds a pipe per start and a BPF program run on every system call; a
per-REPL cgroup (where delegated) adds a mkdir and three small writes per start.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402
from tutor.lean import LeanChecker, sandbox  # noqa: E402
from tutor.lean.detect import detect_repl  # noqa: E402

FAKE = [sys.executable, str(ROOT / "tests" / "fakes" / "fake_repl.py")]
PROOF = "theorem t (n : Nat) : n + 0 = n := by\n  simp"


def measure(command: list[str], options: dict[str, object], n: int) -> tuple[float, float]:
    """(median start-to-first-reply seconds, median warm check seconds)."""
    starts, checks = [], []
    for _ in range(n):
        checker = LeanChecker(command, max_processes=1, **options)  # type: ignore[arg-type]
        began = time.perf_counter()
        checker.check(PROOF)  # spawns, runs the header, checks
        starts.append(time.perf_counter() - began)
        began = time.perf_counter()
        checker.check(PROOF)
        checks.append(time.perf_counter() - began)
        checker.close()
    return statistics.median(starts), statistics.median(checks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10, help="processes per configuration")
    parser.add_argument("--real", action="store_true", help="use the detected real Lean REPL")
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    command = FAKE
    extra: dict[str, object] = {}
    if args.real:
        found = detect_repl()
        if found.command is None:
            sys.exit(f"no real Lean REPL: {found.reason}")
        command = found.command
        extra = {"cwd": found.cwd, "sandbox_paths": found.sandbox_paths, "timeout_s": 120}
    if not sandbox.probe(sandbox.find_bwrap()).usable:
        sys.exit("bubblewrap cannot run here; nothing to compare")
    configs = {
        "plain": {"sandbox": False, "seccomp": False},
        "bwrap": {"sandbox": True, "seccomp": False},
        "bwrap+seccomp": {"sandbox": True, "seccomp": True},
    }
    results = {name: measure(command, {**opts, **extra}, args.n) for name, opts in configs.items()}
    base_start, base_check = results["bwrap"]
    print(f"{'configuration':<15} {'start (ms)':>11} {'ratio':>6} {'check (ms)':>11} {'ratio':>6}")
    for name, (start, check) in results.items():
        print(
            f"{name:<15} {start * 1000:>11.1f} {start / base_start:>6.2f} "
            f"{check * 1000:>11.2f} {check / base_check:>6.2f}"
        )
    if args.markdown:
        backend = "real Lean REPL" if args.real else "the REPL double"
        md_table.print_table(
            ["configuration", "REPL start to first reply", "x bwrap", "warm check", "x bwrap"],
            [
                (
                    f"{name} ({backend})",
                    f"{start * 1000:.1f} ms",
                    f"{start / base_start:.2f}x",
                    f"{check * 1000:.2f} ms",
                    f"{check / base_check:.2f}x",
                )
                for name, (start, check) in results.items()
            ],
            machine,
        )


if __name__ == "__main__":
    main()
