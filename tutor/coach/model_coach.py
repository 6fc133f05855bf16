"""The flow shared by the model-based sources (llm, self): prompt, parse, repair, retry, fall back.

1. Render the prompt variant (P1..P4) and ask the model.
2. Parse and validate the answer (validation.parse_feedback), repairing what is mechanical.
3. If nothing usable came back, ask once more with a message saying what was wrong.
4. If that fails too, or the model could not be reached, answer with the compiler rules and
   record why in Feedback.fallback_reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tutor.coach.compiler import CompilerCoach
from tutor.coach.prompts import PromptVariant, render_user, repair_request
from tutor.coach.types import AdviceRequest, Feedback
from tutor.coach.validation import ParsedFeedback, parse_feedback


@dataclass
class ModelAnswer:
    text: str | None
    error: str | None = None


Complete = Callable[[str, list[dict[str, str]]], ModelAnswer]


def advise_with_model(
    complete: Complete,
    variant: PromptVariant,
    request: AdviceRequest,
    *,
    source: str,
    model: str | None,
    fallback: CompilerCoach,
    retry_invalid: bool = True,
    examples: str = "",
) -> Feedback:
    statement, attempt, diagnostics = request.statement, request.attempt, request.diagnostics
    n_lines = len(attempt.split("\n"))
    content = render_user(variant, statement, attempt, diagnostics, examples)
    messages = [{"role": "user", "content": content}]
    answer = complete(variant.system, messages)
    parsed: ParsedFeedback | None = None
    if answer.text is not None:
        parsed = parse_feedback(answer.text, n_lines)
        if not parsed.ok and retry_invalid:
            messages += [
                {"role": "assistant", "content": answer.text},
                {"role": "user", "content": repair_request(parsed.problems)},
            ]
            answer = complete(variant.system, messages)
            if answer.text is not None:
                retried = parse_feedback(answer.text, n_lines)
                retried.repairs.insert(0, "retry: asked again after unusable output")
                parsed = retried
    if parsed is not None and parsed.ok:
        return Feedback(
            suggestions=parsed.suggestions,
            source=source,
            prompt_version=variant.version,
            model=model,
            repairs=parsed.repairs,
        )
    if answer.text is None:
        reason = f"model call failed: {answer.error}"
    else:
        problems = "; ".join(parsed.problems[:3]) if parsed else "unparseable"
        reason = f"invalid model output after retry: {problems}"
    feedback = fallback.advise(statement, attempt, diagnostics)
    feedback.requested_source = source
    feedback.fallback_reason = reason
    feedback.model = model
    return feedback
