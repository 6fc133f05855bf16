"""A local HTTP server speaking the Anthropic Messages and OpenAI chat-completions API shapes.

Test double only (never importable from product code). Each test scripts the replies in
order: a reply is a status code, the assistant text (wrapped in the provider's real
response JSON) or a raw body, an optional delay before answering (to cause client
timeouts), and extra headers (e.g. `retry-after-ms` so client retries stay fast). Every
request body is recorded so tests can check what the coach sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ScriptedReply:
    text: str | None = None  # assistant text, wrapped in the provider's response shape
    status: int = 200
    delay_s: float = 0.0
    raw_body: str | None = None  # sent verbatim instead of a wrapped text
    headers: dict[str, str] = field(default_factory=dict)


def anthropic_body(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def openai_body(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def error_body(status: int) -> dict[str, Any]:
    kind = "rate_limit_error" if status == 429 else "api_error"
    return {"type": "error", "error": {"type": kind, "message": f"scripted {status}"}}


def _user_text(body: dict[str, Any]) -> str:
    messages = body.get("messages") or []
    parts = [m.get("content") for m in messages if m.get("role") == "user"]
    return str(parts[-1]) if parts else ""


def echo_replies(body: dict[str, Any]) -> ScriptedReply:
    """A model-free responder for benchmarks: repeat the first teacher example the prompt
    carries (retrieval is what it measures), else give generic advice on the first line Lean
    reports. It knows no Lean, so its advice is only as good as the examples it was sent."""
    text = _user_text(body)
    example = re.search(r"Teacher-approved advice[^\n]*\n(?:.*\n)*?- (Do[^\n]+|Don't[^\n]+)", text)
    line = re.search(r"^- line (\d+),", text, re.MULTILINE)
    anchor = line.group(1) if line else "none"
    if example:
        return ScriptedReply(text=f"[line {anchor}] {example.group(1)}")
    return ScriptedReply(
        text=f"[line {anchor}] Do read Lean's message on this line carefully and change this "
        "step so that it fits the goal Lean shows there."
    )


class FakeLLMServer:
    def __init__(self) -> None:
        self.replies: list[ScriptedReply] = []
        # Answers requests once the scripted replies run out (None: answer 500).
        self.responder: Callable[[dict[str, Any]], ScriptedReply] | None = None
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append((self.path, body))
                    if server.replies:
                        reply = server.replies.pop(0)
                    elif server.responder is not None:
                        reply = server.responder(body)
                    else:
                        reply = ScriptedReply(status=500)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if self.path.endswith("/messages"):
                    wrap = anthropic_body
                elif self.path.endswith("/chat/completions"):
                    wrap = openai_body
                else:
                    reply = ScriptedReply(status=404, raw_body='{"error": "no such route"}')
                    wrap = openai_body
                if reply.raw_body is not None:
                    payload = reply.raw_body
                elif reply.status != 200:
                    payload = json.dumps(error_body(reply.status))
                else:
                    payload = json.dumps(wrap(reply.text or "", str(body.get("model", ""))))
                data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}" if isinstance(host, str) else f"http://127.0.0.1:{port}"

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def script(self, *replies: ScriptedReply) -> None:
        with self._lock:
            self.replies.extend(replies)
