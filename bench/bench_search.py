"""Breadth-first, best-first and MCTS on synthetic proof trees, with the same policy, in one
run: nodes expanded and wall time to find the proof, as ratios against best-first.

    .venv/bin/python bench/bench_search.py            # all trees, 5 seeds
    .venv/bin/python bench/bench_search.py --seeds 2 --workers 2

The trees (tests/tutor/prover/search_trees.py) are served by the REPL test double's tactic
table (tests/fakes/fake_repl.py plays Lean's tactic mode, one subprocess per search), with a
scripted policy that proposes every tactic of a state with its log-prior. "plain": one
closing leaf at a known depth and branching. "deceptive": on every state of the solution's
path the policy ranks decoy tactics first (log-prior -0.05 against -0.5 to -1.3), each the
entrance to a subtree of confident tactics that never closes. Wall time on the double
measures the searches' own cost and the REPL round trips, not Lean's tactic time.

With --workers 2 on the double, expansions to the proof grow: the full check of a found
proof (compile + kernel replay, about a second here) is slow next to a tactic step (a few
ms), and the other worker keeps expanding while the first one checks. With real Lean a
tactic step costs far more, and the overlap far less.

Target: MCTS needs at most half the expansions of best-first on deceptive trees; the bench
prints, for each deceptive tree, whether that holds. It holds where the decoys are at least
as deep as the proof's remaining steps, not where they are shallow (the `dd2` tree): shallow
decoys die early and cost best-first little. Where the policy's favourite tactic is the
proof, MCTS expands about as much as breadth-first: it is the search that does not trust the
prior. Why max backup (tree.py `_backup`) and not the mean: a decoy state has the same
heuristic value as a real one at the same depth and the larger prior, and a decoy subtree
gives its first dead end only at its bottom, so the mean of the values backed up while its
frontier was shallow keeps it attractive until dead ends pile up; max backup values a node
by what is open below it now, and its dead-end rate discounts a subtree whose explored
leaves died. `--markdown` prints bench/README.md's table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import deque
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import md_table  # noqa: E402
from tests.tutor.prover.doubles import ScriptedTacticPolicy  # noqa: E402
from tests.tutor.prover.search_trees import STATEMENT, synthetic_tree  # noqa: E402
from tutor.lean import LeanChecker  # noqa: E402
from tutor.lean.kernel_check import VerifyConfig  # noqa: E402
from tutor.prover.lean_adapter import lean_tactic_backend  # noqa: E402
from tutor.prover.mcts import mcts_search  # noqa: E402
from tutor.prover.problem import Problem  # noqa: E402
from tutor.prover.search import SearchConfig, candidates, portfolio_search  # noqa: E402
from tutor.prover.tree import MCTSConfig  # noqa: E402
from tutor.prover.verify import full_check  # noqa: E402

FAKE_REPL = ROOT / "tests" / "fakes" / "fake_repl.py"
# The full verdict's compile + kernel replay run on the Lean double too (as in the tests).
FAKE_LEAN = (sys.executable, str(ROOT / "tests" / "fakes" / "fake_lean.py"))
PROBLEM = Problem("bench", STATEMENT)
TREES: dict[str, dict[str, Any]] = {
    "plain d4 b3": {"depth": 4, "branching": 3, "solution": "2102"},
    "deceptive d3 b3": {
        "depth": 3,
        "branching": 3,
        "solution": "210",
        "deceptive": 2,
        "deceptive_depth": 3,
    },  # fmt: skip
    "deceptive d4 b2": {
        "depth": 4,
        "branching": 2,
        "solution": "1101",
        "deceptive": 1,
        "deceptive_depth": 4,
    },  # fmt: skip
    # More of the same family (decoys at least as deep as the proof's remaining steps) ...
    "deceptive d5 b2": {
        "depth": 5,
        "branching": 2,
        "solution": "10110",
        "deceptive": 1,
        "deceptive_depth": 5,
    },  # fmt: skip
    "deceptive d4 b3": {
        "depth": 4,
        "branching": 3,
        "solution": "2120",
        "deceptive": 1,
        "deceptive_depth": 4,
    },  # fmt: skip
    "deceptive d3 b2 x2": {
        "depth": 3,
        "branching": 2,
        "solution": "110",
        "deceptive": 2,
        "deceptive_depth": 4,
    },  # fmt: skip
    # ... and one with shallow decoys (2 levels under a 5-step proof): best-first loses
    # little to them, and no search here halves it (see the docstring).
    "deceptive d5 b2 dd2": {
        "depth": 5,
        "branching": 2,
        "solution": "11011",
        "deceptive": 2,
        "deceptive_depth": 2,
    },  # fmt: skip
}


def checker_for(table: list[dict[str, Any]], folder: Path, workers: int) -> LeanChecker:
    path = folder / "tactics.json"
    path.write_text(json.dumps(table, ensure_ascii=False))
    command = ["env", f"FAKE_REPL_TACTICS={path}", sys.executable, str(FAKE_REPL)]
    verify = VerifyConfig(verifier_command=FAKE_LEAN)
    return LeanChecker(command, timeout_s=10.0, memory_mb=1024, max_processes=max(2, workers),
                       acquire_timeout_s=10.0, sandbox=False, require_sandbox=False,
                       verify=verify)  # fmt: skip


def breadth_first(policy: Any, checker: LeanChecker, config: SearchConfig) -> tuple[bool, int]:
    """The baseline: expand states in the order they were reached (no prior, no value)."""
    lease: AbstractContextManager[Any] = lean_tactic_backend(checker)(PROBLEM)
    with lease as backend:
        root = backend.start(PROBLEM)
        queue: deque[tuple[Any, list[str], list[str]]] = deque([(root.proof_state, root.goals, [])])
        expanded = 0
        while queue and expanded < config.max_iterations:
            state, goals, path = queue.popleft()
            expanded += 1
            for tactic, _, _ in candidates(policy, PROBLEM, goals, config):
                step = backend.apply(state, tactic)
                if step.error is not None or step.proof_state is None:
                    continue
                if step.completed:
                    if full_check(checker, PROBLEM, "\n".join([*path, tactic])).valid:
                        return True, expanded
                    continue
                queue.append((step.proof_state, step.goals, [*path, tactic]))
    return False, expanded


def one(algorithm: str, policy: Any, checker: LeanChecker, config: SearchConfig) -> dict[str, Any]:
    started = time.perf_counter()
    if algorithm == "bfs":
        found, expanded = breadth_first(policy, checker, config)
    elif algorithm == "best_first":
        with lean_tactic_backend(checker)(PROBLEM) as backend:
            result = portfolio_search(policy, PROBLEM, backend, checker, config)
        found, expanded = result.proof is not None, result.iterations
    else:
        result = mcts_search(policy, PROBLEM, lean_tactic_backend(checker), checker, config)
        found, expanded = result.proof is not None, result.iterations
    return {"found": found, "expanded": expanded, "wall_s": time.perf_counter() - started}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=600, help="max expansions per search")
    parser.add_argument("--workers", type=int, default=1, help="MCTS workers on one tree")
    parser.add_argument("--c-puct", type=float, default=MCTSConfig().c_puct)
    parser.add_argument(
        "--markdown", action="store_true", help="also print bench/README.md's table"
    )
    args = parser.parse_args()
    machine = md_table.machine()
    markdown_rows: list[tuple[str, ...]] = []
    algorithms = ("bfs", "best_first", "mcts")
    print(f"{'tree':20} {'search':11} {'found':>6} {'expanded':>9} {'wall s':>8} "
          f"{'x best-first (nodes)':>20} {'x best-first (time)':>20}")  # fmt: skip
    verdicts = []
    for name, shape in TREES.items():
        table, script = synthetic_tree(**shape)
        policy = ScriptedTacticPolicy(script)
        rows: dict[str, list[dict[str, Any]]] = {a: [] for a in algorithms}
        with tempfile.TemporaryDirectory() as folder:
            checker = checker_for(table, Path(folder), args.workers)
            try:
                for seed in range(args.seeds):
                    config = SearchConfig(algorithm="mcts", portfolio=(), seed=seed,
                                          max_iterations=args.budget, max_depth=16, model_samples=16,
                                          workers=args.workers, time_limit_s=600,
                                          mcts=MCTSConfig(c_puct=args.c_puct))  # fmt: skip
                    for algorithm in algorithms:
                        rows[algorithm].append(one(algorithm, policy, checker, config))
            finally:
                checker.close()
        base = {
            k: statistics.mean(r[k] for r in rows["best_first"]) for k in ("expanded", "wall_s")
        }
        for algorithm in algorithms:
            found = sum(r["found"] for r in rows[algorithm])
            nodes = statistics.mean(r["expanded"] for r in rows[algorithm])
            wall = statistics.mean(r["wall_s"] for r in rows[algorithm])
            print(f"{name:20} {algorithm:11} {found:>3}/{args.seeds:<2} {nodes:>9.1f} {wall:>8.3f} "
                  f"{nodes / base['expanded']:>20.2f} {wall / base['wall_s']:>20.2f}")  # fmt: skip
            markdown_rows.append((name, algorithm, f"{found}/{args.seeds}", f"{nodes:.1f}",
                                  f"{nodes / base['expanded']:.2f}x", f"{wall / base['wall_s']:.2f}x"))  # fmt: skip
            if algorithm == "mcts" and name.startswith("deceptive"):
                verdicts.append((name, nodes / base["expanded"]))
    for name, ratio in verdicts:
        met = "met" if ratio <= 0.5 else "NOT met"
        print(f"target (MCTS <= 0.5 x best-first expansions) on {name}: {ratio:.2f} -> {met}")
    if args.markdown:
        md_table.print_table(
            [
                "tree",
                "search",
                "found",
                "expanded (mean)",
                "x best-first, expansions",
                "x best-first, time",
            ],
            markdown_rows,
            machine,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
