"""Cursor pagination over ids (unique and increasing: a total order that never skips)."""

from __future__ import annotations

import re

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request

_POSITION = re.compile(r"^[0-9]{1,18}$")


class IdCursorPagination(CursorPagination):
    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200

    def get_page_size(self, request: Request) -> int:
        """``limit`` from 1 to 200; anything else (0, -1, ``abc``, 1000, empty) is a 400, not
        silently the default page."""
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        if not re.fullmatch(r"[0-9]{1,4}", raw) or not 1 <= int(raw) <= self.max_page_size:
            raise ValidationError(
                {self.page_size_query_param: [f"an integer from 1 to {self.max_page_size}"]}
            )
        return int(raw)

    def decode_cursor(self, request: Request) -> Cursor | None:
        """DRF's decoding, plus: a position must be an id. A forged cursor is a 404 like any
        other invalid cursor, not a database error."""
        cursor = super().decode_cursor(request)
        if cursor is not None and cursor.position is not None:
            if not _POSITION.match(str(cursor.position)):
                raise NotFound(self.invalid_cursor_message)
        return cursor
