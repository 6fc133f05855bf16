"""Live pages over Channels: push rendered fragments to a group, and a consumer base that
checks the user in connect() and replays the current state.

Message contract (channel layer -> consumer): {"type": "live.html", "html": str,
"final": bool}. `html` is one or more fragments whose top-level elements carry ids; htmx's ws
extension swaps each into the element with the same id. `final` is True on the last message
of a run (the page then shows its end state; the socket stays open so a reload still works).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from channels.db import database_sync_to_async
from django.template.loader import render_to_string
from django.utils import timezone

from webapp.console.models import TrainingRun
from webapp.console.presenters import run_context
from webapp.core.consumers import LiveSocketConsumer
from webapp.core.layer import group_send

logger = logging.getLogger(__name__)

MESSAGE_TYPE = "live.html"

# A training run's page: what each push while it runs, and the last one, redraws.
RUN_TEMPLATE = "console/run.html"
LIVE_PARTS = ["status", "charts", "lineage"]  # a run's lineage is known from its start
FINAL_PARTS = ["status", "charts", "plots", "lineage"]


def render_fragments(template: str, names: list[str], context: dict[str, Any]) -> str:
    """The named partials of one template, concatenated (the page renders the same ones)."""
    return "".join(render_to_string(f"{template}#{name}", context) for name in names)


def push(group: str, html: str, *, final: bool = False) -> None:
    """Send fragments to every browser watching `group` (synchronous code: tasks, actions)."""
    group_send(group, {"type": MESSAGE_TYPE, "html": html, "final": final})


def push_run_state(pk: int, *, final: bool = False) -> None:
    """A training run's status and charts (and, at its end, plots and lineage) to everyone
    watching it (the group `training_run.<pk>`)."""
    run = TrainingRun.objects.get(pk=pk)
    parts = FINAL_PARTS if final else LIVE_PARTS
    push(run.group_name, render_fragments(RUN_TEMPLATE, parts, run_context(run)), final=final)


# Between two pushes of a run (a first step on a CPU can take minutes), its elapsed time is
# pushed this often, so the page never looks stuck.
HEARTBEAT_S = 5.0


class RunHeartbeat:
    """While a run's task works, push its elapsed time (the run page's `elapsed` fragment)
    every HEARTBEAT_S seconds from a daemon thread. The thread touches no database: it
    renders from the start time it was given."""

    def __init__(self, run: TrainingRun, every_s: float = HEARTBEAT_S) -> None:
        self.group = run.group_name
        self.started = run.started_at or timezone.now()
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="run-heartbeat", daemon=True)

    def __enter__(self) -> RunHeartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.every_s)

    def _beat(self) -> None:
        while not self._stop.wait(self.every_s):
            context = {"headline": {"elapsed": timezone.now() - self.started}}
            try:
                push(self.group, render_fragments(RUN_TEMPLATE, ["elapsed"], context))
            except Exception:  # noqa: BLE001 - a missed beat is harmless; the next one follows
                logger.debug("heartbeat push to %s failed", self.group, exc_info=True)


class LiveFragmentConsumer(LiveSocketConsumer):
    """Subclasses say who may watch (load_for_user) and what the current state looks like
    (render_state); both run in a thread because they touch the database."""

    group_name: str = ""

    def load_for_user(self, pk: int, user: Any) -> Any | None:
        """The watched object, or None when this user may not watch it (or it is gone)."""
        raise NotImplementedError

    def render_state(self, obj: Any) -> str:
        raise NotImplementedError

    def group_for(self, obj: Any) -> str:
        return str(obj.group_name)

    async def connect(self) -> None:
        user = self.scope.get("user")
        pk = int(self.scope["url_route"]["kwargs"]["pk"])
        obj = None
        if user is not None and user.is_authenticated:
            obj = await database_sync_to_async(self.load_for_user)(pk, user)
        if obj is None:
            await self.close(code=4403)
            return
        self.group_name = self.group_for(obj)
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()
        # Replay after joining the group: an update racing with the replay arrives after it.
        await self.send(text_data=await database_sync_to_async(self._fresh_state)(pk, user))

    def _fresh_state(self, pk: int, user: Any) -> str:
        obj = self.load_for_user(pk, user)
        return self.render_state(obj) if obj is not None else ""

    async def disconnect(self, code: int) -> None:
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Watch-only sockets: commands go through POST views (CSRF, permissions, actions).
        return

    async def live_html(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])
