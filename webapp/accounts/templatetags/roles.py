"""{% load roles %} then `user|is_teacher`, `user|is_admin`, `user|is_student`."""

from __future__ import annotations

from typing import Any

from django import template

from webapp.accounts import roles

register = template.Library()


@register.filter
def is_teacher(user: Any) -> bool:
    return roles.is_teacher(user)


@register.filter
def is_admin(user: Any) -> bool:
    return roles.is_admin(user)


@register.filter
def is_student(user: Any) -> bool:
    return roles.is_student(user)
