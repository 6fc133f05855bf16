"""Live updates of attempts, over two kinds of socket:

- ws/attempts/<pk>/ (AttemptConsumer): one attempt, on its own page (a teacher's view, a
  student's link from the history).
- ws/exercises/<pk>/live/ (ExerciseLiveConsumer): the student's own exercise page, one socket
  for the page's life. It follows her latest attempt there: each submit's answer draws the new
  panel, which tells the socket what it shows (a `shown` message), so a submit pays no
  handshake, no session and user lookups; only the renders.

connect() checks the user and replays the current state, so a reloading or reconnecting
browser is never stuck waiting for a message it missed.

The worker sends notices, not pages (webapp/attempts/live.py): the consumer renders the
state for its own user when told the attempt changed. An unfinished step waits SETTLE_S
first, so a check that ends within it costs one render, not one per step; the end state is
rendered at once. Renders run one at a time, each reading the database afresh, so the page
never steps back to an older state.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from webapp.attempts import live
from webapp.attempts.access import visible_attempt
from webapp.attempts.models import Attempt
from webapp.core.consumers import LiveSocketConsumer
from webapp.courses.access import visible_exercise
from webapp.courses.models import Exercise

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403

# How long an unfinished step waits before it is rendered: short enough that "Lean is
# checking" shows at once, long enough that a quick check goes straight to its verdict.
SETTLE_S = 0.1
# How long her exercise page waits for its own submit's answer (which draws the new panel and
# history row, and announces the attempt) before it draws them itself for an attempt it was
# not told about: one submitted in another tab.
CATCH_UP_WAIT_S = 2.0


@dataclass
class _State:
    allowed: bool  # the user may see the attempt (and it exists)
    html: str | None = None  # None: nothing to send (the page shows this state already)
    ended: bool = True
    attempt_pk: int = 0


def _state_of(attempt: Attempt | None, shown: str = "", always_finished: bool = True) -> _State:
    """`shown`: the live_marker the page drew. An unfinished state the page shows already is
    not sent again; a finished one is unless `always_finished` is off (see the callers)."""
    if attempt is None:
        return _State(allowed=False)
    unchanged = bool(shown) and attempt.live_marker == shown
    if unchanged and (not attempt.is_finished or not always_finished):
        return _State(allowed=True, html=None, ended=attempt.is_finished, attempt_pk=attempt.pk)
    html = live.render_fragments(attempt)
    return _State(allowed=True, html=html, ended=attempt.is_finished, attempt_pk=attempt.pk)


@database_sync_to_async
def _current_state(user: Any, attempt_pk: int, shown: str = "") -> _State:
    """The attempt's fragments for this user, read with the access check. A finished attempt
    is always sent (teachers' reviews may have changed it since the page was drawn)."""
    attempt = visible_attempt(user, attempt_pk, defer=("check_result",))
    return _state_of(attempt, shown)


def _shown(scope: dict[str, Any]) -> str:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return (query.get("shown") or [""])[0]


class AttemptConsumer(LiveSocketConsumer):
    group: str | None = None
    render_lock: asyncio.Lock
    attempt_pk = 0
    ended = False  # the end state was sent: later notices change nothing
    sent_pk = 0  # the attempt whose state this socket last sent
    settling: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        self.render_lock = asyncio.Lock()
        # Join first, then read the state (one trip to the database, with the access check):
        # a notice sent in between arrives after the read, so nothing falls into a gap. A
        # notice carries no content, and whoever may not see the attempt leaves at once.
        self.group = self.group_name()
        await self.channel_layer.group_add(self.group, self.channel_name)
        state = await self.first_state(user)
        if not state.allowed:  # not yours, or no such thing: the same answer for both
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.accept()
        self.attempt_pk = state.attempt_pk
        await self._deliver(state.attempt_pk, state)

    def group_name(self) -> str:
        return Attempt.group_for(int(self.scope["url_route"]["kwargs"]["pk"]))

    async def first_state(self, user: Any) -> _State:
        pk = int(self.scope["url_route"]["kwargs"]["pk"])
        return await _current_state(user, pk, _shown(self.scope))

    async def read_state(self, attempt_pk: int) -> _State:
        return await _current_state(self.scope["user"], attempt_pk)

    async def disconnect(self, code: int) -> None:
        if self.settling is not None:
            self.settling.cancel()
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The browser only listens; whatever it sends is ignored."""

    async def attempt_changed(self, event: dict[str, Any]) -> None:
        if self.ended:
            return
        if event.get("finished"):
            # A settling render still asleep then finds the end state sent and does nothing.
            await self._send_state()
        elif self.settling is None or self.settling.done():
            self.settling = asyncio.create_task(self._send_state_after(SETTLE_S))

    async def _send_state_after(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        await self._send_state()

    async def _send_state(self) -> None:
        async with self.render_lock:
            if self.ended:
                return
            pk = self.attempt_pk
            state = await self.read_state(pk)
            if pk != self.attempt_pk:  # the page moved on to a newer attempt meanwhile
                return
            if not state.allowed:  # no longer the user's to see
                self.ended = True
                await self.close(code=CLOSE_FORBIDDEN)
            else:
                await self._deliver(pk, state)

    async def _deliver(self, pk: int, state: _State) -> None:
        self.ended = state.ended
        if state.html is not None:
            await self.send(text_data=state.html)
            self.sent_pk = pk


@database_sync_to_async
def _open_exercise(user: Any, exercise_pk: int, shown: str) -> tuple[Exercise | None, _State]:
    """The exercise, if it is hers to see, and her latest attempt at it (allowed, with no
    attempt: nothing to send yet). `shown` is "<attempt pk>:<live_marker>" as the page drew
    it; a state the page shows is not sent again, finished or not (a reconnect after a
    submit finds a newer attempt, which differs)."""
    exercise = visible_exercise(user, pk=exercise_pk)
    if exercise is None:
        return None, _State(allowed=False)
    attempt = _attach(_own_attempts(user.pk, exercise.pk).first(), exercise)
    if attempt is None:
        return exercise, _State(allowed=True, html=None, ended=True)
    shown_pk, _, marker = shown.partition(":")
    if shown_pk == str(attempt.pk):
        return exercise, _state_of(attempt, marker, always_finished=False)
    # Drawn before her latest submit (made in another tab, or while the page was away).
    html = _whole_panel_and_history(user, exercise, attempt)
    return exercise, _State(
        allowed=True, html=html, ended=attempt.is_finished, attempt_pk=attempt.pk
    )


def _own_attempts(student: int, exercise: int) -> Any:
    """Her own attempts at the page's exercise, read alone: the exercise (checked when the
    socket opened) is attached instead of joined in again on every render."""
    mine = Attempt.objects.defer("check_result").filter(student_id=student, exercise_id=exercise)
    return mine.order_by("-pk")


def _attach(attempt: Attempt | None, exercise: Exercise) -> Attempt | None:
    if attempt is not None:
        attempt.exercise = exercise
    return attempt


def _own_attempt(user: Any, exercise: Exercise, attempt_pk: int) -> Attempt | None:
    return _attach(_own_attempts(user.pk, exercise.pk).filter(pk=attempt_pk).first(), exercise)


@database_sync_to_async
def _own_state(user: Any, exercise: Exercise, attempt_pk: int, shown: str = "") -> _State:
    return _state_of(_own_attempt(user, exercise, attempt_pk), shown, always_finished=False)


def _whole_panel_and_history(user: Any, exercise: Exercise, attempt: Attempt) -> str:
    """For a page that missed a submit: its panel, if any, is an older attempt's (its id, its
    Refresh link), and its history lacks the row. The whole list is replaced, so a row the
    page has is not doubled."""
    return live.render_panel(attempt) + live.render_history(user, exercise)


@database_sync_to_async
def _catch_up(user: Any, exercise: Exercise, attempt_pk: int) -> str | None:
    attempt = _own_attempt(user, exercise, attempt_pk)
    return None if attempt is None else _whole_panel_and_history(user, exercise, attempt)


@database_sync_to_async
def _history_status(user: Any, exercise: Exercise, attempt_pk: int) -> str | None:
    attempt = _own_attempt(user, exercise, attempt_pk)
    return None if attempt is None else live.render_history_status(attempt)


class ExerciseLiveConsumer(AttemptConsumer):
    """The student's own exercise page: the panel of her latest attempt there. Notices name
    their attempt; one newer than the panel's is followed (she submitted, here or in another
    tab), and an older one that ends only updates its line in the history."""

    exercise: Exercise | None = None  # read with the access check when the socket opened
    # The newest attempt the page is known to draw: the one it was drawn with (or sent at
    # connect), or one its own submit's answer announced (`shown`).
    announced_pk = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.catch_ups: set[asyncio.Task[None]] = set()

    def group_name(self) -> str:
        user_pk = self.scope["user"].pk
        return Attempt.watch_group_for(user_pk, self._exercise_pk())

    def _exercise_pk(self) -> int:
        return int(self.scope["url_route"]["kwargs"]["pk"])

    async def first_state(self, user: Any) -> _State:
        self.exercise, state = await _open_exercise(user, self._exercise_pk(), _shown(self.scope))
        self.announced_pk = state.attempt_pk  # drawn with it, or sent with its history
        return state

    async def disconnect(self, code: int) -> None:
        for task in self.catch_ups:
            task.cancel()
        await super().disconnect(code)

    async def read_state(self, attempt_pk: int) -> _State:
        if self.exercise is None:  # refused at connect: a notice queued meanwhile finds nothing
            return _State(allowed=False)
        return await _own_state(self.scope["user"], self.exercise, attempt_pk)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """{"shown": "<attempt pk>:<live_marker>"}: the panel the page now shows (a submit's
        answer). If this socket already sent that attempt's state, the answer may have drawn
        "queued" over it (a notice can beat the answer to the page): the state is read and
        sent again if it moved on. If it sent nothing yet, nothing is read: every change from
        here on comes as a notice to this socket, which is in the group since the page
        opened."""
        try:
            shown = str(json.loads(text_data or "{}").get("shown", ""))
            pk = int(shown.partition(":")[0])
        except (ValueError, TypeError, AttributeError):
            return
        if pk < self.attempt_pk:
            return
        self.announced_pk = max(self.announced_pk, pk)  # its answer added the history row
        async with self.render_lock:
            self._follow(pk)
            if self.sent_pk != pk or self.exercise is None:
                return
            state = await _own_state(self.scope["user"], self.exercise, pk, shown.partition(":")[2])
            if pk == self.attempt_pk and state.allowed:
                await self._deliver(pk, state)

    async def attempt_changed(self, event: dict[str, Any]) -> None:
        pk = int(event.get("attempt") or 0)
        if pk < self.attempt_pk:
            if event.get("finished") and self.exercise is not None:
                # e.g. superseded by her next submit: its history line
                html = await _history_status(self.scope["user"], self.exercise, pk)
                if html is not None:
                    await self.send(text_data=html)
            return
        if pk > self.attempt_pk and pk > self.announced_pk:
            self._catch_up_unless_announced(pk)
        self._follow(pk)
        await super().attempt_changed(event)

    def _catch_up_unless_announced(self, pk: int) -> None:
        """A newer attempt this page did not announce: submitted here, with the answer still
        on its way (it draws the new panel and history row, and announces the attempt), or
        in another tab. Meanwhile the attempt's changing parts go out as for any attempt
        (into this page's panel, whichever attempt's it is); after CATCH_UP_WAIT_S without
        an announcement, the whole panel and the whole history list. Not at once: the whole
        panel would replace the answer's, and with it the hidden element that announces the
        attempt, when the answer came first."""
        task = asyncio.create_task(self._catch_up_after(pk, CATCH_UP_WAIT_S))
        self.catch_ups.add(task)
        task.add_done_callback(self.catch_ups.discard)

    async def _catch_up_after(self, pk: int, seconds: float) -> None:
        await asyncio.sleep(seconds)
        if self.announced_pk >= pk or self.exercise is None:
            return
        async with self.render_lock:  # after any render in flight: the newest state wins
            html = await _catch_up(self.scope["user"], self.exercise, self.attempt_pk)
            self.announced_pk = max(self.announced_pk, pk)
            if html is not None:
                await self.send(text_data=html)

    async def live_goals(self, event: dict[str, Any]) -> None:
        """Goals while typing (webapp/attempts/live_goals.py): the answer for one of her
        pages, as the `#live-goals` fragment; the page whose request it answers draws it."""
        data = json.dumps(event.get("data") or {}, ensure_ascii=False)
        html = render_to_string("attempts/_live_goals.html", {"live_json": data, "oob": True})
        await self.send(text_data=html)

    def _follow(self, pk: int) -> None:
        if pk > self.attempt_pk:
            self.attempt_pk, self.ended = pk, False
