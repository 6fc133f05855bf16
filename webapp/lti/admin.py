from __future__ import annotations

from django.contrib import admin

from webapp.lti.models import LtiGradeLink, LtiIdentity


@admin.register(LtiIdentity)
class LtiIdentityAdmin(admin.ModelAdmin):
    list_display = ("subject", "issuer", "user", "created_at")
    search_fields = ("subject", "issuer", "user__username")


@admin.register(LtiGradeLink)
class LtiGradeLinkAdmin(admin.ModelAdmin):
    """Where scores go back, and why the last passback failed if it did."""

    list_display = ("identity", "assignment", "last_score", "last_sent_at", "last_error")
    list_filter = ("assignment",)
