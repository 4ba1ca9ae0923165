"""Cursor pagination over ids (unique and increasing: a total order that never skips)."""

from __future__ import annotations

import re

from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request

_POSITION = re.compile(r"^[0-9]{1,18}$")


class IdCursorPagination(CursorPagination):
    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200

    def decode_cursor(self, request: Request) -> Cursor | None:
        """DRF's decoding, plus: a position must be an id. A forged cursor is a 404 like any
        other invalid cursor, not a database error."""
        cursor = super().decode_cursor(request)
        if cursor is not None and cursor.position is not None:
            if not _POSITION.match(str(cursor.position)):
                raise NotFound(self.invalid_cursor_message)
        return cursor
