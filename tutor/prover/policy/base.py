"""The policy interface every backend implements, and chat rendering shared by them.

A policy turns prompts into sampled completions with per-token log-probabilities. The
agent needs exact control over the token sequence (the trajectory records what the model
saw), so besides `generate` (strings or chat messages) every backend offers
`generate_ids` on pre-tokenised prompts; `generate` is defined in terms of it.

Log-probabilities are under the distribution the token was actually sampled from: the
model's softmax after temperature scaling and top-p truncation (renormalised). With
temperature 0 (greedy) the sampled token had probability 1 under that rule, but a point
mass carries no training signal, so greedy completions report the model's own
(temperature-1) log-probability instead; training samples with temperature > 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

ChatMessage = dict[str, Any]
SENTINEL = "\u2063PROVER_SENTINEL\u2063"  # invisible separators: never in real chat text
PromptInput = Sequence[str | Sequence[ChatMessage]]  # plain prompts or chats, mixed


@dataclass
class Completion:
    """One sampled continuation.

    token_ids includes the end-of-turn token when the model produced it (it was sampled,
    so it is trained on); text is the decoded continuation without that final end token.
    finish_reason: "stop" (end token or a stop string) or "length" (max_tokens reached).
    """

    text: str
    token_ids: list[int]
    logprobs: list[float]
    finish_reason: str
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.token_ids) != len(self.logprobs):
            raise ValueError("token_ids and logprobs must be aligned one to one")


@dataclass(frozen=True)
class SamplingConfig:
    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError("n must be at least 1")
        if self.temperature < 0:
            raise ValueError("temperature must be >= 0 (0 means greedy)")
        if not 0 < self.top_p <= 1:
            raise ValueError("top_p must be in (0, 1]; use 1.0 to disable nucleus sampling")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")


@runtime_checkable
class Policy(Protocol):
    """What the agent, the search and training's rollouts need from a model backend."""

    name: str  # a label for records: the model path or checkpoint id

    @property
    def tokenizer(self) -> Any: ...

    def generate(
        self,
        prompts: PromptInput,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        stop: Sequence[str] | None = None,
        tools: list[dict[str, Any]] | None = None,
        seed: int | None = None,
    ) -> list[list[Completion]]: ...

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]: ...

    def reload_if_changed(self) -> bool: ...


class ChatPolicyBase:
    """Shared helpers: render chat messages with the tokenizer's own template, tokenize."""

    name: str = ""

    @property
    def tokenizer(self) -> Any:
        raise NotImplementedError

    def generate_ids(
        self, prompt_ids: Sequence[Sequence[int]], sampling: SamplingConfig
    ) -> list[list[Completion]]:
        raise NotImplementedError

    def reload_if_changed(self) -> bool:
        return False

    def render_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: list[dict[str, Any]] | None = None,
        add_generation_prompt: bool = True,
    ) -> str:
        if not getattr(self.tokenizer, "chat_template", None):
            raise ValueError(
                f"the tokenizer of {self.name!r} has no chat template; pass plain string "
                "prompts, or use an instruction-tuned model that ships one"
            )
        text = self.tokenizer.apply_chat_template(
            list(messages),
            tools=tools,
            tokenize=False,
            add_generation_prompt=add_generation_prompt,
        )
        return str(text)

    def encode(self, text: str) -> list[int]:
        # The chat template already wrote any BOS/role tokens as text; add nothing.
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def prompt_to_ids(
        self, prompt: str | Sequence[ChatMessage], tools: list[dict[str, Any]] | None = None
    ) -> list[int]:
        if isinstance(prompt, str):
            return self.encode(prompt)
        return self.encode(self.render_chat(prompt, tools=tools))

    def end_token_ids(self) -> set[int]:
        ids: set[int] = set()
        eos = getattr(self.tokenizer, "eos_token_id", None)
        if eos is not None:
            ids.add(int(eos))
        # Chat models often end a turn with a token other than the tokenizer's eos.
        for token in ("<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>"):
            token_id = self.tokenizer.convert_tokens_to_ids(token)
            if isinstance(token_id, int) and token_id != getattr(
                self.tokenizer, "unk_token_id", None
            ):
                ids.add(token_id)
        return ids

    def turn_end_id(self) -> int:
        """The token that closes an assistant turn in this chat template (e.g. <|im_end|>),
        which is not always the tokenizer's eos (Qwen base models: <|endoftext|>)."""
        try:
            text = self.render_chat(
                [{"role": "user", "content": "."}, {"role": "assistant", "content": SENTINEL}],
                add_generation_prompt=False,
            )
        except ValueError:  # no chat template
            text = ""
        position = text.rfind(SENTINEL)
        if position >= 0:
            ids = self.encode(text[position + len(SENTINEL) :])
            if ids and ids[0] in self.end_token_ids():
                return ids[0]
        return int(self.tokenizer.eos_token_id)

    def decode(self, token_ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(token_ids), skip_special_tokens=False))

    def generate(
        self,
        prompts: PromptInput,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        stop: Sequence[str] | None = None,
        tools: list[dict[str, Any]] | None = None,
        seed: int | None = None,
    ) -> list[list[Completion]]:
        sampling = SamplingConfig(
            n=n,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            stop=tuple(stop or ()),
            seed=seed,
        )
        ids = [self.prompt_to_ids(p, tools=tools) for p in prompts]
        return self.generate_ids(ids, sampling)
