"""Submitting solutions and recording the judge's verdicts on them."""

from __future__ import annotations

import functools
import hashlib
import logging
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from activity.services.events import record_verdict_event
from domain.rows import (
    column_list,
    fetch_row,
    inner_join_key,
    insert_unless_exists,
    instance_with_related,
)
from judge.verdict import Outcome, Verdict, check_solution_bytes
from market.exceptions import InvalidSolution, NotTradable, SubmissionsClosed
from market.models import Problem, ProblemStatus, Solution, SolutionStatus, VerdictRecord
from verifiers.models import Language, Verifier, VerifierVersion
from verifiers.selectors import get_active_version
from verifiers.services.claims import (
    claim_lease,
    claim_row,
    close_old_connections_now,
    heartbeat,
    new_claim_token,
    release_claim,
)
from verifiers.services.requeue import QueueSweep, requeue_stale

logger = logging.getLogger(__name__)


def submit_solution(
    *,
    solver: AbstractBaseUser,
    text: str | bytes,
    verifier: Verifier | None = None,
    verifier_version: VerifierVersion | None = None,
) -> Solution:
    """Store a solution and queue it for judging; returns it (PENDING until judged).

    The one place that chooses what a solution is judged against: given a ``verifier`` (the
    API and the pages), its active version; given a ``verifier_version``, that version, which
    must still be active. A retired or superseded version takes no solutions.
    Submitting the same text to the same version again returns the first solution. The
    solution comes with its verifier version and its verdict (None while it is pending) loaded.
    """
    if (verifier is None) == (verifier_version is None):
        raise TypeError("submit_solution takes exactly one of verifier and verifier_version")
    data = text.encode("utf-8") if isinstance(text, str) else text
    decoded = check_solution_bytes(data)
    if isinstance(decoded, Verdict):
        raise InvalidSolution(decoded.detail, fields={"text": [decoded.detail]})
    if "\x00" in decoded:
        # PostgreSQL text cannot hold NUL: refuse it here rather than fail on insert.
        detail = "a solution cannot contain the NUL character (U+0000)"
        raise InvalidSolution(detail, fields={"text": [detail]})
    problem = (verifier or verifier_version.verifier).problem  # type: ignore[union-attr]
    if problem.status != ProblemStatus.PUBLISHED:
        raise NotTradable(f"this problem is {problem.status}; it takes no solutions")
    if verifier_version is None:
        verifier_version = get_active_version(verifier=verifier)  # type: ignore[arg-type]
        if verifier_version is None:
            raise SubmissionsClosed("this verifier has no active version; it takes no solutions")
    if not verifier_version.is_active:
        raise SubmissionsClosed("this verifier version is retired or superseded")
    sha256 = hashlib.sha256(data).hexdigest()
    version = verifier_version
    solution = Solution(
        solver_id=solver.pk,
        verifier_version=version,
        sha256=sha256,
        problem=problem,
        text=decoded,
        size_bytes=len(data),
    )
    # One statement on the unique key (solver, version, text): a new text is the common case.
    if not insert_unless_exists(solution, ("solver_id", "verifier_version_id", "sha256")):
        return Solution.objects.select_related("verdict", "verifier_version").get(
            solver_id=solver.pk, verifier_version=version, sha256=sha256
        )
    language = version.language
    transaction.on_commit(lambda: enqueue_judging(solution_id=solution.pk, language=language))
    # A new solution has no verdict yet: say so, so that reading it does not ask the database
    # (the API answers the submission from this row instead of re-reading it; issue 29).
    Solution.verdict.related.set_cached_value(solution, None)  # type: ignore[attr-defined]
    return solution


def enqueue_judging(*, solution_id: int, language: str | None = None) -> None:
    """Send a solution to the judge queue of its verifier's language (read when not given)."""
    from market.tasks import judge_lean_task, judge_python_task

    if language is None:
        language = (
            Solution.objects.filter(pk=solution_id)
            .values_list("verifier_version__language", flat=True)
            .first()
        )
    task = judge_lean_task if language == Language.LEAN else judge_python_task
    task.apply_async(kwargs={"solution_id": solution_id})


def requeue_pending_solutions(*, older_than: timedelta, limit: int = 500) -> int:
    """Send stalled solutions back to their judge queue: PENDING after ``older_than``, and
    RUNNING whose claim expired (its worker died: no heartbeat for a whole lease).

    Covers a message lost before a worker took it (Redis restarted), a worker killed
    mid-verdict, a JUDGE_ERROR whose retries ran out, and Lean solutions parked on a server
    without a toolchain (sent once some worker can judge Lean). One sweep per judge queue,
    skipping solutions whose message is still queued: :mod:`verifiers.services.requeue`.
    Judging is idempotent (claims and a one-per-solution verdict), so a duplicate message
    costs a no-op. Returns how many were sent, ``limit`` at most per queue.
    """
    lean = Q(verifier_version__language=Language.LEAN)
    sent = requeue_stale(
        model=Solution,
        pending=SolutionStatus.PENDING,
        running=SolutionStatus.RUNNING,
        older_than=older_than,
        sweeps=[
            QueueSweep("judge-python", None, ~lean, "market.judge_python", "solution_id"),
            QueueSweep("judge-lean", Language.LEAN, lean, "market.judge_lean", "solution_id"),
        ],
        send=lambda solution_id: enqueue_judging(solution_id=solution_id),
        limit=limit,
    )
    return sum(sent.values())


def claim_solution(
    *, solution_id: int, lease: timedelta | None = None, token: str | None = None
) -> Solution | None:
    """Mark a solution RUNNING for this attempt and return it with its verifier version (one
    statement), or None if it is not ours to judge.

    A PENDING solution, or a RUNNING one whose claim expired (its worker died), can be claimed.
    ``lease`` defaults to JUDGE_CLAIM_LEASE_S; the caller keeps it alive with a heartbeat.
    """
    return claim_row(
        model=Solution,
        pk=solution_id,
        token=token or new_claim_token(None),
        lease=lease or claim_lease(),
        pending=SolutionStatus.PENDING,
        running=SolutionStatus.RUNNING,
        related="verifier_version",
    )


def judge_claimed_solution(*, solution_id: int, task_id: str | None) -> Verdict | None:
    """Claim a solution, judge it with :func:`judge_text` and record its verdict once.

    Returns None when it is not ours to judge (judged already, or another worker holds a live
    claim). A JUDGE_ERROR puts it back to PENDING with the reason. Precondition: runs in a
    judge worker (the sandbox is here).
    """
    from verifiers.services.judging import judge_text

    token = new_claim_token(task_id)
    lease = claim_lease()
    solution = claim_solution(solution_id=solution_id, lease=lease, token=token)
    if solution is None:
        return None
    try:
        with heartbeat(
            model=Solution, pk=solution_id, token=token, lease=lease, running=SolutionStatus.RUNNING
        ):
            verdict = judge_text(verifier=solution.verifier_version, text=solution.text)
        record_verdict(solution_id=solution_id, verdict=verdict)
    except BaseException:
        # The database went away or the task is being stopped: hand the claim back so the
        # retry (or the sweep) judges at once instead of waiting for the lease to run out.
        _release_after_failure(solution_id=solution_id, token=token)
        raise
    return verdict


def _release_after_failure(*, solution_id: int, token: str) -> None:
    try:
        close_old_connections_now()
        release_claim(
            model=Solution,
            pk=solution_id,
            token=token,
            running=SolutionStatus.RUNNING,
            pending=SolutionStatus.PENDING,
        )
    except Exception:  # still no database: the lease expires and the sweep re-queues it
        logger.warning("could not release the claim on solution %s", solution_id, exc_info=True)


def release_solution(*, solution_id: int, reason: str) -> None:
    """Put a claimed solution back to PENDING with a reason the pages and API show."""
    Solution.objects.filter(pk=solution_id).exclude(
        status__in=[SolutionStatus.ACCEPTED, SolutionStatus.REJECTED]
    ).update(
        status=SolutionStatus.PENDING,
        pending_reason=reason[:300],
        claimed_until=None,
        claim_token="",
    )


def note_pending_reason(*, solution_id: int, reason: str) -> None:
    """Tell why a PENDING solution is waiting; a solution being judged or judged is untouched."""
    Solution.objects.filter(pk=solution_id, status=SolutionStatus.PENDING).update(
        pending_reason=reason[:300]
    )


def record_verdict(*, solution_id: int, verdict: Verdict) -> Solution:
    """Write the verdict record of a solution once; a second call changes nothing.

    A JUDGE_ERROR is not a verdict: the solution goes back to PENDING with the reason.
    """
    if verdict.verdict is Outcome.JUDGE_ERROR:
        release_solution(solution_id=solution_id, reason=f"judge unavailable: {verdict.detail}")
        return Solution.objects.get(pk=solution_id)
    status = SolutionStatus.ACCEPTED if verdict.is_accepted else SolutionStatus.REJECTED
    with transaction.atomic():
        # The status turns final in the same transaction that writes the one-per-solution
        # record (its unique key refuses a second one), so a final status means "recorded".
        judged = _mark_judged(solution_id=solution_id, status=status)
        if judged is None:  # judged already (a redelivery, or a second worker)
            return Solution.objects.get(pk=solution_id)
        solution, is_public = judged
        # The record is what the solver reads (API and page). A private verifier's exception
        # message can hold its hidden values: the solver gets the judge's redacted line; the
        # author sees the full text in dry runs.
        detail = verdict.detail if is_public else verdict.detail_for_solver
        VerdictRecord.objects.create(
            solution=solution,
            verdict=verdict.verdict.value,
            reason=verdict.reason.value if verdict.reason else "",
            detail=detail[:2000],
            seed=verdict.seed,
            wall_time_s=verdict.wall_time_s,
            cpu_time_s=verdict.cpu_time_s,
            max_memory_mb=verdict.max_memory_mb,
            axioms=list(verdict.axioms) if verdict.axioms is not None else None,
            build_time_s=verdict.build_time_s,
            kernel_time_s=verdict.kernel_time_s,
            judge_version=verdict.judge_version,
        )
        record_verdict_event(solution=solution, verdict=verdict, detail=detail)
    return solution


# The problem's fields the verdict's event carries (record_verdict_event).
_EVENT_PROBLEM_FIELDS = ("id", "title", "slug")


@functools.cache
def _mark_judged_sql() -> tuple[str, list[Any], list[Any]]:
    """``_mark_judged``'s statement, built once from the models, with the solution's and the
    problem's fields in the order it returns them.

    Its joins are inner joins after the UPDATE: each key is checked NOT NULL and to a primary
    key (``inner_join_key``), or a judged solution could come back as "judged already".
    """
    quote = connection.ops.quote_name
    for model, key in (
        (Solution, "problem"),
        (Solution, "verifier_version"),
        (VerifierVersion, "verifier"),
    ):
        inner_join_key(model, key)
    fields = list(Solution._meta.concrete_fields)
    problem_fields = [Problem._meta.get_field(name) for name in _EVENT_PROBLEM_FIELDS]
    sql = (
        f"WITH judged AS (UPDATE {quote(Solution._meta.db_table)}"  # noqa: S608 - names from the models
        " SET status = %(status)s, pending_reason = '', claimed_until = NULL,"
        " claim_token = '', judged_at = %(judged_at)s"
        " WHERE id = %(pk)s AND status NOT IN (%(accepted)s, %(rejected)s)"
        f" RETURNING {column_list(fields)})"
        f" SELECT {column_list(fields, 'judged')}, {column_list(problem_fields, 'problem')},"
        " verifier.is_source_public"
        f" FROM judged JOIN {quote(Problem._meta.db_table)} problem"
        " ON problem.id = judged.problem_id"
        f" JOIN {quote(VerifierVersion._meta.db_table)} version"
        " ON version.id = judged.verifier_version_id"
        f" JOIN {quote(Verifier._meta.db_table)} verifier ON verifier.id = version.verifier_id"
    )
    return sql, fields, problem_fields


def _mark_judged(*, solution_id: int, status: str) -> tuple[Solution, bool] | None:
    """Turn a not yet judged solution final; return it (its problem's title and slug loaded)
    and whether its verifier's source is public, or None if it was judged already.

    One statement (issue 29: a locking read, then the update): the UPDATE takes the row lock,
    and a concurrent recorder's commit makes its WHERE false on the re-checked row.
    Precondition: inside the transaction that writes the verdict record.
    """
    sql, fields, problem_fields = _mark_judged_sql()
    params = {
        "pk": solution_id,
        "status": status,
        "judged_at": timezone.now(),
        "accepted": SolutionStatus.ACCEPTED,
        "rejected": SolutionStatus.REJECTED,
    }
    row = fetch_row(sql, params)
    if row is None:
        return None
    solution = instance_with_related(Solution, fields, row, "problem", problem_fields)
    return solution, bool(row[-1])
