"""The Markdown table each benchmark prints with `--markdown`, for bench/README.md.

A benchmark's README table is pasted from its own output, so the figures and their layout
come from the benchmark, not from a hand: `print_table` writes the machine the run had
(without a date: history lives in git) and one GitHub-flavoured table.
"""

from __future__ import annotations

import os
import platform
import shlex
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def command_line() -> str:
    """The command that ran this benchmark, as a reader would type it from the repository."""
    script = Path(sys.argv[0]).resolve()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return ".venv/bin/python " + shlex.join([str(shown), *sys.argv[1:]])


def machine() -> str:
    """The machine a run had: CPU model, the cores this process may use, the load average at
    the start (how much else was running), the OS and Python."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"{model}; {cores} cores usable; load average {load} at the start; "
        f"{platform.system()} {platform.release()}; Python {platform.python_version()}"
    )


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = [
        "| " + " | ".join(_cell(h) for h in headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"a row of {len(row)} cells under {len(headers)} headers: {row!r}")
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines)


def print_table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], machine_line: str
) -> None:
    """The block bench/README.md holds: the command, the machine (taken at the run's start),
    the table."""
    print()
    print(f"`{command_line()}`")
    print()
    print(f"Machine: {machine_line}.")
    print()
    print(table(headers, rows))
