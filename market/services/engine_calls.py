"""One call of the engine's SQL (``engine.place_order``, ``engine.cancel_order``) and what
its answer means: a row, a replay to compare, or a refusal turned into its domain error.

As deployed (autocommit) a call is ONE statement, the CALL of the durable procedure
(migration 0008), which answers after the WAL flush; inside a caller's transaction it is the
function itself in a savepoint (docs/market.md, *Commit and answer*). market/services/orders.py
validates the input and builds the order from the row; this module owns the SQL text, the
named arguments and the refusal mapping (market/engine_refusals.py).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import DatabaseError, connection, transaction

from market.engine_refusals import Replay, refusal_error
from market.exceptions import DomainError
from market.money import Money

__all__ = ["ENGINE_SQL", "Replay", "call_engine"]


def call_engine(
    function: str, params: list[Any], *, price: Money | None
) -> tuple[Any, ...] | Replay:
    """Run one engine function; its refusals become domain errors (and wrote nothing).

    A client order id used for another order is a refusal too (nothing is written, not even
    the book's sequence), answered with :class:`Replay` for the caller to compare the orders;
    the same order placed again is answered by the function itself (``o_replay``).

    As deployed (autocommit, no caller transaction) it is ONE statement, ``CALL
    <function>_durable(...)`` (migration 0008): the placement commits in it without holding
    the book's lock through the WAL flush, and the call returns once the flush is done, so
    what it answers is durable. Inside a caller's transaction (a test, a caller's atomic
    block) the function itself runs, in a savepoint so that a refusal leaves the caller's
    transaction usable, and commits with the caller.
    """
    in_transaction, deployed = ENGINE_SQL[function]
    if connection.in_atomic_block or not connection.get_autocommit():
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(in_transaction, params)
                return cursor.fetchone()
        except DatabaseError as exc:
            return _answer(exc, price)
    token = secrets.token_hex(8)
    try:
        with connection.cursor() as cursor:
            cursor.execute(deployed, [*params, token])
            return cursor.fetchone()[:-1]  # the last OUT argument is the flushed WAL position
    except DatabaseError as exc:
        if _refusal(exc, price) is not None:
            # The procedure flushed the WAL before raising it (migration 0016): a refusal
            # decided on others' placements committed but not yet flushed is answered once
            # they are on disk, in the same round trip.
            return _answer(exc, price)
        # Any other error may have come after the placement's COMMIT (a query cancel
        # between the procedure's two transactions): flush, and answer what was committed.
        committed = _flush_barrier(token)
        if committed is not None:
            return Replay(committed)
        raise


def _answer(exc: DatabaseError, price: Money | None) -> Replay:
    """A refusal as the caller receives it: a replay to compare, or its domain error."""
    refusal = _refusal(exc, price)
    if refusal is None:
        raise exc
    if isinstance(refusal, Replay):
        return refusal
    raise refusal from None


def _flush_barrier(token: str) -> int | None:
    """Flush the WAL past every commit this session may have seen; None, or the id of the
    order the CALL with ``token`` committed before it failed.

    Run only after an error that is not a refusal (the procedures flush before raising
    those). One statement in autocommit: a transaction with a WAL record of its own commits
    synchronously. ``formalmarket.committed`` is set by the placement's transaction (a
    session setting, kept only if that transaction committed). When the connection itself
    is gone the outcome is unknown, as for any connection lost before an answer.
    """
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('formalmarket.committed', true), "
                "pg_logical_emit_message(true, 'formalmarket.durable', '')"
            )
            committed = cursor.fetchone()[0] or ""
    except DatabaseError:
        return None
    marker, _, order_id = committed.partition(":")
    return int(order_id) if marker == token and order_id else None


# The engine functions' arguments, in the order ``call_engine``'s params list gives them, and the
# durable procedures' OUT arguments (a CALL must name them too; they are not evaluated).
_PLACE_ARGS = (
    "p_owner",
    "p_problem",
    "p_side",
    "p_price",
    "p_currency",
    "p_quantity",
    "p_solution",
    "p_client_order_id",
    "p_usd_allowed",
    "p_fee_bps",
    "p_proceeds_kind",
    "p_hold_window",
    "p_debt_currency",
)
_PLACE_OUT = (
    "o_id",
    "o_remaining",
    "o_status",
    "o_created_at",
    "o_closed_at",
    "o_is_demo",
    "o_notified",
    "o_replay",
    "o_durable_lsn",
)
_CANCEL_ARGS = ("p_owner", "p_order", "p_debt_currency")
_CANCEL_OUT = (
    "o_problem_id",
    "o_side",
    "o_price",
    "o_currency",
    "o_quantity",
    "o_remaining",
    "o_solution_id",
    "o_client_order_id",
    "o_created_at",
    "o_closed_at",
    "o_durable_lsn",
)


def _named(args: tuple[str, ...], outs: tuple[str, ...] = ()) -> str:
    """Named-argument notation: ``p_owner => %s, ..., o_id => NULL, ...``."""
    return ", ".join([f"{name} => %s" for name in args] + [f"{name} => NULL" for name in outs])


# Per engine function: its call inside a caller's transaction, and the CALL of its procedure
# (migration 0008) as deployed: the same arguments, then the call's token (``p_token``).
# Built from the constant names above only (S608: no value is ever formatted in).
ENGINE_SQL = {
    "engine.place_order": (
        f"SELECT * FROM engine.place_order({_named(_PLACE_ARGS)})",  # noqa: S608
        f"CALL engine.place_order_durable({_named((*_PLACE_ARGS, 'p_token'), _PLACE_OUT)})",
    ),
    "engine.cancel_order": (
        f"SELECT * FROM engine.cancel_order({_named(_CANCEL_ARGS)})",  # noqa: S608
        f"CALL engine.cancel_order_durable({_named((*_CANCEL_ARGS, 'p_token'), _CANCEL_OUT)})",
    ),
}


def _refusal(exc: DatabaseError, price: Money | None) -> DomainError | Replay | None:
    """The answer to an engine function's refusal, a SQLSTATE of class FM (None: not one)."""
    diag = getattr(exc.__cause__, "diag", None)
    return refusal_error(
        getattr(diag, "sqlstate", None) or "",
        getattr(diag, "message_detail", None) or "",
        price,
    )
