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

import json
import logging
import threading

logger = logging.getLogger(__name__)

WARM_KEY_PREFIX = "formalmarket:judge:warm:"
UID_RANGE_KEY_PREFIX = "formalmarket:judge:uid-range:"
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


class Beacon:
    """Keeps one key alive (``value``, TTL ``WARM_TTL_S``) from a daemon thread until ``stop``."""

    def __init__(self, key: str, value: str = "1") -> None:
        self.key = key
        self.value = value
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _set(self) -> None:
        client = _redis()
        if client is None:
            return
        try:
            client.set(self.key, self.value, ex=WARM_TTL_S)  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 -- a Redis blip: the next refresh retries
            logger.warning("could not refresh %s: %s", self.key, exc)

    def start(self) -> None:
        self._set()  # before start() returns: the key is there before the first task
        self._thread = threading.Thread(target=self._run, name="judge-warm-beacon", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(WARM_REFRESH_S):
            self._set()

    def stop(self) -> None:
        self._stop.set()


class WarmBeacon(Beacon):
    """One process's "warm" key (the contract above)."""

    def __init__(self, language: str, hostname: str) -> None:
        super().__init__(warm_key(language, hostname))


def delete_key(key: str) -> None:
    client = _redis()
    if client is None:
        return
    try:
        client.delete(key)  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001 -- it expires within WARM_TTL_S anyway
        logger.warning("could not delete %s: %s", key, exc)


def delete_warm_key(language: str, hostname: str) -> None:
    delete_key(warm_key(language, hostname))


class UidRangeOverlap(Exception):
    """Another live worker on this kernel leases uids from an overlapping range."""


def claim_uid_range(hostname: str, scope: dict[str, object]) -> Beacon | None:
    """Announce this worker's pool uid range; refuse one that overlaps another's.

    ``scope`` is ``judge.sandbox.identity.lease_scope()``. The claim is written first and
    checked second, so two workers starting at the same moment both see each other (and
    both refuse) rather than neither. The key ``formalmarket:judge:uid-range:<hostname>``
    lives while the worker does (refreshed like the warm key). None without Redis.
    """
    from judge.sandbox.identity import conflicting_scope

    client = _redis()
    if client is None:
        return None
    key = f"{UID_RANGE_KEY_PREFIX}{hostname}"
    beacon = Beacon(key, json.dumps(scope, sort_keys=True))
    beacon.start()
    for other_key in client.scan_iter(match=f"{UID_RANGE_KEY_PREFIX}*"):  # type: ignore[attr-defined]
        name = other_key.decode()
        if name == key:
            continue
        raw = client.get(other_key)  # type: ignore[attr-defined]
        try:
            other = json.loads(raw) if raw else None
        except ValueError:
            other = None
        if isinstance(other, dict) and conflicting_scope(scope, other):
            beacon.stop()
            delete_key(key)
            first, last = (
                int(str(scope["base"])),
                int(str(scope["base"])) + int(str(scope["count"])) - 1,
            )
            theirs = int(str(other["base"])), int(str(other["base"])) + int(str(other["count"])) - 1
            raise UidRangeOverlap(
                f"sandbox uids {first}..{last} overlap {theirs[0]}..{theirs[1]} of "
                f"{name.removeprefix(UID_RANGE_KEY_PREFIX)}, a worker on this host with another "
                "uid lock folder: give each worker a disjoint JUDGE_SANDBOX_UID_BASE/COUNT or "
                "one shared JUDGE_SANDBOX_UID_LOCK_DIR (docs/production.md)"
            )
    return beacon
