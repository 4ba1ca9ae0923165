"""Waiting for a verdict without polling: ``GET /api/v1/solutions/<id>/?wait=<s>`` (issue 29).

A solution's status turns final in the transaction that records its verdict, and a trigger
then sends ``NOTIFY market_solution_judged, '<id>'`` (market migration 0018), which
PostgreSQL delivers at that commit. Each web process has one listener: a daemon thread with
a connection of its own in ``LISTEN`` (autocommit, never inside a transaction), started by
the first wait. A waiting request registers an event for its solution *before* it reads the
solution, so a verdict committed after that read is heard, and one committed before it is
read. Whenever the listener (re)connects it wakes every waiter to read again: a notification
sent while nobody listened is never lost, only found by that read.

A wait holds a web thread, so it needs a threaded server (gunicorn's gthread worker; the
WSGI environ says ``wsgi.multithread``) and a free slot: at most ``API_SOLUTION_WAIT_SLOTS``
waits per process, so the other threads stay free for other requests. Without either the
request is answered at once, as without ``wait`` (docs/production.md, *Web workers*).
The waiting request keeps its own database connection idle between its reads (autocommit:
no transaction stays open).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator

import psycopg
from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)

CHANNEL = "market_solution_judged"
# The longest wait a request may ask for (the API's contract; proxies commonly cut at 60 s).
MAX_WAIT_S = 30
RECONNECT_MAX_S = 30.0


class _Listener:
    """The process's LISTEN connection and the events of the requests that wait."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[int, set[threading.Event]] = {}
        self._busy = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._pid = 0

    def take_slot(self, limit: int) -> bool:
        with self._lock:
            if self._busy >= limit:
                return False
            self._busy += 1
            return True

    def give_slot(self) -> None:
        with self._lock:
            self._busy -= 1

    def register(self, solution_id: int) -> threading.Event:
        event = threading.Event()
        with self._lock:
            self._waiters.setdefault(solution_id, set()).add(event)
            self._start_locked()
        return event

    def unregister(self, solution_id: int, event: threading.Event) -> None:
        with self._lock:
            events = self._waiters.get(solution_id)
            if events is not None:
                events.discard(event)
                if not events:
                    del self._waiters[solution_id]

    def _wake(self, solution_id: int | None) -> None:
        with self._lock:
            if solution_id is None:
                events = [event for group in self._waiters.values() for event in group]
            else:
                events = list(self._waiters.get(solution_id, ()))
        for event in events:
            event.set()

    def _start_locked(self) -> None:
        # A forked process (gunicorn --preload) inherits no thread: start one of its own.
        if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
            return
        params = connections["default"].get_connection_params()
        params.pop("cursor_factory", None)
        params.pop("context", None)
        self._stop = threading.Event()
        self._pid = os.getpid()
        self._thread = threading.Thread(
            target=self._listen, args=(params, self._stop), name="verdict-listener", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Close the listener's connection and end its thread (tests; a process's exit)."""
        with self._lock:
            thread, self._thread = self._thread, None
            self._stop.set()
        if thread is not None:
            thread.join(timeout=10)

    def _listen(self, params: dict[str, object], stop: threading.Event) -> None:
        backoff_s = 0.5
        while not stop.is_set():
            try:
                with psycopg.connect(**params, autocommit=True) as conn:  # type: ignore[arg-type]
                    conn.execute(f"LISTEN {CHANNEL}")
                    backoff_s = 0.5
                    self._wake(None)  # read again: a verdict may have come while deaf
                    while not stop.is_set():
                        # Wakes every second to see ``stop``: idle, it costs no query.
                        for notify in conn.notifies(timeout=1.0):
                            self._wake(_solution_id(notify.payload))
            except psycopg.Error:
                logger.warning("the verdict listener lost its connection; reconnecting")
                if stop.wait(backoff_s):
                    return
                backoff_s = min(backoff_s * 2, RECONNECT_MAX_S)


def _solution_id(payload: str) -> int | None:
    try:
        return int(payload)
    except ValueError:  # not ours: wake everyone to read again rather than miss one
        return None


_listener = _Listener()


class VerdictWait:
    """One request's wait: :meth:`pending` says whether to keep waiting, :meth:`block` waits."""

    def __init__(self, event: threading.Event | None, deadline: float) -> None:
        self._event = event
        self._deadline = deadline

    def pending(self, status: str) -> bool:
        """Whether to wait more for a solution in ``status``: not final, time and a slot left."""
        if is_final(status) or self._event is None:
            return False
        return time.monotonic() < self._deadline

    def block(self) -> None:
        """Until this solution's verdict is heard, the listener reconnects, or the time is up;
        then the caller reads the solution again."""
        if self._event is None:  # not held (no slot, no threads): pending() said False
            return
        self._event.wait(max(self._deadline - time.monotonic(), 0.0))
        self._event.clear()


def is_final(status: str) -> bool:
    """Whether a solution in ``status`` has its verdict (nothing left to wait for)."""
    from market.models import SolutionStatus

    return status in (SolutionStatus.ACCEPTED, SolutionStatus.REJECTED)


@contextlib.contextmanager
def waiting_for_verdict(
    *, solution_id: int, wait_s: float, multithreaded: bool
) -> Iterator[VerdictWait]:
    """Register a wait for ``solution_id``'s verdict; enter it before reading the solution."""
    deadline = time.monotonic() + min(wait_s, MAX_WAIT_S)
    slots = int(settings.API_SOLUTION_WAIT_SLOTS)
    if wait_s <= 0 or not multithreaded or not _listener.take_slot(slots):
        yield VerdictWait(None, deadline)
        return
    try:
        event = _listener.register(solution_id)
        try:
            yield VerdictWait(event, deadline)
        finally:
            _listener.unregister(solution_id, event)
    finally:
        _listener.give_slot()


def stop_listening() -> None:
    """Stop this process's listener (tests: its connection would keep the database open)."""
    _listener.stop()
