"""Synthetic proof trees for search tests and bench/bench_search.py: a FAKE_REPL_TACTICS table
(the REPL double plays Lean) and a matching scripted policy script. Tests only."""

from __future__ import annotations

from typing import Any

ROOT_GOAL = "n : Nat\n⊢ n + 0 = n"
STATEMENT = "theorem t (n : Nat) : n + 0 = n := by"


def state(path: str) -> str:
    return ROOT_GOAL if not path else f"⊢ s{path}"


def synthetic_tree(
    depth: int,
    branching: int,
    solution: str | None,
    deceptive: int = 0,
    deceptive_depth: int = 0,
) -> tuple[list[dict[str, Any]], dict[str, list[tuple[str, float]]]]:
    """A tree of `branching` tactics per state down to `depth`; only the leaf at path
    `solution` (e.g. "21": second tactic, then first) closes with `finish`. Tactic i has
    log-prior -0.5 - 0.4 * i, so the policy prefers tactic 0.

    `deceptive` extra tactics per state on the solution's path, ranked by the policy above
    the right one (log-prior -0.05): each leads into a chain of `deceptive_depth` states,
    `branching` confident tactics each, that never closes. A search that trusts the prior
    alone digs through all of it before it comes back."""
    table: list[dict[str, Any]] = []
    script: dict[str, list[tuple[str, float]]] = {}

    def grow(path: str, level: int, limit: int, fake: bool) -> None:
        goal = state(path)
        if level == limit:
            script[goal] = [("finish", -0.1)]
            if path == solution and not fake:
                table.append({"goal": goal, "tactic": "finish", "goals": []})
            return
        proposals = []
        for i in range(branching):
            tactic = f"t{i}"
            child = f"{path}{i}"
            proposals.append((tactic, (-0.05 if fake else -0.5 - 0.4 * i)))
            table.append({"goal": goal, "tactic": tactic, "goals": [state(child)]})
            grow(child, level + 1, limit, fake)
        if not fake and solution is not None and solution.startswith(path):
            for d in range(deceptive):
                tactic, child = f"d{d}", f"{path}x{d}"
                proposals.insert(0, (tactic, -0.05))
                table.append({"goal": goal, "tactic": tactic, "goals": [state(child)]})
                grow(child, 0, deceptive_depth, True)
        script[goal] = proposals

    grow("", 0, depth, False)
    return table, script
