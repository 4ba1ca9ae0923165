"""Fields shared by the API's serializers."""

from __future__ import annotations

import math
import re
from typing import Any

from rest_framework import serializers

from judge.budgets import MAX_SAMPLES

MAX_ID = 2**63 - 1
MAX_SAMPLE_COUNT = MAX_SAMPLES  # defined once, in judge.budgets


# An unbound field renders a datetime as every DateTimeField of the API does (ISO 8601, UTC as
# "Z", None as None): the bodies built by hand (OrderSerializer.to_representation,
# market/api/solution_bodies.py) use it so that they cannot drift from the schema's shape.
_DATETIME = serializers.DateTimeField()


def datetime_text(value: Any) -> str | None:
    return _DATETIME.to_representation(value)  # type: ignore[no-any-return]


def id_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


class StrictIntegerField(serializers.IntegerField):
    """An integer, and nothing that merely converts to one.

    DRF's ``IntegerField`` takes ``100.0``, ``1e2`` (a JSON float) and ``" 100 "``: a money
    amount or a quantity sent as a float is a client bug (a fraction, or a float that lost
    precision), so it is refused. A string of digits is still accepted: form and multipart
    bodies have no other type.
    """

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool | float) or (
            isinstance(data, str) and not _DIGITS.fullmatch(data)
        ):
            self.fail("invalid")
        return super().to_internal_value(data)  # type: ignore[no-any-return]


class FiniteFloatField(serializers.FloatField):
    """A finite number: DRF's ``FloatField`` takes ``nan``, which passes every range check
    (no comparison with it is true), and ``inf``."""

    def to_internal_value(self, data: Any) -> float:
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            self.fail("invalid")
        return float(value)


_DIGITS = re.compile(r"-?[0-9]{1,30}")
