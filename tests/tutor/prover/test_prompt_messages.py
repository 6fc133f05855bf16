"""The agent describes its tools in the system turn only when the chat template ignores the
`tools` argument (the system prompt names the tools either way, so that is no evidence)."""

from __future__ import annotations

from typing import Any

from transformers import AutoTokenizer

from tutor.prover.agent import AgentConfig, prompt_messages
from tutor.prover.policy.base import ChatPolicyBase
from tutor.prover.problem import Problem
from tutor.prover.tools import TOOL_SCHEMAS

PROBLEM = Problem(id="p", statement="theorem p (n : Nat) : n + 0 = n := by")
TOOLS_BLURB = "You can call these tools"


class _Renderer(ChatPolicyBase):
    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer


def test_a_tool_aware_template_gets_the_plain_system_prompt(tiny_model_dir) -> None:
    renderer = _Renderer(AutoTokenizer.from_pretrained(tiny_model_dir))
    messages = prompt_messages(renderer, PROBLEM, AgentConfig(), TOOL_SCHEMAS)
    assert TOOLS_BLURB not in messages[0]["content"]
    # ... and the rendered prompt shows the tool schemas through the template itself.
    assert '"name": "lean_check_file"' in renderer.render_chat(messages, tools=TOOL_SCHEMAS)


def test_a_template_that_ignores_tools_gets_them_in_the_system_turn(tiny_model_dir) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    tokenizer.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    messages = prompt_messages(_Renderer(tokenizer), PROBLEM, AgentConfig(), TOOL_SCHEMAS)
    assert TOOLS_BLURB in messages[0]["content"]
    assert "lean_check_file" in messages[0]["content"]
