"""Courses are organised as worlds (ordered chapters) of levels (exercises).

The course poses the statement; the student writes only the proof. An exercise keeps the
fields of the miniF2F-style JSONL it may come from (name, split, informal_prefix,
formal_statement, goal, header) so an import round-trips.
"""

from __future__ import annotations

from django.db import models


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
    name = models.CharField(max_length=200)
    title = models.CharField(max_length=200, blank=True)
    split = models.CharField(max_length=40, blank=True)
    informal_prefix = models.TextField(blank=True)
    formal_statement = models.TextField()
    goal = models.TextField(blank=True)
    header = models.TextField(blank=True)
    reference_proof = models.TextField(blank=True)

    class Meta:
        ordering = ["world__order", "order", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["world", "name"], name="exercise_name_unique_in_world")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def course(self) -> Course:
        return self.world.course

    @property
    def statement_text(self) -> str:
        return self.formal_statement.rstrip("\n")

    @property
    def display_title(self) -> str:
        return self.title or self.name.replace("_", " ")
