"""Training runs launched from the admin console, and the metrics they report.

A TrainingRun row is the web layer's record of one run of `training/`: what the admin asked
for (the knobs of the launch form), where it stands (status, step) and how it ended (error,
checkpoint). The trainer's own records (metrics.jsonl, plots, checkpoints) live on disk in
`output_dir` and the checkpoint registry; TrainingMetric mirrors each metrics record so the
console can draw charts and replay them to a reconnecting browser.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from webapp.core.models import QueuedWork

FEEDBACK_SOURCES = [
    ("fixed", "fixed text (no model needed)"),
    ("compiler", "compiler rules"),
    ("ground_truth", "ground truth (reference proofs)"),
    ("llm", "LLM API"),
    ("self", "self (frozen prover as coach)"),
]


class TrainingRun(QueuedWork):
    class Algorithm(models.TextChoices):
        SFT = "SFT", "SFT"
        FD = "FD", "Feedback Distillation"
        GRPO = "GRPO", "GRPO"
        FD_GRPO = "FD-GRPO", "FD → GRPO"
        MIXED = "mixed", "mixed (FD + GRPO, weighted)"
        CONTINUAL = "continual", "Continual distillation (classroom data, gated)"

    class Preset(models.TextChoices):
        # Measured with bench/bench_tiny_preset.py on 2 shared cores (bench/README.md).
        TINY = (
            "tiny",
            "tiny (CPU smoke run with SmolLM2: ~1 min on 2 free cores, ~6 min on busy ones)",
        )
        PAPER = "paper", "paper defaults (GPU)"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        STOPPING = "stopping", "Stopping"
        FINISHED = "finished", "Finished"
        STOPPED = "stopped", "Stopped"
        FAILED = "failed", "Failed"

    ACTIVE = (Status.QUEUED, Status.RUNNING, Status.STOPPING)

    algorithm = models.CharField(max_length=16, choices=Algorithm.choices, default=Algorithm.FD)
    preset = models.CharField(
        max_length=16,
        choices=Preset.choices,
        default=Preset.TINY,
        help_text="tiny, measured on 2 cores: 4 SFT steps of SmolLM2 take about 40 s with the "
        "cores free and about 5 min with them busy, plus 20 s to 1 min the first time to convert "
        "its GGUF (seconds with a tiny test model).",
    )
    steps = models.PositiveIntegerField(default=4, help_text="Optimizer steps of the whole run.")
    feedback_source = models.CharField(max_length=16, choices=FEEDBACK_SOURCES, default="fixed")
    alpha = models.FloatField(default=0.9, help_text="Teacher EMA alpha (paper: 0.9).")
    top_k = models.PositiveIntegerField(default=25, help_text="Top-k of the FD KL (paper: 25).")
    switch_step = models.PositiveIntegerField(
        default=2, help_text="FD → GRPO: the step at which GRPO takes over."
    )
    course = models.ForeignKey(
        "courses.Course",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="training_runs",
        help_text="The problem set: the course's exercises become the training problems.",
    )
    base_model = models.CharField(
        max_length=500,
        blank=True,
        help_text="A local model directory, a .gguf file, 'smollm2', or empty for the serving "
        "checkpoint.",
    )

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    step = models.PositiveIntegerField(default=0)
    # What the run is doing now, in words ("converting the base model ...: 35 s so far",
    # "loading the model", "training (sft)"); empty once it has ended.
    phase = models.CharField(max_length=300, blank=True)
    stop_requested = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    output_dir = models.CharField(max_length=500, blank=True)
    checkpoint = models.CharField(max_length=500, blank=True)  # the run's last checkpoint
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.run_name} ({self.algorithm}, {self.status})"

    def clean(self) -> None:
        if self.algorithm == self.Algorithm.FD_GRPO and self.switch_step > self.steps:
            raise ValidationError(
                {"switch_step": f"The switch step must be at most the run's {self.steps} steps."}
            )
        if not 0 <= self.alpha <= 1:
            raise ValidationError({"alpha": "Alpha must be between 0 and 1 (paper: 0.9)."})
        if self.top_k < 1:
            raise ValidationError({"top_k": "Top-k must be at least 1 (paper: 25)."})

    @property
    def run_name(self) -> str:
        """The folder name under the run output dir and the checkpoint registry."""
        return f"console-{self.pk}"

    @property
    def group_name(self) -> str:
        return f"training_run.{self.pk}"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def progress_percent(self) -> int:
        return min(100, round(100 * self.step / self.steps)) if self.steps else 0


class TrainingMetric(models.Model):
    """One record of the trainer's metrics callback (the same dict as a metrics.jsonl line)."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="metrics")
    step = models.IntegerField()
    stage = models.CharField(max_length=32, blank=True)
    values = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["step", "pk"]
        indexes = [models.Index(fields=["run", "step"])]

    def __str__(self) -> str:
        return f"{self.run_id} step {self.step} ({self.stage})"


class RunLineage(models.Model):
    """What a run trained on (summary), and how its gate decided (continual runs; other runs
    are not gated: `gate` is empty). Every run has one: a continual run's comes from its
    lineage.json, any other run's from the problems the console exported for it. LineageItem
    rows hold the ids, shown (with links) on the run page."""

    run = models.OneToOneField(TrainingRun, on_delete=models.CASCADE, related_name="lineage")
    counts = models.JSONField(default=dict)
    gate = models.JSONField(default=dict)
    promoted = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"lineage of {self.run.run_name}"


class LineageItem(models.Model):
    """One id a run used ("attempt-12", "curated-3", "prover-run-5", "student-7",
    "exercise-4").
    Plain strings, not foreign keys: deleting a student must not erase the record that a past
    run used their data."""

    class Kind(models.TextChoices):
        ATTEMPT = "attempt", "attempt"
        REVIEW = "review", "review"
        TRAJECTORY = "trajectory", "trajectory"
        STUDENT = "student", "student"
        PROBLEM = "problem", "problem"

    lineage = models.ForeignKey(RunLineage, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    ref = models.CharField(max_length=64)

    class Meta:
        indexes = [models.Index(fields=["kind", "ref"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.ref}"
