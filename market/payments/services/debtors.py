"""A user left in USD debt by a refund or dispute can no longer buy: their open USD bids are
cancelled in the same transaction as the debit.

Funds whose source was refunded or disputed must not complete a trade. The bids are
cancelled (all of them, not frozen, not only the oldest) through the engine's own
``cancel_order``, which releases each hold and repays the debt from it; the user keeps their
asks. Lock order, the engine's: every problem with an open bid of the user is locked
(``FOR NO KEY UPDATE``, as ``market.services.orders`` does) *before* the user's accounts, so
a trade arriving at the same moment either completes first (its bid is then filled, the
money spent, and the debit becomes debt) or waits and finds the bid cancelled.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import DatabaseError, transaction

from market.models import Order, OrderSide, OrderStatus, Problem
from market.money import Currency
from market.payments.exceptions import PaymentsBusy
from market.services.orders import cancel_order


def _open_usd_bids(user_id: int) -> list[Order]:
    return list(
        Order.objects.filter(
            owner_id=user_id, side=OrderSide.BID, status=OrderStatus.OPEN, currency=Currency.USD
        ).order_by("id")
    )


def lock_problems_of_open_usd_bids(*, user_id: int) -> set[int]:
    """Lock, in id order, the problems on which the user has an open USD bid; return their
    ids. Precondition: inside ``transaction.atomic``, before locking the user's accounts."""
    ids = sorted({order.problem_id for order in _open_usd_bids(user_id)})
    locked = Problem.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk")
    return set(locked.values_list("pk", flat=True))


def cancel_open_usd_bids(*, user_id: int, locked_problem_ids: set[int]) -> int:
    """Cancel every open USD bid of the user; return how many.

    Precondition: in the transaction that locked ``locked_problem_ids`` and then the user's
    accounts. A bid placed on another problem in between (its problem not locked here) is
    locked with NOWAIT: waiting for it while holding the user's accounts could deadlock with
    a trade on it, so a busy problem raises :class:`PaymentsBusy` (the whole event rolls back
    and Stripe delivers it again).
    """
    user = get_user_model().objects.get(pk=user_id)
    cancelled = 0
    for order in _open_usd_bids(user_id):
        if order.problem_id not in locked_problem_ids:
            try:
                with transaction.atomic():
                    Problem.objects.select_for_update(no_key=True, nowait=True).filter(
                        pk=order.problem_id
                    ).exists()
            except DatabaseError as error:
                raise PaymentsBusy("the user's order book is busy; try again") from error
            locked_problem_ids.add(order.problem_id)
        cancel_order(user=user, order_id=order.pk)
        cancelled += 1
    return cancelled
