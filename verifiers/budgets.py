"""The judge's budgets built from Django settings: the one place web and workers get them."""

from __future__ import annotations

from django.conf import settings

from judge.budgets import Budgets, LanguageBudget


def get_budgets() -> Budgets:
    """The server's budgets and caps (settings parse the environment once, at start-up)."""
    return Budgets.from_caps(
        python_max_time_s=settings.JUDGE_PYTHON_MAX_TIME_S,
        python_max_memory_mb=settings.JUDGE_PYTHON_MAX_MEMORY_MB,
        lean_max_time_s=settings.JUDGE_LEAN_MAX_TIME_S,
        lean_max_memory_mb=settings.JUDGE_LEAN_MAX_MEMORY_MB,
    )


def get_language_budget(language: str) -> LanguageBudget:
    """The budget range of one language."""
    return get_budgets().for_language(language)
