"""School sign-in (OpenID Connect through django-allauth), read from a JSON file named by
LEANCOACH_OIDC_CONFIG; no Django import, so settings can call it. Unset: no provider, and the
embedded default signs in with usernames and passwords only.

The file: [{"id": "school", "name": "My school", "server_url": "https://idp.example",
            "client_id": "...", "secret": "...", "email_domains": ["school.example"]}, ...]

`email_domains` (optional): addresses in these domains, vouched for by this provider, open
the student or teacher account that has them without her allowing it first (the school
owns the domain); any other account must allow school sign-in on its page
(webapp.accounts.sso).
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
        domains = entry.get("email_domains", [])
        if not isinstance(domains, list) or not all(isinstance(d, str) and d for d in domains):
            raise ValueError(f"{path}: provider {entry['id']}: email_domains is a list of names")
        apps.append(
            {
                "provider_id": entry["id"],
                "name": entry["name"],
                "client_id": entry["client_id"],
                "secret": entry["secret"],
                "settings": {
                    "server_url": entry["server_url"],
                    "email_domains": [d.strip().lower() for d in domains],
                },
            }
        )
    return apps
