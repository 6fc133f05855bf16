"""uvicorn's options as a shell command line gives them (the Procfile's web line, compose's, the
image's): expanded by `sh` with a given environment, then read by uvicorn's own parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from uvicorn.main import main as uvicorn_command

UVICORN = "python -m uvicorn "


def uvicorn_options(line: str, environment: dict[str, str] | None = None) -> dict[str, object]:
    """`line` runs `python -m uvicorn …`, optionally behind `exec`."""
    exec_prefix = "exec " if line.startswith("exec ") else ""
    command = line.removeprefix(exec_prefix)
    assert command.startswith(UVICORN), line
    show = f"{exec_prefix}{sys.executable} -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "
    env = {"PATH": os.environ["PATH"], **(environment or {})}
    shown = subprocess.run(
        ["sh", "-c", show + command.removeprefix(UVICORN)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return dict(uvicorn_command.make_context("uvicorn", json.loads(shown.stdout)).params)
