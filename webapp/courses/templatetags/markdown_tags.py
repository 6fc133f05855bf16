"""`inline_markdown`: short texts (hints, the coach's suggestions) with their Markdown code
spans and emphasis rendered inline, as the exercise's intro is rendered in full."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from webapp.courses.lessons import render_inline_markdown

register = template.Library()


@register.filter
def inline_markdown(text: str | None) -> SafeString:
    return render_inline_markdown(text or "")
