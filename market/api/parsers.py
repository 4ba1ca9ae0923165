"""The API's JSON parser: DRF's, plus a bound on nesting.

DRF's parser turns a ``ValueError`` into a 400 but lets the ``RecursionError`` of a deeply
nested document (``[[[[...]]]]``, a few hundred KB) through as a 500. No request body of this
API nests more than a few levels, so anything deeper than :data:`MAX_DEPTH` is refused as a
parse error before a serializer or the Idempotency-Key fingerprint (``json.dumps``) walks it.
"""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels") from None
        if nesting_depth(data) > MAX_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
        return data


def nesting_depth(data: Any) -> int:
    """How deeply lists and objects nest in ``data`` (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            deepest = max(deepest, depth)
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest
