"""A class's results as CSV: one row per student, one column per assignment.

A cell reads "solved/total" followed by its flags: `late` (an exercise solved after the due
date), `hint` (a hint opened on one of its exercises), `prover` (the prover asked on one).
The flags are beside the count, never in it: solving is Lean's verdict alone.
"""

from __future__ import annotations

import csv
import io

from webapp.accounts.models import Classroom
from webapp.assignments.standing import AssignmentStanding, standings


def cell(standing: AssignmentStanding) -> str:
    flags = [
        name
        for name, on in (
            ("late", standing.late),
            ("hint", standing.hint),
            ("prover", standing.prover),
        )
        if on
    ]
    return " ".join([f"{standing.solved}/{standing.total}", *flags])


def _safe(text: str) -> str:
    """A username or title opening with = + - @ would be a formula in a spreadsheet."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def class_csv(classroom: Classroom) -> str:
    assignments = list(classroom.assignments.order_by("due_at", "pk"))
    students = list(classroom.students.order_by("username"))
    table = standings(assignments, students)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "student",
            *[f"{_safe(a.title)} (due {a.due_local:%Y-%m-%d %H:%M %Z})" for a in assignments],
        ]
    )
    for student in students:
        writer.writerow(
            [_safe(student.get_username()), *[cell(table[student.pk, a.pk]) for a in assignments]]
        )
    return out.getvalue()
