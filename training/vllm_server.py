"""vLLM in server mode: rollouts from a separate `vllm serve` process, weights pushed to it.

The colocated engine (training/vllm_sync.py) shares each training GPU; server mode puts
the sampler on its own GPUs, as TRL's `vllm_mode="server"` and verl's separate rollout
workers do. What a stock vLLM server supports, and what this module uses:

- Sampling: the OpenAI-compatible `POST /v1/completions` with the prompt as token ids
  (`"prompt": [ids]`), `"logprobs": 0` (the sampled token's log-prob in
  `choices[i].logprobs.token_logprobs`) and vLLM's `"return_tokens_as_token_ids": true`
  (`logprobs.tokens` are then `"token_id:<id>"`, so the exact sampled ids come back, not
  re-tokenised text). The server must run with `--logprobs-mode processed_logprobs` so the
  log-probs are after temperature and top-p (what GRPO's IS correction divides by).
- Weights: vLLM's native weight-transfer routes (its RLHF HTTP API, exposed when the
  server runs with `VLLM_SERVER_DEV_MODE=1` and `--weight-transfer-config
  '{"backend": "nccl"}'`): `/get_world_size` and `/init_weight_transfer_engine` once,
  then per update `/pause`, `/start_weight_update`, `/update_weights` (names, dtypes,
  shapes) while the tensors go over NCCL from the trainer, `/finish_weight_update` with
  `weight_version` (the trainer's step), `/resume`. HTTP is only the control plane; the
  data plane is the `WeightTransport` (NCCL via vLLM's own trainer-side engine).
  Chosen over reloading a saved checkpoint from disk: no file per step, and these are the
  routes vLLM documents for RL (examples/rl/rlhf_http_nccl.py).

Never a silent fallback: an unreachable server is an error (VLLMServerUnreachable) that
says how to fix it, at start and on every call.
Tested on CPU against a fake server under tests/ that speaks the same JSON; not run
against a real vLLM here (no GPU, no vLLM).
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import torch
from torch import nn

from training import distributed
from training.vllm_sync import stream_weights
from tutor.prover.policy.base import ChatPolicyBase, Completion, SamplingConfig

log = logging.getLogger(__name__)

SERVER_HINT = (
    "start it with `VLLM_SERVER_DEV_MODE=1 vllm serve MODEL --logprobs-mode processed_logprobs "
    '--weight-transfer-config \'{"backend": "nccl"}\'` (docs/TRAINING.md), fix '
    "model.vllm_server_url, or use model.vllm_mode: colocate; rollouts never fall back to "
    "another sampler"
)


class VLLMServerUnreachable(ConnectionError):
    """The rollout server did not answer; the message says which URL and how to fix it."""


class VLLMServerError(RuntimeError):
    """The server answered with an error status (the body is in the message)."""


class ServerClient:
    """JSON over HTTP to one vLLM server (stdlib only: no client library to pin)."""

    def __init__(self, base_url: str, timeout_s: float = 600.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:500]
            raise VLLMServerError(f"{method} {path} -> HTTP {exc.code}: {detail}") from exc
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            raise VLLMServerUnreachable(
                f"the vLLM rollout server at {self.base_url} is unreachable ({reason}): "
                + SERVER_HINT
            ) from exc
        return json.loads(raw) if raw else {}

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self.request("POST", path, body if body is not None else {})

    def served_model(self) -> str:
        """The served model's name (the `model` field of every request); also the
        reachability check at start."""
        models = self.get("/v1/models").get("data") or []
        if not models:
            raise VLLMServerError(f"{self.base_url}/v1/models lists no model")
        return str(models[0]["id"])


class ServerPolicy(ChatPolicyBase):
    """The prover's Policy over a vLLM server's /v1/completions, token ids in and out."""

    def __init__(
        self, client: ServerClient, tokenizer: Any, *, concurrency: int = 32, name: str = ""
    ) -> None:
        self.client = client
        self._tokenizer = tokenizer
        self.model_name = client.served_model()  # fails here, at start, if unreachable
        self.name = name or f"vllm-server:{self.model_name}"
        self.concurrency = concurrency

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    def _body(self, ids: Sequence[int], sampling: SamplingConfig, index: int) -> dict[str, Any]:
        return {
            "model": self.model_name,
            "prompt": [int(t) for t in ids],
            "n": sampling.n,
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "max_tokens": sampling.max_tokens,
            "stop": list(sampling.stop) or None,
            "logprobs": 0,  # the sampled token's log-prob only
            "return_tokens_as_token_ids": True,
            "skip_special_tokens": False,
            # One request per prompt: the agent gives a batch one seed, and identical prompts
            # (the G samples of a problem) with one seed would sample identical rollouts.
            "seed": None if sampling.seed is None else sampling.seed + index,
        }

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]:
        bodies = [self._body(ids, sampling, i) for i, ids in enumerate(prompt_ids)]
        if len(bodies) <= 1:
            answers = [self.client.post("/v1/completions", b) for b in bodies]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(bodies))) as pool:
                answers = list(pool.map(lambda b: self.client.post("/v1/completions", b), bodies))
        end_ids = self.end_token_ids()
        return [self._completions(answer, end_ids) for answer in answers]

    def _completions(self, answer: dict[str, Any], end_ids: set[int]) -> list[Completion]:
        out = []
        for choice in sorted(answer["choices"], key=lambda c: c["index"]):
            logprobs = choice.get("logprobs") or {}
            ids = [_token_id(t) for t in logprobs.get("tokens") or []]
            values = [float(v) for v in logprobs.get("token_logprobs") or []]
            if len(values) != len(ids) or (choice.get("text") and not ids):
                raise VLLMServerError(
                    "the server returned no per-token log-probs / token ids: it must be vLLM "
                    "with `logprobs` and `return_tokens_as_token_ids` support"
                )
            finish = "length" if choice.get("finish_reason") == "length" else "stop"
            text_ids = ids[:-1] if ids and ids[-1] in end_ids else ids
            out.append(Completion(self.decode(text_ids), ids, values, finish))
        return out


def _token_id(token: str) -> int:
    """'token_id:123' (return_tokens_as_token_ids) -> 123."""
    prefix, _, value = str(token).partition(":")
    if prefix != "token_id" or not value.lstrip("-").isdigit():
        raise VLLMServerError(
            f"token {token!r} is not 'token_id:<id>': set return_tokens_as_token_ids (vLLM)"
        )
    return int(value)


class WeightTransport(Protocol):
    """The data plane of a weight push (the HTTP routes are the control plane)."""

    def init_info(self, server_world_size: int) -> dict[str, Any]: ...
    def connect(self) -> None: ...
    def send(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None: ...


class NCCLTransport:
    """Weights over NCCL with vLLM's own trainer-side engine (GPU hosts, `gpu` extra):
    the trainer is rank 0 of a group with the server's workers at ranks 1..world."""

    def __init__(self) -> None:
        from tutor.prover.policy.vllm import import_vllm

        import_vllm()  # raises VLLMUnavailable with the install command
        from vllm.utils.network_utils import get_ip, get_open_port

        self.address, self.port = get_ip(), get_open_port()
        self.world_size = 0
        self.group: Any = None

    def init_info(self, server_world_size: int) -> dict[str, Any]:
        self.world_size = server_world_size + 1
        return {
            "master_address": self.address,
            "master_port": self.port,
            "rank_offset": 1,
            "world_size": self.world_size,
        }

    def connect(self) -> None:
        from vllm.distributed.weight_transfer.nccl_engine import NCCLWeightTransferEngine

        self.group = NCCLWeightTransferEngine.trainer_init(
            {
                "master_address": self.address,
                "master_port": self.port,
                "world_size": self.world_size,
            }
        )

    def send(self, weights: Iterable[tuple[str, torch.Tensor]]) -> None:
        from vllm.distributed.weight_transfer.nccl_engine import (
            NCCLTrainerSendWeightsArgs,
            NCCLWeightTransferEngine,
        )

        on_gpu = ((name, tensor.cuda()) for name, tensor in weights)
        NCCLWeightTransferEngine.trainer_send_weights(
            iterator=on_gpu,
            trainer_args=NCCLTrainerSendWeightsArgs(group=self.group, packed=True),
        )


def _both(first: Any, second: Any) -> None:
    """Run two blocking calls that wait on each other (an HTTP call whose server side
    joins a collective, and our side of that collective); re-raise the first error."""
    errors: list[BaseException] = []

    def run(fn: Any) -> None:
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    thread = threading.Thread(target=run, args=(first,))
    thread.start()
    run(second)
    thread.join()
    if errors:
        raise errors[0]


class ServerSync:
    """Keeps the server's weights equal to the trainer's, pushed after each update.

    mark_stale() is called after every optimizer step (training.session.optimizer_step);
    before_rollout() pushes when model.vllm_sync_every steps have passed, tagged with
    weight_version "step-<n>" (n = optimizer steps so far). Under FSDP every rank takes
    part in the gather (stream_weights is a collective); rank 0 alone talks to the server,
    and all ranks wait for it before sampling."""

    def __init__(
        self,
        client: ServerClient,
        model: nn.Module,
        dtype: torch.dtype,
        transport: WeightTransport | None,
        every: int = 1,
    ) -> None:
        self.client = client
        self.model = model
        self.dtype = dtype
        self.transport = transport
        self.every = every
        self.steps = 0  # optimizer steps taken
        self.steps_behind = 0
        self.stale = True  # the server may hold other weights than ours: push once anyway
        self.connected = False
        self.pushed_versions: list[str] = []

    def mark_stale(self) -> None:
        self.steps += 1
        self.steps_behind += 1
        if self.steps_behind >= self.every:
            self.stale = True

    def before_rollout(self) -> None:
        if self.stale:
            self.push(f"step-{self.steps}")
            self.stale = False
            self.steps_behind = 0

    def after_rollout(self) -> None:
        """Nothing to free: the server does not share our GPUs."""

    def push(self, version: str) -> None:
        weights = stream_weights(self.model, self.dtype)
        if distributed.is_main():
            self._push_from_main(weights, version)
        else:
            for _ in weights:  # take part in each full_tensor() gather
                pass
        distributed.barrier()  # nobody samples before the server has the new weights
        self.pushed_versions.append(version)

    def _push_from_main(self, weights: Iterator[tuple[str, torch.Tensor]], version: str) -> None:
        if self.transport is None:
            raise RuntimeError("server mode needs a weight transport (NCCLTransport on GPU hosts)")
        transport = self.transport
        if not self.connected:
            world = int(self.client.get("/get_world_size")["world_size"])
            info = transport.init_info(world)
            _both(
                lambda: self.client.post("/init_weight_transfer_engine", {"init_info": info}),
                transport.connect,
            )
            self.connected = True
        update_info = {**_metadata(self.model, self.dtype), "packed": True}
        self.client.post("/pause")
        try:
            self.client.post("/start_weight_update", {"is_checkpoint_format": True})
            _both(
                lambda: self.client.post("/update_weights", {"update_info": update_info}),
                lambda: transport.send(weights),
            )
            self.client.post("/finish_weight_update", {"weight_version": version})
        finally:
            self.client.post("/resume")
        log.info("pushed weights %s to the vLLM server at %s", version, self.client.base_url)


def _metadata(model: nn.Module, dtype: torch.dtype) -> dict[str, list[Any]]:
    """Names, dtypes and (global) shapes of what stream_weights sends, in its order."""
    names, dtypes, shapes = [], [], []
    for name, tensor in model.state_dict().items():
        names.append(name)
        dtypes.append(str(dtype).removeprefix("torch."))
        shapes.append(list(tensor.shape))  # a DTensor's shape is the full one
    return {"names": names, "dtype_names": dtypes, "shapes": shapes}
