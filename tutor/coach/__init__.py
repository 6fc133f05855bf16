"""The coach: 1-3 line-anchored suggestions for a Lean attempt, from five feedback sources.

    from tutor.coach import make_coach
    coach = make_coach("compiler")          # "compiler" | "llm" | "ground_truth" | "self" | "fixed"
    feedback = coach.advise(statement, attempt, diagnostics, reference_proof=None)
    feedback.suggestions                     # 1-3 Suggestion(line, text, kind)
    feedback.as_text()                       # the block appended to the teacher's prompt

See docs/COACH.md for the sources, prompts and environment variables.
"""

from __future__ import annotations

from typing import Any

from tutor.coach.compiler import CompilerCoach, CompilerCoachConfig
from tutor.coach.fixed import FixedCoach, FixedCoachConfig
from tutor.coach.ground_truth import GroundTruthCoach
from tutor.coach.types import SOURCES, Coach, CoachUnavailable, Feedback, Suggestion


def make_coach(source: str = "compiler", **options: Any) -> Coach:
    """Build a coach for one feedback source.

    compiler: mathlib (bool | None). fixed: text. ground_truth: none (pass reference_proof
    to advise). llm: prompt ("P1".."P4"), config (LLMConfig), cache (FeedbackCache | bool),
    env (mapping read instead of os.environ); raises CoachUnavailable when no API key or
    model is configured. self: policy (an object with the prover's generate method), plus
    SelfCoachConfig fields (prompt, temperature, top_p, max_tokens).
    """
    if source == "compiler":
        return CompilerCoach(CompilerCoachConfig(**options))
    if source == "fixed":
        return FixedCoach(FixedCoachConfig(**options))
    if source == "ground_truth":
        if options:
            raise TypeError(f"the ground_truth coach takes no options, got {sorted(options)}")
        return GroundTruthCoach()
    if source == "llm":
        from tutor.coach.llm import make_llm_coach

        return make_llm_coach(**options)
    if source == "self":
        from tutor.coach.self_coach import SelfCoach, SelfCoachConfig

        policy = options.pop("policy", None)
        if policy is None:
            raise CoachUnavailable(
                "the self coach needs policy=...: a frozen copy of the prover's policy "
                "(tutor.prover.policy.load_policy(...))"
            )
        return SelfCoach(policy, SelfCoachConfig(**options))
    raise ValueError(f"unknown coach source {source!r}: use one of {', '.join(SOURCES)}")


__all__ = ["SOURCES", "Coach", "CoachUnavailable", "Feedback", "Suggestion", "make_coach"]
