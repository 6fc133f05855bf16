"""A class's results as CSV that Canvas and Moodle import without editing.

Per assignment: a numeric column of points (exercises Lean accepted, one point each), the
points possible (out of), and its flags each in a column of its own, 1 or 0: `late` (an
exercise solved after the due date), `hint` (a hint opened on one of its exercises), `prover`
(the prover asked on one). Flags sit beside the points, never in them: solving is Lean's
verdict alone.

- `canvas`: Canvas's Gradebook import layout (app/models/gradebook_importer.rb in
  instructure/canvas-lms): the student columns `Student, ID, SIS User ID, SIS Login ID,
  Section`, then one column per assignment named by its title (Canvas matches an existing
  assignment by title, or creates it), and a second row `Points Possible`. The flag columns
  say `(read only)` on that row: the importer drops such columns, so they never become
  assignments. Students are matched by SIS Login ID (the address, else the username) or
  by name; ID (Canvas's own user id) is left empty, LeanCoach does not know it.
- `moodle` (also a plain spreadsheet): Moodle's "Import grades: CSV file" layout
  (grade/import/csv in moodle/moodle): one header row, then one row per student only (a row
  Moodle cannot match to a user stops the import, so there is no points row: the header says
  `(out of N)`). Identify users by `Email address` or `Username`; map each points column to
  its grade item; leave the flag columns on "ignore" (or map them to feedback).

Text cells that a spreadsheet would read as a formula (= + - @ first) are quoted with `'`.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass
from typing import Any

from webapp.accounts.models import Classroom
from webapp.assignments.models import Assignment
from webapp.assignments.standing import AssignmentStanding, assignment_exercises, standings

FLAGS = ("late", "hint", "prover")
FORMATS = ("canvas", "moodle")
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_STUDENT_COLUMNS = ["Username", "Email address", "Full name"]
CANVAS_READ_ONLY = "(read only)"


def _safe(text: str) -> str:
    """A username or title opening with = + - @ would be a formula in a spreadsheet."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _titles(assignments: list[Assignment]) -> list[str]:
    """Each assignment's title, made unique (`Week 1 #2`): both LMSs match columns by name.
    Not `Week 1 (2)`: Canvas reads a trailing number in brackets as its assignment id."""
    seen: Counter[str] = Counter()
    out = []
    for assignment in assignments:
        title = _safe(assignment.title.strip())
        seen[title] += 1
        out.append(title if seen[title] == 1 else f"{title} #{seen[title]}")
    return out


def _name(student: Any) -> str:
    return _safe(student.get_full_name().strip() or student.get_username())


@dataclass(frozen=True)
class _Book:
    classroom: Classroom
    assignments: list[Assignment]
    titles: list[str]
    totals: list[int]  # points possible: the assignment's exercises
    students: list[Any]
    table: dict[tuple[int, int], AssignmentStanding]

    def cells(self, student: Any) -> list[int]:
        """Per assignment: the points, then each flag as 1 or 0."""
        out: list[int] = []
        for assignment in self.assignments:
            standing = self.table[student.pk, assignment.pk]
            out += [standing.solved, *[int(bool(getattr(standing, f))) for f in FLAGS]]
        return out


def _canvas(book: _Book) -> list[list[Any]]:
    header = list(CANVAS_STUDENT_COLUMNS)
    points_row: list[Any] = ["Points Possible", "", "", "", ""]
    for title, total in zip(book.titles, book.totals, strict=True):
        header += [title, *[f"{title}: {flag}" for flag in FLAGS]]
        points_row += [total, *[CANVAS_READ_ONLY] * len(FLAGS)]
    section = _safe(book.classroom.name)
    rows: list[list[Any]] = [header, points_row]
    for student in book.students:
        login = _safe(student.email or student.get_username())
        rows.append([_name(student), "", "", login, section, *book.cells(student)])
    return rows


def _moodle(book: _Book) -> list[list[Any]]:
    header = list(MOODLE_STUDENT_COLUMNS)
    for title, total in zip(book.titles, book.totals, strict=True):
        header += [f"{title} (out of {total})", *[f"{title}: {flag}" for flag in FLAGS]]
    rows: list[list[Any]] = [header]
    for student in book.students:
        who = [_safe(student.get_username()), _safe(student.email), _name(student)]
        rows.append([*who, *book.cells(student)])
    return rows


def class_csv(classroom: Classroom, fmt: str = "moodle") -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown grades format {fmt!r}")
    assignments = list(classroom.assignments.order_by("due_at", "pk"))
    students = list(classroom.students.order_by("username"))
    exercises = assignment_exercises(assignments)
    book = _Book(
        classroom=classroom,
        assignments=assignments,
        titles=_titles(assignments),
        totals=[len(exercises[a.pk]) for a in assignments],
        students=students,
        table=standings(assignments, students),
    )
    out = io.StringIO()
    csv.writer(out).writerows(_canvas(book) if fmt == "canvas" else _moodle(book))
    return out.getvalue()
