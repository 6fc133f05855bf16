"""What every row that a Celery task works on keeps: its queue bookkeeping.

An attempt's check, a prover run and a training run are each one row that a task takes from
the queue, works on and ends. QueuedWork holds when it was made, last queued, taken and
ended, how often the sweeper put it back on the queue, and which task message took it, and
`claim` is the one way a task takes it. Each model keeps its own `status` (their states
differ), with "queued" for work no task has taken yet.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

QUEUED = "queued"


class QueuedWork(models.Model):
    status: str  # each model's own field, with QUEUED among its choices

    created_at = models.DateTimeField(auto_now_add=True)
    # When the work was last put on the queue, how often the sweeper re-queued it (bounded),
    # when a task took it and which task message that was (a redelivery of that message may
    # run again; any other copy steps aside).
    queued_at = models.DateTimeField(default=timezone.now)
    requeues = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=64, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = models.Manager()  # what each of the models gets anyway, declared for `claim`

    class Meta:
        abstract = True

    def claim(self, running: str, message: str) -> bool:
        """Take this row for task message `message` if it is still queued, moving it to the
        `running` status: one conditional UPDATE, so of two copies of a task (a redelivery,
        a sweeper's re-queue) only one takes it. True when this call took it. Either way the
        instance then holds the row's status, started_at and claimed_by."""
        now = timezone.now()
        still_queued = {"pk": self.pk, "status": QUEUED}  # `status` is each model's own field
        rows = type(self).objects.filter(**still_queued)
        took = rows.update(status=running, started_at=now, claimed_by=message)
        if took:
            self.status, self.started_at, self.claimed_by = running, now, message
        else:
            self.refresh_from_db(fields=["status", "started_at", "claimed_by"])
        return bool(took)
