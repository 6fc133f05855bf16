"""A local LTI 1.3 platform stand-in (an LMS as far as the tool can tell), for tests only.

It serves over real HTTP on 127.0.0.1 (a thread): its key set (/jwks), an OAuth2 token
endpoint that checks the tool's signed client assertion against the tool's public key
(/token), and an Assignment and Grade Services line item that records the scores posted to
it (/lineitems/<id>/scores, bearer token required). `id_token()` signs a launch as the
platform would, with any claim changed to test a refusal.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs

import jwt

from tests.fakes.http_json import JsonHandler, public_jwk, rsa_pems, serve

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


class LtiPlatform:
    client_id = "leancoach-tool"
    deployment_id = "deployment-1"
    kid = "platform-key-1"

    def __init__(self) -> None:
        self.private_key, self.public_key = rsa_pems()
        self.tool_private_key, self.tool_public_key = rsa_pems()
        self.scores: list[dict[str, Any]] = []
        self.token_requests: list[dict[str, Any]] = []
        self._tokens: set[str] = set()
        self.server, self.url = serve(self._handler())
        self.issuer = self.url

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # What the tool is configured with (settings.LTI_TOOL).
    def tool_settings(self) -> dict[str, Any]:
        return {
            "platforms": {
                self.issuer: {
                    "default": True,
                    "client_id": self.client_id,
                    "auth_login_url": f"{self.url}/auth",
                    "auth_token_url": f"{self.url}/token",
                    "key_set_url": f"{self.url}/jwks",
                    "deployment_ids": [self.deployment_id],
                }
            },
            "private_key": self.tool_private_key,
            "public_key": self.tool_public_key,
        }

    def lineitem(self, n: int = 1) -> str:
        return f"{self.url}/lineitems/{n}"

    def id_token(self, nonce: str, *, custom: dict[str, str], **changes: Any) -> str:
        """A signed resource-link launch for learner `sub`; `changes` override claims
        (`signing_key`: sign with another key than the one the key set publishes)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": "student-42",
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "email": "kim@school.example",
            "given_name": "Kim",
            CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "target_link_uri": "http://testserver/lti/launch/",
            CLAIM + "resource_link": {"id": "link-1"},
            CLAIM + "roles": [LEARNER],
            CLAIM + "custom": custom,
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": [SCORE_SCOPE],
                "lineitem": self.lineitem(),
            },
        }
        key = changes.pop("signing_key", self.private_key)
        claims.update(changes)
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": self.kid})

    def _jwks(self) -> dict[str, Any]:
        return {"keys": [public_jwk(self.public_key, self.kid, use="sig")]}

    def _token(self, form: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        assertion = form.get("client_assertion", [""])[0]
        try:
            claims = jwt.decode(
                assertion, self.tool_public_key, algorithms=["RS256"], audience=f"{self.url}/token"
            )
        except jwt.InvalidTokenError as exc:
            return 401, {"error": "invalid_client", "detail": str(exc)}
        if claims.get("sub") != self.client_id:
            return 401, {"error": "invalid_client"}
        self.token_requests.append({"claims": claims, "scope": form.get("scope", [""])[0]})
        token = secrets.token_urlsafe(16)
        self._tokens.add(token)
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        platform = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:
                if self.path == "/jwks":
                    self._send(200, platform._jwks())
                else:
                    self._send(404, {})

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                if self.path == "/token":
                    self._send(*platform._token(parse_qs(body)))
                elif self.path.startswith("/lineitems/") and self.path.endswith("/scores"):
                    token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    if token not in platform._tokens:
                        self._send(401, {"error": "unauthorized"})
                        return
                    score = json.loads(body)
                    score["_lineitem"] = self.path.removesuffix("/scores")
                    score["_content_type"] = self.headers.get("Content-Type")
                    platform.scores.append(score)
                    self._send(200, {"id": str(uuid.uuid4())})
                else:
                    self._send(404, {})

        return Handler
