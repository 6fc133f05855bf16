"""Reading the LTI tool's configuration from files (settings.LTI_TOOL); no Django import, so
settings can call it. A missing or broken file fails loudly at start, not at a launch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization


def load_tool(config_path: str, private_key_path: str) -> dict[str, Any]:
    platforms = json.loads(Path(config_path).read_text())["platforms"]
    if not private_key_path:
        raise ValueError("LEANCOACH_LTI_CONFIG is set: set LEANCOACH_LTI_PRIVATE_KEY too.")
    private_pem = Path(private_key_path).read_bytes()
    key = serialization.load_pem_private_key(private_pem, password=None)
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return {
        "platforms": platforms,
        "private_key": private_pem.decode(),
        "public_key": public_pem.decode(),
    }
