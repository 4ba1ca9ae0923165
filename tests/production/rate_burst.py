"""A child process of test_rate_limits: counts hits under one key (importable before Django
is set up, so the test may also use the spawn start method)."""

from __future__ import annotations

import os


def burst(key: str, limit: int, hits: int, queue) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from market.api import throttling

    queue.put([throttling.hit(key=key, limit=limit, window_s=60).is_allowed for _ in range(hits)])
