"""Celery tasks of the market app (thin: each calls one service)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="market.refresh_practice_bids", queue="default", ignore_result=True)
def refresh_practice_bids_task() -> int:
    """Keep the practice bot's standing bid on every demo problem (run by celery beat)."""
    from market.services.bot import refresh_practice_bids

    return refresh_practice_bids()
