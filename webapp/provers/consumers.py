"""Websocket of a prover run: its owner and admins only; replays the run on connect."""

from __future__ import annotations

from typing import Any

from webapp.console.live import LiveFragmentConsumer, render_fragments
from webapp.provers.access import can_see_run, may_see_final_proof
from webapp.provers.models import ProverRun
from webapp.provers.presenters import run_context


class ProverRunConsumer(LiveFragmentConsumer):
    def load_for_user(self, pk: int, user: Any) -> ProverRun | None:
        run = ProverRun.objects.select_related("exercise__world", "user").filter(pk=pk).first()
        return run if run is not None and can_see_run(user, run) else None

    def render_state(self, obj: ProverRun, reveal: bool = False) -> str:
        context = run_context(obj, reveal=reveal)
        return render_fragments("provers/run.html", ["status", "tree", "events"], context)

    def _fresh_state(self, pk: int, user: Any) -> str:
        # The replay is this viewer's own (the proof only if she may see it); later pushes
        # to the group carry the owner's view (webapp.provers.tasks).
        run = self.load_for_user(pk, user)
        if run is None:
            return ""
        return self.render_state(run, reveal=may_see_final_proof(user, run))
