"""Diagnostics latency of the hardened fast path (check_proof: gate, tactic mode, the
same block in place, `#print axioms _root_.NAME`, barrier) against the
old protocol in the same run (the statement and proof sent as one command, then
`#print axioms`, on the same pool), plus the reply reader: the bytearray reader that scans
only new bytes vs the old one that re-concatenated and re-scanned the whole buffer.

    .venv/bin/python bench/bench_lean_fast_path.py            # the test double
    .venv/bin/python bench/bench_lean_fast_path.py --real     # the detected real Lean REPL
    .venv/bin/python bench/bench_lean_fast_path.py --real --header "import Mathlib" -n 20

On the double the figures measure the driver's and checker's own overhead (extra
round trips, gate, JSON), not Lean's elaboration speed; on real Lean the tactic-mode
step elaborates the proof a second time, so expect the ratio to approach 2x there.
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
from tutor.lean.repl import split_reply  # noqa: E402

FAKE = [
    sys.executable,
    str(Path(__file__).resolve().parents[1] / "tests" / "fakes" / "fake_repl.py"),
]
STATEMENT = "theorem bench_{i} (n : Nat) : n + 0 = n := by"
PROOFS = ["  simp", "  omega", "  exact Nat.add_zero n"]


def hardened(checker: LeanChecker, header: str, n: int) -> list[float]:
    times = []
    for i in range(n):
        started = time.perf_counter()
        result = checker.check_proof(STATEMENT.format(i=i % 3), PROOFS[i % 3], header)
        times.append(time.perf_counter() - started)
        # The verifier is off here (bench_verify.py measures it), so every result is
        # "could not confirm independently"; any other failure means the bench is broken.
        unconfirmed = (result.error or "").startswith("could not confirm the proof")
        if result.could_not_check and not unconfirmed:
            raise SystemExit(f"check {i} could not run: {result.error}")
    return times


def old_protocol(checker: LeanChecker, header: str, n: int) -> list[float]:
    """What the fast path sent before: the document as one command, then the axioms."""
    times = []
    with checker.pool.lease(header) as process:
        for i in range(n):
            started = time.perf_counter()
            body = STATEMENT.format(i=i % 3) + "\n" + PROOFS[i % 3]
            reply = process.request({"cmd": body, "env": process.header_env}, 300)
            process.request({"cmd": f"#print axioms bench_{i % 3}", "env": reply["env"]}, 300)
            times.append(time.perf_counter() - started)
    return times


def old_reader(chunks: list[bytes]) -> float:
    """The previous reader: bytes += chunk, then lstrip and search from the start."""
    started = time.perf_counter()
    buffer = b""
    for chunk in chunks:
        stripped = buffer.lstrip(b"\n")
        if stripped.find(b"\n\n") >= 0:
            break
        buffer += chunk
    assert buffer.lstrip(b"\n").find(b"\n\n") >= 0
    return time.perf_counter() - started


def new_reader(chunks: list[bytes]) -> float:
    started = time.perf_counter()
    buffer, scanned = bytearray(), 0
    for chunk in chunks:
        buffer += chunk
        if split_reply(buffer, scanned) is not None:
            break
        scanned = len(buffer)
    assert split_reply(buffer) is not None
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=30, help="checks per configuration")
    parser.add_argument("--repeats", type=int, default=3, help="runs; the median is shown")
    parser.add_argument("--header", default="import Mathlib", help="the header of every check")
    parser.add_argument("--reply-mb", type=int, default=32, help="size of the reader's reply")
    parser.add_argument("--real", action="store_true", help="use the detected real Lean REPL")
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
        what = f"real Lean REPL ({' '.join(command)})"
    else:
        command, cwd, paths, what = FAKE, None, [], "test double"
    checker = LeanChecker(
        command,
        cwd=cwd,
        sandbox_paths=paths,
        sandbox=False,
        max_processes=1,
        timeout_s=300,
        verify=VerifyConfig(),  # the fast path alone: no verification step is configured
    )
    try:
        checker.check_proof(STATEMENT.format(i=0), PROOFS[0], args.header)  # warm: header
        new_runs, old_runs = [], []
        for _ in range(args.repeats):
            new_runs.append(statistics.median(hardened(checker, args.header, args.n)))
            old_runs.append(statistics.median(old_protocol(checker, args.header, args.n)))
    finally:
        checker.close()
    new, old = statistics.median(new_runs), statistics.median(old_runs)
    print(f"backend: {what}; header: {args.header!r}; {args.n} checks x {args.repeats} runs")
    print(f"hardened check_proof, median latency: {new * 1000:8.1f} ms")
    print(f"old one-command protocol, median:     {old * 1000:8.1f} ms")
    print(f"ratio hardened / old:                 {new / old:8.2f}x")

    size = args.reply_mb * 1024 * 1024
    reply = b'{"data": "' + b"x" * size + b'"}\n\n'
    chunks = [reply[k : k + (1 << 16)] for k in range(0, len(reply), 1 << 16)]
    fresh = min(new_reader(chunks) for _ in range(3))
    print(f"reading a {args.reply_mb} MB reply in 64 KB chunks:")
    print(f"  bytearray, new bytes only: {fresh * 1000:8.1f} ms")
    stale = old_reader(chunks)
    print(f"  old concatenate-and-rescan: {stale * 1000:8.1f} ms")
    print(f"  ratio old / new:            {stale / fresh:8.1f}x")
    if args.markdown:
        md_table.print_table(
            ["measure", "baseline (same run)", "baseline", "measured", "measured / baseline"],
            [
                (
                    f"check_proof median latency ({what}, header {args.header!r})",
                    "one-command protocol",
                    f"{old * 1000:.1f} ms",
                    f"{new * 1000:.1f} ms",
                    f"{new / old:.2f}x",
                ),
                (
                    f"reading a {args.reply_mb} MB reply in 64 KB chunks",
                    "concatenate-and-rescan",
                    f"{stale * 1000:.1f} ms",
                    f"{fresh * 1000:.1f} ms",
                    f"{fresh / stale:.3f}x",
                ),
            ],
            machine,
        )


if __name__ == "__main__":
    main()
