"""Hear the fan-out outbox fill (``LISTEN activity_fanout``) and have it drained at once.

The notification is sent by a statement trigger on ``activity_fanout`` (activity migration
0005) and delivered when the placement commits. :func:`start_fanout_listener` runs a daemon
thread with a connection of its own: on each notification (and once when it (re)connects, for
what was queued while nobody listened) it calls ``on_notify``, once per burst: notifications
that arrived meanwhile are folded into the same call. Beat starts one (``activity.tasks``),
whose ``on_notify`` enqueues ``activity.drain_fanout``; a lost notification is picked up by the
backstop sweep (``ACTIVITY_FANOUT_EVERY_S``).

Calls are at least ``coalesce_s`` apart (beat: ``ACTIVITY_FANOUT_COALESCE_S``): a notification
after a quiet spell is answered at once, but a steady stream (orders placed through the API
one after another) is folded into one drain per window instead of one per commit. A drain
has a fixed cost (the task's publish, the worker's fetch, a transaction) that was a fifth
of the machine's CPU per placement at 60 placements a second (issue 29, docs/performance.md).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import psycopg
from django.db import connections

logger = logging.getLogger(__name__)

CHANNEL = "activity_fanout"
RECONNECT_MAX_S = 30.0


def start_fanout_listener(
    *, on_notify: Callable[[], None], alias: str = "default", coalesce_s: float = 0.0
) -> Callable[[], None]:
    """Start listening; returns a function that stops the thread (and waits for it)."""
    params = connections[alias].get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    stop = threading.Event()
    thread = threading.Thread(
        target=_listen,
        args=(params, on_notify, stop, coalesce_s),
        name="fanout-listener",
        daemon=True,
    )
    thread.start()

    def stop_listening() -> None:
        stop.set()
        thread.join(timeout=10)

    return stop_listening


def _listen(
    params: dict[str, object],
    on_notify: Callable[[], None],
    stop: threading.Event,
    coalesce_s: float,
) -> None:
    backoff_s = 0.5
    last_call = -float("inf")
    while not stop.is_set():
        try:
            with psycopg.connect(**params, autocommit=True) as conn:  # type: ignore[arg-type]
                conn.execute(f"LISTEN {CHANNEL}")
                backoff_s = 0.5
                last_call = _call(on_notify)  # what was queued while nobody listened
                while not stop.is_set():
                    heard = False
                    # Wakes every 5 s to see ``stop``: idle, it costs no query.
                    for _ in conn.notifies(timeout=5.0):
                        heard = True
                        break
                    if not heard:
                        continue
                    # The rest of the window: what commits meanwhile joins this call.
                    if stop.wait(max(0.0, last_call + coalesce_s - time.monotonic())):
                        return
                    for _ in conn.notifies(timeout=0.0):  # the rest of the burst: one call
                        pass
                    last_call = _call(on_notify)
        except psycopg.Error:
            logger.warning("the fan-out listener lost its connection; reconnecting", exc_info=True)
            if stop.wait(backoff_s):
                return
            backoff_s = min(backoff_s * 2, RECONNECT_MAX_S)


def _call(on_notify: Callable[[], None]) -> float:
    """Call ``on_notify``; returns when (``time.monotonic()``) it was called."""
    called = time.monotonic()
    try:
        on_notify()
    except Exception:  # the broker is down: the backstop sweep drains later
        logger.warning("the fan-out listener could not enqueue a drain", exc_info=True)
    return called
