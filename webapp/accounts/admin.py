from __future__ import annotations

from django.contrib import admin

from webapp.accounts.models import Classroom


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ["name", "teacher", "join_code"]
    filter_horizontal = ["students", "courses"]
