"""Courses are organised as worlds (ordered chapters) of levels (exercises).

The course poses the statement; the student writes only the proof. An exercise keeps the
fields of the miniF2F-style JSONL it may come from (name, split, informal_prefix,
formal_statement, goal, header) so an import round-trips.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.urls import NoReverseMatch, reverse

# An exercise's name is part of its web address (courses/<course>/<name>/).
# Dots alone ("." / "..") are refused too: browsers read them as path steps.
EXERCISE_NAME_RE = re.compile(r"^(?!\.+\Z)[\w.-]{1,200}\Z")
validate_exercise_name = RegexValidator(
    EXERCISE_NAME_RE,
    "Use only letters, digits, '_', '.' and '-' (the name is part of the web address).",
)


class Course(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["title", "pk"]

    def __str__(self) -> str:
        return self.title


class World(models.Model):
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="worlds")
    slug = models.SlugField(max_length=80)
    title = models.CharField(max_length=200)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="world_slug_unique_in_course")
        ]

    def __str__(self) -> str:
        return f"{self.course.slug}/{self.slug}"


class Exercise(models.Model):
    """One level. `formal_statement` ends with `:= by` (or `:=`): the student's proof follows."""

    world = models.ForeignKey(World, on_delete=models.CASCADE, related_name="exercises")
    order = models.PositiveIntegerField(default=0)
    name = models.CharField(max_length=200, validators=[validate_exercise_name])
    title = models.CharField(max_length=200, blank=True)
    split = models.CharField(max_length=40, blank=True)
    informal_prefix = models.TextField(blank=True)
    formal_statement = models.TextField()
    goal = models.TextField(blank=True)
    header = models.TextField(blank=True)
    reference_proof = models.TextField(blank=True)
    # The lesson around the exercise: a short Markdown introduction, the tactics and lemmas
    # it introduces (the inventory grows along a world), and up to MAX_HINTS hints.
    intro = models.TextField(blank=True)
    unlocks = models.JSONField(default=list, blank=True)
    hints = models.JSONField(default=list, blank=True)

    MAX_HINTS = 3

    class Meta:
        ordering = ["world__order", "order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["world", "name"], name="exercise_name_unique_in_world")
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str | None:
        """The exercise page, or None for a name no address can carry (stored before names
        were checked, or written to the database directly): the page then lists it unlinked
        instead of failing for every student."""
        if not EXERCISE_NAME_RE.fullmatch(self.name):
            return None
        try:
            return reverse("courses:exercise", args=[self.world.course.slug, self.name])
        except NoReverseMatch:
            return None

    @property
    def course(self) -> Course:
        return self.world.course

    @property
    def statement_text(self) -> str:
        return self.formal_statement.rstrip("\n")

    def source_line(self, proof_line: int) -> int:
        """A proof line (1: the proof's first; 0: the proof as a whole) as the editor, Lean
        and the coach number it: in statement + proof, where 0 is the statement's last line
        (its `by`)."""
        return len(self.statement_text.split("\n")) + max(proof_line, 0)

    @property
    def display_title(self) -> str:
        return self.title or self.name.replace("_", " ")


class HintOpening(models.Model):
    """A student opened hint `index` (0-based) of an exercise; teachers see how many."""

    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hint_openings"
    )
    exercise = models.ForeignKey(Exercise, on_delete=models.CASCADE, related_name="hint_openings")
    index = models.PositiveSmallIntegerField()
    opened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(
                fields=["student", "exercise", "index"], name="hint_opened_once"
            )
        ]

    def __str__(self) -> str:
        return f"hint {self.index + 1} of {self.exercise_id} opened by {self.student_id}"


class CourseGrant(models.Model):
    """An admin lets a teacher use a course: she may add it to her classes (webapp.accounts.
    views), and only then. Courses are made by admins (the import form, the starter course);
    a teacher cannot add a course nobody granted her, so she cannot make another teacher's
    students' work on it visible to herself by sharing a student."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="grants")
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_grants"
    )
    granted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["course", "teacher"]
        constraints = [
            models.UniqueConstraint(fields=["course", "teacher"], name="course_granted_once")
        ]

    def __str__(self) -> str:
        return f"{self.course_id} granted to {self.teacher_id}"
