"""The labelled set (bench/data/coach_labelled.jsonl) is well formed and positions fit the text."""

from __future__ import annotations

import json
import re
from pathlib import Path

LABELLED = Path(__file__).resolve().parents[3] / "bench/data/coach_labelled.jsonl"


def entries() -> list[dict]:
    return [json.loads(line) for line in LABELLED.read_text().splitlines() if line]


def test_it_has_forty_or_more_attempts_mostly_core_lean() -> None:
    data = entries()
    assert len(data) >= 40
    libraries = [e["library"] for e in data]
    assert libraries.count("core") > libraries.count("mathlib") >= 5
    assert len({e["id"] for e in data}) == len(data)


def test_every_entry_has_the_fields_and_a_real_label_line() -> None:
    for e in entries():
        lines = e["attempt"].split("\n")
        assert e["problem"].strip() and e["note"].strip() and e["reference_proof"].strip()
        assert e["attempt"].startswith(e["problem"].split("\n")[0])
        assert 1 <= e["label_line"] <= len(lines) and lines[e["label_line"] - 1].strip(), e["id"]
        assert e["messages"], e["id"]
        assert e["split"] in ("dev", "heldout")


def test_message_positions_point_at_the_token_lean_reports() -> None:
    for e in entries():
        lines = e["attempt"].split("\n")
        for m in e["messages"]:
            assert set(m) == {"severity", "pos", "endPos", "data"}
            line, col = m["pos"]["line"], m["pos"]["column"]
            source = lines[line - 1]
            assert 0 <= col < len(source), e["id"]
            end = m["endPos"]
            if end is not None:
                assert (end["line"], end["column"]) >= (line, col)
                assert end["column"] <= len(lines[end["line"] - 1])
            rest = source[col:]
            data = m["data"]
            if data.startswith("unsolved goals"):
                assert re.match(r"(by\b|·|=>|\})", rest), (e["id"], rest)
                assert "⊢" in data
            elif data.startswith("unknown identifier"):
                name = re.search(r"'(.+)'", data).group(1)  # type: ignore[union-attr]
                assert rest.startswith(name) and end["column"] - col == len(name), e["id"]
            elif "uses 'sorry'" in data:
                assert m["severity"] == "warning"
                assert re.match(r"\s*(theorem|lemma)\s+" + re.escape(rest.split()[0]), source)
            else:
                assert m["severity"] == "error"
