"""Claims on judge work (a solution or a dry run): who judges it, until when, kept alive.

A worker claims a row with one conditional UPDATE (PENDING, or RUNNING with an expired
claim, becomes RUNNING with its token and a lease). While it judges, a heartbeat thread
pushes the lease forward every third of it, so a live claim never expires however long the
verdict takes, and a dead worker's claim (pool child or whole worker SIGKILLed, machine gone)
expires within one lease. The re-queue sweep (:mod:`verifiers.services.requeue`) sends
expired claims back to the judge queue.
A delivery that finds another task's live claim does nothing: the claim's holder, or the
sweep, finishes it. The same task delivered again (the token is the Celery task id, kept by
redeliveries and retries) takes its claim back at once: its previous attempt died.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, models
from django.utils import timezone

from domain.rows import (
    column_list,
    fetch_row,
    inner_join_key,
    instance_from_row,
    instance_with_related,
)

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=models.Model)


def claim_lease() -> timedelta:
    """How long a claim lives without a heartbeat (JUDGE_CLAIM_LEASE_S)."""
    return timedelta(seconds=float(settings.JUDGE_CLAIM_LEASE_S))


def new_claim_token(task_id: str | None) -> str:
    """A token naming this attempt: the Celery task id, or a fresh one outside a worker."""
    return (task_id or uuid.uuid4().hex)[:64]


def claim_row(
    *,
    model: type[M],
    pk: int,
    token: str,
    lease: timedelta,
    pending: str,
    running: str,
    related: str | None = None,
) -> M | None:
    """Mark the row RUNNING for ``token`` and return it (with its ``related`` foreign key
    loaded); None when it is done or someone holds a live claim.

    One statement: the conditional UPDATE returns the row it claimed (issue 29: the claim was
    an UPDATE and a read). Its WHERE is re-checked on the locked row when another claim
    committed meanwhile (READ COMMITTED), so two deliveries never both win.
    """
    now = timezone.now()
    meta = model._meta
    quote = connection.ops.quote_name
    fields = list(meta.concrete_fields)
    selected = column_list(fields, "claimed")
    join = ""
    other_fields: list[models.Field[Any, Any]] = []
    if related is not None:
        try:
            foreign_key = inner_join_key(model, related)
        except TypeError as exc:
            raise TypeError(f"claim_row(related={related!r}): {exc}") from None
        other_model = foreign_key.related_model
        other_fields = list(other_model._meta.concrete_fields)  # type: ignore[union-attr]
        selected += ", " + column_list(other_fields, "other")
        join = (
            f" JOIN {quote(other_model._meta.db_table)} other"  # type: ignore[union-attr]
            f" ON other.{quote(other_model._meta.pk.column)} = claimed.{quote(foreign_key.column)}"  # type: ignore[union-attr]
        )
    sql = (
        f"WITH claimed AS (UPDATE {quote(meta.db_table)}"  # noqa: S608 - names from the models
        " SET status = %(running)s, claim_token = %(token)s, claimed_until = %(until)s,"
        " judge_attempts = judge_attempts + 1"
        f" WHERE {quote(meta.pk.column)} = %(pk)s AND (status = %(pending)s"
        " OR (status = %(running)s AND (claimed_until < %(now)s OR claimed_until IS NULL"
        # The same task delivered again (its pool child was killed, or it is retried after a
        # dropped database connection): the previous attempt is dead.
        " OR claim_token = %(token)s)))"
        f" RETURNING {column_list(fields)}) SELECT {selected} FROM claimed{join}"
    )
    params = {
        "pk": pk,
        "token": token,
        "until": now + lease,
        "now": now,
        "pending": pending,
        "running": running,
    }
    row = fetch_row(sql, params)
    if row is None:
        return None
    if related is None:
        return instance_from_row(model, fields, row)
    return instance_with_related(model, fields, row, related, other_fields)


def renew_claim(
    *, model: type[models.Model], pk: int, token: str, lease: timedelta, running: str
) -> bool:
    """Push our claim's expiry forward; False once the claim is no longer ours."""
    return bool(
        model._default_manager.filter(pk=pk, status=running, claim_token=token).update(
            claimed_until=timezone.now() + lease
        )
    )


@contextmanager
def heartbeat(
    *, model: type[models.Model], pk: int, token: str, lease: timedelta, running: str
) -> Iterator[None]:
    """Keep our claim alive while the body runs (a thread with its own connection)."""
    stop = threading.Event()
    interval_s = max(lease.total_seconds() / 3, 0.2)

    def beat() -> None:
        try:
            while not stop.wait(interval_s):
                try:
                    if not renew_claim(
                        model=model, pk=pk, token=token, lease=lease, running=running
                    ):
                        return
                except Exception:  # a dropped connection: reconnect on the next beat
                    logger.warning("claim heartbeat of %s %s failed", model.__name__, pk)
                    connection.close()
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"claim-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)


def release_claim(
    *, model: type[models.Model], pk: int, token: str, running: str, pending: str, **fields: object
) -> None:
    """Give our claim back (PENDING again) so the next delivery judges at once."""
    model._default_manager.filter(pk=pk, status=running, claim_token=token).update(
        status=pending, claimed_until=None, claim_token="", **fields
    )


def close_old_connections_now() -> None:
    """Drop this thread's database connection if it is broken, so the next query reconnects."""
    if connection.connection is not None and not connection.is_usable():
        connection.close()
