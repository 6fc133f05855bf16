"""What the local HTTP stand-ins share (tests only): a quiet JSON request handler, a server on
a free port in a daemon thread, and RSA keys with their published JWK form (the LTI platform
and the OpenID provider both sign tokens and publish a key set)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm


class JsonHandler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    """A server for `handler` on a free local port, already serving; and its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def rsa_pems() -> tuple[str, str]:
    """A fresh RSA key pair as (private PKCS8 PEM, public SubjectPublicKeyInfo PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


def public_jwk(public_pem: str, kid: str, **extra: str) -> dict[str, Any]:
    """The public key as one entry of a JWKS key set."""
    public = serialization.load_pem_public_key(public_pem.encode())
    assert isinstance(public, rsa.RSAPublicKey)
    jwk = RSAAlgorithm.to_jwk(public, as_dict=True)
    return {**jwk, "kid": kid, "alg": "RS256", **extra}
