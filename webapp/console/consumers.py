"""Websocket of a training run's page: admins only; replays the run's state on connect."""

from __future__ import annotations

from typing import Any

from webapp.accounts.roles import is_admin
from webapp.console.live import LiveFragmentConsumer, render_fragments
from webapp.console.models import TrainingRun
from webapp.console.presenters import run_context


class TrainingRunConsumer(LiveFragmentConsumer):
    def load_for_user(self, pk: int, user: Any) -> TrainingRun | None:
        if not is_admin(user):
            return None
        return TrainingRun.objects.filter(pk=pk).first()

    def render_state(self, obj: TrainingRun) -> str:
        return render_fragments("console/run.html", ["status", "charts", "plots"], run_context(obj))
