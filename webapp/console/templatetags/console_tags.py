"""{% success_alert %}: the monitoring alert banner shown on every console page."""

from __future__ import annotations

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
