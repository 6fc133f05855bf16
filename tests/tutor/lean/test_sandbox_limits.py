"""Sandbox limits that hold for children too (tutor/lean/sandbox.py): rlimits set before exec
are inherited by every descendant, on the REPL's own spawn path as on the verifier's;
optional bwrap hardening flags are used only when the installed bwrap knows them."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tutor.lean import LeanChecker, sandbox
from tutor.lean.repl import ReplProcess, SpawnSpec

# A grandchild (python -> python) that writes 4 MB to a file.
GRANDCHILD_WRITES = (
    "import subprocess, sys; sys.exit(subprocess.run([sys.executable, '-c', "
    "\"open(sys.argv[1], 'wb').write(b'x' * (4 << 20))\".replace('sys.argv[1]', repr(sys.argv[1]))"
    "]).returncode)"
)


def test_a_grandchild_cannot_write_past_the_file_size_limit(tmp_path: Path) -> None:
    target = tmp_path / "big"
    limits = sandbox.ChildLimits(memory_mb=None, file_size_mb=1, processes=None)
    done = subprocess.run(
        [sys.executable, "-c", GRANDCHILD_WRITES, str(target)],
        preexec_fn=limits.preexec(),
        capture_output=True,
        timeout=30,
    )
    # The grandchild is killed by SIGXFSZ (or gets EFBIG): the file stops at the cap.
    assert done.returncode != 0
    assert done.returncode in (128 + signal.SIGXFSZ, 1), done.stderr
    assert target.stat().st_size <= 1 << 20


def test_a_child_cannot_allocate_past_the_memory_limit() -> None:
    limits = sandbox.ChildLimits(memory_mb=256, file_size_mb=None, processes=None)
    code = "import subprocess, sys; sys.exit(subprocess.run([sys.executable, '-c', 'b = bytearray(1 << 30)']).returncode)"
    done = subprocess.run(
        [sys.executable, "-c", code], preexec_fn=limits.preexec(), capture_output=True, timeout=30
    )
    assert done.returncode != 0 and b"MemoryError" in done.stderr


def test_hardening_flags_follow_what_the_installed_bwrap_supports(tmp_path: Path) -> None:
    new = tmp_path / "new-bwrap"
    new.write_text("#!/bin/sh\necho '  --disable-userns  Disable user ns\n  --size BYTES  size'\n")
    old = tmp_path / "old-bwrap"
    old.write_text("#!/bin/sh\necho '  --unshare-user  Create new user namespace'\n")
    for script in (new, old):
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    flags = sandbox.hardening_flags(str(new))
    assert flags[0] == "--disable-userns"
    assert flags[1:] == ["--size", str(sandbox.TMPFS_SIZE_MB << 20), "--tmpfs", "/tmp"]
    assert sandbox.hardening_flags(str(old)) == []
    wrapped = sandbox.wrap(str(new), ["/bin/true"], cwd=None, read_only_paths=[])
    assert "--disable-userns" in wrapped and wrapped.index("--size") < wrapped.index("--")


@pytest.mark.skipif(sandbox.find_bwrap() is None, reason="bubblewrap is not installed here")
def test_under_bwrap_tmp_is_size_capped(tmp_path: Path) -> None:
    bwrap = sandbox.find_bwrap()
    assert bwrap is not None
    if not sandbox.probe(bwrap).usable:
        pytest.skip(sandbox.probe(bwrap).reason)
    if "--size" not in sandbox.supported_flags(bwrap):
        pytest.skip("this bwrap has no --size")
    argv = sandbox.wrap(
        bwrap,
        ["/bin/sh", "-c", f"head -c {(sandbox.TMPFS_SIZE_MB + 8) << 20} /dev/zero > /tmp/f"],
        cwd=None,
        read_only_paths=[],
    )
    done = subprocess.run(argv, capture_output=True, timeout=60)
    assert done.returncode != 0 and b"No space left" in done.stderr


# -- the REPL spawn path: ReplProcess(SpawnSpec) sets the same ChildLimits -------------------

# A REPL stand-in: on the first request it runs `mode` in a forked child (or forks in a loop)
# and answers with what happened as one framed info message.
LIMITS_PROBE = r"""
import errno, json, os, sys, time
mode, target = sys.argv[1], sys.argv[2]
sys.stdin.readline(); sys.stdin.readline()
if mode == "write":
    pid = os.fork()
    if pid == 0:
        try:
            with open(target, "wb") as handle:
                handle.write(b"x" * (4 << 20))
        except OSError as exc:
            os._exit(exc.errno)
        os._exit(0)
    status = os.waitpid(pid, 0)[1]
    detail = f"child {os.waitstatus_to_exitcode(status)}"
else:
    forks, error = 0, ""
    try:
        for _ in range(200):
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            forks += 1
    except OSError as exc:
        error = errno.errorcode[exc.errno]
    detail = f"forked {forks} {error}"
sys.stdout.write(json.dumps({"env": 0, "messages": [{"severity": "info", "data": detail}]}))
sys.stdout.write("\n\n")
sys.stdout.flush()
time.sleep(30)
"""

SYSTEM_PYTHON = "/usr/bin/python3"


def _probe_reply(argv: list[str], limits: sandbox.ChildLimits) -> str:
    process = ReplProcess(SpawnSpec(argv=argv, limits=limits))
    try:
        reply = process.request({"cmd": ""}, 20)
    finally:
        process.kill()
    return str(reply["messages"][0]["data"])


def test_a_repl_child_that_writes_a_huge_file_is_stopped_at_the_file_size_limit(
    tmp_path: Path,
) -> None:
    target = tmp_path / "huge"
    limits = sandbox.ChildLimits(memory_mb=None, file_size_mb=1, processes=None)
    detail = _probe_reply([sys.executable, "-c", LIMITS_PROBE, "write", str(target)], limits)
    # Python ignores SIGXFSZ, so the write fails with EFBIG instead of killing the child.
    assert detail in (f"child {errno.EFBIG}", f"child -{signal.SIGXFSZ}"), detail
    assert target.stat().st_size <= 1 << 20


@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="needs /usr/bin/python3")
def test_a_repl_that_forks_in_a_loop_is_stopped_at_the_process_limit() -> None:
    argv = [SYSTEM_PYTHON, "-c", LIMITS_PROBE, "fork", "-"]
    if os.getuid() == 0:
        # The kernel does not apply RLIMIT_NPROC to root: run the probe as `nobody`, as
        # production runs Lean as an unprivileged user (the Docker image's `leancoach`).
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and util-linux's setpriv is missing")
        argv = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    limits = sandbox.ChildLimits(memory_mb=None, file_size_mb=None, processes=16)
    detail = _probe_reply(argv, limits)
    forks, error = detail.split()[1:]
    assert error == "EAGAIN" and int(forks) < 16, detail


def test_the_checker_spawns_repls_with_every_child_limit(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(memory_mb=512)
    assert checker.check("theorem t : True := by\n  trivial").valid
    [process] = checker.pool.idle_processes()
    limits = Path(f"/proc/{process.pid}/limits").read_text()
    config = checker.config
    assert config.file_size_mb is not None and config.user_processes is not None
    expected = {
        "Max address space": 512 << 20,
        "Max cpu time": config.cpu_limit_s,
        "Max file size": config.file_size_mb << 20,
        "Max processes": config.user_processes,
    }
    for name, value in expected.items():
        [line] = [row for row in limits.splitlines() if row.startswith(name)]
        assert line.split()[len(name.split())] == str(value), line
