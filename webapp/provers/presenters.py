"""What the prover run templates show (shared by the page, the fragment endpoint and the
websocket pushes)."""

from __future__ import annotations

import json
from typing import Any

from webapp.provers.models import VERDICT_WORDS, ProverRun, words

LABELS = {
    "started": "Started",
    "model_turn": "Model",
    "tool_call": "Tool call",
    "lean_result": "Lean",
    "coach_suggestion": "Coach",
    "search_expansion": "Search",
    "finished": "Finished",
    "notice": "Note",
}


# Why a run stopped (tutor/prover/agent.py, search.py), in the page's words (the verdict's
# are VERDICT_WORDS, by the model).
STOP_WORDS = {
    "valid": "it found a proof",
    "answered": "it gave its answer",
    "no_tool_call": "the model stopped using Lean's tools",
    "max_turns": "it used all its turns",
    "max_tokens": "it wrote as much as it may",
    "cancelled": "cancelled",
    "exhausted": "every branch ended in a dead end",
    "max_iterations": "the step budget is spent",
    "time_limit": "the time limit is reached",
    "could_not_check": "Lean could not check its steps",
}


def _model_label(model: str) -> str:
    """The model a run used, by kind: never its file path (the page is the students')."""
    if not model:
        return "the prover's model"
    if "smollm2" in model.lower() and "/" not in model:
        return "the small base model (not trained for proofs yet)"
    return "the class's trained prover model"


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def _summary(event: dict[str, Any]) -> tuple[str, str]:
    """(one-line summary, optional longer body) of an event dict."""
    kind = event.get("type", "")
    if kind == "started":
        return f"{event.get('mode', '')} mode, with {_model_label(str(event.get('model', '')))}", ""
    if kind == "model_turn":
        return f"turn {event.get('turn')}: {event.get('n_tokens', 0)} tokens", _clip(
            str(event.get("text", ""))
        )
    if kind == "tool_call":
        args = event.get("arguments") or {}
        body = args.get("code") or args.get("pattern") or args.get("path") or ""
        return f"{event.get('name', '')}", _clip(str(body))
    if kind == "lean_result":
        if event.get("could_not_check"):
            verdict = "could not check"
        else:
            valid = event.get("valid")
            verdict = "messages" if valid is None else ("valid" if valid else "not valid")
        return verdict, _clip(str(event.get("output", "")))
    if kind == "coach_suggestion":
        suggestions = (event.get("feedback") or {}).get("suggestions") or []
        return f"{len(suggestions)} suggestion(s)", "\n".join(
            f"line {s.get('line')}: {s.get('text')}" for s in suggestions
        )
    if kind == "search_expansion":
        return (
            f"#{event.get('iteration')} {event.get('tactic', '')} → {event.get('status', '')}"
            f" ({event.get('source', '')})",
            "",
        )
    if kind == "finished":
        verdict = words(str(event.get("verdict", "")), VERDICT_WORDS)
        stop = str(event.get("stop_reason", ""))
        why = f" ({words(stop, STOP_WORDS)})" if stop else ""
        return f"{verdict}{why}", _clip(str(event.get("proof") or ""))
    return _clip(str(event.get("text", "")), 200), ""


# Events whose body may carry a whole proof: the model's text, the code it writes, the
# final proof. Hidden from a student until she may see the proof (webapp.provers.access);
# the search (tactic and outcome per step), Lean's messages and goals stay visible.
PROOF_BEARING = {"model_turn", "tool_call", "finished"}
HIDDEN_NOTE = "(hidden until you solve this exercise, or your teacher allows full proofs)"


def event_view(index: int, event: dict[str, Any], *, reveal: bool = True) -> dict[str, Any]:
    summary, body = _summary(event)
    kind = str(event.get("type", "event"))
    if not reveal and kind in PROOF_BEARING and body:
        body = HIDDEN_NOTE
    if not reveal and kind == "search_expansion" and event.get("status") == "solved":
        summary = f"#{event.get('iteration')} (the closing step is hidden) → solved"
    return {"index": index, "kind": kind, "label": LABELS.get(kind, kind), "summary": summary,
            "body": body}  # fmt: skip


# How a search ended, in the page's words (outcome reasons of tutor.prover.mcts / search).
END_STATES = {
    "found": "Found a proof: the marked path, checked by Lean.",
    "exhausted": "Exhausted: every branch ended in a dead end.",
    "max_iterations": "Out of budget: the expansion budget is spent.",
    "time_limit": "Out of budget: the time limit is reached.",
    "cancelled": "Cancelled.",
    "could_not_check": "Lean unavailable: the search could not check its steps.",
    "bad_statement": "The statement does not elaborate in Lean: nothing to search.",
}
ALGORITHMS = {"mcts": "MCTS", "best_first": "best-first"}


def tree_view(run: ProverRun, *, reveal: bool) -> dict[str, Any]:
    """The search tree fragment's context: the tree as JSON for static/js/prover-tree.js,
    progress figures, and the end state. Without `reveal` (the class rule on found proofs,
    webapp.provers.access) the found path's tactics are hidden; the path stays marked."""
    tree = dict(run.tree or {})
    outcome = tree.get("outcome") or {}
    path = [int(i) for i in outcome.get("path") or []]
    nodes = [dict(n) for n in tree.get("nodes") or []]
    for node in nodes:
        if not reveal and node["id"] in path[1:]:
            node["tactic"], node["hidden"] = "(hidden)", True
    reason = str(outcome.get("reason") or "")
    if not reason and not run.is_active:  # ended before or outside the search
        if "Lean is unavailable" in run.error:
            reason = "could_not_check"
        elif run.status == ProverRun.Status.CANCELLED:
            reason = "cancelled"
    end = END_STATES.get(reason, "")
    if not end and not run.is_active:
        end = f"Ended: {run.error or run.get_status_display()}"
    data = {"nodes": nodes, "path": path}
    return {
        "json": json.dumps(data, ensure_ascii=False),
        "algorithm": ALGORITHMS.get(tree.get("algorithm") or run.algorithm or "best_first"),
        "expansions": tree.get("expansions", 0), "budget": tree.get("budget", 0),
        "depth": tree.get("depth", 0), "elapsed_s": tree.get("elapsed_s", 0.0),
        "workers": tree.get("workers", 1), "nodes": len(nodes),
        "frontier": sum(1 for n in nodes if n.get("status") == "open"),
        "end": end, "end_kind": reason or ("failed" if end else ""),
    }  # fmt: skip


def run_context(run: ProverRun, *, reveal: bool) -> dict[str, Any]:
    """`reveal`: whether this viewer sees the final proof (provers.access.may_see_final_proof;
    pushes to the run's group use the owner's answer)."""
    return {
        "run": run,
        "exercise": run.exercise,
        "reveal_proof": reveal,
        "hidden_note": HIDDEN_NOTE,
        "verdict_words": words(run.verdict, VERDICT_WORDS),
        # A proof to show (or hide) only when the run found one: a cancelled or failed run's
        # last attempt is not "the prover's proof".
        "has_proof": bool(run.result.get("final_proof")) and run.verdict == "valid",
        "events": [event_view(i, e, reveal=reveal) for i, e in enumerate(run.events)],
        "tree": tree_view(run, reveal=reveal),
    }
