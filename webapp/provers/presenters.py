"""What the prover run templates show (shared by the page, the fragment endpoint and the
websocket pushes)."""

from __future__ import annotations

from typing import Any

from webapp.provers.models import ProverRun

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


def _clip(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def _summary(event: dict[str, Any]) -> tuple[str, str]:
    """(one-line summary, optional longer body) of an event dict."""
    kind = event.get("type", "")
    if kind == "started":
        return f"mode {event.get('mode', '')}, model {event.get('model', '')}", ""
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
        return f"verdict {event.get('verdict', '')} ({event.get('stop_reason', '')})", _clip(
            str(event.get("proof") or "")
        )
    return _clip(str(event.get("text", "")), 200), ""


def event_view(index: int, event: dict[str, Any]) -> dict[str, Any]:
    summary, body = _summary(event)
    kind = str(event.get("type", "event"))
    return {"index": index, "kind": kind, "label": LABELS.get(kind, kind), "summary": summary,
            "body": body}  # fmt: skip


def run_context(run: ProverRun) -> dict[str, Any]:
    return {
        "run": run,
        "exercise": run.exercise,
        "events": [event_view(i, e) for i, e in enumerate(run.events)],
    }
