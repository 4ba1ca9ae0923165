"""The re-queue sweep: judge work whose message was lost, or whose worker died, is sent again.

One sweep per judge queue (``judge-python``, ``judge-lean``) and per kind of work (solutions,
dry runs), so a queue that cannot drain never starves another:

- **What cannot run here is skipped.** A Lean row is sent only while some worker says it can
  judge Lean: a judge worker that consumes ``judge-lean`` and has a toolchain keeps the broker
  key ``formalmarket:judge:capable:lean:<hostname>`` alive (``CAPABILITY_TTL_S``, refreshed a
  third of that). Without one, Lean rows wait, with the reason their first attempt wrote, and
  cost the sweep nothing. Python is judged by every judge worker and is never skipped.
- **Nothing still queued is sent again.** The sweep reads the queue in the broker (Redis
  lists, every priority level) and skips each row a waiting message already names. Messages
  that a worker holds unacknowledged are not "queued": if that worker died, its row's claim
  expires and the sweep sends it at once, without waiting for the visibility timeout.
- **Pages by claim expiry.** Stale rows are read in keyset pages ordered by when they became
  due (a RUNNING row's ``claimed_until``, a PENDING row's ``created_at``), then id; each page
  starts after the last row of the previous one. At most ``limit`` messages are sent per run
  and queue; since what was sent is queued at the next run, the next run reaches the rows
  behind it instead of re-sending the same head.

Judging is idempotent (claims and one verdict per row), so a duplicate that slips through
(a message taken by a worker between the read and the send) costs a no-op.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

logger = logging.getLogger(__name__)

CAPABLE_KEY = "formalmarket:judge:capable:{language}:{hostname}"
CAPABILITY_TTL_S = 90
PAGE_SIZE = 500


@dataclass(frozen=True)
class QueueSweep:
    """One judge queue's share of one kind of work."""

    queue: str  # the broker queue, e.g. "judge-lean"
    language: str | None  # a worker must say it can judge this language; None: always
    rows: Q  # which rows of the model go to this queue
    task: str  # the task name whose messages carry the row's id
    id_kwarg: str  # the keyword argument naming the row, e.g. "solution_id"


def requeue_stale(
    *,
    model: type[models.Model],
    pending: str,
    running: str,
    older_than: timedelta,
    sweeps: Iterable[QueueSweep],
    send: Callable[[int], None],
    limit: int = PAGE_SIZE,
) -> dict[str, int]:
    """Send each queue's stale rows back to it; returns how many were sent, per queue."""
    sent: dict[str, int] = {}
    with BrokerView() as broker:
        for sweep in sweeps:
            if sweep.language is not None and not broker.someone_can_judge(sweep.language):
                logger.info("no worker can judge %s: its stale rows wait", sweep.language)
                sent[sweep.queue] = 0
                continue
            queued = broker.queued_ids(sweep.queue, task=sweep.task, id_kwarg=sweep.id_kwarg)
            count = 0
            for pk in _stale_ids(
                model=model,
                pending=pending,
                running=running,
                older_than=older_than,
                rows=sweep.rows,
            ):
                if pk in queued:
                    continue
                send(pk)
                count += 1
                if count >= limit:
                    break
            sent[sweep.queue] = count
    return sent


def _stale_ids(
    *, model: type[models.Model], pending: str, running: str, older_than: timedelta, rows: Q
) -> Iterable[int]:
    """Ids of the stale rows of ``rows``, by when they became due, read in keyset pages."""
    now = timezone.now()
    stale = (
        model._default_manager.filter(rows)
        .filter(
            Q(status=pending, created_at__lt=now - older_than)
            | Q(status=running, claimed_until__lt=now)
            | Q(status=running, claimed_until__isnull=True)
        )
        .annotate(due=Coalesce(F("claimed_until"), F("created_at")))
    )
    after: tuple[datetime, int] | None = None
    while True:
        page = stale
        if after is not None:
            due, pk = after
            page = page.filter(Q(due__gt=due) | Q(due=due, pk__gt=pk))
        batch = list(page.order_by("due", "pk").values_list("due", "pk")[:PAGE_SIZE])
        for _, pk in batch:
            yield pk
        if len(batch) < PAGE_SIZE:
            return
        after = batch[-1]


class BrokerView:
    """What the broker (Redis) says: capable workers and the messages waiting in a queue.

    With a broker that is not Redis nothing can be read: every language counts as capable and
    no queue as holding anything (the sweep then behaves as before: it sends every stale row).
    """

    def __init__(self) -> None:
        self._connection: Any = None
        self.client: Any = None
        self._channel: Any = None

    def __enter__(self) -> BrokerView:
        from celery import current_app

        try:
            self._connection = current_app.connection_for_read()
            self._channel = self._connection.default_channel
            self.client = getattr(self._channel, "client", None)
        except Exception:
            logger.warning("the re-queue sweep cannot read the broker", exc_info=True)
            self.client = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._connection is not None:
            self._connection.release()

    def someone_can_judge(self, language: str) -> bool:
        if self.client is None:
            return True
        pattern = CAPABLE_KEY.format(language=language, hostname="*")
        return any(True for _ in self.client.scan_iter(match=pattern, count=100))

    def queued_ids(self, queue: str, *, task: str, id_kwarg: str) -> set[int]:
        """Ids named by the messages of ``task`` waiting in ``queue`` (all priorities)."""
        if self.client is None:
            return set()
        found: set[int] = set()
        for name in self._lists_of(queue):
            for raw in self.client.lrange(name, 0, -1):
                pk = _named_id(raw, task=task, id_kwarg=id_kwarg)
                if pk is not None:
                    found.add(pk)
        return found

    def _lists_of(self, queue: str) -> list[str]:
        steps = getattr(self._channel, "priority_steps", None) or [0]
        to_list = getattr(self._channel, "_q_for_pri", None)
        if to_list is None:
            return [queue]
        return list(dict.fromkeys(to_list(queue, step) for step in steps))


def _named_id(raw: bytes, *, task: str, id_kwarg: str) -> int | None:
    """The row id a kombu message (protocol 2, JSON) of ``task`` carries, or None."""
    try:
        message = json.loads(raw)
        if message.get("headers", {}).get("task") != task:
            return None
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        _, kwargs, _ = json.loads(body)
        return int(kwargs[id_kwarg])
    except (ValueError, KeyError, TypeError):
        return None


# --- a worker says which languages it can judge ----------------------------------------------


def announce_capability(*, language: str, hostname: str) -> Callable[[], None]:
    """Keep ``formalmarket:judge:capable:<language>:<hostname>`` alive in the broker while this
    process lives (a daemon thread refreshes it); returns a function that withdraws it."""
    from celery import current_app

    key = CAPABLE_KEY.format(language=language, hostname=hostname)
    stop = threading.Event()

    def refresh() -> None:
        while True:
            try:
                with current_app.connection_for_write() as connection:
                    client = getattr(connection.default_channel, "client", None)
                    if client is None:
                        return
                    if stop.is_set():
                        client.delete(key)
                        return
                    client.set(key, "1", ex=CAPABILITY_TTL_S)
            except Exception:  # the broker is restarting: try again on the next beat
                logger.warning("could not announce %s", key, exc_info=True)
            if stop.wait(CAPABILITY_TTL_S / 3):
                stop.set()

    thread = threading.Thread(target=refresh, name=f"capable-{language}", daemon=True)
    thread.start()

    def withdraw() -> None:
        stop.set()
        thread.join(timeout=5)

    return withdraw
