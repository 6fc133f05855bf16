"""The production seccomp filter (tutor/lean/seccomp.py), installed by bubblewrap's
`--seccomp FD` on the REPL's own spawn path: the forbidden system calls fail with EPERM
inside the sandbox while ordinary work (compute, files in /tmp, child processes, Unix
sockets) goes on."""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.tutor.lean.real_lean import REAL_REPL, needs_real_lean, real_verify_config
from tutor.lean import LeanChecker, sandbox, seccomp
from tutor.lean.repl import ReplProcess, SpawnSpec

BWRAP = sandbox.find_bwrap()
PROBE = sandbox.probe(BWRAP)
needs_bwrap = pytest.mark.skipif(
    not PROBE.usable,
    reason=f"needs a working bubblewrap (user namespaces): {PROBE.reason}",
)
SYSTEM_PYTHON = "/usr/bin/python3"

# A REPL stand-in: on the first request it tries each call and answers with the outcomes.
ATTEMPTS = r"""
import ctypes, errno, json, os, socket, subprocess, sys
sys.stdin.readline(); sys.stdin.readline()
libc = ctypes.CDLL(None, use_errno=True)
def outcome(result):
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
def traceme():
    # In a child that exits at once: a traced process that execs would stop on SIGTRAP.
    pid = os.fork()
    if pid == 0:
        os._exit(0 if libc.ptrace(0, 0, None, None) >= 0 else ctypes.get_errno())
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return "ok" if code == 0 else errno.errorcode[code]
def make_socket(family):
    try:
        socket.socket(family, socket.SOCK_STREAM).close()
        return "ok"
    except OSError as exc:
        return errno.errorcode[exc.errno]
seen = {
    "ptrace": traceme(),
    "unshare": outcome(libc.unshare(0x20000000)),  # CLONE_NEWUTS
    "keyctl": outcome(libc.syscall(250 if os.uname().machine == "x86_64" else 219, 0, -1, 0)),
    "inet": make_socket(socket.AF_INET),
    "inet6": make_socket(socket.AF_INET6),
    "unix": make_socket(socket.AF_UNIX),
    "pair": "ok" if socket.socketpair() else "no",
    "work": sum(i * i for i in range(100000)),
    "child": subprocess.run(["/bin/sh", "-c", "echo hi > /tmp/f && cat /tmp/f"],
                            capture_output=True, text=True).stdout.strip(),
}
reply = {"env": 0, "messages": [{"severity": "info", "data": json.dumps(seen)}]}
sys.stdout.write(json.dumps(reply) + "\n\n")
sys.stdout.flush()
sys.stdin.read()
"""


def _attempts(program: bytes | None) -> dict[str, object]:
    assert BWRAP is not None
    argv = sandbox.wrap(BWRAP, [SYSTEM_PYTHON, "-c", ATTEMPTS], cwd=None, read_only_paths=[])
    process = ReplProcess(SpawnSpec(argv=argv, seccomp_program=program))
    try:
        reply = process.request({"cmd": ""}, 30)
    finally:
        process.kill()
    seen = json.loads(reply["messages"][0]["data"])
    assert isinstance(seen, dict)
    return seen


@needs_bwrap
@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="needs /usr/bin/python3")
def test_the_filter_denies_ptrace_sockets_and_namespaces_and_lets_work_run() -> None:
    seen = _attempts(seccomp.filter_program())
    assert seen["ptrace"] == "EPERM" and seen["unshare"] == "EPERM" and seen["keyctl"] == "EPERM"
    assert seen["inet"] == "EPERM" and seen["inet6"] == "EPERM"
    assert seen["unix"] == "ok" and seen["pair"] == "ok"
    assert seen["work"] == sum(i * i for i in range(100000)) and seen["child"] == "hi"


@needs_bwrap
@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="needs /usr/bin/python3")
def test_without_the_filter_the_same_calls_succeed() -> None:
    # The control: the EPERMs above come from the filter, not from bubblewrap alone.
    seen = _attempts(None)
    assert seen["ptrace"] == "ok" and seen["inet"] == "ok"


@needs_bwrap
def test_the_checker_runs_the_repl_under_the_filter_when_switched_on(
    make_checker: Callable[..., LeanChecker],
) -> None:
    checker = make_checker(sandbox=True, seccomp=True)
    assert checker.available and "seccomp filter" in checker.status().limits
    assert checker.check("theorem t : True := by\n  trivial").valid
    [process] = checker.pool.idle_processes()
    filtered = [
        pid
        for pid in process.tree_pids()
        if "Seccomp:\t2" in Path(f"/proc/{pid}/status").read_text()
    ]
    assert filtered  # the REPL under bwrap runs in seccomp filter mode


def test_production_switches_it_on_from_the_environment(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEANCOACH_SECCOMP", "1")
    assert make_checker(sandbox=None).config.seccomp
    monkeypatch.setenv("LEANCOACH_SECCOMP", "0")
    assert not make_checker(sandbox=None).config.seccomp
    settings = Path(__file__).resolve().parents[2] / "webapp" / "settings" / "prod.py"
    assert 'os.environ.setdefault("LEANCOACH_SECCOMP", "1")' in settings.read_text()


def test_asked_for_without_bubblewrap_the_checker_refuses_and_says_why(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEANCOACH_BWRAP", "none")
    checker = make_checker(sandbox=None, seccomp=True)
    assert not checker.available
    assert "seccomp" in (checker.unavailable_reason or "")
    with pytest.raises(ValueError, match="seccomp"):
        make_checker(sandbox=False, seccomp=True)


def test_the_program_checks_the_architecture_first_and_ends_in_returns() -> None:
    program = seccomp.filter_program("x86_64")
    ops = [struct.unpack("<HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    assert ops[0] == (0x20, 0, 0, 4)  # load seccomp_data.arch
    assert ops[1][0] == 0x15 and ops[1][3] == 0xC000003E
    assert ops[-1] == (0x06, 0, 0, seccomp.RET_KILL_PROCESS)
    assert (0x06, 0, 0, seccomp.RET_ERRNO | 1) in ops  # EPERM
    assert len(program) == 8 * len(ops) and seccomp.filter_program("aarch64") != program
    with pytest.raises(seccomp.SeccompUnsupported):
        seccomp.filter_program("riscv64")


def test_the_assembler_refuses_unknown_and_backward_labels() -> None:
    with pytest.raises(ValueError, match="unknown label"):
        seccomp.assemble([seccomp._Op(0x15, 1, "nowhere", 0)])
    with pytest.raises(ValueError, match="reach"):
        seccomp.assemble(["back", seccomp._Op(0x15, 1, "back", 0)])


@pytest.mark.lean
@needs_real_lean
@needs_bwrap
def test_real_lean_checks_under_the_filter() -> None:
    # Lean's runtime (libuv, threads, mmap of .olean files) needs none of the denied calls.
    checker = LeanChecker(
        REAL_REPL.command,
        cwd=REAL_REPL.cwd,
        sandbox_paths=REAL_REPL.sandbox_paths,
        timeout_s=120,
        max_processes=1,
        sandbox=True,
        seccomp=True,
        verify=replace(real_verify_config(), use_sandbox=True, seccomp=True),
    )
    try:
        assert "seccomp filter" in checker.status().limits
        result = checker.check("theorem t (n : Nat) : n + 0 = n := by\n  simp\n")
        assert not result.errors and not result.could_not_check, result
    finally:
        checker.close()


@needs_bwrap
def test_the_verification_steps_run_under_the_filter_too(
    make_checker: Callable[..., LeanChecker], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.tutor.lean.test_kernel_check import STATEMENT, fake_config

    started: list[str] = []
    real_seccomp_argv = sandbox.seccomp_argv

    def spy(argv: list[str], program: bytes | None) -> object:
        started.append("filtered" if program == seccomp.filter_program() else "unfiltered")
        return real_seccomp_argv(argv, program)

    monkeypatch.setattr("tutor.lean.kernel_check.sandbox.seccomp_argv", spy)
    verify = fake_config(use_sandbox=True, seccomp=True, timeout_s=30.0)
    checker = make_checker(sandbox=True, seccomp=True, verify=verify)
    assert checker.verifier.unavailable_reason is None
    assert checker.check_proof(STATEMENT, "  simp").valid
    assert not checker.check_proof(STATEMENT, "  sorry").valid
    # the export of the reference and of the submission, and the verifier, each filtered
    assert len(started) >= 3 and set(started) == {"filtered"}


def test_a_verifier_asked_for_seccomp_without_bubblewrap_cannot_confirm() -> None:
    from tests.tutor.lean.test_kernel_check import fake_config
    from tutor.lean.kernel_check import KernelVerifier

    verifier = KernelVerifier(fake_config(use_sandbox=False, seccomp=True))
    assert "seccomp" in (verifier.unavailable_reason or "")
