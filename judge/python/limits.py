"""Server-wide caps for Python verdicts, read from the environment (no Django here)."""

from __future__ import annotations

import os

DEFAULT_MAX_TIME_S = 60.0
DEFAULT_MAX_MEMORY_MB = 1024
# Below this a verifier cannot even start (the harness and the job need a few MB).
MIN_MEMORY_MB = 32
MIN_TIME_S = 0.05


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {raw!r}")
    return value


def max_time_s() -> float:
    """JUDGE_PYTHON_MAX_TIME_S (default 60): no verifier gets more wall-clock time."""
    return _env_number("JUDGE_PYTHON_MAX_TIME_S", DEFAULT_MAX_TIME_S)


def max_memory_mb() -> int:
    """JUDGE_PYTHON_MAX_MEMORY_MB (default 1024): no verifier gets more memory."""
    return int(_env_number("JUDGE_PYTHON_MAX_MEMORY_MB", DEFAULT_MAX_MEMORY_MB))


def pool_size() -> int:
    """JUDGE_PYTHON_ZYGOTES (default 1): warm zygotes per worker process (~150 MB each)."""
    return max(1, int(_env_number("JUDGE_PYTHON_ZYGOTES", 1)))


def clamp(time_limit_s: float, memory_limit_mb: int) -> tuple[float, int]:
    """Clamp an author's declared budget into the server's caps."""
    time_s = min(max(float(time_limit_s), MIN_TIME_S), max_time_s())
    memory_mb = min(max(int(memory_limit_mb), MIN_MEMORY_MB), max_memory_mb())
    return time_s, memory_mb
