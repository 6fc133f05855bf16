"""Build a tiny causal LM and its tokenizer from scratch, offline, for tests.

The model is a randomly initialised Qwen3 (about 1M parameters); the tokenizer is a
byte-level BPE trained here on a small inline corpus of Lean-ish and chat text. Both are
saved with save_pretrained, so `AutoModelForCausalLM.from_pretrained(dir)` and
`AutoTokenizer.from_pretrained(dir)` load them without any network.

The chat template follows Qwen3's shape (role markers `<|im_start|>` / `<|im_end|>`,
tool schemas in the system turn, calls as `<tool_call>{json}</tool_call>`, tool results as
`<tool_response>...</tool_response>` inside a user turn), so code written against this
model also runs on Qwen3-family checkpoints.

Usage: `build_tiny_model(path)` (returns the path), or the session fixture
`tiny_model_dir` in tests/support/fixtures.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# Role markers are special tokens (skipped by decode(skip_special_tokens=True)); the
# tool-call tags are ordinary added tokens, as in Qwen3, so they survive decoding.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
ADDED_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]

CHAT_TEMPLATE = (
    # The environment runs with trim_blocks: a newline right after a block tag is dropped,
    # so such newlines are written as {{ '\n' }}.
    "{% if tools %}<|im_start|>system\n"
    "{% if messages[0].role == 'system' %}{{ messages[0].content }}\n\n{% endif %}"
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
    "{% for tool in tools %}{{ '\\n' }}{{ tool | tojson }}{% endfor %}{{ '\\n' }}</tools>\n\n"
    "For each function call, return a json object with function name and arguments within "
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, '
    '"arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
    "{% elif messages[0].role == 'system' %}"
    "<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n"
    "{% endif %}"
    "{% for message in messages %}"
    "{% if message.role == 'system' and loop.first %}"
    "{% elif message.role == 'user' or message.role == 'system' %}"
    "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{% elif message.role == 'assistant' %}"
    "<|im_start|>assistant\n{{ message.content or '' }}"
    "{% for tool_call in message.tool_calls or [] %}"
    "{% set call = tool_call.function if tool_call.function is defined else tool_call %}"
    "{% if call.arguments is string %}{% set args = call.arguments %}"
    "{% else %}{% set args = call.arguments | tojson %}{% endif %}"
    '{{ \'\\n\' }}<tool_call>\n{"name": "{{ call.name }}", "arguments": {{ args }}}\n</tool_call>'
    "{% endfor %}"
    "<|im_end|>\n"
    "{% elif message.role == 'tool' %}"
    "{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}"
    "{{ '\\n' }}<tool_response>\n{{ message.content }}\n</tool_response>"
    "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>\n{% endif %}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_LEAN_LINES = [
    "theorem add_zero' (n : Nat) : n + 0 = n := by",
    "  simp",
    "theorem two_mul' (a : Nat) : 2 * a = a + a := by",
    "  omega",
    "example : 2 + 2 = 4 := by rfl",
    "example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by",
    "  exact ⟨hp, hq⟩",
    "example (x y : ℝ) (h : x < y) : x ≤ y := by linarith",
    "example (a b : ℕ) (h : a = b) : b = a := by rw [h]",
    "lemma foo (n : ℕ) (h : 0 < n) : 1 ≤ n := by",
    "  exact h",
    "theorem bar : ∀ n : Nat, n * 1 = n := by",
    "  intro n",
    "  simp",
    "import Mathlib",
    "open Nat Real",
    "unsolved goals",
    "⊢ n + 0 = n",
    "error: type mismatch",
    "decide norm_num nlinarith exact? apply constructor cases induction",
]

_CHAT_LINES = [
    "You are a Lean 4 prover. Prove the theorem and check it with the tools.",
    "Prove the following theorem in Lean 4.",
    "I will write the proof to a file and check it.",
    '{"name": "lean_write_file", "arguments": {"code": "theorem t : 1 + 1 = 2 := by rfl", '
    '"file_name": "proof.lean"}}',
    '{"name": "lean_check_file", "arguments": {"path": "proof.lean"}}',
    '{"name": "rg_in_mathlib", "arguments": {"pattern": "theorem add_comm"}}',
    '{"valid": true, "messages": []}',
    '{"valid": false, "messages": [{"severity": "error", "line": 2, "message": "unsolved goals"}]}',
    "The proof is complete. Do use omega for linear arithmetic over Nat.",
    "Don't use the unicode symbol; use Real.pi instead.",
]


@dataclass(frozen=True)
class TinyModelSpec:
    """Sizes of the tiny model; the defaults give about 1M parameters and load in ~1 s."""

    vocab_size: int = 1024
    hidden_size: int = 256
    intermediate_size: int = 512
    num_layers: int = 2
    num_heads: int = 4
    num_kv_heads: int = 2
    max_positions: int = 4096
    seed: int = 0

    def __post_init__(self) -> None:
        if self.hidden_size % self.num_heads:
            raise ValueError("hidden_size must be a multiple of num_heads")
        if self.num_heads % self.num_kv_heads:
            raise ValueError("num_heads must be a multiple of num_kv_heads")
        if self.vocab_size < 300:
            raise ValueError("vocab_size must exceed the 256 byte symbols plus special tokens")


def training_corpus() -> list[str]:
    """Lines the tokenizer is trained on; repeated so frequent pieces become merges."""
    return (_LEAN_LINES + _CHAT_LINES) * 4


def build_tokenizer(spec: TinyModelSpec):  # -> PreTrainedTokenizerFast
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=spec.vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    raw.train_from_iterator(training_corpus(), trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
        clean_up_tokenization_spaces=False,
    )
    tokenizer.add_tokens(ADDED_TOKENS)
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_tiny_model(path: str | Path, spec: TinyModelSpec | None = None) -> Path:
    """Write a tiny Qwen3 model + tokenizer to `path` (created if missing); return it."""
    import torch
    from transformers import AutoModelForCausalLM, GenerationConfig, Qwen3Config

    spec = spec or TinyModelSpec()
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(spec)
    tokenizer.save_pretrained(out)

    eos_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    pad_id = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_layers,
        num_attention_heads=spec.num_heads,
        num_key_value_heads=spec.num_kv_heads,
        head_dim=spec.hidden_size // spec.num_heads,
        max_position_embeddings=spec.max_positions,
        tie_word_embeddings=True,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        bos_token_id=None,
    )
    torch.manual_seed(spec.seed)
    model = AutoModelForCausalLM.from_config(config)
    model.generation_config = GenerationConfig(eos_token_id=eos_id, pad_token_id=pad_id)
    model.save_pretrained(out)
    (out / "tiny_model_spec.json").write_text(json.dumps(spec.__dict__, indent=2))
    return out
