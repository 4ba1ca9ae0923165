"""One budgets object: publishing and the judge accept exactly the same range."""

from __future__ import annotations

import pytest

from judge.budgets import Budgets
from verifiers.budgets import get_budgets


def test_the_settings_budgets_are_the_judges_from_the_same_environment(settings):
    env = {
        "JUDGE_PYTHON_MAX_TIME_S": str(settings.JUDGE_PYTHON_MAX_TIME_S),
        "JUDGE_PYTHON_MAX_MEMORY_MB": str(settings.JUDGE_PYTHON_MAX_MEMORY_MB),
        "JUDGE_LEAN_MAX_TIME_S": str(settings.JUDGE_LEAN_MAX_TIME_S),
        "JUDGE_LEAN_MAX_MEMORY_MB": str(settings.JUDGE_LEAN_MAX_MEMORY_MB),
    }
    assert get_budgets() == Budgets.from_env(env)


@pytest.mark.parametrize(
    ("time_limit_s", "memory_limit_mb", "refusal"),
    [
        (0.05, 32, None),
        (60, 1024, None),
        (0.049, 32, "time_limit_s must be in [0.05, 60] seconds"),
        (float("inf"), 32, "time_limit_s must be in [0.05, 60] seconds"),
        (True, 32, "time_limit_s must be in [0.05, 60] seconds"),
        (1, 31, "memory_limit_mb must be in [32, 1024] MB"),
        (1, 1024.0, "memory_limit_mb must be in [32, 1024] MB"),
    ],
)
def test_a_budget_is_allowed_only_inside_the_range(time_limit_s, memory_limit_mb, refusal):
    python = Budgets.from_env({}).python
    found = python.refusal(time_limit_s=time_limit_s, memory_limit_mb=memory_limit_mb)
    expected = None if refusal is None else f"the python budget is out of range: {refusal}"
    assert found == expected


def test_caps_below_the_judges_minimum_are_refused_at_start():
    with pytest.raises(ValueError, match="below the judge's minimum"):
        Budgets.from_env({"JUDGE_PYTHON_MAX_MEMORY_MB": "16"})
    with pytest.raises(ValueError, match="must be a positive number"):
        Budgets.from_env({"JUDGE_LEAN_MAX_TIME_S": "nan"})
