"""Every address the web app's docs name is one the app serves.

The docs (README, bench/README.md, every docs/*.md) name pages as code: `/classes/<pk>/`,
`ws/exercises/<pk>/live/`, `/healthz`. Each is resolved against the project's URLconf (HTTP)
or its websocket routes (webapp.routing), with every `<placeholder>` filled in, so a renamed
or removed page cannot stay in the docs. Code spans that are paths on disk or another
server's endpoints are listed in NOT_THE_APP, per doc.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import Resolver404, resolve

from webapp.routing import websocket_urlpatterns

ROOT = Path(__file__).resolve().parents[2]
DOCS = [
    "README.md",
    "bench/README.md",
    *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")),
]
# Addresses in the docs that are not the web app's: files and folders (in the sandbox, a
# container, the host) and the endpoints of Prometheus, Grafana and vLLM's server.
NOT_THE_APP = {
    "docs/LEAN.md": {
        "/bin", "/dev/stdout", "/lib*", "/opt/elan", "/proc/PID/limits", "/proc/self/fd/1",
        "/tmp", "/usr",
    },
    "docs/OPERATIONS.md": {
        "/-/ready", "/api/health", "/proc", "/run/secrets/<name>",
        "/var/lib/leancoach/{checkpoints,snapshots,beat}",
    },
    "docs/TRAINING.md": {
        "/v1/completions", "/get_world_size", "/init_weight_transfer_engine", "/pause",
        "/start_weight_update", "/update_weights", "/finish_weight_update", "/resume",
    },
}  # fmt: skip

_ADDRESS = re.compile(r"`((?:/|ws/)[^`\s]*)`")
_PLACEHOLDER = re.compile(r"<[^>]+>")


def _code_addresses(doc: str) -> set[str]:
    """Every code span of `doc` that reads as an address; a bare slash is an operator in the
    prose, not a page."""
    return set(_ADDRESS.findall((ROOT / doc).read_text(encoding="utf-8"))) - {"/"}


def named_addresses() -> list[tuple[str, str]]:
    """(doc, address) for every code span in DOCS that is an address of the app."""
    found = []
    for doc in DOCS:
        for address in _code_addresses(doc) - NOT_THE_APP.get(doc, set()):
            found.append((doc, address))
    return sorted(found)


def _concrete(address: str) -> str:
    """`<pk>`, `<slug>`, `<course slug>`... as a value every converter accepts ("1")."""
    return _PLACEHOLDER.sub("1", address.split("?", 1)[0])


def _websocket_route_exists(address: str) -> bool:
    path = _concrete(address).lstrip("/")
    return any(pattern.resolve(path) is not None for pattern in websocket_urlpatterns)


def test_the_docs_name_addresses() -> None:
    """The scan reads what it should: the pages and sockets the docs are about."""
    addresses = {address for _, address in named_addresses()}
    assert {"/me/", "/classes/<pk>/", "ws/exercises/<pk>/live/", "/healthz"} <= addresses


@pytest.mark.parametrize("doc", sorted(NOT_THE_APP))
def test_each_address_left_out_is_still_in_its_doc(doc: str) -> None:
    """The list of other servers' and the disk's paths holds only what its doc names."""
    assert NOT_THE_APP[doc] <= _code_addresses(doc)


@pytest.mark.parametrize(("doc", "address"), named_addresses())
def test_each_named_address_is_served(doc: str, address: str) -> None:
    if address.startswith("ws/"):
        assert _websocket_route_exists(address), f"{doc} names {address}: no such websocket route"
        return
    try:
        resolve(_concrete(address))
    except Resolver404:
        pytest.fail(f"{doc} names {address}: the app serves no such page")


def test_a_wrong_address_is_caught() -> None:
    with pytest.raises(Resolver404):
        resolve(_concrete("/classes/<pk>/gradebook/"))
    assert not _websocket_route_exists("ws/exercises/<pk>/")
