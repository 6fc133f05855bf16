"""Classes (classrooms) that tie a teacher to students and courses, joined with a code."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.utils import timezone

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# No 0/O/1/I/L: join codes are read aloud and typed from a projector.
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


class Classroom(models.Model):
    name = models.CharField(max_length=120)
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="classrooms_taught"
    )
    students: models.ManyToManyField[User, Membership] = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="classrooms", through="Membership"
    )
    courses = models.ManyToManyField("courses.Course", blank=True, related_name="classrooms")
    join_code = models.CharField(max_length=16, unique=True, default=new_join_code)
    # Off: "Ask the prover" shows its search, goals and Lean's messages, but its final proof
    # only once the student has solved the exercise. On: the whole proof at once.
    prover_shows_full_proofs = models.BooleanField(
        default=False, verbose_name="students see the prover's full proofs before solving"
    )
    # The teacher's consent: this class's attempts and reviews may train the model (continual
    # distillation). Off by default; turning it off removes them from every later export.
    use_for_training = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A student's seat in a class, and since when: her teacher there sees her work on the
    class's courses made from that day on (webapp.accounts.access), not what she did before
    in another class. Kept in the table the plain many-to-many used (migration 0006)."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="memberships")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        db_column="user_id",
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "accounts_classroom_students"
        unique_together = [("classroom", "student")]

    def __str__(self) -> str:
        return f"{self.student_id} in {self.classroom_id} since {self.joined_at:%Y-%m-%d}"


class SchoolSignIn(models.Model):
    """Her consent: school sign-in (OpenID Connect) may open this account when the school
    vouches for its e-mail address (webapp.accounts.sso). Students and teachers give it from
    their page while signed in; staff, admins and superusers never get linked by address.
    Deleting the row takes it back (and the school logins it linked)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="school_sign_in"
    )
    allowed_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"school sign-in allowed for {self.user_id}"
