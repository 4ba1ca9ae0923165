"""Reads of the verifiers app (one selector per screen, shared by the API and the pages).

``verifiers`` imports nothing of ``market``: the problem is passed by id, and the problem-level
reads of the author screens (``market.selectors.list_author_problems``) prefetch verifiers
through :func:`author_verifiers_prefetch`.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Prefetch, QuerySet

from verifiers.models import DryRun, Verifier, VerifierVersion


def _author_verifiers() -> QuerySet[Verifier]:
    return Verifier.objects.prefetch_related(
        Prefetch("versions", queryset=VerifierVersion.objects.order_by("-number")),
        Prefetch("dry_runs", queryset=DryRun.objects.order_by("-id"), to_attr="dry_runs_newest"),
    ).order_by("id")


def attach_latest_dry_runs(verifiers: Iterable[Verifier]) -> list[Verifier]:
    """Set ``latest_dry_run`` (None when there is none) from the prefetched dry runs."""
    rows = list(verifiers)
    for verifier in rows:
        newest = verifier.dry_runs_newest  # type: ignore[attr-defined]
        verifier.latest_dry_run = newest[0] if newest else None  # type: ignore[attr-defined]
    return rows


def author_verifiers_prefetch() -> Prefetch[Verifier]:
    """Prefetch of a problem's verifiers (any status) for its author's screens, in id order,
    each with ``versions`` (newest first) and ``dry_runs_newest`` (newest first)."""
    return Prefetch("verifiers", queryset=_author_verifiers())


def list_author_verifiers(*, problem_id: int) -> list[Verifier]:
    """A problem's verifiers in every state, for its author (API and page), with
    ``versions`` and ``latest_dry_run``. Not permission-checked: fetch the problem through
    ``market.access.access_own_problem`` first."""
    return attach_latest_dry_runs(_author_verifiers().filter(problem_id=problem_id))


def get_author_verifier(*, verifier_id: int) -> Verifier:
    """One verifier for its author's screen (after ``verifiers.access.access_own_verifier``),
    fresh from the database, with ``versions`` and ``latest_dry_run``."""
    verifier = _author_verifiers().select_related("problem").get(pk=verifier_id)
    return attach_latest_dry_runs([verifier])[0]


def get_active_version(*, verifier: Verifier) -> VerifierVersion | None:
    """The version that new solutions to ``verifier`` are judged against, if any."""
    return verifier.versions.filter(is_active=True).order_by("-number").first()


def get_latest_dry_run(*, verifier: Verifier) -> DryRun | None:
    return verifier.dry_runs.order_by("-id").first()


def list_dry_runs(*, verifier: Verifier) -> QuerySet[DryRun]:
    return verifier.dry_runs.select_related("verifier").order_by("-id")


JUDGE_WARM_KEY_PREFIX = "formalmarket:judge:warm:"


def judge_is_warm(language: str) -> bool:
    """Whether some judge worker has a warm pool for ``language`` now.

    A worker sets ``formalmarket:judge:warm:<language>:<hostname>`` (TTL 60 s, refreshed)
    once its pool is warm; any such key means a verdict will not wait for a cold start.
    A Redis error is False.
    """
    from django.conf import settings

    url = settings.REDIS_URL  # required: the settings refuse to load without it
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        try:
            pattern = f"{JUDGE_WARM_KEY_PREFIX}{language}:*"
            return next(iter(client.scan_iter(match=pattern, count=100)), None) is not None
        finally:
            client.close()
    except redis.RedisError:
        return False
