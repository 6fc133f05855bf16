"""{% success_alert %}: the monitoring alert banner shown on every console page."""

from __future__ import annotations

from typing import Any

from django import template

from webapp.console import monitoring

register = template.Library()


@register.inclusion_tag("console/alert.html")
def success_alert() -> dict[str, Any]:
    return {"rate": monitoring.prover_success_rate()}
