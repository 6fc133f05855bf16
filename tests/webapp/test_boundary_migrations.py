"""The migrations that draw class boundaries keep what existing classes had: each seat dates
from its class's creation (a teacher keeps seeing what she saw), each teacher is granted the
courses her classes already teach, and reviews and switches made by admins (or whose teacher
is gone) keep reaching every class while teachers' own reach their classes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("accounts", "0005_school_sign_in"), ("courses", "0003_exercise_lessons_and_hint_openings"),
          ("attempts", "0005_delivery_bookkeeping")]  # fmt: skip
AFTER = [("accounts", "0006_membership_joined_at"), ("courses", "0004_course_grants"),
         ("attempts", "0006_teaching_scoped_to_classes")]  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_existing_classes_keep_what_they_had() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User")
    group = old.get_model("auth", "Group")
    tess = user.objects.create(username="tess")
    ada = user.objects.create(username="ada")
    ada.groups.add(group.objects.get_or_create(name="admins")[0])
    sam = user.objects.create(username="sam")
    course = old.get_model("courses", "Course").objects.create(slug="c", title="C")
    world = old.get_model("courses", "World").objects.create(course=course, slug="w", title="W")
    exercise = old.get_model("courses", "Exercise").objects.create(
        world=world, name="e", formal_statement="theorem e : True := by"
    )
    classroom = old.get_model("accounts", "Classroom").objects.create(name="K", teacher=tess)
    created = timezone.now() - timedelta(days=40)
    old.get_model("accounts", "Classroom").objects.filter(pk=classroom.pk).update(
        created_at=created
    )
    classroom.courses.add(course)
    classroom.students.add(sam)
    attempt = old.get_model("attempts", "Attempt").objects.create(
        student=sam, exercise=exercise, proof="  rfl"
    )
    suggestion_model = old.get_model("attempts", "Suggestion")
    feedback = old.get_model("attempts", "CuratedFeedback")
    by_tess = feedback.objects.create(
        suggestion=suggestion_model.objects.create(attempt=attempt, line=1, text="a"),
        teacher=tess, verdict="edited", text="x",
    )  # fmt: skip
    by_ada = feedback.objects.create(
        suggestion=suggestion_model.objects.create(attempt=attempt, line=1, text="b"),
        teacher=ada, verdict="edited", text="y",
    )  # fmt: skip
    switch = old.get_model("attempts", "CoachSwitch")
    tess_switch = switch.objects.create(exercise=exercise, kind="syntax", teacher=tess)
    orphan_switch = switch.objects.create(exercise=exercise, kind="sorry", teacher=None)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    seat = new.get_model("accounts", "Membership").objects.get()
    assert (seat.student_id, seat.joined_at) == (sam.pk, created)
    grant = new.get_model("courses", "CourseGrant").objects.get()
    assert (grant.teacher_id, grant.course_id) == (tess.pk, course.pk)
    reviews = new.get_model("attempts", "CuratedFeedback").objects
    assert not reviews.get(pk=by_tess.pk).for_all and reviews.get(pk=by_ada.pk).for_all
    switches = new.get_model("attempts", "CoachSwitch").objects
    assert not switches.get(pk=tess_switch.pk).for_all and switches.get(pk=orphan_switch.pk).for_all
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # back to the latest for other tests
