"""The prover run websocket: its owner, her teacher and admins get the run replayed, then
pushes; other students, other teachers and anonymous users are refused."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from tests.webapp.cast import make_cast
from tests.webapp.test_console_consumers import connect
from webapp.console.live import push
from webapp.provers.models import ProverRun

pytestmark = pytest.mark.django_db(transaction=True)


def _setup():
    cast = make_cast()
    run = ProverRun.objects.create(
        exercise=cast.exercise, user=cast.student, status="running",
        events=[{"type": "started", "attempt": 0, "mode": "agent", "model": "tiny"},
                {"type": "tool_call", "attempt": 0, "turn": 1, "name": "lean_write_file",
                 "arguments": {"code": "theorem x : True := by trivial"}}],
    )  # fmt: skip
    return cast, run


@pytest.mark.parametrize("who", ["student", "admin", "teacher"])
async def test_the_owner_and_admins_get_the_replay_then_pushes(who: str) -> None:
    cast, run = await sync_to_async(_setup)()
    communicator, connected = await connect(f"/ws/prover/runs/{run.pk}/", getattr(cast, who))
    assert connected
    replay = await communicator.receive_from(timeout=5)
    assert 'id="prover-status"' in replay and 'id="prover-events"' in replay
    assert "lean_write_file" in replay
    # The code the prover wrote is its proof: Sam has not solved the exercise, so he sees it
    # hidden (webapp.provers.access); his teacher and admins see it.
    code_shown = "theorem x : True := by trivial" in replay
    assert code_shown is (who != "student")
    await sync_to_async(push)(run.group_name, '<li id="x">next</li>')
    assert await communicator.receive_from(timeout=5) == '<li id="x">next</li>'
    await communicator.disconnect()


@pytest.mark.parametrize("who", ["other_student", "other_teacher", "outsider", None])
async def test_everyone_else_is_refused(who: str | None) -> None:
    cast, run = await sync_to_async(_setup)()
    communicator, connected = await connect(
        f"/ws/prover/runs/{run.pk}/", getattr(cast, who) if who else None
    )
    assert not connected
    await communicator.disconnect()
