"""bench/README.md has one section per benchmark, and the tables it holds come from the
benchmarks' own `--markdown` output (bench/md_table.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import md_table

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "bench" / "README.md"


def test_every_benchmark_has_its_section() -> None:
    sections = set(re.findall(r"^## `(bench_\w+\.py)`", README.read_text(), flags=re.M))
    scripts = {path.name for path in (ROOT / "bench").glob("bench_*.py")}
    assert scripts - sections == set(), "benchmarks without a section in bench/README.md"
    assert sections - scripts == set(), "sections of bench/README.md for no benchmark"


def test_every_benchmark_prints_its_table() -> None:
    for path in sorted((ROOT / "bench").glob("bench_*.py")):
        source = path.read_text()
        assert '"--markdown"' in source and "md_table.print_table(" in source, path.name


def test_every_section_holds_its_benchmarks_table() -> None:
    """Each benchmark's section holds the block its `--markdown` prints: the command that
    made it, the machine line, a table."""
    sections = re.split(r"^## ", README.read_text(), flags=re.M)[1:]
    for section in sections:
        name = section.split("`", 2)[1]
        if not name.startswith("bench_"):
            continue
        assert f"`.venv/bin/python bench/{name}" in section, name
        assert re.search(r"^Machine: .+ cores usable", section, flags=re.M), name
        assert re.search(r"^\|---\|", section, flags=re.M), name


def test_a_table_is_github_markdown() -> None:
    text = md_table.table(["a", "b|c"], [(1, "x\ny"), ("2", 3.5)])
    assert text.splitlines() == [
        "| a | b\\|c |",
        "|---|---|",
        "| 1 | x y |",
        "| 2 | 3.5 |",
    ]


def test_a_row_of_the_wrong_width_is_refused() -> None:
    with pytest.raises(ValueError, match="2 cells under 3 headers"):
        md_table.table(["a", "b", "c"], [(1, 2)])


def test_the_machine_line_has_no_date() -> None:
    line = md_table.machine()
    assert "cores usable" in line
    assert not re.search(r"\b20\d\d-\d\d", line)
