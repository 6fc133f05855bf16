"""The production images and docker/compose.yaml.

Always (no podman; about a second): scripts/check_images.py's static checks pass for
docker/compose.yaml and docker/Dockerfile and catch, each with its reason, what a fresh Docker
host would hit (a Lean worker without the /proc masks lifted, a service without a healthcheck
or restart policy, beat's schedule off its volume, Prometheus out of web's networks, a secret
in the environment); the entry point puts the secret files' passwords into the URLs every
client reads; the healthcheck reads the container's command as an init leaves it.

Opt-in (LEANCOACH_IMAGE_TEST=1: a build of several minutes and several GB of disk): the image
built and run as compose runs it, by scripts/check_images.py with the Lean test doubles, which
proves bubblewrap and the seccomp filter in the worker, writable volumes, healthy healthchecks,
and a check from the web to the worker and back over HTTP.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import dj_database_url
import pytest
import redis

from tests.webapp.uvicorn_lines import uvicorn_options

ROOT = Path(__file__).resolve().parents[2]
TOOL = Path(os.environ.get("OCI_LOCAL", ROOT.parent / "shared" / "tools" / "oci-local"))


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


check_images = _load("check_images", ROOT / "scripts" / "check_images.py")
entrypoint = _load("entrypoint", ROOT / "docker" / "entrypoint.py")
healthcheck = _load("healthcheck", ROOT / "docker" / "healthcheck.py")
DOCKERFILE = (ROOT / "docker" / "Dockerfile").read_text()


def _compose() -> dict[str, Any]:
    return check_images.load_compose(ROOT / "docker" / "compose.yaml", {})


def test_compose_and_the_dockerfile_give_a_fresh_host_what_it_needs() -> None:
    assert check_images.static_problems(_compose(), DOCKERFILE) == []


def test_the_static_checks_catch_what_a_fresh_host_would_hit() -> None:
    compose = copy.deepcopy(_compose())
    services = compose["services"]
    services["worker-lean"]["security_opt"] = ["no-new-privileges:true", "seccomp=unconfined"]
    del services["redis"]["healthcheck"]
    services["web"]["restart"] = "no"
    services["beat"]["command"] = ["celery", "-A", "webapp", "beat", "--schedule", "/tmp/s"]
    services["prometheus"]["networks"] = ["default"]
    services["worker-train"]["environment"]["SECRET_KEY"] = "in-the-environment"
    services["web"]["command"][-1] = services["web"]["command"][-1].replace(
        "--forwarded-allow-ips 172.30.53.2", "--forwarded-allow-ips *"
    )
    dockerfile = DOCKERFILE.replace("/var/lib/leancoach/beat", "").replace(
        "bubblewrap ripgrep", "bubblewrap nodejs npm ripgrep"
    )
    problems = check_images.static_problems(compose, dockerfile)
    for expected in (
        "worker-lean cannot start bubblewrap",
        "redis has no healthcheck",
        "web has no restart policy",
        "beat's schedule /tmp/s is not on a volume",
        "Prometheus shares no network with web",
        "worker-train gets SECRET_KEY as plain environment",
        "web trusts proxy headers from *",
        "the image does not create /var/lib/leancoach/beat",
        "the base stage installs nodejs",
        "the base stage installs npm",
    ):
        assert any(p.startswith(expected) for p in problems), (expected, problems)


def _gpu_files() -> tuple[dict[str, Any], dict[str, Any]]:
    return (
        check_images.load_compose(check_images.GPU_OVERRIDE, {}),
        check_images.load_compose(check_images.GPU_HOST, check_images.GPU_HOST_VARIABLES),
    )


def test_the_gpu_files_give_a_gpu_host_what_it_needs() -> None:
    """compose.gpu.yaml over compose.yaml and compose.gpu-host.yaml put the `prover` and
    `train` queues on the gpu image alone, with GPUs reserved; the gpu target is built on the
    runtime stage, runs as leancoach, has a compiler for Triton, the default model's package
    and pinned dependencies. Read, not run: the GPU image cannot be built here."""
    override, host = _gpu_files()
    assert check_images.gpu_problems(_compose(), override, host, DOCKERFILE) == []


def test_the_gpu_checks_catch_what_a_gpu_host_would_hit() -> None:
    override, host = _gpu_files()
    compose = copy.deepcopy(_compose())
    override, host = copy.deepcopy(override), copy.deepcopy(host)
    # The CPU lean worker also takes `prover` (competing with the GPU worker for its runs).
    lean = compose["services"]["worker-lean"]["command"]
    lean[lean.index("-Q") + 1] = "lean,prover"
    del override["services"]["worker-train"]["deploy"]
    gpu_host = host["services"]["worker-prover"]
    gpu_host["environment"]["REDIS_URL"] = "redis://:pw@redis:6379/0"
    gpu_host["security_opt"] = ["no-new-privileges:true"]
    del gpu_host["healthcheck"]
    dockerfile = (
        DOCKERFILE.replace('USER leancoach\nCMD ["celery"', 'CMD ["celery"')
        .replace("gcc libc6-dev", "libc6-dev")
        .replace("pip install -c requirements.lock '.[gpu]'", "pip install '.[gpu]'")
    )
    problems = check_images.gpu_problems(compose, override, host, dockerfile)
    for expected in (
        "compose.gpu.yaml: worker-lean consumes ['prover'] without the gpu image",
        "compose.gpu.yaml: worker-train consumes ['train'] with no GPU reserved",
        "compose.gpu-host.yaml: worker-prover's REDIS_URL holds a password",
        "compose.gpu-host.yaml: worker-prover's REDIS_URL does not name the main host",
        "compose.gpu-host.yaml: worker-prover cannot start bubblewrap",
        "compose.gpu-host.yaml: worker-prover has no healthcheck",
        "the gpu image runs as root",
        "the gpu image has no C compiler",
        "the gpu image's dependencies are not installed with -c requirements.lock",
    ):
        assert any(p.startswith(expected) for p in problems), (expected, problems)
    del host["services"]["worker-train"]
    assert "compose.gpu-host.yaml: no worker consumes train" in check_images.gpu_problems(
        _compose(), _gpu_files()[0], host, DOCKERFILE
    )


def test_beat_sends_the_sweeper_to_the_queue_only_worker_sweep_consumes() -> None:
    """The sweeper must never wait behind checks or runs: beat routes it by
    LEANCOACH_SWEEP_QUEUE (webapp/settings/resilience.py), and only worker-sweep takes it."""
    services = _compose()["services"]
    queue = services["beat"]["environment"]["LEANCOACH_SWEEP_QUEUE"]
    takers = [
        name
        for name, service in services.items()
        if "worker" in service.get("command", [])
        and queue in service["command"][service["command"].index("-Q") + 1].split(",")
    ]
    assert takers == ["worker-sweep"]
    sweeper_command = services["worker-sweep"]["command"]
    assert sweeper_command[sweeper_command.index("-Q") + 1] == queue


def test_the_image_trusts_no_proxy_headers_unless_told() -> None:
    """The image's own CMD (a container run without compose's web command, facing users
    directly) takes the client address from the connection, never from X-Forwarded-For."""
    cmd = json.loads(re.findall(r"^CMD (\[.*\])$", DOCKERFILE, re.M)[-1])
    assert cmd[:2] == ["sh", "-c"]
    options = uvicorn_options(cmd[2], {})
    assert options["proxy_headers"] is False
    assert options["ws_per_message_deflate"] is False and options["access_log"] is False


def test_compose_interpolation_follows_the_spec() -> None:
    given = {"SET": "x", "EMPTY": ""}
    assert check_images.interpolate("${EMPTY:-d} ${EMPTY-d} ${UNSET-d} $SET $$HOME", given) == (
        "d  d x $HOME"
    )
    with pytest.raises(ValueError, match="UNSET: say why"):
        check_images.interpolate("${UNSET:?say why}", given)


def test_the_entrypoint_puts_the_secret_passwords_into_the_urls(tmp_path: Path) -> None:
    (tmp_path / "db").write_text("p@ss/w:rd\n")
    (tmp_path / "redis").write_text("r3dis\n")
    env = {
        "DATABASE_URL": "postgres://leancoach@db:5432/leancoach",
        "DATABASE_PASSWORD_FILE": str(tmp_path / "db"),
        "REDIS_URL": "redis://redis:6379/0",
        "REDIS_PASSWORD_FILE": str(tmp_path / "redis"),
    }
    urls = entrypoint.secret_environment(env)
    # What the readers of these URLs make of them: Django's database settings and redis-py
    # (Celery, Channels, the cache and the coach's cache all build their clients from it).
    database = dj_database_url.parse(urls["DATABASE_URL"])
    assert (database["USER"], database["PASSWORD"], database["HOST"], database["NAME"]) == (
        "leancoach",
        "p@ss/w:rd",
        "db",
        "leancoach",
    )
    client = redis.Redis.from_url(urls["REDIS_URL"])
    kwargs = client.connection_pool.connection_kwargs
    assert (kwargs["password"], kwargs["host"], kwargs["db"]) == ("r3dis", "redis", 0)
    client.close()
    assert entrypoint.secret_environment({"REDIS_URL": "redis://redis:6379/0"}) == {}


def test_the_entrypoint_refuses_a_password_given_twice_or_missing(tmp_path: Path) -> None:
    (tmp_path / "db").write_text("secret")
    with pytest.raises(entrypoint.SecretError, match="already holds a password"):
        entrypoint.secret_environment(
            {
                "DATABASE_URL": "postgres://u:old@db/x",
                "DATABASE_PASSWORD_FILE": str(tmp_path / "db"),
            }
        )
    with pytest.raises(entrypoint.SecretError, match="REDIS_PASSWORD_FILE=/nowhere"):
        entrypoint.secret_environment(
            {"REDIS_URL": "redis://redis:6379/0", "REDIS_PASSWORD_FILE": "/nowhere"}
        )


def test_the_healthcheck_reads_the_command_behind_an_init() -> None:
    # /proc/1/cmdline under compose's `init: true` (docker-init, then the image's entry point).
    line = (
        "exec python -m uvicorn webapp.asgi:application --host 0.0.0.0 --port 8000 "
        "--workers $(nproc)"
    )
    words = healthcheck.command_words(
        b"/sbin/docker-init\0--\0python\0/app/docker/entrypoint.py\0sh\0-c\0"
        + line.encode()
        + b"\0"
    )
    assert healthcheck.role_of(words) == "web"
    assert healthcheck.option(words, ["--port"], "?") == "8000"
    worker = healthcheck.command_words(
        b"catatonit\0--\0celery\0-A\0webapp\0worker\0-Q\0lean\0--hostname\0lean@%h\0"
    )
    assert healthcheck.role_of(worker) == "worker"
    assert healthcheck.option(worker, ["-n", "--hostname"], "celery@%h") == "lean@%h"
    beat = healthcheck.command_words(b"celery\0-A\0webapp\0beat\0--schedule=/v/s\0")
    assert healthcheck.role_of(beat) == "beat"
    assert healthcheck.option(beat, ["-s", "--schedule"], "") == "/v/s"
    assert healthcheck.role_of(["python", "manage.py", "migrate"]) is None


def test_the_beat_healthcheck_wants_a_fresh_schedule(tmp_path: Path) -> None:
    schedule = tmp_path / "celerybeat-schedule"
    words = ["celery", "beat", "--schedule", str(schedule)]
    assert healthcheck.check_beat(words)[0] is False  # none written yet
    (tmp_path / "celerybeat-schedule.db").write_text("x")  # dbm's suffix
    assert healthcheck.check_beat(words)[0] is True
    old = time.time() - healthcheck.BEAT_MAX_AGE_S - 60
    os.utime(tmp_path / "celerybeat-schedule.db", (old, old))
    healthy, detail = healthcheck.check_beat(words)
    assert healthy is False and "last written" in detail


def test_make_secrets_writes_each_secret_once(tmp_path: Path) -> None:
    folder = tmp_path / "secrets"
    subprocess.run([ROOT / "docker" / "make-secrets", folder], check=True, capture_output=True)
    first = {p.name: p.read_text() for p in folder.iterdir()}
    assert set(first) == set(_compose()["secrets"])
    assert all(len(value.strip()) == 64 for value in first.values())
    assert folder.stat().st_mode & 0o777 == 0o700
    subprocess.run([ROOT / "docker" / "make-secrets", folder], check=True, capture_output=True)
    assert {p.name: p.read_text() for p in folder.iterdir()} == first  # kept, not replaced


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("LEANCOACH_IMAGE_TEST") != "1",
    reason="builds the production image (several minutes, several GB of disk): opt in with "
    "LEANCOACH_IMAGE_TEST=1",
)
@pytest.mark.skipif(
    not TOOL.is_file() or not shutil.which("buildah") or not shutil.which("podman"),
    reason="oci-local, buildah or podman missing (../shared/tools/oci-local setup)",
)
@pytest.mark.skipif(shutil.which("psql") is None, reason="needs PostgreSQL's psql")
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
@pytest.mark.timeout(3600)  # the build alone outlasts the suite's default per-test limit
def test_the_image_runs_as_compose_says_and_serves_a_check() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/check_images.py", "--lean-repl-dir", "tests/fakes",
         "--lean-repl-cmd", "python3 /repl/fake_repl.py",
         "--lean-verify-cmd", "python3 /repl/fake_lean.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    if done.returncode == 3:
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    for proved in (
        "ok   worker-lean bubblewrap + seccomp",
        "ok   worker-lean volumes writable",
        "ok   web healthcheck",
        "ok   web -> worker -> web: done",
        "ok   beat schedule kept across a recreate",
        "ok   Prometheus scrape of web:8000/metrics",
        "ok   worker-sweep restarted after its process died",
    ):
        assert proved in done.stdout, proved
