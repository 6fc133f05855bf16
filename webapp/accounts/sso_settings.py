"""School sign-in (OpenID Connect through django-allauth), read from a JSON file named by
LEANCOACH_OIDC_CONFIG; no Django import, so settings can call it. Unset: no provider, and the
embedded default signs in with usernames and passwords only.

The file: [{"id": "school", "name": "My school", "server_url": "https://idp.example",
            "client_id": "...", "secret": "..."}, ...]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REQUIRED = ("id", "name", "server_url", "client_id", "secret")


def load_providers(path: str) -> list[dict[str, Any]]:
    """allauth's openid_connect APPS entries; a missing key fails at start with its name."""
    if not path:
        return []
    apps = []
    for entry in json.loads(Path(path).read_text()):
        missing = [key for key in REQUIRED if not entry.get(key)]
        if missing:
            raise ValueError(f"{path}: provider {entry.get('id', '?')} lacks {missing}")
        apps.append(
            {
                "provider_id": entry["id"],
                "name": entry["name"],
                "client_id": entry["client_id"],
                "secret": entry["secret"],
                "settings": {"server_url": entry["server_url"]},
            }
        )
    return apps
