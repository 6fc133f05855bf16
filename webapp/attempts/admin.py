from __future__ import annotations

from django.contrib import admin

from webapp.attempts.models import Attempt, CuratedFeedback, Suggestion


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["pk", "student", "exercise", "status", "valid", "created_at"]
    list_filter = ["status", "valid"]
    raw_id_fields = ["student", "exercise"]


@admin.register(Suggestion)
class SuggestionAdmin(admin.ModelAdmin):
    list_display = ["pk", "attempt", "line", "review", "source"]
    list_filter = ["review", "source"]
    raw_id_fields = ["attempt"]


@admin.register(CuratedFeedback)
class CuratedFeedbackAdmin(admin.ModelAdmin):
    list_display = ["pk", "suggestion", "verdict", "teacher", "updated_at"]
    raw_id_fields = ["suggestion"]
