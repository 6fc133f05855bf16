"""{% prover_preparing as message %}: "Preparing the model, N%" while the first-run fine-tune
of the default prover runs and nothing serves yet, else None."""

from __future__ import annotations

from django import template

from webapp.console.default_model import preparing_message

register = template.Library()


@register.simple_tag
def prover_preparing() -> str | None:
    return preparing_message()
