"""Waiting in tests: on a condition, with a deadline scaled by one factor.

Tests never sleep for a fixed time and never claim a speed (speeds belong to ``bench/``). A
test that waits for something (a verdict, a process, a lock wait) polls a condition with
:func:`wait_until`. Its ``timeout`` is the time the wait takes on an idle machine with room
to spare; the deadline is that times ``TEST_TIMEOUT_FACTOR`` (environment, default 3), so a
busy machine (load 10-20 on 2 cores) passes by raising one number instead of editing tests:

    TEST_TIMEOUT_FACTOR=6 make test

A deadline is only the point where a test gives up on something that will never happen; a
passing test never reaches it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_FACTOR = 3.0
POLL_S = 0.05


def timeout_factor() -> float:
    """``TEST_TIMEOUT_FACTOR`` from the environment (default 3, never below 1)."""
    raw = os.environ.get("TEST_TIMEOUT_FACTOR", "")
    try:
        factor = float(raw) if raw else DEFAULT_FACTOR
    except ValueError:
        factor = DEFAULT_FACTOR
    return max(factor, 1.0)


def scaled(timeout: float) -> float:
    """The deadline, in seconds, of a wait that takes up to ``timeout`` s on an idle machine."""
    return timeout * timeout_factor()


def wait_until(
    condition: Callable[[], T | None],
    what: str | Callable[[], str],
    timeout: float = 30.0,
    *,
    poll_s: float = POLL_S,
) -> T:
    """Poll ``condition`` until it returns something truthy, and return that.

    Fails with ``AssertionError("timed out after N s waiting for <what>")`` after
    ``scaled(timeout)`` seconds. ``what`` may be a callable (e.g. one that reads the worker's
    logs), evaluated only on failure. An exception raised by ``condition`` propagates at once
    (a process that died is not worth waiting for).
    """
    limit = scaled(timeout)
    deadline = time.monotonic() + limit
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"timed out after {limit:.0f} s waiting for {described}")
        time.sleep(poll_s)  # a poll interval, not a stand-in for the condition
