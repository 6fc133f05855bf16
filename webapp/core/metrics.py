"""/metrics in the Prometheus text format, for every web process and every worker host at once.

Two kinds of figures:

- Events (a check finished, a Celery task ended) are counted where they happen, in Redis
  hashes (HINCRBY / HINCRBYFLOAT), so the figures of every worker process and host add up
  and any web process can serve them. They are true counters: they only grow (a Redis restart
  resets them, which Prometheus' rate() handles as a counter reset).
- States (attempts by status, prover run outcomes, queue depth, workers per queue, training
  progress, the serving checkpoint, the seed's success rate) are read at scrape time from the
  database, the broker and the checkpoint registry.

Access: staff users, or `Authorization: Bearer <LEANCOACH_METRICS_TOKEN>` (what Prometheus
sends; see docker/prometheus.yml). Nobody else: these figures describe the whole school.
Metric names and the alerts on them: docs/OPERATIONS.md.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.core import (
    CollectorRegistry,
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.registry import Collector

from tutor import redis_boundary

logger = logging.getLogger(__name__)

PREFIX = "leancoach:metrics:"
# Check latency buckets (seconds): the seed's feedback bar is 0.5 s.
CHECK_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
TASK_BUCKETS = (0.1, 0.5, 1.0, 5.0, 30.0, 120.0, 600.0, 3600.0)


def _redis() -> redis_boundary.Client:
    return redis_boundary.client(settings.REDIS_URL)


# --- events, counted in Redis ---------------------------------------------------------------


def _observe(pipe: Any, key: str, labels: str, seconds: float, buckets: tuple[float, ...]) -> None:
    """Queue a histogram observation on `pipe` (the caller sends its pipeline once: one trip
    to Redis per event)."""
    for bound in buckets:
        if seconds <= bound:
            pipe.hincrby(f"{PREFIX}{key}:buckets", f"{labels}|{bound}", 1)
    pipe.hincrby(f"{PREFIX}{key}:count", labels, 1)
    pipe.hincrbyfloat(f"{PREFIX}{key}:sum", labels, seconds)


def _quietly(record: Any) -> Any:
    """Metrics never break the work they describe: a Redis error is logged, not raised."""

    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            record(*args, **kwargs)
        except redis_boundary.ERRORS as exc:
            logger.warning("metrics not recorded (%s): %s", record.__name__, exc)

    return wrapper


def check_outcome(status: str, valid: bool | None) -> str:
    if status == "done":
        return "valid" if valid else ("invalid" if valid is False else "no_verdict")
    return status  # unavailable (no Lean) or failed (could not check)


@_quietly
def record_check(attempt: Any) -> None:
    """A student's check ended (webapp.attempts.tasks): latency from submit, by outcome, and
    which coach source answered (a non-empty coach_detail is a fallback's reason)."""
    outcome = check_outcome(attempt.status, attempt.valid)
    seconds = (attempt.finished_at - attempt.created_at).total_seconds()
    pipe = _redis().pipeline(transaction=False)
    _observe(pipe, "check_latency", outcome, seconds, CHECK_BUCKETS)
    if attempt.coach_source:
        fallback = "true" if attempt.coach_detail else "false"
        pipe.hincrby(f"{PREFIX}coach", f"{attempt.coach_source}|{fallback}", 1)
    pipe.execute()


_task_started: dict[str, float] = {}


def _task_prerun(task_id: str | None = None, **_: Any) -> None:
    if task_id:
        _task_started[task_id] = time.monotonic()


@_quietly
def _task_postrun(task_id: str | None = None, task: Any = None, state: str = "", **_: Any) -> None:
    started = _task_started.pop(task_id or "", None)
    name = getattr(task, "name", "unknown")
    pipe = _redis().pipeline(transaction=False)
    pipe.hincrby(f"{PREFIX}tasks", f"{name}|{state or 'UNKNOWN'}", 1)
    if started is not None:
        _observe(pipe, "task_runtime", name, time.monotonic() - started, TASK_BUCKETS)
    pipe.execute()


def connect_celery_signals() -> None:
    from celery.signals import task_postrun, task_prerun

    task_prerun.connect(_task_prerun, weak=False)
    task_postrun.connect(_task_postrun, weak=False)


# --- the collector, read at scrape time -------------------------------------------------------


def _hash(key: str) -> dict[str, str]:
    raw: dict[bytes, bytes] = _redis().hgetall(PREFIX + key)  # type: ignore[assignment]
    return {k.decode(): v.decode() for k, v in raw.items()}


def _histogram(
    name: str, doc: str, key: str, label: str, buckets: tuple[float, ...]
) -> HistogramMetricFamily:
    family = HistogramMetricFamily(name, doc, labels=[label])
    counts, sums, bucket_counts = (
        _hash(f"{key}:count"),
        _hash(f"{key}:sum"),
        _hash(f"{key}:buckets"),
    )
    for value, count in sorted(counts.items()):
        cumulative = [(str(b), float(bucket_counts.get(f"{value}|{b}", 0))) for b in buckets]
        family.add_metric(
            [value], cumulative + [("+Inf", float(count))], sum_value=float(sums.get(value, 0))
        )
    return family


class LeanCoachCollector(Collector):
    def collect(self) -> Iterator[Any]:
        yield from self._events()
        yield from self._database()
        yield from self._broker()
        yield from self._serving()

    def _events(self) -> Iterator[Any]:
        try:
            yield _histogram("leancoach_check_latency_seconds",
                             "Submit to end of check (Lean + coach), by outcome.",
                             "check_latency", "outcome", CHECK_BUCKETS)  # fmt: skip
            coach = CounterMetricFamily("leancoach_coach_answers", "Coach answers by source; "
                                        "fallback=true when the asked source fell back.",
                                        labels=["source", "fallback"])  # fmt: skip
            for key, n in sorted(_hash("coach").items()):
                coach.add_metric(key.split("|", 1), float(n))
            yield coach
            tasks = CounterMetricFamily("leancoach_celery_tasks", "Celery tasks ended, by task "
                                        "and final state.", labels=["task", "state"])  # fmt: skip
            for key, n in sorted(_hash("tasks").items()):
                tasks.add_metric(key.split("|", 1), float(n))
            yield tasks
            yield _histogram("leancoach_celery_task_runtime_seconds", "Celery task run time.",
                             "task_runtime", "task", TASK_BUCKETS)  # fmt: skip
        except redis_boundary.ERRORS as exc:
            logger.warning("event metrics unavailable: %s", exc)

    def _database(self) -> Iterator[Any]:
        from webapp.attempts.models import Attempt
        from webapp.console.models import TrainingMetric, TrainingRun
        from webapp.console.monitoring import prover_success_rate
        from webapp.provers.models import ProverRun

        attempts = GaugeMetricFamily("leancoach_attempts", "Attempts by status.",
                                     labels=["status"])  # fmt: skip
        by_status = dict(Attempt.objects.values_list("status").annotate(n=Count("pk")))
        for status in Attempt.Status.values:
            attempts.add_metric([status], float(by_status.get(status, 0)))
        yield attempts
        runs = GaugeMetricFamily("leancoach_prover_runs", "Prover runs by status and verdict.",
                                 labels=["status", "verdict"])  # fmt: skip
        for row in ProverRun.objects.values("status", "verdict").annotate(n=Count("pk")):
            runs.add_metric([row["status"], row["verdict"] or "none"], float(row["n"]))
        yield runs
        rate = prover_success_rate()
        success = GaugeMetricFamily("leancoach_prover_success_rate", "Valid share of the last "
                                    "50 checked prover runs (seed 000's alert: < 0.6).")  # fmt: skip
        if rate.rate is not None:
            success.add_metric([], rate.rate)
        yield success
        yield GaugeMetricFamily("leancoach_prover_success_window_runs", "Checked prover runs "
                                "in the success-rate window.", value=float(rate.total))  # fmt: skip
        step = GaugeMetricFamily("leancoach_training_step", "Active training runs: step.",
                                 labels=["run"])  # fmt: skip
        total = GaugeMetricFamily("leancoach_training_steps", "Active training runs: planned "
                                  "steps.", labels=["run"])  # fmt: skip
        loss = GaugeMetricFamily("leancoach_training_loss", "Active training runs: last "
                                 "reported loss.", labels=["run"])  # fmt: skip
        for run in TrainingRun.objects.filter(status__in=TrainingRun.ACTIVE):
            step.add_metric([run.run_name], float(run.step))
            total.add_metric([run.run_name], float(run.steps))
            last = TrainingMetric.objects.filter(run=run).order_by("-step", "-pk").first()
            if last is not None and isinstance(last.values.get("loss"), int | float):
                loss.add_metric([run.run_name], float(last.values["loss"]))
        yield from (step, total, loss)

    def _broker(self) -> Iterator[Any]:
        from webapp.celery import QUEUES
        from webapp.core.health import check_workers

        depth = GaugeMetricFamily("leancoach_queue_depth", "Tasks waiting in each Celery queue.",
                                  labels=["queue"])  # fmt: skip
        try:
            for queue in QUEUES:
                waiting: int = _redis().llen(queue)  # type: ignore[assignment]
                depth.add_metric([queue], float(waiting))
            yield depth
        except redis_boundary.ERRORS as exc:
            logger.warning("queue depth unavailable: %s", exc)
        workers = GaugeMetricFamily("leancoach_queue_workers", "Celery workers consuming each "
                                    "queue (0: nothing takes its tasks).", labels=["queue"])  # fmt: skip
        component = check_workers(timeout_s=0.5)
        for queue, names in component.data.get("queues", {}).items():
            workers.add_metric([queue], float(len(names)))
        yield workers

    def _serving(self) -> Iterator[Any]:
        from webapp.core.health import check_serving_model

        serving = check_serving_model()
        info = GaugeMetricFamily("leancoach_serving_checkpoint", "1 for the checkpoint that "
                                 "serves the prover.", labels=["checkpoint", "version"])  # fmt: skip
        if serving.ok and serving.data.get("checkpoint"):
            info.add_metric([str(serving.data.get("checkpoint", "")),
                             str(serving.data.get("version", ""))], 1.0)  # fmt: skip
        yield info


REGISTRY = CollectorRegistry(auto_describe=False)
REGISTRY.register(LeanCoachCollector())


def allowed(request: HttpRequest) -> bool:
    token = getattr(settings, "METRICS_TOKEN", "")
    header = request.headers.get("Authorization", "")
    if token and header.startswith("Bearer "):
        return hmac.compare_digest(header.removeprefix("Bearer ").strip(), token)
    return bool(request.user.is_authenticated and request.user.is_staff)


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        return HttpResponse("Metrics are for staff or the metrics token.", status=403)
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
