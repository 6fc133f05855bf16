"""The `fixed` source: the same constant text for every attempt.

Used for internalisation experiments (paper section 7): with a fixed string such as "Think
before you answer." or "Be concise." and a frozen teacher, the student's response length
moves and the student-teacher KL goes to about zero. The text is not held to the 10-50
word rule, which is for advice about an attempt.
"""

from __future__ import annotations

from dataclasses import dataclass

from tutor.coach.types import AdviceRequest, BaseCoach, Feedback, Suggestion
from tutor.coach.validation import kind_of

DEFAULT_TEXT = "Think before you answer."


@dataclass(frozen=True)
class FixedCoachConfig:
    text: str = DEFAULT_TEXT

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise ValueError("fixed coach text is empty: pass text='Think before you answer.'")


class FixedCoach(BaseCoach):
    source = "fixed"

    def __init__(self, config: FixedCoachConfig | None = None) -> None:
        self.config = config or FixedCoachConfig()

    def answer(self, request: AdviceRequest) -> Feedback:
        text = self.config.text.strip()
        return Feedback(
            suggestions=[Suggestion(line=None, text=text, kind=kind_of(text))],
            source=self.source,
            prompt_version="fixed.v1",
        )
