"""The agent's side of the tool environment: schemas shown to the model, parsing of the
model's `<tool_call>{json}</tool_call>` blocks, and the interface the Lean side fulfils.

The tools themselves (a per-trajectory workspace, compiling through the checker, ripgrep
over the library) belong to tutor.lean; `ToolEnvironment` is the small surface the agent
uses, so tests and other checkers can stand in for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "lean_write_file",
            "description": (
                "Write Lean 4 code to a file in your workspace and compile it. Returns "
                "Lean's messages and whether the file is valid (no errors, no sorry)."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "The complete Lean file."},
                    "file_name": {"type": "string", "description": "e.g. proof.lean"},
                },
                "required": ["code", "file_name"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lean_check_file",
            "description": (
                "Compile a file of your workspace. Returns Lean's messages, validity and, "
                "if asked, the library lemmas the proof uses."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "return_lemmas": {"type": "boolean", "default": False},
                },
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "rg_in_mathlib",
            "description": (
                "Search the installed library sources (Mathlib, else Lean core) with a "
                "ripgrep pattern; returns at most 5 matching lines."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "glob": {"type": "string", "description": "optional file glob"},
                },
                "required": ["pattern"],
            },
        },
    },
]

TOOL_NAMES = tuple(schema["function"]["name"] for schema in TOOL_SCHEMAS)
LEAN_TOOLS = ("lean_write_file", "lean_check_file")


@dataclass
class ToolOutcome:
    """What one tool call produced. `text` is fed back to the model verbatim."""

    text: str
    valid: bool | None = None  # Lean tools only
    could_not_check: bool = False  # Lean timed out / crashed / is unavailable
    code: str | None = None  # the Lean file the verdict is about, when there is one
    details: dict[str, Any] = field(default_factory=dict)


class ToolEnvironment(Protocol):
    """One trajectory's tools. `call` never raises for a bad call: it answers with text."""

    def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class ParsedCall:
    name: str
    arguments: dict[str, Any]
    error: str | None = None  # set when the block could not be understood
    raw: str = ""


_CALL_RE = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


def parse_tool_calls(text: str) -> list[ParsedCall]:
    """Every `<tool_call>` block in order. A block cut off at the end of the text (no
    closing tag) is still read; one that is not valid JSON comes back with `error` so the
    model can be told what was wrong."""
    calls = []
    for match in _CALL_RE.finditer(text):
        raw = match.group(1).strip()
        if not raw:
            continue
        calls.append(_parse_one(raw))
    return calls


def _parse_one(raw: str) -> ParsedCall:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return ParsedCall("", {}, error=f"the tool call is not valid JSON ({exc.msg})", raw=raw)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return ParsedCall(
            "", {}, error='a tool call needs {"name": ..., "arguments": {...}}', raw=raw
        )
    arguments = data.get("arguments", {})
    if isinstance(arguments, str):  # some models double-encode the arguments
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return ParsedCall(data["name"], {}, error="arguments must be a JSON object", raw=raw)
    if not isinstance(arguments, dict):
        return ParsedCall(data["name"], {}, error="arguments must be a JSON object", raw=raw)
    return ParsedCall(data["name"], arguments, raw=raw)


_LEAN_BLOCK_RE = re.compile(r"```(?:lean4?|Lean4?)?\s*\n(.*?)```", re.DOTALL)


def last_lean_block(text: str) -> str | None:
    """The last fenced code block of a plain answer (the model answered without tools)."""
    blocks = _LEAN_BLOCK_RE.findall(text)
    return blocks[-1].strip() if blocks else None


def tools_as_text(schemas: list[dict[str, Any]]) -> str:
    """A system-prompt description of the tools for chat templates that ignore `tools`."""
    lines = [
        "You can call these tools. To call one, write",
        '<tool_call>\n{"name": <tool-name>, "arguments": <args-json-object>}\n</tool_call>',
        "Tools:",
    ]
    lines += [json.dumps(schema["function"], ensure_ascii=False) for schema in schemas]
    return "\n".join(lines)
