"""Prover runs requested with "Ask the prover" on the student page.

For the training export (webapp.attempts' snapshot), read these fields of ProverRun:

- `trajectory`: `tutor.prover.trajectory.Trajectory.to_dict()` of the run's final attempt, as
  training consumes it (token ids, mask, logprobs, turns, verdict, reward, feedback), or None
  when the run produced none (failed before the model ran, or cancelled early).
- `verdict`: "valid" | "invalid" | "no_proof" | "could_not_check" | "" (no verdict: see
  `status` and `error`). Only rows with status FINISHED have a trustworthy verdict.
- `exercise`, `user`, `mode` ("agent" | "search"), `finished_at`.

`tree` is the search's last tree (nodes with goals, tactics, priors, visits, values, and the
outcome with the found path) for search runs.
`events` is the list of streamed event dicts (for replay on the page), `result` a small
summary (final proof, stop reason, elapsed seconds, search expansions) for the console.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from webapp.core.models import QueuedWork

# What a list of runs (templates/provers/_runs.html) never shows: the run's step log,
# its trajectory and its result, the bulk of a row. Lists defer them.
HEAVY_RUN_FIELDS = ("events", "trajectory", "result")


# The prover's verdict tokens (tutor/prover/trajectory.py) in the page's words: students and
# teachers never read a raw token such as `no_proof`.
VERDICT_WORDS = {
    "valid": "a proof, checked by Lean",
    "invalid": "a proof that Lean refused",
    "no_proof": "no proof found",
    "could_not_check": "Lean could not check its proof",
}


def words(token: str, table: dict[str, str]) -> str:
    """A token in words; an unknown one without its underscores."""
    return table.get(token, token.replace("_", " "))


class ProverRun(QueuedWork):
    class Mode(models.TextChoices):
        AGENT = "agent", "agent (whole proof with tools)"
        SEARCH = "search", "step-level search"

    class Algorithm(models.TextChoices):
        MCTS = "mcts", "Monte Carlo tree search"
        BEST_FIRST = "best_first", "best-first"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    exercise = models.ForeignKey(
        "courses.Exercise", on_delete=models.CASCADE, related_name="prover_runs"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="prover_runs"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.AGENT)
    # Search runs only ("" reads as best-first, the search before MCTS existed).
    algorithm = models.CharField(max_length=16, choices=Algorithm.choices, blank=True)
    # The latest search tree (tutor.prover.events.SearchTree.to_dict()), for the page's view.
    tree = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    cancel_requested = models.BooleanField(default=False)
    events: models.JSONField[list[dict[str, Any]]] = models.JSONField(default=list, blank=True)
    trajectory = models.JSONField(null=True, blank=True)
    verdict = models.CharField(max_length=20, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)

    @property
    def verdict_words(self) -> str:
        """The verdict as the pages say it (VERDICT_WORDS)."""
        return words(self.verdict, VERDICT_WORDS)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["status", "-finished_at"])]

    def __str__(self) -> str:
        return f"prover run {self.pk} on {self.exercise_id} ({self.status})"

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("provers:run", args=[self.pk])

    @property
    def group_name(self) -> str:
        return f"prover_run.{self.pk}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE
