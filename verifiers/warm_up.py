"""A Python judge worker warms its sandboxes before it takes a job, and says so in Redis.

Every process that judges (each prefork pool child, at start, after a kill, after a restart;
the worker itself with ``--pool=solo``/``threads``) starts its zygotes before it can receive
a task: a prefork child does it in ``worker_process_init``, and billiard hands a child tasks
only once that signal's handlers have returned (its WORKER_UP message), so no verdict ever
pays the zygote's cold start. ``worker_proc_alive_timeout`` (config/celery.py) gives the child
the time this takes on a loaded machine.

The contract with the pages and the tests (``verifiers.selectors.judge_is_warm``): while at
least one process of a worker can judge ``<language>`` without a cold start, the Redis key
``formalmarket:judge:warm:<language>:<hostname>`` holds "1" with a TTL of
``WARM_TTL_S`` s, refreshed every ``WARM_REFRESH_S`` s by each warm process; the worker deletes
it at a clean shutdown, and a killed one's key expires within ``WARM_TTL_S`` s.
"""

from __future__ import annotations

import logging
import threading

logger = logging.getLogger(__name__)

WARM_KEY_PREFIX = "formalmarket:judge:warm:"
WARM_TTL_S = 60
WARM_REFRESH_S = 20


def warm_key(language: str, hostname: str) -> str:
    return f"{WARM_KEY_PREFIX}{language}:{hostname}"


def _redis() -> object | None:
    from django.conf import settings

    if not settings.REDIS_URL:
        return None
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)


class WarmBeacon:
    """Keeps one process's "warm" key alive from a daemon thread until ``stop``."""

    def __init__(self, language: str, hostname: str) -> None:
        self.key = warm_key(language, hostname)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _set(self) -> None:
        client = _redis()
        if client is None:
            return
        try:
            client.set(self.key, "1", ex=WARM_TTL_S)  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 -- a Redis blip: the next refresh retries
            logger.warning("could not mark %s warm: %s", self.key, exc)

    def start(self) -> None:
        self._set()  # before start() returns: the key is there before the first task
        self._thread = threading.Thread(target=self._run, name="judge-warm-beacon", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(WARM_REFRESH_S):
            self._set()

    def stop(self) -> None:
        self._stop.set()


def delete_warm_key(language: str, hostname: str) -> None:
    client = _redis()
    if client is None:
        return
    try:
        client.delete(warm_key(language, hostname))  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001 -- it expires within WARM_TTL_S anyway
        logger.warning("could not clear the warm key of %s: %s", hostname, exc)
