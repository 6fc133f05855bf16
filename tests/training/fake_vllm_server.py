"""A fake `vllm serve` for CPU tests: a real HTTP server in a thread that speaks the JSON of
the routes training/vllm_server.py uses (OpenAI /v1/models and /v1/completions with vLLM's
logprobs + return_tokens_as_token_ids shape; the dev-mode RLHF routes), and a fake of
vLLM's trainer-side NCCL engine that drives those routes as the real one does. It records
every request. Completions come from `answer(prompt_ids) -> token ids`, with known
log-probs (-0.1, -0.2, ... per token) so tests can check they are stored as sent.
Test double: never imported by product code.

The weight routes enforce what vLLM 0.30.0 enforces (the released wheel's sources); a
violation is an HTTP 500 as FastAPI answers an uncaught exception, or the route's 400:
- /init_weight_transfer_engine needs "init_info" (400: api_router.py:163-168) whose keys
  are NCCLWeightTransferInitInfo's, keyword-only, with master_address + master_port or a
  unique id (nccl_common.py:69-112; parse: base.py:421-439);
- /update_weights needs "update_info" (400: api_router.py:193-198) with exactly names,
  dtype_names and shapes of equal lengths (nccl_engine.py:85-110; parse: base.py:441-459),
  torch dtype names (getattr(torch, name): nccl_engine.py:206), after the transfer engine
  was initialised (nccl_engine.py:189-193) and inside a start/finish pair
  (v1/worker/gpu_worker.py:1441-1444);
- /start_weight_update refuses a second start before finish (gpu_worker.py:1410-1414);
  /finish_weight_update refuses one without a start (gpu_worker.py:1467-1470), and takes
  an optional {"weight_version"} (api_router.py:205-211).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch

WEIGHT_ROUTES = (
    "/init_weight_transfer_engine",
    "/pause",
    "/resume",
    "/start_weight_update",
    "/update_weights",
    "/finish_weight_update",
)


INIT_INFO_FIELDS = {  # NCCLWeightTransferInitInfo (nccl_common.py:69-112)
    "master_address", "master_port", "rank_offset", "world_size", "nccl_unique_id_b64",
    "packed", "packed_buffer_size_bytes", "packed_num_buffers",
}  # fmt: skip


def fake_logprob(position: int) -> float:
    return -0.1 * (position + 1)


class FakeVLLMServer:
    def __init__(self, answer: Callable[[list[int]], list[int]], model: str = "tiny") -> None:
        self.answer = answer
        self.model = model
        self.requests: list[tuple[str, dict[str, Any] | None]] = []
        self.weight_version: str | None = None
        self.initialised = False
        self.updating = False
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

    def calls(self, path: str) -> list[dict[str, Any] | None]:
        return [body for p, body in self.requests if p == path]

    def route(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, Any]:
        with self._lock:
            self.requests.append((path, body))
        if method == "GET" and path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": self.model, "object": "model"}]}
        if method == "GET" and path == "/get_world_size":
            return 200, {"world_size": 1}
        if method == "GET" and path == "/weight_info":
            return 200, {"weight_version": self.weight_version}
        if method == "POST" and path == "/v1/completions":
            return self._completions(body or {})
        if method == "POST" and path in WEIGHT_ROUTES:
            return self._weights(path, body)
        return 404, {"detail": "Not Found"}

    def _weights(self, path: str, body: dict[str, Any] | None) -> tuple[int, Any]:
        body = body or {}
        if path in ("/pause", "/resume"):
            return 200, {"status": "paused" if path == "/pause" else "resumed"}
        if path == "/init_weight_transfer_engine":
            info = body.get("init_info")
            if info is None:
                return 400, {"detail": "Missing 'init_info' in request body"}
            unknown = set(info) - INIT_INFO_FIELDS
            rendezvous = "nccl_unique_id_b64" in info or {"master_address", "master_port"} <= set(
                info
            )
            if unknown or not {"rank_offset", "world_size"} <= set(info) or not rendezvous:
                return 500, {"detail": f"Invalid init_info for NCCLWeightTransferEngine: {info}"}
            self.initialised = True
            return 200, {"message": "Weight transfer initialized"}
        if path == "/start_weight_update":
            if self.updating:
                return 500, {
                    "detail": "start_weight_update called while a weight update is already active"
                }
            self.updating = True
            return 200, {"message": "Weight update started"}
        if path == "/update_weights":
            info = body.get("update_info")
            if info is None:
                return 400, {"detail": "Missing 'update_info' in request body"}
            if set(info) != {"names", "dtype_names", "shapes"}:
                return 500, {
                    "detail": f"Invalid update_info for NCCLWeightTransferEngine: {sorted(info)}"
                }
            if not len(info["names"]) == len(info["dtype_names"]) == len(info["shapes"]):
                return 500, {
                    "detail": "`dtype_names` / `shapes` should be of the same size as `names`"
                }
            if any(
                not isinstance(getattr(torch, d, None), torch.dtype) for d in info["dtype_names"]
            ):
                return 500, {"detail": f"not torch dtypes: {info['dtype_names']}"}
            if not self.initialised:
                return 500, {"detail": "NCCL weight transfer not initialized."}
            if not self.updating:
                return 500, {"detail": "start_weight_update must be called before update_weights."}
            return 200, {"message": "Weights updated"}
        # /finish_weight_update
        if not self.updating:
            return 500, {
                "detail": "finish_weight_update called without a matching start_weight_update."
            }
        self.updating = False
        if body.get("weight_version") is not None:
            self.weight_version = body["weight_version"]
        return 200, {"message": "Weight update finished"}

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
                body = json.loads(self.rfile.read(length) or b"null") if length else None
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


class FakeTransferEngine:
    """vLLM's NCCLTrainerWeightTransferEngine as the test sees it (nccl_engine.py:238-363 at
    0.30.0): made on every trainer rank; on the sender (rank 0) it sends the worker-side init
    info to the server once (lines 295-318, through the client), and each send_weights()
    runs start_weight_update, update_weights with the source's metadata, the source's
    iteration checked element by element against that metadata (lines 398-438), and
    finish_weight_update without a version (line 362). Non-senders only iterate the source
    (their half of FSDP's gathers). Instead of broadcasting over NCCL it keeps what each
    push carried."""

    def __init__(self, client: Any, source: Any, rank: int, server_world: int) -> None:
        self.client, self.source, self.sender = client, source, rank == 0
        self.pushes: list[dict[str, torch.Tensor]] = []
        if self.sender:
            client.init_weight_transfer_engine(
                {"master_address": "127.0.0.1", "master_port": 1, "rank_offset": 1,
                 "world_size": server_world + 1, "packed": True,
                 "packed_buffer_size_bytes": 1 << 30, "packed_num_buffers": 2}
            )  # fmt: skip

    def send_weights(self) -> None:
        meta = self.source.metadata()
        if not self.sender:
            for _ in self.source:
                pass
            return
        self.client.start_weight_update()
        self.client.update_weights(
            {
                "names": [m.name for m in meta],
                "dtype_names": [str(m.dtype).split(".")[-1] for m in meta],
                "shapes": [list(m.shape) for m in meta],
            }
        )
        sent: dict[str, torch.Tensor] = {}
        for i, (name, tensor) in enumerate(self.source):
            expected = meta[i]
            if (name, tensor.dtype, tuple(tensor.shape)) != (
                expected.name,
                expected.dtype,
                expected.shape,
            ):
                raise ValueError(f"WeightSource metadata() disagrees with iteration at {i}")
            sent[name] = tensor.clone()
        if len(sent) != len(meta):
            raise ValueError("WeightSource yielded fewer parameters than metadata() declared")
        self.pushes.append(sent)
        self.client.finish_weight_update()


class FakeEngineFactory:
    """ServerSync's engine_factory in tests: makes (and keeps) the FakeTransferEngine."""

    def __init__(self) -> None:
        self.engines: list[FakeTransferEngine] = []

    def __call__(
        self, client: Any, source: Any, rank: int, server_world: int
    ) -> FakeTransferEngine:
        engine = FakeTransferEngine(client, source, rank, server_world)
        self.engines.append(engine)
        return engine
