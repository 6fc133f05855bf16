"""What the independent verification step (tutor/lean/kernel_check.py) adds to a check, as
ratios against an unverified check measured in the same run, plus each process's peak memory
and the cold starts.

    .venv/bin/python bench/bench_verify.py                                  # the test doubles
    .venv/bin/python bench/bench_verify.py --real -n 10                     # installed Lean
    .venv/bin/python bench/bench_verify.py --real --header "import Mathlib" # the budget's case

Unverified: check_proof on a warm pool with the verifier switched off (the REPL's answer
only; such a result never says "proved"). Verified: the same checks on a warm pool and a
started verifier, each confirmed by the kernel: the REPL pickles the checked environment, the
export step turns it into JSON, the long-lived verifier replays it (the reference statement's
export is made once per statement and cached). The budget (docs/LEAN.md, "Cost"): on a warm
pool with `import Mathlib`, verified <= 1.5 x unverified.

Steps, measured apart on the same proof: the pickle (one REPL request), the export (one
short-lived process) and the verifier's answer. Peak memory: the REPL's and the verifier's
VmHWM (their whole process trees), and the export step's (the largest reaped child).
Cold starts: the first check of a fresh pool (start + header), and the verifier's start
(its import of the header's modules).

On the doubles the figures measure the machinery (process starts, JSON, pipes), not Lean.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402
from tutor.lean import LeanChecker  # noqa: E402
from tutor.lean.checker import checker_from_environment, split_header, verifier_imports  # noqa: E402
from tutor.lean.kernel_check import VerifyConfig  # noqa: E402
from tutor.lean.repl import process_tree  # noqa: E402

FAKE_REPL = [sys.executable, str(ROOT / "tests" / "fakes" / "fake_repl.py")]
FAKE_LEAN = (sys.executable, str(ROOT / "tests" / "fakes" / "fake_lean.py"))
STATEMENTS = [f"theorem bench_{i} (n : Nat) : n + 0 = n := by" for i in range(3)]
PROOF = "  simp"


def _median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _peak_mb(pid: int) -> float:
    """VmHWM (peak resident) summed over a process tree, from /proc."""
    total = 0
    for member in process_tree(pid):
        try:
            with open(f"/proc/{member}/status", encoding="ascii") as status:
                total += next(
                    (int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0
                )
        except OSError:
            continue
    return total / 1024


def checkers(real: bool) -> tuple[LeanChecker, LeanChecker]:
    """(verified, unverified), sized alike."""
    if real:
        verified = checker_from_environment()
        unverified = replace_verify(verified, VerifyConfig())
        return verified, unverified
    config = VerifyConfig(verifier_command=FAKE_LEAN, use_sandbox=False)
    verified = LeanChecker(FAKE_REPL, max_processes=1, sandbox=False, verify=config)
    unverified = LeanChecker(FAKE_REPL, max_processes=1, sandbox=False, verify=VerifyConfig())
    return verified, unverified


def replace_verify(model: LeanChecker, verify: VerifyConfig) -> LeanChecker:
    return LeanChecker(
        model.repl_command,
        timeout_s=model.config.timeout_s,
        memory_mb=model.config.memory_mb,
        max_processes=1,
        cwd=model.config.cwd,
        sandbox_paths=list(model.config.sandbox_paths),
        verify=verify,
    )


def run_checks(
    checker: LeanChecker, n: int, header: str, want_proved: bool, gap_s: float = 0.0
) -> list[float]:
    """Check latencies; `gap_s` of quiet before each (not timed), as between two students'
    checks: what is started ahead of a check (the next export process) is ready then."""
    times = []
    for i in range(n):
        time.sleep(gap_s)
        started = time.perf_counter()
        result = checker.check_proof(STATEMENTS[i % len(STATEMENTS)], PROOF, header)
        times.append(time.perf_counter() - started)
        if want_proved and not result.valid:
            raise SystemExit(f"verified check {i} was not proved: {result.error or result}")
        if (
            not want_proved
            and result.could_not_check
            and "could not confirm" not in (result.error or "")
        ):
            raise SystemExit(f"unverified check {i} could not run: {result.error}")
    return times


def steps(
    checker: LeanChecker, header: str, n: int, gap_s: float
) -> tuple[list[float], list[float], list[float]]:
    """(pickle, export, verifier answer) times on one checked proof, each step on its own."""
    key = split_header(header).header
    imports = verifier_imports(key)
    timeout = checker.config.timeout_s
    with checker.pool.lease(key) as process:
        body = f"{STATEMENTS[0]}\n{PROOF}"
        env = int(process.request({"cmd": body, "env": process.header_env}, timeout)["env"])
        pickle = process.pickle(env, timeout)
        pickle_t = [_timed(lambda: process.pickle(env, timeout)) for _ in range(n)]
    export_t, verify_t = [], []
    for _ in range(n):
        time.sleep(gap_s)
        export_t.append(_timed(lambda: checker.verifier.export(pickle)))
        time.sleep(gap_s)
        verify_t.append(
            _timed(
                lambda: checker.verifier.verify(
                    pickle, imports=imports, theorem=["bench_0"], reference=None
                )
            )
        )
    answer_t = [max(0.0, v - e) for v, e in zip(verify_t, export_t, strict=True)]
    return pickle_t, export_t, answer_t


def _step_label(label: str) -> str:
    """The printed table's indented step names, whole ("of which: the export step")."""
    name = label.strip()
    if label.startswith(" ") and not name.startswith("of which"):
        return f"of which: {name}"
    return name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--real", action="store_true", help="use the installed Lean")
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--header", default="")
    parser.add_argument(
        "--gap",
        type=float,
        default=1.0,
        help="seconds of quiet before each verified check (default 1; 0 = back to back)",
    )
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    verified, unverified = checkers(args.real)
    if not verified.available or verified.verifier.unavailable_reason:
        print("Lean or its verifier is unavailable:", verified.status().reason)
        return 1
    try:
        cold_check = _timed(lambda: unverified.check_proof(STATEMENTS[0], PROOF, args.header))
        imports = verifier_imports(split_header(args.header).header)
        cold_verifier = _timed(lambda: verified.verifier.prestart(imports))
        # Warm both pools (and the verified one's reference statements) before measuring.
        run_checks(verified, len(STATEMENTS), args.header, want_proved=True)
        run_checks(unverified, 1, args.header, want_proved=False)
        plain = run_checks(unverified, args.n, args.header, want_proved=False)
        apart = run_checks(verified, args.n, args.header, want_proved=True, gap_s=args.gap)
        back_to_back = run_checks(verified, args.n, args.header, want_proved=True)
        pickle_t, export_t, answer_t = steps(verified, args.header, max(3, args.n // 2), args.gap)
        repl_peak = max((_peak_mb(p) for p in verified.pool.idle_pids()), default=0.0)
        verifier_peak = max((_peak_mb(p) for p in verified.verifier.server_pids()), default=0.0)
        export_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    finally:
        verified.close()
        unverified.close()
    base = _median_ms(plain)
    where = "real Lean" if args.real else "the test doubles"
    print(f"{where}, header {args.header!r}, {args.n} checks each (medians)")
    rows = [
        ("unverified check (baseline)", plain),
        (f"verified check, {args.gap:g} s apart", apart),
        ("verified check, back to back", back_to_back),
        ("  of which: the pickle", pickle_t),
        ("            the export step", export_t),
        ("            the verifier's answer", answer_t),
    ]
    for label, samples in rows:
        ms = _median_ms(samples)
        print(f"{label:<36}{ms:9.1f} ms  {ms / base:6.2f}x")
    ratio = _median_ms(apart) / base
    verdict = "within" if ratio <= 1.5 else "OVER"
    print(f"budget (verified <= 1.5 x unverified on a warm pool): {verdict} ({ratio:.2f}x)")
    for label, seconds in (
        ("cold start, first check of a fresh pool", cold_check),
        ("cold start, the verifier's import", cold_verifier),
    ):
        print(f"{label:<40}{seconds:7.2f} s  {1000 * seconds / base:8.0f}x")
    print(
        f"peak memory: REPL {repl_peak:.0f} MB, verifier {verifier_peak:.0f} MB, "
        f"export step {export_peak:.0f} MB"
    )
    if args.markdown:
        table = [
            (_step_label(label), f"{_median_ms(s):.1f} ms", f"{_median_ms(s) / base:.2f}x")
            for label, s in rows
        ]
        table += [
            (label, f"{seconds:.2f} s", f"{1000 * seconds / base:.0f}x")
            for label, seconds in (
                ("cold start, first check of a fresh pool", cold_check),
                ("cold start, the verifier's import", cold_verifier),
            )
        ]
        table.append(("budget: verified <= 1.5 x unverified", verdict, f"{ratio:.2f}x"))
        table.append(
            (
                "peak memory (REPL / verifier / export step)",
                f"{repl_peak:.0f} / {verifier_peak:.0f} / {export_peak:.0f} MB",
                "",
            )
        )
        md_table.print_table(
            [
                f"{where}, header {args.header or '(none)'!r}, {args.n} checks each",
                "median",
                "x unverified",
            ],
            table,
            machine,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
