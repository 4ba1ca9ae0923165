"""Celery tasks of the market app (thin: each calls one service)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="market.refresh_practice_bids", queue="default", ignore_result=True)
def refresh_practice_bids_task() -> int:
    """Keep the practice bot's standing bid on every demo problem (run by celery beat)."""
    from market.services.bot import refresh_practice_bids

    return refresh_practice_bids()


@shared_task(name="market.refresh_practice_bid", queue="default", ignore_result=True)
def refresh_practice_bid_task(*, problem_id: int) -> bool:
    """Re-place the practice bot's bid on one demo problem right after a fill there."""
    from market.services.bot import refresh_practice_bid

    return refresh_practice_bid(problem_id=problem_id)


@shared_task(name="market.requeue_pending_solutions", queue="default", ignore_result=True)
def requeue_pending_solutions_task() -> int:
    """Beat: send long-PENDING solutions back to the judge."""
    from datetime import timedelta

    from django.conf import settings

    from market.services.solutions import requeue_pending_solutions

    return requeue_pending_solutions(older_than=timedelta(seconds=settings.JUDGE_REQUEUE_AFTER_S))
