from __future__ import annotations

from django.contrib import admin

from webapp.accounts.models import Classroom, Membership, SchoolSignIn


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["student"]


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ["name", "teacher", "join_code"]
    filter_horizontal = ["courses"]
    inlines = [MembershipInline]


@admin.register(SchoolSignIn)
class SchoolSignInAdmin(admin.ModelAdmin):
    list_display = ["user", "allowed_at"]
    autocomplete_fields = ["user"]
