"""Goals while typing for a class typing at once: how many exploration REPLs (Celery worker
processes on the `lean` queue, each with its checker's exploration pool) keep the answer
within 1 s of a pause, with the REPL test double, in one run.

    .venv/bin/python bench/bench_live_goals.py                          # 30 students
    .venv/bin/python bench/bench_live_goals.py --students 60 --check-cost 0.3 --markdown

Each student pauses typing at random (exponential gaps, mean --pause-every seconds); each
pause asks for the goals of her text (webapp/attempts/live_goals.py). As in the product,
only her latest request counts: a request still queued when she pauses again is dropped
without running Lean, and an answer overtaken while it ran is not shown. W workers (threads
here, each with its own LeanChecker whose exploration pool holds one REPL, as one Celery
process) take requests in order and run LeanChecker.explore_proof. Each check costs
--check-cost seconds in the double (`-- fake: sleep`), standing for Lean's elaboration of
a short proof on a warm REPL. The baseline is one worker; every row is measured in the
same run. Reported: answers shown, the share shown within 1 s of the pause, the median
and 95th percentile delay, requests dropped as superseded, and each row's p95 against
the baseline's.
"""

from __future__ import annotations

import argparse
import queue
import random
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import md_table  # noqa: E402
from tutor.lean import LeanChecker  # noqa: E402
from tutor.lean.kernel_check import VerifyConfig  # noqa: E402

FAKE = [
    sys.executable,
    str(Path(__file__).resolve().parents[1] / "tests" / "fakes" / "fake_repl.py"),
]
STATEMENT = "theorem live_{i} (n : Nat) : n + 0 = n := by"
TARGET_S = 1.0  # the product's promise: goals within 1 s of the pause on a warm pool


@dataclass
class Outcome:
    delays: list[float] = field(default_factory=list)  # pause -> answer shown, seconds
    superseded: int = 0  # dropped: queued or running when she paused again
    asked: int = 0
    failed: int = 0


def _checker() -> LeanChecker:
    return LeanChecker(
        FAKE,
        sandbox=False,
        max_processes=1,
        timeout_s=30,
        header_timeout_s=60,
        memory_mb=None,
        verify=VerifyConfig(),
    )


def simulate(workers: int, students: int, duration_s: float, pause_every_s: float,
             cost_s: float, seed: int) -> Outcome:  # fmt: skip
    outcome = Outcome()
    latest: dict[int, int] = {}  # student -> her latest request's token
    lock = threading.Lock()
    requests: queue.Queue[tuple[int, int, float, str] | None] = queue.Queue()
    checkers = [_checker() for _ in range(workers)]
    proof = f"  intro h\n  simp -- fake: sleep {cost_s}"
    for checker in checkers:  # warm: each worker's exploration REPL is started
        checker.explore_proof(STATEMENT.format(i=0), "  rfl")

    def current(student: int, token: int) -> bool:
        with lock:
            return latest.get(student) == token

    def work(checker: LeanChecker) -> None:
        while (item := requests.get()) is not None:
            student, token, paused, text = item
            if not current(student, token):
                with lock:
                    outcome.superseded += 1
                continue
            result = checker.explore_proof(STATEMENT.format(i=student), text)
            shown = time.monotonic()
            with lock:
                if result.could_not_check:
                    outcome.failed += 1
                elif latest.get(student) != token:
                    outcome.superseded += 1
                else:
                    outcome.delays.append(shown - paused)

    threads = [threading.Thread(target=work, args=(c,), daemon=True) for c in checkers]
    for thread in threads:
        thread.start()
    rng = random.Random(seed)
    pauses = sorted(
        (t, s) for s in range(students) for t in _pause_times(rng, duration_s, pause_every_s)
    )
    started = time.monotonic()
    for token, (at, student) in enumerate(pauses, start=1):
        time.sleep(max(0.0, started + at - time.monotonic()))
        with lock:
            latest[student] = token
            outcome.asked += 1
        requests.put((student, token, time.monotonic(), proof))
    for _ in threads:
        requests.put(None)
    for thread in threads:
        thread.join()
    for checker in checkers:
        checker.close()
    return outcome


def _pause_times(rng: random.Random, duration_s: float, mean_gap_s: float) -> list[float]:
    times, at = [], rng.uniform(0, mean_gap_s)
    while at < duration_s:
        times.append(at)
        at += rng.expovariate(1 / mean_gap_s)
    return times


def _p95(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--students", type=int, default=30, help="students typing at once")
    parser.add_argument("--workers", default="1,2,4,8", help="worker counts to compare")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds of typing")
    parser.add_argument(
        "--pause-every", type=float, default=4.0, help="mean seconds between a student's pauses"
    )
    parser.add_argument(
        "--check-cost", type=float, default=0.2, help="seconds one check takes in the double"
    )
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    counts = [int(w) for w in args.workers.split(",")]
    results = {
        w: simulate(w, args.students, args.duration, args.pause_every, args.check_cost, args.seed)
        for w in counts
    }
    base = _p95(results[counts[0]].delays)
    rate = args.students / args.pause_every
    print(
        f"{args.students} students, a pause every {args.pause_every:g} s each "
        f"({rate:.1f} requests/s), {args.check_cost:g} s per check (double), "
        f"{args.duration:g} s of typing"
    )
    rows = []
    for w in counts:
        r = results[w]
        within = sum(d <= TARGET_S for d in r.delays) / max(1, len(r.delays))
        median = statistics.median(r.delays) if r.delays else float("nan")
        p95 = _p95(r.delays)
        row = (
            w,
            r.asked,
            len(r.delays),
            f"{within:.0%}",
            f"{median:.2f}",
            f"{p95:.2f}",
            r.superseded,
            r.failed,
            f"{base / p95:.1f}x" if p95 == p95 and p95 > 0 else "-",
        )
        rows.append(row)
        print(
            f"workers {w}: asked {r.asked}, shown {len(r.delays)}, within 1 s {within:.0%}, "
            f"median {median:.2f} s, p95 {p95:.2f} s, superseded {r.superseded}, "
            f"failed {r.failed}, p95 vs 1 worker {row[-1]}"
        )
    if args.markdown:
        md_table.print_table(
            [
                "workers",
                "requests",
                "answers shown",
                "of those, within 1 s of the pause",
                "median delay, s",
                "p95 delay, s",
                "superseded",
                "could not check",
                "p95: 1 worker / this",
            ],
            rows,
            machine,
        )


if __name__ == "__main__":
    main()
