"""The shared tiny-model fixture loads offline and renders Qwen3-style tool turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.fixtures import tiny_model_dir  # noqa: F401


def test_it_loads_with_auto_classes(tiny_model_dir: Path) -> None:  # noqa: F811
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    n_params = sum(p.numel() for p in model.parameters())
    assert 500_000 < n_params < 5_000_000
    assert model.config.vocab_size == len(tokenizer)
    assert tokenizer.eos_token == "<|im_end|>"
    assert tokenizer.convert_tokens_to_ids("<tool_call>") != tokenizer.unk_token_id


def test_its_chat_template_renders_tool_calls_and_results(tiny_model_dir: Path) -> None:  # noqa: F811
    from transformers import AutoTokenizer

    tokenizer: Any = AutoTokenizer.from_pretrained(tiny_model_dir)
    tools = [{"type": "function", "function": {"name": "lean_check_file", "parameters": {}}}]
    messages = [
        {"role": "user", "content": "Prove it"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "lean_check_file", "arguments": {"path": "a"}}}],
        },
        {"role": "tool", "content": "VALID"},
    ]
    text = tokenizer.apply_chat_template(
        messages, tools=tools, tokenize=False, add_generation_prompt=True
    )
    assert '"name": "lean_check_file"' in text
    assert (
        '<tool_call>\n{"name": "lean_check_file", "arguments": {"path": "a"}}\n</tool_call>' in text
    )
    assert "<|im_start|>user\n<tool_response>\nVALID\n</tool_response><|im_end|>\n" in text
    assert text.endswith("<|im_start|>assistant\n")
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert tokenizer.decode(ids) == text  # byte-level BPE round-trips exactly
