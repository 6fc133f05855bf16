"""Status of every component the product needs, for /healthz and the admin status page.

Each check is a plain function returning a Component; none raises. A component that is
missing is reported with the reason and what to do, never hidden. Parts that a setup may lack
by design (a GPU on the web host, a promoted prover checkpoint on a CPU setup) are reported as
absent and count as fine: a healthy stack is `ok` whatever hardware it runs on.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection

from tutor import redis_boundary
from webapp.celery import QUEUES
from webapp.celery import app as celery_app


@dataclass
class Component:
    ok: bool
    detail: str
    # Core components make the service unusable when down; the others degrade it.
    core: bool = False
    data: dict[str, Any] = field(default_factory=dict)


def check_database() -> Component:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"; say which
        return Component(False, f"database unreachable: {exc}", core=True)
    return Component(True, f"{connection.vendor} reachable", core=True)


def check_redis() -> Component:
    where = redis_boundary.redacted(settings.REDIS_URL)
    problem = redis_boundary.ping(settings.REDIS_URL)
    if problem is not None:
        return Component(False, f"Redis at {where} does not answer: {problem}", core=True)
    return Component(True, f"Redis at {where} answers", core=True)


def check_workers(timeout_s: float = 1.0) -> Component:
    """Which Celery workers consume which queue (asks the live workers over the broker)."""
    try:
        replies = celery_app.control.inspect(timeout=timeout_s).active_queues() or {}
    except Exception as exc:  # broker down: kombu raises several types
        return Component(False, f"cannot reach the broker to ask workers: {exc}")
    by_queue: dict[str, list[str]] = {name: [] for name in QUEUES}
    for worker, queues in replies.items():
        for queue in queues:
            by_queue.setdefault(queue["name"], []).append(worker)
    missing = [name for name in QUEUES if not by_queue[name]]
    detail = "every queue has a worker" if not missing else f"no worker for: {', '.join(missing)}"
    return Component(not missing, detail, data={"queues": by_queue})


def check_lean() -> Component:
    from tutor.lean import lean_status

    status = lean_status()
    return Component(
        status.available,
        status.reason,
        data={
            "sandboxed": status.sandboxed,
            "repl_command": status.repl_command,
            "limits": status.limits,  # rlimits, per-REPL cgroup or why not, seccomp
        },
    )


def check_lean_selftest() -> Component:
    """The last Lean self-test (`make lean` ends with it, `make lean-check` reruns it). Not
    having run is reported, not counted against the stack (a REPL the operator built and named
    with LEAN_REPL_CMD has none); a failed one is."""
    from tutor.lean.selftest import last_result

    last = last_result()
    if last is None:
        return Component(
            True,
            "the Lean self-test has not run here (`make lean-check` runs it)",
            data={"ran": False},
        )
    return Component(
        bool(last.get("ok")), f"{last.get('summary')} at {last.get('ran_at')}", data=last
    )


@cache
def _gpu_probe() -> tuple[bool, str]:
    # torch is imported only here, once: the web process has no other use for it.
    if not shutil.which("nvidia-smi"):
        return False, "no GPU on the web host (no nvidia-smi); the prover runs on CPU"
    import torch

    if not torch.cuda.is_available():
        return False, "nvidia-smi present but torch sees no CUDA device"
    names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    return True, ", ".join(names)


def check_gpu() -> Component:
    """Optional: a web host without a GPU is a setup, not a fault (the prover runs on CPU or
    on GPU workers of its own)."""
    present, detail = _gpu_probe()
    return Component(True, detail, data={"present": present})


def check_serving_model() -> Component:
    pointer = settings.CHECKPOINT_ROOT / "serving.json"
    if not pointer.exists():
        from django.db import DatabaseError

        from webapp.console.default_model import preparing_run

        try:
            run = preparing_run()
        except DatabaseError:  # the database's own check says what is wrong with it
            run = None
        if run is not None:  # the first-run fine-tune, a background job on the `train` queue
            # Reported, not degradation: a fresh install is healthy while it prepares (its
            # students are told so and get the search prover meanwhile: webapp.provers.actions),
            # and an uptime monitor must not read minutes of warning after every install.
            return Component(
                True,
                f"preparing the default prover model, {run.progress_percent}% "
                f"(training run {run.pk}, {run.status})",
                data={"checkpoint": None, "preparing_percent": run.progress_percent},
            )
        # Optional: without a promoted checkpoint the prover serves its base model.
        return Component(
            True,
            "no checkpoint promoted to serving yet; the prover uses its base model",
            data={"checkpoint": None},
        )
    try:
        serving = json.loads(pointer.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        return Component(False, f"serving pointer {pointer} unreadable: {exc}")
    # Layout owned by training.checkpoints.ServingState: `path` is relative to the root.
    path = serving.get("path")
    if not path:
        return Component(False, f"serving pointer {pointer} names no checkpoint", data=serving)
    detail = f"serving {path} (version {serving.get('version', '?')})"
    return Component(True, detail, data={**serving, "checkpoint": path})


CHECKS = {
    "database": check_database,
    "redis": check_redis,
    "workers": check_workers,
    "lean": check_lean,
    "lean_selftest": check_lean_selftest,
    "gpu": check_gpu,
    "serving_model": check_serving_model,
}


def system_status() -> dict[str, Any]:
    components: dict[str, Component] = {}
    for name, check in CHECKS.items():
        if name == "workers" and not components["redis"].ok:
            # Workers are asked over the broker, which is this Redis: asking would only wait
            # out the broker's timeouts and retries.
            components[name] = Component(False, "not asked: the broker (Redis) does not answer")
            continue
        components[name] = check()
    if any(c.core and not c.ok for c in components.values()):
        overall = "down"
    elif all(c.ok for c in components.values()):
        overall = "ok"
    else:
        overall = "degraded"
    return {"status": overall, "components": {k: asdict(v) for k, v in components.items()}}


# One answer serves every request for a couple of seconds: asking the workers takes about a
# second, and /healthz is polled by load balancers. Short enough that a Redis that stops
# answering reads `down` within 5 s (the cached answer's age, then a 1 s ping). Kept in this
# process, not in Redis: it must work when Redis is the thing that is down.
CACHE_SECONDS = 2.0
_cache_lock = threading.Lock()
_cached: tuple[float, dict[str, Any]] | None = None


def cached_system_status(max_age_s: float = CACHE_SECONDS) -> dict[str, Any]:
    """system_status(), at most `max_age_s` old; concurrent callers wait for one check."""
    global _cached
    with _cache_lock:
        now = time.monotonic()
        if _cached is None or now - _cached[0] > max_age_s:
            _cached = (now, system_status())
        return _cached[1]


def clear_cache() -> None:
    global _cached
    with _cache_lock:
        _cached = None


def public_status(status: dict[str, Any]) -> dict[str, Any]:
    """What anyone may read: the overall state only. Hosts, paths, sandbox, worker names
    and the serving checkpoint are for admins (they help an attacker map the service)."""
    return {"status": status["status"]}
