from __future__ import annotations

from django.contrib import admin

from webapp.courses.models import Course, CourseGrant, Exercise, World


class WorldInline(admin.TabularInline):
    model = World
    extra = 0


@admin.register(Course)
class CourseAdmin(admin.ModelAdmin):
    list_display = ["slug", "title"]
    inlines = [WorldInline]


@admin.register(Exercise)
class ExerciseAdmin(admin.ModelAdmin):
    list_display = ["name", "world", "order", "split"]
    list_filter = ["world__course"]
    search_fields = ["name", "formal_statement"]


@admin.register(CourseGrant)
class CourseGrantAdmin(admin.ModelAdmin):
    """Which teachers may add which course to their classes (also on /course-grants/<slug>/)."""

    list_display = ["course", "teacher", "granted_by", "granted_at"]
    list_filter = ["course"]
    autocomplete_fields = ["teacher"]
