"""Every recorded real REPL transcript (the REPL's own test suite, exact framing) replays
through the driver's reply parser and id checks with zero failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tutor.lean.repl import IdTracker, decode_reply, split_reply

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPTS = REPO / ".." / "shared" / "data" / "lean_transcripts"
INDEX = TRANSCRIPTS / "repl" / "INDEX.jsonl"

pytestmark = pytest.mark.skipif(
    not INDEX.is_file(), reason=f"the recorded REPL transcripts are not at {TRANSCRIPTS}"
)


def _pairs() -> list[dict[str, object]]:
    if not INDEX.is_file():
        return []
    return [json.loads(line) for line in INDEX.read_text(encoding="utf-8").splitlines() if line]


def read_requests(text: str) -> list[dict[str, object]]:
    """As the REPL reads them: lines up to a blank one, right-trimmed, concatenated;
    requests starting with `#` or `--` are skipped without a reply."""
    requests, lines = [], []
    for raw in [*text.split("\n"), ""]:
        if raw.strip():
            lines.append(raw.rstrip())
            continue
        if lines:
            joined = "".join(lines)
            lines = []
            if not joined.lstrip().startswith(("#", "--")):
                requests.append(json.loads(joined))
    return requests


def replay(out: bytes) -> list[dict[str, object]]:
    """The driver's reader over a whole recorded stdout, fed in small chunks."""
    buffer, replies, scanned = bytearray(), [], 0
    for start in range(0, len(out), 7):
        buffer += out[start : start + 7]
        while (found := split_reply(buffer, scanned)) is not None:
            raw, end = found
            del buffer[:end]
            replies.append(decode_reply(raw))
            scanned = 0
        scanned = len(buffer)
    assert not buffer, f"bytes left after the last reply: {bytes(buffer[:80])!r}"
    return replies


@pytest.mark.parametrize("pair", _pairs(), ids=lambda pair: str(pair["name"]))
def test_a_recorded_transcript_replays_through_the_driver(pair: dict[str, object]) -> None:
    requests = read_requests((TRANSCRIPTS / str(pair["in"])).read_text(encoding="utf-8"))
    replies = replay((TRANSCRIPTS / str(pair["out"])).read_bytes())
    assert len(replies) == len(requests) == pair["n_replies"]
    tracker = IdTracker()
    for request, reply in zip(requests, replies, strict=True):
        tracker.accept(request, reply)


def test_every_transcript_was_replayed() -> None:
    assert len(_pairs()) == 71


# -- the REPL double answers these requests as the recorded REPL did ----------------------


def _through_the_double(requests: list[dict[str, object]]) -> list[dict[str, object]]:
    from tests.tutor.lean.conftest import FAKE_COMMAND
    from tutor.lean.repl import ReplProcess, SpawnSpec

    process = ReplProcess(SpawnSpec(argv=list(FAKE_COMMAND)))
    try:
        return [process.request(request, 10) for request in requests]
    finally:
        process.kill()


def _recorded(name: str) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    requests = read_requests((TRANSCRIPTS / "repl" / f"{name}.in").read_text(encoding="utf-8"))
    replies = replay((TRANSCRIPTS / "repl" / f"{name}.expected.out").read_bytes())
    return requests, replies


def test_the_double_pickles_as_recorded(tmp_path: Path) -> None:
    requests, replies = _recorded("pickle_environment")
    command, pickle = requests[:2]
    pickle = {**pickle, "pickleTo": str(tmp_path / "a.olean")}
    assert _through_the_double([command, pickle]) == replies[:2]  # {"env": 0} twice
    assert (tmp_path / "a.olean").is_file()


def test_the_double_refuses_an_unknown_environment_as_recorded() -> None:
    requests, replies = _recorded("unknown_environment")
    assert _through_the_double(requests) == replies


def test_the_double_gives_a_theorem_the_recorded_infotree_root_kinds() -> None:
    requests, replies = _recorded("infotree_theorem")
    [reply] = _through_the_double(requests)
    kinds = [root["node"]["stx"]["kind"] for root in reply["infotree"]]  # type: ignore[attr-defined]
    recorded = [root["node"]["stx"]["kind"] for root in replies[0]["infotree"]]  # type: ignore[attr-defined]
    assert kinds == recorded == ["Lean.Parser.Command.declaration", "Lean.Parser.Command.eoi"]
