"""Reads run on every request and every check, with their SQL compiled once per process.

Django compiles a queryset's SQL each time it runs it. For the reads behind every page,
submit, check and live socket (her exercise with its course, her attempt with what its page
shows, the check's attempt, its messages and suggestions) compiling was most of the read's
CPU: her attempt with its exercise, course and student took 0.90 ms, the database's own
answer 0.07 of it; prepared, 0.18 ms, and the other reads 3 to 14 times less than before
(bench/bench_orm_reads.py). A PreparedRead builds its queryset once per database with
stand-in keys, compiles it, and from then on runs that SQL with each call's keys and makes
the model instances from the rows as Django's ModelIterable does (its converters, deferred
fields and select_related objects included).

Only keys vary between calls, and each is an integer or a string compared for equality (a
primary or foreign key, a slug): every stand-in must appear exactly once among the compiled
parameters and nowhere in the SQL's text, or the read refuses to prepare (a TypeError on
the first call: a read whose shape depends on its keys cannot be prepared). Querysets with
prefetch_related, values() or annotations that need their own iterator are refused the same
way. Queries go through the connection's cursor, so execute wrappers, query logging and
transactions see them as any other.

save_fields() does the same for the saves a check makes three times (its claim, Lean's answer,
the end state): save(update_fields=...) with its UPDATE written once per model and fields.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Field, Model, QuerySet
from django.db.models.query import (  # type: ignore[attr-defined]  # internal, as ModelIterable's
    ModelIterable,
    get_related_populators,
)
from django.db.models.sql.compiler import SQLCompiler

M = TypeVar("M", bound=Model)

KEY_TYPES = (int, str)


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: dict[str, int]  # key name -> its position among params
    compiler: SQLCompiler  # after as_sql(): select, klass_info, col_count set


class PreparedRead(Generic[M]):
    """`build(**keys)` returns the queryset for those keys; `keys` names each key's type.
    For example `PreparedRead(lambda pk: Attempt.objects.filter(pk=pk), pk=int)`, then
    `.first(pk=7)` or `.all(pk=7)`."""

    def __init__(self, build: Callable[..., QuerySet[M]], **keys: type) -> None:
        names = list(inspect.signature(build).parameters)
        if sorted(names) != sorted(keys) or any(t not in KEY_TYPES for t in keys.values()):
            raise TypeError(f"keys {keys} must name build's parameters {names}, as int or str")
        self.build = build
        self.keys = keys
        self._compiled: dict[tuple[str, str], _Compiled] = {}
        self._lock = threading.Lock()

    def all(self, *, using: str = DEFAULT_DB_ALIAS, **keys: Any) -> list[M]:
        values = self._converted(keys)
        connection = connections[using]
        compiled = self._compiled_for(using, connection.vendor)
        params = list(compiled.params)
        for name, slot in compiled.slots.items():
            params[slot] = values[name]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        return _instances(_bound(compiled.compiler, connection, using), rows, using)

    def first(self, *, using: str = DEFAULT_DB_ALIAS, **keys: Any) -> M | None:
        rows = self.all(using=using, **keys)
        return rows[0] if rows else None

    def queryset(self, **keys: Any) -> QuerySet[M]:
        """The plain queryset for these keys (what the prepared read must match)."""
        return self.build(**self._converted(keys))

    def _converted(self, keys: dict[str, Any]) -> dict[str, Any]:
        """int() or str() of each key, as the field would convert it (ValueError as well)."""
        if keys.keys() != self.keys.keys():
            raise TypeError(f"this read takes the keys {sorted(self.keys)}, not {sorted(keys)}")
        return {name: kind(keys[name]) for name, kind in self.keys.items()}

    def _compiled_for(self, using: str, vendor: str) -> _Compiled:
        found = self._compiled.get((using, vendor))
        if found is None:
            with self._lock:
                found = self._compiled.get((using, vendor))
                if found is None:
                    found = self._compile(using)
                    self._compiled[(using, vendor)] = found
        return found

    def _compile(self, using: str) -> _Compiled:
        stand_ins = {name: _stand_in(kind, i) for i, (name, kind) in enumerate(self.keys.items())}
        queryset = self.build(**stand_ins)
        _refuse_unpreparable(queryset)
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        slots: dict[str, int] = {}
        for name, stand_in in stand_ins.items():
            found = [i for i, p in enumerate(params) if p == stand_in and type(p) is type(stand_in)]
            if len(found) != 1 or str(stand_in) in sql:
                raise TypeError(
                    f"key {name!r} must appear exactly once among the compiled parameters "
                    f"(found {len(found)}): {sql}"
                )
            slots[name] = found[0]
        return _Compiled(sql, tuple(params), slots, compiler)


def _stand_in(kind: type, index: int) -> int | str:
    # Values no real key takes, and that a field's conversion (int(), str()) leaves alone.
    return -7_340_033 - index if kind is int else f"\x1fprepared-key-{index}\x1f"


def _refuse_unpreparable(queryset: QuerySet[Any]) -> None:
    state: Any = queryset  # QuerySet's own bookkeeping, not in its stubs
    if state._iterable_class is not ModelIterable:  # values(), values_list()
        raise TypeError("a prepared read makes model instances: no values()")
    if state._prefetch_related_lookups or state._known_related_objects:
        raise TypeError("a prepared read runs one query: no prefetch_related, no related manager")


# What as_sql() works out and the rows' reading needs: the columns, and the models' place in them.
# (Columns past those, as DISTINCT's ordering adds, are left unread, as Django leaves them.)
_COMPILED_SHAPE = ("select", "klass_info", "annotation_col_map", "col_count")


def _bound(compiled: SQLCompiler, connection: Any, using: str) -> SQLCompiler:
    """The compiled shape on this thread's connection (its converters read the connection)."""
    compiler = type(compiled)(compiled.query, connection, using)
    for name in _COMPILED_SHAPE:
        setattr(compiler, name, getattr(compiled, name))
    return compiler


def _instances(compiler: SQLCompiler, rows: list[Any], using: str) -> list[Any]:
    """ModelIterable's work on rows already read: converters, the model, select_related."""
    if not rows:
        return []
    klass_info = compiler.klass_info
    assert klass_info is not None and compiler.select is not None
    model = klass_info["model"]
    select_fields = klass_info["select_fields"]
    start, end = select_fields[0], select_fields[-1] + 1
    init_list = [column[0].target.attname for column in compiler.select[start:end]]
    populators = get_related_populators(klass_info, compiler.select, using)
    annotations = compiler.annotation_col_map or {}
    instances = []
    for row in compiler.results_iter([rows]):
        instance = model.from_db(using, init_list, row[start:end])
        for populator in populators:
            populator.populate(row, instance)
        for name, position in annotations.items():
            setattr(instance, name, row[position])
        instances.append(instance)
    return instances


# UPDATE statements by (model, columns set, columns expected, database): written once.
_UPDATES: dict[tuple[Any, ...], str] = {}


def save_fields(
    instance: Model,
    fields: list[str],
    *,
    expect: dict[str, Any] | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> int:
    """instance.save(update_fields=fields) for a row that exists, with its UPDATE written
    once per model and fields rather than compiled on every save (a check saves its attempt
    three times). `expect`: only where these columns hold these values (a claim: where the
    status is still "queued"). Returns the rows updated (0 or 1). As save(update_fields)
    does: each field's pre_save and conversion for the database; unlike it, no pre_save or
    post_save signals (none of the models saved this way has receivers)."""
    meta = instance._meta
    expect = expect or {}
    if any(value is None for value in expect.values()):
        raise TypeError("`column = NULL` matches no row: expect values must not be None")
    connection = connections[using]
    key = (meta.label, tuple(fields), tuple(expect), using, connection.vendor)
    sql = _UPDATES.get(key)
    if sql is None:
        quote = connection.ops.quote_name
        columns = ", ".join(f"{quote(_column(meta, name).column)} = %s" for name in fields)
        where = [_column(meta, "pk").column, *(_column(meta, name).column for name in expect)]
        conditions = " AND ".join(f"{quote(column)} = %s" for column in where)
        sql = f"UPDATE {quote(meta.db_table)} SET {columns} WHERE {conditions}"
        _UPDATES[key] = sql
    values = []
    for name in fields:
        field = _column(meta, name)
        values.append(field.get_db_prep_save(field.pre_save(instance, False), connection))
    values.append(_column(meta, "pk").get_db_prep_value(instance.pk, connection))
    for name, value in expect.items():
        values.append(_column(meta, name).get_db_prep_value(value, connection))
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return int(cursor.rowcount)


def _column(meta: Any, name: str) -> Field[Any, Any]:
    field = meta.pk if name == "pk" else meta.get_field(name)
    if not isinstance(field, Field) or not field.concrete:
        raise TypeError(f"{meta.label}.{name} is not a column of its table")
    return field
