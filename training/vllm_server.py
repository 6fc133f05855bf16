"""vLLM in server mode: rollouts from a separate `vllm serve` process, weights pushed to it.

The colocated engine (training/vllm_sync.py) shares each training GPU; server mode puts
the sampler on its own GPUs, as TRL's `vllm_mode="server"` and verl's separate rollout
workers do. Every route and class used here is checked against vLLM 0.30.0 (the pinned
`gpu` extra; the released wheel's sources, commit ced6857af), file and line in comments:

- Sampling: the OpenAI-compatible `POST /v1/completions` with the prompt as token ids
  (`"prompt": [ids]`, vllm/entrypoints/openai/completion/protocol.py:49-56), `"logprobs":
  0` (line 60) and `"return_tokens_as_token_ids": true` (lines 161-168: `logprobs.tokens`
  are then `"token_id:<id>"`, so the exact sampled ids come back, not re-tokenised text;
  vllm/entrypoints/openai/completion/serving.py:652-730), `"seed"` (line 64). The server
  runs with `--logprobs-mode processed_logprobs` (vllm/engine/arg_utils.py:918) so the
  log-probs are after temperature and top-p (vllm/config/model.py:259-267), what GRPO's
  IS correction divides by; the server clips them at -9999 (serving.py:703).
- Weights: vLLM's own trainer-side engine, `NCCLTrainerWeightTransferEngine`
  (vllm/distributed/weight_transfer/nccl_engine.py:238-461): `trainer_init` once on every
  trainer rank (rank 0 opens the NCCL group with the server's workers and calls
  `init_weight_transfer_engine` on the server concurrently, lines 273-318), then per
  update `send_weights()` (lines 320-361: `start_weight_update`, `update_weights` with the
  names / dtypes / shapes while the tensors are broadcast, `finish_weight_update`; the
  other ranks only iterate the weights to take part in FSDP's gathers). The control plane
  is the server's RLHF routes (vllm/entrypoints/serve/dev/rlhf/api_router.py, mounted
  when the server runs with VLLM_SERVER_DEV_MODE=1: vllm/entrypoints/launchers/api_server/
  routers.py:34-37, and `--weight-transfer-config '{"backend": "nccl"}'`:
  vllm/engine/arg_utils.py:1743), spoken by ServerWeightClient, our implementation of
  vLLM's structural `VLLMWeightSyncClient` protocol
  (vllm/distributed/weight_transfer/base.py:527-551) over the stdlib HTTP client below.
  Around each push: `/pause` and `/resume` (api_router.py:29-91), and the trainer's step
  goes to `/finish_weight_update` as `weight_version` (api_router.py:205-211).
  Chosen over reloading a saved checkpoint from disk: no file per step, and it is the path
  vLLM ships for RL. (An earlier design called `NCCLWeightTransferEngine.trainer_send_weights`
  and sent `packed` in update_info: neither exists at 0.30.0, whose update info is exactly
  names / dtype_names / shapes, nccl_engine.py:85-110.)

Never a silent fallback: an unreachable server is an error (VLLMServerUnreachable) that
says how to fix it, at start and on every call.
Tested on CPU against a fake server under tests/ that enforces the routes' rules and a
fake transfer engine that drives the client as vLLM's does; not run against a real vLLM
here (no GPU, no vLLM).
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from training import distributed
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
        return self.request("POST", path, body)

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


@dataclass(frozen=True)
class WeightMeta:
    """One parameter as vLLM's trainer engine reads its source's metadata: name, wire dtype,
    full shape (the fields of vllm.distributed.weight_transfer.base.ParamMeta, base.py:120-
    125; the NCCL engine reads only these, nccl_engine.py:335-337 and 421-428)."""

    name: str
    dtype: torch.dtype
    shape: tuple[int, ...]


class ComputeDtypeSource:
    """The trainer's weights as vLLM's engine iterates them (the WeightSource contract,
    base.py:127-168: metadata() agrees with iteration element for element, and iteration
    is a fresh pass each round): by parameter name, gathered one at a time under FSDP
    (full_tensor(), a collective every rank runs in the same order), cast to the compute
    dtype so the wire carries bf16, not the fp32 master weights."""

    def __init__(self, model: nn.Module, dtype: torch.dtype) -> None:
        self.model = model
        self.dtype = dtype

    def metadata(self) -> list[WeightMeta]:
        # A DTensor's .shape is the global one: no gather to declare it.
        return [
            WeightMeta(name, self.dtype, tuple(p.shape))
            for name, p in self.model.named_parameters()
        ]

    def __iter__(self) -> Iterator[tuple[str, torch.Tensor]]:
        from torch.distributed.tensor import DTensor

        for name, param in self.model.named_parameters():
            full = param.full_tensor() if isinstance(param, DTensor) else param
            yield name, full.detach().to(self.dtype)


class ServerWeightClient:
    """vLLM's VLLMWeightSyncClient protocol (base.py:527-551) over ServerClient: the four
    RLHF routes. `version` is sent to /finish_weight_update as `weight_version`, since
    vLLM's engine calls finish_weight_update() without one (nccl_engine.py:362)."""

    def __init__(self, client: ServerClient) -> None:
        self.client = client
        self.version: str | None = None

    def init_weight_transfer_engine(self, init_info: dict[str, Any]) -> None:
        # api_router.py:157-172: {"init_info": {...}} (the worker-side NCCL init info).
        self.client.post("/init_weight_transfer_engine", {"init_info": init_info})

    def start_weight_update(self) -> None:
        self.client.post("/start_weight_update")  # api_router.py:175-178: no body

    def update_weights(self, update_info: dict[str, Any] | list[dict[str, Any]]) -> None:
        # api_router.py:187-202: {"update_info": {...}}, blocks until the tensors arrived.
        self.client.post("/update_weights", {"update_info": update_info})

    def finish_weight_update(self, weight_version: str | None = None) -> None:
        version = weight_version if weight_version is not None else self.version
        body = {"weight_version": version} if version is not None else None
        self.client.post("/finish_weight_update", body)  # api_router.py:205-211


def nccl_transfer_engine(
    client: ServerWeightClient, source: ComputeDtypeSource, rank: int, server_world: int
) -> Any:
    """vLLM's trainer-side NCCL engine for this rank (GPU hosts, `gpu` extra): rank 0 is the
    sender (NCCL rank 0; the server's workers follow at rank_offset 1); the others join
    only the trainer-side gathers (nccl_engine.py:238-318)."""
    from tutor.prover.policy.vllm import import_vllm

    import_vllm()  # raises VLLMUnavailable with the install command
    from vllm.distributed.weight_transfer.nccl_engine import (
        NCCLTrainerInitInfo,
        NCCLTrainerWeightTransferEngine,
    )
    from vllm.utils.network_utils import get_ip, get_open_port  # network_utils.py:34, 174

    info = NCCLTrainerInitInfo(  # nccl_engine.py:54-81
        master_address=get_ip(),
        master_port=get_open_port(),
        world_size=server_world + 1,
        rank=rank,
    )
    return NCCLTrainerWeightTransferEngine.trainer_init(info, client=client, source=source)


TransferEngineFactory = Callable[[ServerWeightClient, ComputeDtypeSource, int, int], Any]


class ServerSync:
    """Keeps the server's weights equal to the trainer's, pushed after each update.

    mark_stale() is called after every optimizer step (training.session.optimizer_step);
    before_rollout() pushes when model.vllm_sync_every steps have passed, tagged with
    weight_version "step-<n>" (n = optimizer steps so far). Every rank runs the transfer
    engine (under FSDP its iteration gathers each parameter); rank 0 alone talks to the
    server; all ranks wait for the push before sampling. engine_factory: vLLM's NCCL engine
    (nccl_transfer_engine); tests pass a fake that drives the client the same way."""

    def __init__(
        self,
        client: ServerClient,
        model: nn.Module,
        dtype: torch.dtype,
        engine_factory: TransferEngineFactory | None = None,
        every: int = 1,
    ) -> None:
        self.client = client
        self.weight_client = ServerWeightClient(client)
        self.source = ComputeDtypeSource(model, dtype)
        self.engine_factory = engine_factory or nccl_transfer_engine
        self.engine: Any = None
        self.every = every
        self.steps = 0  # optimizer steps taken
        self.steps_behind = 0
        self.stale = True  # the server may hold other weights than ours: push once anyway
        self.pushed_versions: list[str] = []

    def mark_stale(self) -> None:
        self.steps += 1
        self.steps_behind += 1
        if self.steps_behind >= self.every:
            self.stale = True

    def resync(self) -> None:
        self.stale = True

    def before_rollout(self) -> None:
        if self.stale:
            self.push(f"step-{self.steps}")
            self.stale = False
            self.steps_behind = 0

    def after_rollout(self) -> None:
        """Nothing to free: the server does not share our GPUs."""

    def push(self, version: str) -> None:
        main = distributed.is_main()
        if self.engine is None:
            # api_router.py:229-246: the server's world size (TP x PP x DP) sizes the group.
            world = int(self.client.get("/get_world_size")["world_size"]) if main else 0
            self.engine = self.engine_factory(
                self.weight_client, self.source, distributed.rank(), world
            )
        self.weight_client.version = version
        if main:
            self.client.post("/pause")  # no request runs while the weights change
        try:
            self.engine.send_weights()
        finally:
            if main:
                self.client.post("/resume")
        distributed.barrier()  # nobody samples before the server has the new weights
        self.pushed_versions.append(version)
        log.info("pushed weights %s to the vLLM server at %s", version, self.client.base_url)
