"""Model instances from the rows of raw statements (``UPDATE ... RETURNING``), as the ORM
builds them: each value passes its field's converters (a JSONField's text is parsed), and a
subset of the fields leaves the others deferred.

Django's ORM cannot return the rows an UPDATE changed, nor tell in one round trip whether an
``INSERT ... ON CONFLICT DO NOTHING`` inserted: a claim or a status change that must also read
its row, or an insert that may meet a duplicate inside a transaction, would cost a second
round trip or a savepoint (issue 29).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import connection, models
from django.db.models import NOT_PROVIDED

M = TypeVar("M", bound=models.Model)


def fetch_row(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    """The first row of one raw statement on the default connection, or None."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def column_list(fields: Sequence[models.Field[Any, Any]], table: str | None = None) -> str:
    """The quoted columns of ``fields``, each prefixed with ``table.`` when given."""
    quote = connection.ops.quote_name
    prefix = f"{table}." if table else ""
    return ", ".join(prefix + quote(field.column) for field in fields)


def instance_from_row(
    model: type[M], fields: Sequence[models.Field[Any, Any]], values: Sequence[Any]
) -> M:
    """An instance of ``model`` from ``values``, the columns of ``fields`` in that order."""
    converted = []
    for field, value in zip(fields, values, strict=True):
        column = field.get_col(model._meta.db_table)
        for converter in connection.ops.get_db_converters(column) + column.get_db_converters(
            connection
        ):
            value = converter(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, [field.attname for field in fields], converted)


def instance_with_related(
    model: type[M],
    fields: Sequence[models.Field[Any, Any]],
    row: Sequence[Any],
    related: str,
    related_fields: Sequence[models.Field[Any, Any]],
) -> M:
    """``model`` from the first values of ``row`` (``fields``), with the next ones
    (``related_fields``) as the row of its foreign key ``related``, cached on it: reading
    ``instance.<related>`` asks the database nothing."""
    instance = instance_from_row(model, fields, row[: len(fields)])
    key = model._meta.get_field(related)
    other = instance_from_row(
        key.related_model,  # type: ignore[arg-type]
        related_fields,
        row[len(fields) : len(fields) + len(related_fields)],
    )
    key.set_cached_value(instance, other)  # type: ignore[union-attr]
    return instance


def insert_values(instance: models.Model) -> tuple[str, str, list[Any]]:
    """``(columns, placeholders, values)`` of an INSERT of the unsaved ``instance``, as the
    ORM's own insert would write them (``auto_now_add`` set, values prepared for the
    database); columns with a database default are left to it."""
    fields = [
        field
        for field in instance._meta.concrete_fields
        if not field.primary_key and field.db_default is NOT_PROVIDED
    ]
    values = [
        field.get_db_prep_save(field.pre_save(instance, True), connection)  # type: ignore[no-untyped-call]
        for field in fields
    ]
    return column_list(fields), ", ".join(["%s"] * len(fields)), values


def mark_inserted(instance: models.Model, pk: object) -> None:
    """Make ``instance`` the saved row ``pk`` (what ``save()`` does after its INSERT)."""
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias


def insert_unless_exists(instance: models.Model, conflict: tuple[str, ...]) -> bool:
    """Insert the unsaved ``instance`` unless a row with the same values in the unique
    columns ``conflict`` exists: True and ``instance`` is that new row, or False.

    One statement, ``INSERT ... ON CONFLICT (...) DO NOTHING RETURNING``: atomic by itself in
    autocommit, and inside a caller's transaction a duplicate does not break it, so no
    savepoint is needed (``get_or_create`` costs a SELECT and a savepoint; issue 29).
    """
    quote = connection.ops.quote_name
    columns, placeholders, values = insert_values(instance)
    sql = (
        f"INSERT INTO {quote(instance._meta.db_table)} ({columns})"  # noqa: S608 - names from the model
        f" VALUES ({placeholders}) ON CONFLICT ({', '.join(map(quote, conflict))}) DO NOTHING"
        f" RETURNING {quote(instance._meta.pk.column)}"
    )
    row = fetch_row(sql, values)
    if row is None:
        return False
    mark_inserted(instance, row[0])
    return True


def inner_join_key(model: type[models.Model], name: str) -> models.ForeignKey[Any, Any]:
    """``model``'s foreign key ``name``, checked fit for an inner join after a data-modifying
    CTE: NOT NULL and to the other table's primary key.

    Such a CTE always runs: with a NULL key the UPDATE would happen and the SELECT return no
    row, which its caller reads as "nothing changed"; a key to another column would join the
    wrong row. TypeError otherwise.
    """
    key = model._meta.get_field(name)
    if (
        not isinstance(key, models.ForeignKey)
        or key.null
        or not key.related_model
        or not key.target_field.primary_key
    ):
        raise TypeError(f"{model.__name__}.{name}: not a NOT NULL key to a primary key")
    return key
