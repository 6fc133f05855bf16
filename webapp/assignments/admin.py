from __future__ import annotations

from django.contrib import admin

from webapp.assignments.models import Assignment


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("title", "classroom", "opens_at", "due_at", "time_zone")
    list_filter = ("classroom",)
    filter_horizontal = ("exercises",)
