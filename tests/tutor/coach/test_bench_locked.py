"""The locked split is measured in aggregate only: bench/bench_coach.py never prints a locked
case's id, text, labels or the advice given on it. The test uses a synthetic locked file (the
real one is never read here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SECRET = "zq7Secret"  # in every field of every synthetic case: it must never reach the output


def _case(case_id: str, **fields: object) -> dict[str, object]:
    statement = f"theorem {SECRET}_t (p q : Prop) (hq : q) : p → q := by"
    case = {
        "id": f"{SECRET}-{case_id}",
        "topic": "logic",
        "library": "core",
        "problem": statement,
        "attempt": statement + "\n  exact hq",
        "messages": [
            {
                "severity": "error",
                "pos": {"line": 2, "column": 8},
                "endPos": {"line": 2, "column": 10},
                "data": "Type mismatch\n  hq\nhas type\n  q : Prop\nbut is expected to have "
                "type\n  p → q : Prop",
            }
        ],
        "label_line": 2,
        "accept": ["intro"],
        "wrong": [f"{SECRET} never advised"],
        "note": f"{SECRET}: the note says why",
        "author": f"{SECRET} author",
        "written": "2026-01-01",
        "seen_while_tuning": False,
    }
    case.update(fields)
    return case


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench/bench_coach.py"), "--only-locked", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_locked_split_prints_counts_and_never_a_case(tmp_path: Path) -> None:
    unknown = f"{SECRET}Name"
    cases = [
        _case("right"),  # the coach says `intro`: right
        _case(  # the coach names the unknown name back (it is in the advice): wrong by label
            "wrong",
            attempt=f"theorem t (p q : Prop) (hq : q) : p → q := by\n  exact {unknown}",
            messages=[
                {
                    "severity": "error",
                    "pos": {"line": 2, "column": 8},
                    "endPos": {"line": 2, "column": 8 + len(unknown)},
                    "data": f"Unknown identifier `{unknown}`",
                }
            ],
            wrong=[unknown],
        ),
        _case("raises", messages=[{"data": f"{SECRET} a message without a position"}]),
    ]
    locked = tmp_path / "coach_locked.jsonl"
    lines = [json.dumps(c, ensure_ascii=False) for c in cases] + [f"{{not json {SECRET}"]
    locked.write_text("\n".join(lines) + "\n", encoding="utf-8")

    run = _run("--locked", str(locked))

    assert run.returncode == 0, run.stderr[-2000:]
    output = run.stdout + run.stderr
    assert SECRET.lower() not in output.lower()
    assert "compiler locked: n 3, line hit 2/3" in output
    assert "right 1/3 = 33.3%, wrong 1/3 = 33.3%, I don't know 1/3 = 33.3%" in output
    assert "1 line(s) not a case of the schema, 1 case(s) where the coach raised" in output
    assert "targets on the locked split: right >= 90%, wrong <= 3%: not met" in output


def test_without_the_locked_file_the_bench_says_it_is_missing(tmp_path: Path) -> None:
    run = _run("--locked", str(tmp_path / "absent.jsonl"))
    assert run.returncode == 0
    assert "locked split: missing" in run.stdout
