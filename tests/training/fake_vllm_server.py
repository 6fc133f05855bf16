"""A fake `vllm serve` for CPU tests: a real HTTP server in a thread that speaks the JSON of
the routes training/vllm_server.py uses (OpenAI /v1/models and /v1/completions with vLLM's
logprobs + return_tokens_as_token_ids shape; the dev-mode weight-transfer routes). It
records every request. Completions come from `answer(prompt_ids) -> token ids`, with known
log-probs (-0.1, -0.2, ... per token) so tests can check they are stored as sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

WEIGHT_ROUTES = (
    "/init_weight_transfer_engine",
    "/pause",
    "/resume",
    "/start_weight_update",
    "/update_weights",
    "/finish_weight_update",
)


def fake_logprob(position: int) -> float:
    return -0.1 * (position + 1)


class FakeVLLMServer:
    def __init__(self, answer: Callable[[list[int]], list[int]], model: str = "tiny") -> None:
        self.answer = answer
        self.model = model
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.weight_version: str | None = None
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeVLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def calls(self, path: str) -> list[dict[str, Any]]:
        return [body for p, body in self.requests if p == path]

    def route(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        with self._lock:
            self.requests.append((path, body))
        if method == "GET" and path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": self.model, "object": "model"}]}
        if method == "GET" and path == "/get_world_size":
            return 200, {"world_size": 1}
        if method == "GET" and path == "/weight_info":
            return 200, {"weight_version": self.weight_version}
        if method == "POST" and path == "/v1/completions":
            return self._completions(body)
        if method == "POST" and path in WEIGHT_ROUTES:
            if path == "/finish_weight_update":
                self.weight_version = body.get("weight_version")
            return 200, {"message": "ok"}
        return 404, {"detail": "Not Found"}

    def _completions(self, body: dict[str, Any]) -> tuple[int, Any]:
        prompt = body["prompt"]
        if not (isinstance(prompt, list) and all(isinstance(t, int) for t in prompt)):
            return 400, {"error": "this fake takes one token-id prompt"}
        choices = []
        for index in range(body.get("n", 1)):
            ids = self.answer(prompt)[: body["max_tokens"]]
            choices.append(
                {
                    "index": index,
                    "text": "<decoded by the server>",
                    "logprobs": {
                        "tokens": [f"token_id:{t}" for t in ids],
                        "token_logprobs": [fake_logprob(i) for i in range(len(ids))],
                        "top_logprobs": None,
                        "text_offset": list(range(len(ids))),
                    },
                    "finish_reason": "stop",
                    "stop_reason": None,
                }
            )
        return 200, {"id": "cmpl-1", "object": "text_completion", "model": self.model,
                     "choices": choices}  # fmt: skip

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}") if length else {}
                status, payload = server.route(method, self.path.split("?")[0], body)
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._serve("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._serve("POST")

            def log_message(self, *args: Any) -> None:  # quiet test output
                pass

        return Handler


class FakeTransport:
    """The weight data plane of a test: records what each push sent, in order."""

    def __init__(self) -> None:
        self.init: dict[str, Any] | None = None
        self.connects = 0
        self.pushes: list[dict[str, Any]] = []

    def init_info(self, server_world_size: int) -> dict[str, Any]:
        self.init = {"master_address": "127.0.0.1", "master_port": 1, "rank_offset": 1,
                     "world_size": server_world_size + 1}  # fmt: skip
        return self.init

    def connect(self) -> None:
        self.connects += 1

    def send(self, weights: Any) -> None:
        self.pushes.append({name: tensor.clone() for name, tensor in weights})
