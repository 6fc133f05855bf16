"""Deadlines, time limits and rate limits: what keeps every attempt and prover run moving to an
end state, and one user from stalling a class (issue 14). Imported by base.py; each value can be
overridden from the environment (tests shorten them)."""

from __future__ import annotations

from tutor import redis_boundary
from webapp.settings.env import env_int, env_str

# A worker killed mid-task puts the task back on the queue (with acks_late) instead of losing it.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# A submit while the broker is down fails within about a second (then the attempt says so).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2, "interval_start": 0, "interval_step": 0.3, "interval_max": 0.5,
}  # fmt: skip
# Connecting to the broker to publish is bounded the same way (kombu retries forever otherwise),
# and so is each TCP connect and each command (a Redis that stops answering held a submit for
# as long as it stalled): the socket timeouts come from tutor/redis_boundary.py.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 2, "interval_start": 0, "interval_step": 0.3, "interval_max": 0.5,
    **redis_boundary.celery_settings()["broker_transport_options"],
}  # fmt: skip
# Sending a task subscribes to its result in Redis; by default that retries for ~20 s when Redis
# is down, which would hold the submit page that long.
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 2, "interval_start": 0, "interval_step": 0.3, "interval_max": 0.5},
}  # fmt: skip
# (soft, hard) seconds per queue; the soft limit lets the task end its object visibly first.
CELERY_QUEUE_TIME_LIMITS = {
    "lean": (env_int("LEANCOACH_LEAN_SOFT_LIMIT_S", 180), env_int("LEANCOACH_LEAN_HARD_LIMIT_S", 240)),
    "prover": (env_int("LEANCOACH_PROVER_SOFT_LIMIT_S", 1200), env_int("LEANCOACH_PROVER_HARD_LIMIT_S", 1260)),
    "train": (env_int("LEANCOACH_TRAIN_SOFT_LIMIT_S", 6 * 3600), env_int("LEANCOACH_TRAIN_HARD_LIMIT_S", 6 * 3600 + 120)),
}  # fmt: skip

# The sweeper (lean.sweep_stale, on Celery beat) re-queues what no worker took or finished (the
# broker lost the message, the worker died) up to *_MAX_REQUEUES times, then ends it with the
# reason. Queued deadlines count from the last time the work was queued, running ones from
# when a worker took it; both are well past the queue's hard time limit.
SWEEP_EVERY_S = env_int("LEANCOACH_SWEEP_EVERY_S", 60)
# The queue beat sends the sweep to: "sweep" where a worker consumes it alone (`make run`'s
# `sweeper`), so it never waits behind checks; "lean" (the default) where no such worker runs.
SWEEP_QUEUE = env_str("LEANCOACH_SWEEP_QUEUE", "lean") or "lean"
ATTEMPT_QUEUED_DEADLINE_S = env_int("LEANCOACH_ATTEMPT_QUEUED_DEADLINE_S", 5 * 60)
ATTEMPT_CHECKING_DEADLINE_S = env_int("LEANCOACH_ATTEMPT_CHECKING_DEADLINE_S", 10 * 60)
ATTEMPT_MAX_REQUEUES = env_int("LEANCOACH_ATTEMPT_MAX_REQUEUES", 2)
PROVER_QUEUED_DEADLINE_S = env_int("LEANCOACH_PROVER_QUEUED_DEADLINE_S", 30 * 60)
PROVER_RUNNING_DEADLINE_S = env_int("LEANCOACH_PROVER_RUNNING_DEADLINE_S", 30 * 60)
PROVER_MAX_REQUEUES = env_int("LEANCOACH_PROVER_MAX_REQUEUES", 1)
# Prover and training runs active (queued or running) at once, site-wide; past it a new one
# is refused with the reason (0: no cap). `make run` sets each one below the pool the two
# share (webapp.launch), so neither kind can take every process.
PROVER_MAX_ACTIVE = env_int("LEANCOACH_PROVER_MAX_ACTIVE", 0)
TRAIN_MAX_ACTIVE = env_int("LEANCOACH_TRAIN_MAX_ACTIVE", 0)
# The attempt page stops its slow poll after this long and says so.
ATTEMPT_POLL_DEADLINE_S = env_int("LEANCOACH_ATTEMPT_POLL_DEADLINE_S", 10 * 60)

# Per-user limits (django-ratelimit rates: "N/period", period s|m|h|d, e.g. "20/5m").
RATE_LIMITS = {
    "submit": env_str("LEANCOACH_RATE_SUBMIT", "20/m") or "20/m",
    "prover": env_str("LEANCOACH_RATE_PROVER", "10/h") or "10/h",
    "join": env_str("LEANCOACH_RATE_JOIN", "10/10m") or "10/10m",
    # Failed logins of one username from one client address, and of any usernames from one
    # address (a school's pupils may share one address behind its NAT: higher).
    "login": env_str("LEANCOACH_RATE_LOGIN", "10/10m") or "10/10m",
    "login_client": env_str("LEANCOACH_RATE_LOGIN_CLIENT", "100/10m") or "100/10m",
    # Goals while typing: the editor asks after each pause of 400 ms; steady typing with
    # pauses asks about once a second at most (webapp/attempts/live_goals.py).
    "live_goals": env_str("LEANCOACH_RATE_LIVE_GOALS", "90/m") or "90/m",
}
# One goals-while-typing check is given this long (a graded check has the lean queue's limit).
LIVE_GOALS_TIMEOUT_S = env_int("LEANCOACH_LIVE_GOALS_TIMEOUT_S", 10)
