"""The seccomp filter for Lean's sandbox: a classic-BPF program that bubblewrap installs
(`--seccomp FD`) right before it execs Lean. The kernel keeps it on every descendant and
nothing inside can remove it.

It denies, with EPERM, the system calls elaborated code has no business making and that
widen what a sandbox escape could reach: debugging other processes (ptrace,
process_vm_*), namespaces and mounts (unshare, setns, mount and the new mount API,
pivot_root, chroot), loading kernel code (kexec, modules, bpf), perf_event_open, the
kernel keyring, io_uring (a second syscall path past seccomp; libuv falls back to
threads), userfaultfd, and every socket family but AF_UNIX. Any other architecture than
the one the filter was built for is killed (a 32-bit syscall table would bypass it), and
on x86_64 so is the x32 ABI's numbering.

Written here as a tiny assembler rather than through libseccomp: the binding needs the C
library installed beside it, and this program is thirty instructions.
"""

from __future__ import annotations

import errno
import platform
import struct
from collections.abc import Sequence
from dataclasses import dataclass

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
_X32_SYSCALL_BIT = 0x40000000

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_OFFSET_NR = 0
_OFFSET_ARCH = 4
_OFFSET_ARG0_LOW = 16  # little-endian: the low 32 bits of args[0] come first

AF_UNIX = 1

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

# name: (x86_64 number, aarch64 number), from asm/unistd_64.h and asm-generic/unistd.h.
_DENIED: dict[str, tuple[int, int]] = {
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "unshare": (272, 97),
    "setns": (308, 268),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "userfaultfd": (323, 282),
    "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "reboot": (169, 142),
    "acct": (163, 89),
    "quotactl": (179, 60),
    "syslog": (103, 116),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "adjtimex": (159, 171),
    "sethostname": (170, 161),
    "setdomainname": (171, 162),
    "fanotify_init": (300, 262),
}
_SOCKET_CALLS: dict[str, tuple[int, int]] = {"socket": (41, 198), "socketpair": (53, 199)}

DENIED_SYSCALLS = tuple(sorted(_DENIED))


class SeccompUnsupported(Exception):
    """No filter exists for this machine's architecture."""


@dataclass(frozen=True)
class _Op:
    code: int
    k: int
    jt: str | int = 0  # a label, or a literal skip count
    jf: str | int = 0


def assemble(ops: Sequence[_Op | str]) -> bytes:
    """struct sock_filter[] from ops; a bare string marks the position of that label."""
    labels: dict[str, int] = {}
    program: list[_Op] = []
    for op in ops:
        if isinstance(op, str):
            if op in labels:
                raise ValueError(f"label {op!r} defined twice")
            labels[op] = len(program)
        else:
            program.append(op)

    def skip(target: str | int, at: int) -> int:
        if isinstance(target, int):
            return target
        if target not in labels:
            raise ValueError(f"unknown label {target!r}")
        distance = labels[target] - at - 1
        if not 0 <= distance <= 255:  # classic BPF jumps only forward, by one byte
            raise ValueError(f"label {target!r} is out of a forward jump's reach")
        return distance

    return b"".join(
        struct.pack("<HBBI", op.code, skip(op.jt, i), skip(op.jf, i), op.k)
        for i, op in enumerate(program)
    )


def filter_program(machine: str | None = None) -> bytes:
    """The filter for `machine` (platform.machine() by default) as bubblewrap reads it."""
    machine = machine or platform.machine()
    if machine not in _AUDIT_ARCH:
        raise SeccompUnsupported(
            f"no seccomp filter for the {machine!r} architecture (x86_64 and aarch64 only)"
        )
    column = 0 if machine == "x86_64" else 1
    ops: list[_Op | str] = [
        _Op(_LD_W_ABS, _OFFSET_ARCH),
        _Op(_JEQ_K, _AUDIT_ARCH[machine], 0, "kill"),
        _Op(_LD_W_ABS, _OFFSET_NR),
    ]
    if machine == "x86_64":
        ops.append(_Op(_JGE_K, _X32_SYSCALL_BIT, "kill", 0))
    ops += [_Op(_JEQ_K, numbers[column], "deny", 0) for numbers in _DENIED.values()]
    ops += [_Op(_JEQ_K, numbers[column], "socket", 0) for numbers in _SOCKET_CALLS.values()]
    ops += [
        _Op(_RET_K, RET_ALLOW),
        "socket",
        _Op(_LD_W_ABS, _OFFSET_ARG0_LOW),
        _Op(_JEQ_K, AF_UNIX, "allow", "deny"),
        "allow",
        _Op(_RET_K, RET_ALLOW),
        "deny",
        _Op(_RET_K, RET_ERRNO | errno.EPERM),
        "kill",
        _Op(_RET_K, RET_KILL_PROCESS),
    ]
    return assemble(ops)


def support() -> tuple[bool, str]:
    """(usable, reason) for this machine's architecture."""
    try:
        filter_program()
    except SeccompUnsupported as exc:
        return False, str(exc)
    return True, f"seccomp filter denies {len(_DENIED)} system calls and non-AF_UNIX sockets"
