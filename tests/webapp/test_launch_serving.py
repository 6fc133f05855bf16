"""How `make run` serves (webapp.launch._serving_settings): the processes and uvicorn's options,
as uvicorn itself reads them."""

from __future__ import annotations

import os
import shlex

import pytest
from uvicorn.main import main as uvicorn_command

from webapp.launch import _serving_settings


def _uvicorn_options(args: str) -> dict[str, object]:
    context = uvicorn_command.make_context(
        "uvicorn", ["webapp.asgi:application", *shlex.split(args)]
    )
    return dict(context.params)


def test_make_run_serves_one_process_per_core_without_websocket_compression() -> None:
    env: dict[str, str] = {}
    _serving_settings(env)
    assert env["DJANGO_SETTINGS_MODULE"] == "webapp.settings.embedded"
    assert env["LEANCOACH_WEB_WORKERS"] == str(min(os.cpu_count() or 1, 8))
    options = _uvicorn_options(env["LEANCOACH_WEB_ARGS"])
    assert options["ws_per_message_deflate"] is False  # uvicorn's default is True
    assert options["access_log"] is False


def test_make_dev_keeps_one_reloading_process() -> None:
    env = {"LEANCOACH_DEV": "1"}
    _serving_settings(env)
    assert env["DJANGO_SETTINGS_MODULE"] == "webapp.settings.dev"
    assert env["LEANCOACH_WEB_WORKERS"] == "1"
    assert _uvicorn_options(env["LEANCOACH_WEB_ARGS"])["reload"] is True


@pytest.mark.parametrize("name", ["LEANCOACH_WEB_WORKERS", "LEANCOACH_WEB_ARGS"])
def test_what_the_environment_sets_wins(name: str) -> None:
    env = {name: "3" if name.endswith("WORKERS") else "--log-level debug"}
    _serving_settings(env)
    assert env[name] == ("3" if name.endswith("WORKERS") else "--log-level debug")
