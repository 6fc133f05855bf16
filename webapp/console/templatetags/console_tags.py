"""{% success_alert %}: the monitoring alert banner shown on every console page;
{% used_in_models %}; and the `duration` filter (a timedelta in words: "4 min 05 s")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import template

from webapp.console import monitoring

register = template.Library()


@register.inclusion_tag("console/alert.html")
def success_alert() -> dict[str, Any]:
    return {"rate": monitoring.prover_success_rate()}


@register.inclusion_tag("console/_used_in_models.html")
def used_in_models(suggestion: Any) -> dict[str, Any]:
    """On a reviewed suggestion: "used in model <run> (date)" for each run that trained on it."""
    from webapp.console.lineage import models_using_review

    curated = getattr(suggestion, "curated", None)
    return {"uses": models_using_review(curated.pk) if curated is not None else []}


@register.filter
def duration(value: timedelta | None) -> str:
    """A timedelta as an admin reads it: "35 s", "4 min 05 s", "2 h 03 min"."""
    if value is None:
        return ""
    seconds = max(0, round(value.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


@register.filter
def num(value: float | int | None) -> str:
    """A metric as the run page prints it: 4 significant digits, no padding zeros."""
    from webapp.console.charts import number

    return "" if value is None else number(float(value))
