"""A local OpenID Connect provider stand-in (a school's identity provider), for tests only.

Real HTTP on 127.0.0.1 (a thread): discovery (/.well-known/openid-configuration), the key set
(/jwks), the token endpoint (checks the client secret, the code, the redirect URI and the
PKCE verifier) and userinfo (bearer token). `authorize()` plays the user signing in at the
school: it takes the tool's authorization URL and returns the code the browser brings back.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

import jwt

from tests.fakes.http_json import JsonHandler, public_jwk, rsa_pems, serve


class OidcProvider:
    client_id = "leancoach"
    secret = "stand-in-secret"
    kid = "idp-key-1"

    def __init__(self) -> None:
        self.private_key, self.public_key = rsa_pems()
        self._codes: dict[str, dict[str, Any]] = {}
        self._tokens: dict[str, dict[str, Any]] = {}
        self.server, self.url = serve(self._handler())

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def app(self, provider_id: str = "school", name: str = "Our School") -> dict[str, Any]:
        """allauth's openid_connect APPS entry for this provider."""
        return {
            "provider_id": provider_id,
            "name": name,
            "client_id": self.client_id,
            "secret": self.secret,
            "settings": {"server_url": self.url},
        }

    def authorize(self, authorization_url: str, **claims: Any) -> tuple[str, str]:
        """The user signs in at the school: (code, state) for the tool's callback."""
        query = {k: v[0] for k, v in parse_qs(urlparse(authorization_url).query).items()}
        assert query["client_id"] == self.client_id and query["response_type"] == "code"
        code = secrets.token_urlsafe(12)
        self._codes[code] = {"query": query, "claims": claims}
        return code, query["state"]

    def _id_token(self, claims: dict[str, Any], nonce: str | None) -> str:
        now = int(time.time())
        body = {"iss": self.url, "aud": self.client_id, "iat": now, "exp": now + 300, **claims}
        if nonce:
            body["nonce"] = nonce
        return jwt.encode(body, self.private_key, algorithm="RS256", headers={"kid": self.kid})

    def _token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        grant = self._codes.pop(form.get("code", ""), None)
        if grant is None or form.get("client_secret") != self.secret:
            return 400, {"error": "invalid_grant"}
        query = grant["query"]
        if form.get("redirect_uri") != query["redirect_uri"]:
            return 400, {"error": "invalid_grant", "detail": "redirect_uri"}
        if "code_challenge" in query:
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != query["code_challenge"]:
                return 400, {"error": "invalid_grant", "detail": "PKCE"}
        access = secrets.token_urlsafe(12)
        self._tokens[access] = grant["claims"]
        return 200, {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": self._id_token(grant["claims"], query.get("nonce")),
        }

    def _discovery(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "userinfo_endpoint": f"{self.url}/userinfo",
            "jwks_uri": f"{self.url}/jwks",
            "token_endpoint_auth_methods_supported": ["client_secret_post"],
            "id_token_signing_alg_values_supported": ["RS256"],
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:
                if self.path == "/.well-known/openid-configuration":
                    self._send(200, provider._discovery())
                elif self.path == "/jwks":
                    self._send(200, {"keys": [public_jwk(provider.public_key, provider.kid)]})
                elif self.path == "/userinfo":
                    token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    claims = provider._tokens.get(token)
                    self._send(200, claims) if claims else self._send(401, {})
                else:
                    self._send(404, {})

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                form = {k: v[0] for k, v in parse_qs(body).items()}
                if self.path == "/token":
                    self._send(*provider._token(form))
                else:
                    self._send(404, {})

        return Handler
