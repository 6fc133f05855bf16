"""Agentic whole-proof mode: the paper's tool environment, as one rollout function.

Each attempt is a chat: system + user turn (the statement), then the model alternates
with tool results. The model calls lean_write_file / lean_check_file / rg_in_mathlib in
its tokenizer's chat-template tool format (`<tool_call>{json}</tool_call>`). An attempt
ends when a file the model wrote passes the checker's full verdict, when the model stops
calling tools (a fenced ```lean block in that last answer is checked as its proof), or
when the turn / token budget runs out. All live attempts decode together, one turn at a
time, as one batch.

Token bookkeeping (see trajectory.py): the prompt and each tool turn are rendered with
the tokenizer's own chat template and appended as mask-0 tokens; sampled tokens are
appended unchanged with their log-probabilities. Nothing the model generated is ever
re-tokenised, so the ids are exactly the sequence the model conditioned on.

`rollout` is what training calls for Feedback Distillation and GRPO; the web service calls
it with n = 1..k for pass@k.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from tutor.lean.types import CheckResult
from tutor.prover.events import (
    CoachSuggestion,
    EventCallback,
    Finished,
    LeanResult,
    ModelTurn,
    ProverEvent,
    Started,
    ToolCall,
    emit,
)
from tutor.prover.policy.base import SENTINEL, ChatPolicyBase, Completion, SamplingConfig
from tutor.prover.problem import Problem
from tutor.prover.tools import (
    TOOL_NAMES,
    TOOL_SCHEMAS,
    ParsedCall,
    ToolEnvironment,
    ToolOutcome,
    last_lean_block,
    parse_tool_calls,
    tools_as_text,
)
from tutor.prover.trajectory import ToolCallRecord, Trajectory, Turn, Verdict, reward_for
from tutor.prover.verify import ProofChecker, full_check_file, verdict_of

DEFAULT_SYSTEM_PROMPT = (
    "You are an expert Lean 4 prover. Prove the theorem the user gives you. Write the "
    "complete Lean file (the statement exactly as given, followed by your proof) with "
    "lean_write_file, read Lean's messages, and fix the proof until the file is valid. Use "
    "rg_in_mathlib to look up lemma names. Never use sorry."
)
_DECLARATION = re.compile(r"^\s*(theorem|lemma|example)\b", re.MULTILINE)

ToolsFactory = Callable[[Problem, int], ToolEnvironment]
CancelCheck = Callable[[], bool]


@dataclass(frozen=True)
class AgentConfig:
    max_turns: int = 6  # assistant turns per attempt (tool results in between)
    max_turn_tokens: int = 512  # tokens the model may generate in one turn
    max_total_tokens: int = 4096  # tokens after the prompt (model + tool turns) per attempt
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    max_calls_per_turn: int = 4  # further calls in one turn are answered with an error
    max_tool_output_chars: int = 2000  # tool outputs are cut to this before the model sees them
    tool_workers: int = 4  # attempts whose tool calls run concurrently (Lean checks)
    coach_on: str = "none"  # "none" | "failed" | "all": which finished attempts get feedback
    system_prompt: str = DEFAULT_SYSTEM_PROMPT

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        if self.max_turn_tokens < 1 or self.max_total_tokens < self.max_turn_tokens:
            raise ValueError("need 1 <= max_turn_tokens <= max_total_tokens")
        if self.coach_on not in ("none", "failed", "all"):
            raise ValueError("coach_on must be 'none', 'failed' or 'all'")
        if self.tool_workers < 1:
            raise ValueError("tool_workers must be at least 1")
        SamplingConfig(temperature=self.temperature, top_p=self.top_p)  # validates both


@dataclass
class _Attempt:
    problem: Problem
    index: int  # attempt number across the whole rollout (event `attempt`)
    trajectory: Trajectory
    tools: ToolEnvironment
    started: float
    turn: int = 0
    done: bool = False
    last_code: str | None = None
    last_code_result: CheckResult | None = None  # full verdict of last_code, once computed
    pending_events: list[ProverEvent] = field(default_factory=list)


def initial_messages(problem: Problem, config: AgentConfig) -> list[dict[str, Any]]:
    user = "Prove the following theorem in Lean 4.\n\n"
    if problem.informal:
        user += f"{problem.informal.strip()}\n\n"
    user += f"```lean\n{problem.header}{problem.statement_head} := by\n```"
    return [
        {"role": "system", "content": config.system_prompt},
        {"role": "user", "content": user},
    ]


def rollout(
    policy: ChatPolicyBase,
    problems: Sequence[Problem],
    n: int = 1,
    config: AgentConfig | None = None,
    checker: ProofChecker | None = None,
    tools_factory: ToolsFactory | None = None,
    coach: Any | None = None,
    on_event: EventCallback | None = None,
    should_cancel: CancelCheck | None = None,
) -> list[Trajectory]:
    """Run n attempts per problem; return trajectories in problem-major order
    (problem 0 attempts 0..n-1, problem 1 ...), the order GRPO groups expect.

    checker: the full verdict at the end (required for any VALID verdict).
    tools_factory(problem, attempt) -> ToolEnvironment: one workspace per attempt.
    coach: anything with tutor.coach's `advise(statement, attempt, diagnostics, ...)`.
    """
    config = config or AgentConfig()
    if tools_factory is None:
        raise ValueError(
            "rollout needs a tools_factory (tutor.lean's agent tools, or a test double)"
        )
    policy.reload_if_changed()  # between rollouts only: never swap weights mid-trajectory
    tools = TOOL_SCHEMAS
    attempts = [
        _start_attempt(policy, problem, i * n + k, tools, tools_factory(problem, i * n + k), config)
        for i, problem in enumerate(problems)
        for k in range(n)
    ]
    for attempt in attempts:
        emit(on_event, Started(attempt.index, attempt.problem.id, "agent", policy.name))
    try:
        with ThreadPoolExecutor(max_workers=config.tool_workers) as pool:
            while True:
                live = [a for a in attempts if not a.done]
                if not live:
                    break
                if should_cancel is not None and should_cancel():
                    for attempt in live:
                        _stop(attempt, "cancelled")
                    break
                _model_turn(policy, live, config, on_event)
                acting = [a for a in live if not a.done]
                list(pool.map(lambda a: _act(a, checker, config), acting))
                for attempt in acting:
                    for event in attempt.pending_events:
                        emit(on_event, event)
                    attempt.pending_events.clear()
                    _append_tool_turn(policy, attempt, tools)
                    if not attempt.done:
                        _check_budget(attempt, config)
        for attempt in attempts:
            _finish(attempt, checker, coach, config, on_event)
    finally:
        for attempt in attempts:
            attempt.tools.close()
    return [a.trajectory for a in attempts]


def prompt_messages(
    renderer: ChatPolicyBase,
    problem: Problem,
    config: AgentConfig,
    tools: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """initial_messages(), with the tools described in the system turn when the chat template
    ignores `tools`. A template that shows them renders differently with and without them
    (looking for a tool's name in the text would be fooled by the system prompt, which
    already names the tools)."""
    messages = initial_messages(problem, config)
    with_tools = renderer.render_chat(messages, tools=tools)
    if with_tools == renderer.render_chat(messages, tools=None):
        messages[0] = {
            **messages[0],
            "content": f"{config.system_prompt}\n\n{tools_as_text(tools)}",
        }
    return messages


def _start_attempt(
    policy: ChatPolicyBase,
    problem: Problem,
    index: int,
    tools: list[dict[str, Any]],
    environment: ToolEnvironment,
    config: AgentConfig,
) -> _Attempt:
    messages = prompt_messages(policy, problem, config, tools)
    text = policy.render_chat(messages, tools=tools)
    ids = policy.encode(text)
    trajectory = Trajectory(
        problem_id=problem.id,
        statement=problem.header + problem.statement,
        mode="agent",
        prompt_messages=[dict(m) for m in messages],
        tools=tools,
        token_ids=list(ids),
        mask=[0] * len(ids),
        logprobs=[0.0] * len(ids),
        prompt_length=len(ids),
        messages=[dict(m) for m in messages],
        model=policy.name,
        sampling={"temperature": config.temperature, "top_p": config.top_p, "seed": config.seed},
    )
    return _Attempt(problem, index, trajectory, environment, started=time.monotonic())


def _model_turn(
    policy: ChatPolicyBase,
    live: list[_Attempt],
    config: AgentConfig,
    on_event: EventCallback | None,
) -> None:
    # One batch per distinct token allowance (usually one: everyone has budget left).
    by_budget: dict[int, list[_Attempt]] = {}
    for attempt in live:
        used = len(attempt.trajectory.token_ids) - attempt.trajectory.prompt_length
        allowance = min(config.max_turn_tokens, config.max_total_tokens - used)
        by_budget.setdefault(allowance, []).append(attempt)
    for allowance, group in by_budget.items():
        sampling = SamplingConfig(
            n=1,
            temperature=config.temperature,
            top_p=config.top_p,
            max_tokens=allowance,
            seed=None
            if config.seed is None
            else config.seed + group[0].turn * 1000 + group[0].index,
        )
        outputs = policy.generate_ids([a.trajectory.token_ids for a in group], sampling)
        for attempt, completions in zip(group, outputs, strict=True):
            _record_completion(policy, attempt, completions[0])
            emit(
                on_event,
                ModelTurn(
                    attempt.index,
                    attempt.turn,
                    completions[0].text,
                    len(completions[0].token_ids),
                    completions[0].finish_reason,
                ),
            )


def _record_completion(policy: ChatPolicyBase, attempt: _Attempt, completion: Completion) -> None:
    trajectory = attempt.trajectory
    start = len(trajectory.token_ids)
    trajectory.token_ids.extend(completion.token_ids)
    trajectory.mask.extend([1] * len(completion.token_ids))
    trajectory.logprobs.extend(completion.logprobs)
    end_ids = policy.end_token_ids()
    if not completion.token_ids or completion.token_ids[-1] not in end_ids:
        # Cut off by max_tokens: close the turn ourselves (not sampled, so mask 0).
        trajectory.token_ids.append(policy.turn_end_id())
        trajectory.mask.append(0)
        trajectory.logprobs.append(0.0)
    trajectory.turns.append(
        Turn(
            text=completion.text,
            token_start=start,
            token_end=len(trajectory.token_ids),
            finish_reason=completion.finish_reason,
        )
    )
    trajectory.messages.append({"role": "assistant", "content": completion.text})


def _act(attempt: _Attempt, checker: ProofChecker | None, config: AgentConfig) -> None:
    """Run this turn's tool calls (in a worker thread); events are queued, not emitted."""
    turn = attempt.trajectory.turns[-1]
    calls = parse_tool_calls(turn.text)
    if not calls:
        _answer_without_tools(attempt, turn.text, checker)
        return
    for position, call in enumerate(calls):
        if position >= config.max_calls_per_turn:
            outcome = ToolOutcome(
                text=f"error: at most {config.max_calls_per_turn} tool calls per turn"
            )
            turn.tool_calls.append(_record(call, outcome, "too many calls in one turn"))
            continue
        attempt.pending_events.append(
            ToolCall(attempt.index, attempt.turn, call.name, call.arguments)
        )
        outcome = _run_call(attempt.tools, call)
        outcome.text = _clip(outcome.text, config.max_tool_output_chars)
        turn.tool_calls.append(_record(call, outcome, call.error))
        attempt.pending_events.append(
            LeanResult(
                attempt.index,
                attempt.turn,
                call.name,
                outcome.valid,
                outcome.could_not_check,
                outcome.text,
            )
        )
        if outcome.code is not None:
            attempt.last_code, attempt.last_code_result = outcome.code, None
        if outcome.valid and outcome.code is not None:
            # The tool said valid; only the checker's full verdict (statement unchanged,
            # standard axioms) ends the attempt as proved.
            result = full_check_file(checker, attempt.problem, outcome.code)
            attempt.last_code_result = result
            if result.valid:
                _stop(attempt, "valid")
                return


def _run_call(environment: ToolEnvironment, call: ParsedCall) -> ToolOutcome:
    if call.error:
        return ToolOutcome(text=f"error: {call.error}")
    if call.name not in TOOL_NAMES:
        return ToolOutcome(
            text=f"error: unknown tool {call.name!r}; tools: {', '.join(TOOL_NAMES)}"
        )
    try:
        return environment.call(call.name, call.arguments)
    except Exception as exc:  # the environment promises not to raise; be safe anyway
        return ToolOutcome(text=f"error: the tool failed: {exc}", could_not_check=True)


def _record(call: ParsedCall, outcome: ToolOutcome, error: str | None) -> ToolCallRecord:
    return ToolCallRecord(
        name=call.name,
        arguments=call.arguments,
        output=outcome.text,
        valid=outcome.valid,
        could_not_check=outcome.could_not_check,
        error=error,
    )


def _answer_without_tools(attempt: _Attempt, text: str, checker: ProofChecker | None) -> None:
    code = last_lean_block(text)
    if code is None:
        _stop(attempt, "no_tool_call")
        return
    if not _DECLARATION.search(code):
        code = attempt.problem.with_proof(code)  # the block is a bare tactic proof
    attempt.last_code = code
    attempt.last_code_result = full_check_file(checker, attempt.problem, code)
    _stop(attempt, "valid" if attempt.last_code_result.valid else "answered")


def _append_tool_turn(
    policy: ChatPolicyBase, attempt: _Attempt, tools: list[dict[str, Any]]
) -> None:
    turn = attempt.trajectory.turns[-1]
    if not turn.tool_calls or attempt.done:
        return  # nothing to answer, or the attempt is over: no more context needed
    tool_messages = [
        {"role": "tool", "name": call.name, "content": call.output} for call in turn.tool_calls
    ]
    end_text = policy.decode([attempt.trajectory.token_ids[-1]])
    ids = policy.encode(tool_turn_text(policy, tool_messages, tools, end_text))
    trajectory = attempt.trajectory
    trajectory.token_ids.extend(ids)
    trajectory.mask.extend([0] * len(ids))
    trajectory.logprobs.extend([0.0] * len(ids))
    trajectory.messages.extend(tool_messages)
    attempt.turn += 1


def tool_turn_text(
    policy: ChatPolicyBase,
    tool_messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    end_text: str,
) -> str:
    """The chat-template text between the end of an assistant turn and the start of the
    next one: the tool results and the next assistant header.

    Rendered by the tokenizer's own template around a sentinel assistant message and cut
    after the sentinel; `end_text` (the end-of-turn token the model already produced) is
    dropped from the front so it is not repeated."""
    messages = [
        {"role": "user", "content": "."},
        {"role": "assistant", "content": SENTINEL},
        *tool_messages,
    ]
    rendered = policy.render_chat(messages, tools=tools, add_generation_prompt=True)
    position = rendered.rfind(SENTINEL)
    if position < 0:
        raise ValueError(
            "the chat template dropped the assistant message; cannot render tool turns"
        )
    suffix = rendered[position + len(SENTINEL) :]
    if end_text and suffix.startswith(end_text):
        suffix = suffix[len(end_text) :]
    return suffix


def _check_budget(attempt: _Attempt, config: AgentConfig) -> None:
    used = len(attempt.trajectory.token_ids) - attempt.trajectory.prompt_length
    if attempt.turn >= config.max_turns:
        _stop(attempt, "max_turns")
    elif used >= config.max_total_tokens:
        _stop(attempt, "max_tokens")


def _stop(attempt: _Attempt, reason: str) -> None:
    attempt.done = True
    attempt.trajectory.stop_reason = reason


def _finish(
    attempt: _Attempt,
    checker: ProofChecker | None,
    coach: Any | None,
    config: AgentConfig,
    on_event: EventCallback | None,
) -> None:
    trajectory = attempt.trajectory
    result = attempt.last_code_result
    if attempt.last_code is not None and result is None and trajectory.stop_reason != "cancelled":
        result = full_check_file(checker, attempt.problem, attempt.last_code)
    if result is None:
        trajectory.verdict = Verdict.NO_PROOF
    else:
        trajectory.verdict = verdict_of(result)
        trajectory.check = result.to_dict()
    trajectory.final_proof = attempt.last_code
    trajectory.reward = reward_for(trajectory.verdict)
    wants_feedback = config.coach_on == "all" or (
        config.coach_on == "failed" and trajectory.verdict is not Verdict.VALID
    )
    if coach is not None and wants_feedback and trajectory.stop_reason != "cancelled":
        feedback = _ask_coach(coach, attempt, result)
        if feedback is not None:
            trajectory.feedback = feedback
            emit(on_event, CoachSuggestion(attempt.index, feedback))
    trajectory.elapsed_s = time.monotonic() - attempt.started
    emit(
        on_event,
        Finished(
            attempt.index,
            str(trajectory.verdict),
            trajectory.stop_reason,
            trajectory.final_proof,
            trajectory.elapsed_s,
        ),
    )


def _ask_coach(coach: Any, attempt: _Attempt, result: CheckResult | None) -> dict[str, Any] | None:
    """The coach reads the problem, the attempt and Lean's messages (docs/TRAINING.md).
    With no code written, the attempt shown is the model's last turn."""
    trajectory = attempt.trajectory
    shown = attempt.last_code or (trajectory.turns[-1].text if trajectory.turns else "")
    diagnostics = result.diagnostics if result is not None else []
    try:
        feedback = coach.advise(
            trajectory.statement,
            shown,
            diagnostics,
            reference_proof=attempt.problem.reference_proof,
        )
    except Exception as exc:  # no feedback is better than no trajectory
        trajectory.sampling["coach_error"] = str(exc)
        return None
    data = feedback.to_dict() if hasattr(feedback, "to_dict") else asdict(feedback)
    return dict(data)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters cut)"
