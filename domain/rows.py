"""Model instances from the rows of raw statements (``UPDATE ... RETURNING``), as the ORM
builds them: each value passes its field's converters (a JSONField's text is parsed), and a
subset of the fields leaves the others deferred.

Django's ORM cannot return the rows an UPDATE changed; a claim or a status change that must
also read its row would cost a second round trip (issue 29).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


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
