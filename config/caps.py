"""Do the roles agree on the judge's caps? Each worker publishes its caps in Redis at start;
the web server compares them with its own when it starts and logs a warning per worker that
differs (a raised ``JUDGE_PYTHON_MAX_TIME_S`` accepted at publishing but refused by a worker
that never read it leaves those solutions PENDING; docs/production.md, "Running the roles").
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

CAPS = (
    "JUDGE_PYTHON_MAX_TIME_S",
    "JUDGE_PYTHON_MAX_MEMORY_MB",
    "JUDGE_LEAN_MAX_TIME_S",
    "JUDGE_LEAN_MAX_MEMORY_MB",
)
KEY_PREFIX = "fm:judge-caps:"
# A worker's entry outlives it by at most this (it is written again at each start).
TTL_S = 7 * 24 * 3600


def own_caps() -> dict[str, float]:
    return {name: float(getattr(settings, name)) for name in CAPS}


def _client() -> Any:
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)


def publish(hostname: str) -> None:
    """Called by a worker once it is ready (``worker_ready``)."""
    _client().set(KEY_PREFIX + hostname, json.dumps(own_caps()), ex=TTL_S)


def withdraw(hostname: str) -> None:
    """Called by a worker that stops cleanly (``worker_shutdown``)."""
    _client().delete(KEY_PREFIX + hostname)


def disagreements() -> list[str]:
    """One sentence per published worker whose caps differ from this process's."""
    client = _client()
    mine = own_caps()
    found = []
    for key in sorted(client.scan_iter(match=KEY_PREFIX + "*")):
        raw = client.get(key)
        if raw is None:
            continue
        theirs = json.loads(raw)
        differ = [
            f"{name}={theirs.get(name)} (here {mine[name]})"
            for name in CAPS
            if theirs.get(name) != mine[name]
        ]
        if differ:
            worker = key.decode()[len(KEY_PREFIX) :]
            found.append(
                f"worker {worker} runs with other judge caps: {', '.join(differ)}; give every "
                "role the same settings (docs/production.md, 'Running the roles')"
            )
    return found


def warn_on_disagreement() -> list[str]:
    """At web start: log each disagreement (never stops the server; Redis may be down)."""
    try:
        found = disagreements()
    except Exception as error:  # noqa: BLE001 - a start-time check must not stop the server
        logger.warning("could not compare the judge caps with the workers': %s", error)
        return []
    for sentence in found:
        logger.warning(sentence)
    return found
