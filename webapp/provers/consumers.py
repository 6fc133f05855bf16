"""Websocket of a prover run: its owner and admins only; replays the run on connect."""

from __future__ import annotations

from typing import Any

from webapp.console.live import LiveFragmentConsumer, render_fragments
from webapp.provers.access import can_see_run
from webapp.provers.models import ProverRun
from webapp.provers.presenters import run_context


class ProverRunConsumer(LiveFragmentConsumer):
    def load_for_user(self, pk: int, user: Any) -> ProverRun | None:
        run = ProverRun.objects.select_related("exercise").filter(pk=pk).first()
        return run if run is not None and can_see_run(user, run) else None

    def render_state(self, obj: ProverRun) -> str:
        return render_fragments("provers/run.html", ["status", "events"], run_context(obj))
