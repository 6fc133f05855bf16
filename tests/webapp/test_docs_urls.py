"""Every address the web app's docs name is one the app serves.

The docs that describe pages (README, docs/WEBAPP.md, docs/CONSOLE.md, docs/COURSEWORK.md)
name them as code: `/classes/<pk>/`, `ws/exercises/<pk>/live/`. Each is resolved against the
project's URLconf (HTTP) or its websocket routes (webapp.routing), with every `<placeholder>`
filled in, so a renamed or removed page cannot stay in the docs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import Resolver404, resolve

from webapp.routing import websocket_urlpatterns

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "docs/WEBAPP.md", "docs/CONSOLE.md", "docs/COURSEWORK.md"]

_ADDRESS = re.compile(r"`((?:/|ws/)[^`\s]*)`")
_PLACEHOLDER = re.compile(r"<[^>]+>")


def named_addresses() -> list[tuple[str, str]]:
    """(doc, address) for every code span in DOCS that is an address of the app."""
    found = []
    for doc in DOCS:
        for address in _ADDRESS.findall((ROOT / doc).read_text(encoding="utf-8")):
            if address != "/":  # a bare slash is an operator in the prose, not a page
                found.append((doc, address))
    return sorted(set(found))


def _concrete(address: str) -> str:
    """`<pk>`, `<slug>`, `<course slug>`... as a value every converter accepts ("1")."""
    return _PLACEHOLDER.sub("1", address.split("?", 1)[0])


def _websocket_route_exists(address: str) -> bool:
    path = _concrete(address).lstrip("/")
    return any(pattern.resolve(path) is not None for pattern in websocket_urlpatterns)


def test_the_docs_name_addresses() -> None:
    """The scan reads what it should: the pages and sockets the docs are about."""
    addresses = {address for _, address in named_addresses()}
    assert {"/me/", "/classes/<pk>/", "ws/exercises/<pk>/live/"} <= addresses


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
