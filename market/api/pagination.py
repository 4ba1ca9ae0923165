"""Cursor pagination over ids (unique and increasing: a total order that never skips)."""

from __future__ import annotations

from rest_framework.pagination import CursorPagination


class IdCursorPagination(CursorPagination):
    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 200
