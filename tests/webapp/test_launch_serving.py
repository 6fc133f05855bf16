"""How `make run` serves (webapp.launch._serving_settings): the processes and uvicorn's options,
as uvicorn itself reads them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.webapp.uvicorn_lines import uvicorn_options
from webapp.launch import _serving_settings

ROOT = Path(__file__).resolve().parents[2]


def _uvicorn_options(args: str) -> dict[str, object]:
    return uvicorn_options(f"python -m uvicorn webapp.asgi:application {args}")


def test_make_run_serves_one_process_per_core_without_websocket_compression() -> None:
    env: dict[str, str] = {}
    _serving_settings(env)
    assert env["DJANGO_SETTINGS_MODULE"] == "webapp.settings.embedded"
    assert env["LEANCOACH_WEB_WORKERS"] == str(min(len(os.sched_getaffinity(0)), 8))
    options = _uvicorn_options(env["LEANCOACH_WEB_ARGS"])
    assert options["ws_per_message_deflate"] is False  # uvicorn's default is True
    assert options["access_log"] is False


def test_web_processes_follow_the_cores_this_process_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A container limited to one core of a larger machine (docker --cpuset-cpus, taskset):
    # os.cpu_count() still counts the machine's cores, as `nproc` does not.
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})
    env: dict[str, str] = {}
    _serving_settings(env)
    assert env["LEANCOACH_WEB_WORKERS"] == "1"


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


def test_the_procfile_web_line_serves_with_those_settings() -> None:
    """The line honcho runs for `make run`, expanded by the shell as there."""
    env: dict[str, str] = {"LEANCOACH_HOST": "127.0.0.1", "LEANCOACH_PORT": "8000"}
    _serving_settings(env)
    procfile = (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()
    line = next(row for row in procfile if row.startswith("web:")).removeprefix("web:").strip()
    options = uvicorn_options(line, env)
    assert options["workers"] == int(env["LEANCOACH_WEB_WORKERS"])
    assert options["ws"] == "websockets-sansio"  # the old `websockets` one is deprecated
    assert options["ws_per_message_deflate"] is False


LAUNCH_ENV = (
    "from webapp.launch import launch_environment as e; print(e()['DJANGO_SETTINGS_MODULE'])"
)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, "webapp.settings.embedded"),  # `make run` on a fresh machine
        ({"LEANCOACH_DEV": "1"}, "webapp.settings.dev"),  # `make dev`
        ({"DJANGO_SETTINGS_MODULE": "webapp.settings.prod"}, "webapp.settings.prod"),
    ],
)
def test_the_stack_gets_the_serving_settings_not_the_import_default(
    given: dict[str, str], expected: str
) -> None:
    """Run as `make run` runs it: a new interpreter, whose import of the `webapp` package
    sets the dev settings as a default. The processes must get the serving settings (it
    gave them the dev ones: DEBUG on, the debug 404 page, templates read on every request)."""
    import subprocess
    import sys

    env = {
        k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "LEANCOACH_DEV")
    }
    env.update(given)
    out = subprocess.run([sys.executable, "-c", LAUNCH_ENV], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=60).stdout  # fmt: skip
    assert out.strip().splitlines()[-1] == expected
