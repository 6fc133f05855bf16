"""PreparedRead (webapp/core/prepared.py): a hot read's SQL compiled once, then run with each
call's keys. It must give what the plain queryset gives (the same rows, fields, converted
values, deferred fields and select_related objects), in one query, for any keys; and it must
refuse a read whose keys it cannot place rather than run it with the wrong ones. save_fields
must write what Django's save(update_fields=...) writes."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Model
from django.test.utils import CaptureQueriesContext

from tests.webapp.cast import Cast
from webapp.attempts import access as attempt_access
from webapp.attempts import actions, consumers, live, tasks
from webapp.attempts.models import Attempt, CuratedFeedback, LineDiagnostic, Progress, Suggestion
from webapp.core.prepared import PreparedRead
from webapp.courses import access as course_access
from webapp.courses.models import Exercise


def _state(instance: Model, seen: frozenset[int] = frozenset()) -> dict[str, Any] | str:
    """What a model instance holds: loaded fields (not deferred) and cached relations (a
    relation back to an instance already described, as a one-to-one's reverse, by name)."""
    if id(instance) in seen:
        return f"back to {type(instance).__name__} {instance.pk}"
    seen = seen | {id(instance)}
    loaded = {
        f.attname: getattr(instance, f.attname)
        for f in instance._meta.concrete_fields
        if f.attname not in instance.get_deferred_fields()
    }
    cached = {
        name: _state(obj, seen) if obj is not None else None
        for name, obj in instance._state.fields_cache.items()
    }
    return {"fields": loaded, "deferred": instance.get_deferred_fields(), "related": cached}


def _same(read: PreparedRead[Any], **keys: Any) -> list[Any]:
    prepared = read.all(**keys)
    plain = list(read.queryset(**keys))
    assert [_state(p) for p in prepared] == [_state(p) for p in plain], keys
    return prepared


@pytest.fixture
def checked(cast: Cast) -> list[Attempt]:
    """Attempts of two students, with messages, suggestions and one teacher review."""
    made = []
    for student in (cast.student, cast.other_student):
        for n in range(2):
            attempt = Attempt.objects.create(
                student=student,
                exercise=cast.exercise,
                proof=f"  simp\n  rfl -- {n}",
                status=Attempt.Status.DONE,
                valid=False,
                check_result={"valid": False, "messages": [{"line": 2}]},
                tactics=[{"line": 1, "tactic": "simp"}],
                coach_source="rules",
            )
            for line in (2, 1, 1):
                LineDiagnostic.objects.create(
                    attempt=attempt, line=line, column=line * 2, severity="error", message="m"
                )
            for line in (2, 1):
                Suggestion.objects.create(
                    attempt=attempt, line=line, text=f"try {line}", extra={"k": [line]}
                )
            made.append(attempt)
    reviewed = made[0].suggestions.order_by("pk")[0]
    CuratedFeedback.objects.create(
        suggestion=reviewed, teacher=cast.teacher, verdict="edited", text="teacher's words"
    )
    return made


def test_the_projects_prepared_reads_match_their_querysets(
    cast: Cast, checked: list[Attempt]
) -> None:
    students = (cast.student.pk, cast.other_student.pk, cast.outsider.pk)
    exercise = cast.exercise
    for attempt in checked + [Attempt(pk=10**6)]:  # the last: no such attempt
        for student in students:
            for read in attempt_access._OWN_ATTEMPT.values():
                _same(read, pk=attempt.pk, student=student)
            _same(consumers._OWN_BY_PK, student=student, exercise=exercise.pk, pk=attempt.pk)
        _same(tasks._ATTEMPT_WITH_EXERCISE, pk=attempt.pk)
        diagnostics = _same(live._DIAGNOSTICS, attempt=attempt.pk)
        suggestions = _same(live._SUGGESTIONS, attempt=attempt.pk)
        if attempt.pk != 10**6:
            assert [d.line for d in diagnostics] == [1, 1, 2]  # the model's ordering
            assert len(suggestions) == 2
    Attempt.objects.filter(pk=checked[1].pk).update(status=Attempt.Status.QUEUED)
    Progress.objects.create(student=cast.student, exercise=exercise, attempts=2)
    for student in students:
        _same(consumers._LATEST_OWN, student=student, exercise=exercise.pk)
        with transaction.atomic():  # FOR UPDATE, where the database has it
            _same(actions._PROGRESS_LOCKED, student=student, exercise=exercise.pk)
        _same(actions._UNFINISHED, student=student, exercise=exercise.pk)
        for read in course_access._JOINED.values():
            keys = {"pk": exercise.pk, "slug": cast.course.slug, "name": exercise.name}
            wanted = {name: keys[name] for name in read.keys if name != "student"}
            found = _same(read, student=student, **wanted)
            assert [e.pk for e in found] == ([exercise.pk] if student != cast.outsider.pk else [])


def test_values_come_back_converted_and_relations_loaded_in_one_query(
    cast: Cast, checked: list[Attempt]
) -> None:
    attempt = checked[0]
    with CaptureQueriesContext(connection) as queries:
        found = attempt_access._OWN_ATTEMPT[()].first(pk=attempt.pk, student=cast.student.pk)
        assert found is not None
        assert isinstance(found.created_at, datetime) and found.created_at.tzinfo is not None
        assert found.check_result == {"valid": False, "messages": [{"line": 2}]}
        assert found.valid is False and found.status == Attempt.Status.DONE
        assert found.exercise.world.course.slug == cast.course.slug
        assert found.student.username == cast.student.username
    assert len(queries) == 1

    deferred = attempt_access._OWN_ATTEMPT[("check_result",)].first(
        pk=attempt.pk, student=cast.student.pk
    )
    assert deferred is not None and deferred.get_deferred_fields() == {"check_result"}

    with CaptureQueriesContext(connection) as queries:
        suggestions = live._SUGGESTIONS.all(attempt=attempt.pk)
        curated = [getattr(s, "curated", None) for s in suggestions]
    assert len(queries) == 1  # the review came with its suggestion, and "none" is known
    assert [c.text if c else None for c in curated].count("teacher's words") == 1
    assert suggestions[0].extra in ({"k": [1]}, {"k": [2]})


@pytest.mark.django_db
def test_keys_are_converted_as_the_field_would_and_refused_as_it_would() -> None:
    read = PreparedRead(lambda pk: Attempt.objects.filter(pk=pk), pk=int)
    assert read.all(pk="5") == []  # "5" -> 5, as Django's filter does
    with pytest.raises(ValueError):
        read.all(pk="five")
    with pytest.raises(TypeError, match="takes the keys"):
        read.all()
    with pytest.raises(TypeError, match="takes the keys"):
        read.all(pk=1, student=2)


@pytest.mark.django_db
def test_it_compiles_once_per_database_and_runs_inside_transactions(cast: Cast) -> None:
    built = []

    def build(pk: int) -> Any:
        built.append(pk)
        return Exercise.objects.select_related("world").filter(pk=pk)

    read = PreparedRead(build, pk=int)
    with transaction.atomic():
        moved = Exercise.objects.filter(pk=cast.exercise.pk).update(title="Renamed")
        assert moved == 1
        for _ in range(3):
            found = read.first(pk=cast.exercise.pk)
            assert found is not None and found.title == "Renamed"  # sees its own transaction
    assert len(built) == 1 and built[0] < 0  # built once, with a stand-in key


@pytest.mark.django_db(transaction=True)
def test_another_thread_reads_on_its_own_connection(cast: Cast) -> None:
    read = PreparedRead(lambda pk: Exercise.objects.filter(pk=pk), pk=int)
    assert read.first(pk=cast.exercise.pk) is not None  # compiled on this thread
    found: list[Any] = []

    def other() -> None:
        from django.db import connections

        try:
            found.append(read.first(pk=cast.exercise.pk))
        finally:
            connections.close_all()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert found and found[0].pk == cast.exercise.pk


@pytest.mark.django_db
def test_reads_it_cannot_place_keys_in_are_refused() -> None:
    twice = PreparedRead(
        lambda pk: Attempt.objects.filter(pk=pk) | Attempt.objects.filter(student_id=pk), pk=int
    )
    with pytest.raises(TypeError, match="exactly once"):
        twice.all(pk=1)
    values = PreparedRead(lambda pk: Attempt.objects.filter(pk=pk).values("pk"), pk=int)
    with pytest.raises(TypeError, match="values"):
        values.all(pk=1)
    prefetching = PreparedRead(
        lambda pk: Attempt.objects.filter(pk=pk).prefetch_related("diagnostics"), pk=int
    )
    with pytest.raises(TypeError, match="prefetch"):
        prefetching.all(pk=1)
    with pytest.raises(TypeError, match="keys"):
        PreparedRead(lambda pk: Attempt.objects.filter(pk=pk), pk=float)
    with pytest.raises(TypeError, match="keys"):
        PreparedRead(lambda pk: Attempt.objects.filter(pk=pk), student=int)


def test_ordering_columns_past_the_models_own_are_dropped(
    cast: Cast, checked: list[Attempt]
) -> None:
    # DISTINCT with an ordering on another table: the compiled SELECT carries that column too.
    read = PreparedRead(
        lambda student: (
            Attempt.objects.filter(student_id=student).order_by("exercise__title", "-pk").distinct()
        ),
        student=int,
    )
    found = _same(read, student=cast.student.pk)
    assert [a.pk for a in found] == sorted((a.pk for a in checked[:2]), reverse=True)


def test_submits_keep_one_progress_row_and_count_each(cast: Cast) -> None:
    for n in (1, 2):
        actions.do_submit_attempt(cast.student, cast.exercise, "  rfl")
        progress = Progress.objects.get(student=cast.student, exercise=cast.exercise)
        assert progress.attempts == n
    # A submit in another tab made her row between this submit's read and its insert.
    Progress.objects.filter(pk=progress.pk).update(attempts=5)
    with transaction.atomic():
        found = actions._first_progress(cast.student, cast.exercise)
    assert (found.pk, found.attempts) == (progress.pk, 5)
    assert Progress.objects.filter(student=cast.student).count() == 1


def _row(model: type[Model], pk: int) -> dict[str, Any]:
    return model.objects.filter(pk=pk).values().get()


def test_save_fields_writes_what_djangos_save_writes(cast: Cast) -> None:
    from django.utils import timezone

    from webapp.core.prepared import save_fields

    made = [
        Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
        for _ in range(2)
    ]
    fields = ["status", "valid", "check_result", "tactics", "finished_at", "status_detail"]
    for attempt, value in zip(made, ({"a": [1, "ü"]}, None), strict=True):
        attempt.status = Attempt.Status.DONE
        attempt.valid = False
        attempt.check_result = value
        attempt.tactics = [{"line": 1}]
        attempt.finished_at = timezone.now()
        attempt.status_detail = 'it\'s "quoted"; -- not SQL'
    twin = Attempt.objects.get(pk=made[1].pk)
    made[0].save(update_fields=fields)  # Django's
    assert save_fields(made[1], fields) == 1
    django_row, ours = _row(Attempt, made[0].pk), _row(Attempt, made[1].pk)
    for name in ("status", "valid", "tactics", "status_detail"):
        assert ours[name] == django_row[name], name
    assert ours["check_result"] is None and django_row["check_result"] == {"a": [1, "ü"]}
    assert ours["finished_at"] == made[1].finished_at
    twin.refresh_from_db()
    assert twin.valid is False and twin.finished_at == made[1].finished_at
    assert twin.status_detail == 'it\'s "quoted"; -- not SQL'

    progress = Progress.objects.create(student=cast.student, exercise=cast.exercise)
    progress.attempts, progress.last_attempt = 4, made[0]
    assert save_fields(progress, ["attempts", "last_attempt"]) == 1
    assert (
        _row(Progress, progress.pk)["attempts"],
        _row(Progress, progress.pk)["last_attempt_id"],
    ) == (4, made[0].pk)
    reverse = next(f.name for f in Exercise._meta.get_fields() if not f.concrete)
    with pytest.raises(TypeError, match="not a column"):
        save_fields(cast.exercise, [reverse])  # another table's relation to this one


def test_save_fields_with_expect_updates_only_a_row_that_holds_those_values(cast: Cast) -> None:
    from webapp.core.prepared import save_fields

    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
    attempt.status, attempt.claimed_by = Attempt.Status.CHECKING, "first"
    assert save_fields(attempt, ["status", "claimed_by"], expect={"status": "queued"}) == 1
    attempt.claimed_by = "second"
    assert save_fields(attempt, ["status", "claimed_by"], expect={"status": "queued"}) == 0
    assert _row(Attempt, attempt.pk)["claimed_by"] == "first"


def test_the_models_saved_without_signals_have_no_receivers() -> None:
    from django.db.models.signals import post_save, pre_save

    # save_fields sends no signals: a receiver added to these models would be skipped.
    for model in (Attempt, Progress):
        assert not pre_save.has_listeners(model) and not post_save.has_listeners(model)


def test_save_fields_refuses_to_expect_null(cast: Cast) -> None:
    from webapp.core.prepared import save_fields

    attempt = Attempt.objects.create(student=cast.student, exercise=cast.exercise, proof="  rfl")
    with pytest.raises(TypeError, match="NULL"):
        save_fields(attempt, ["status"], expect={"started_at": None})
