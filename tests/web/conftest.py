"""Builders for the page tests: demo problems loaded the way `make run` loads them."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from market.models import Problem


@pytest.fixture
def demo_problems(db) -> dict[str, Problem]:
    call_command("load_demo", verbosity=0)
    return {p.slug: p for p in Problem.objects.filter(is_demo=True)}


@pytest.fixture
def factor_391(demo_problems) -> Problem:
    return demo_problems["demo-factor-391"]
