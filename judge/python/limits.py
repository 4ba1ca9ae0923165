"""Server-wide settings of the Python judge, read from the environment (no Django here)."""

from __future__ import annotations

import os

from judge.budgets import Budgets, env_number


def max_time_s() -> float:
    """JUDGE_PYTHON_MAX_TIME_S (default 60): no verifier gets more wall-clock time."""
    return Budgets.from_env().python.max_time_s


def pool_size() -> int:
    """JUDGE_PYTHON_ZYGOTES (default 1): warm zygotes per worker process (~150 MB each)."""
    return max(1, int(env_number(os.environ, "JUDGE_PYTHON_ZYGOTES", 1)))
