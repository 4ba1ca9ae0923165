"""Dry runs: the web records a request, a judge worker judges it.

- :func:`request_dry_run` (web) freezes the current draft (source, budget, project, samples)
  into a PENDING :class:`DryRun` and, after commit, sends it to the judge queue of the draft's
  language. Asking again while a dry run of the same draft is still PENDING or RUNNING
  returns that one (a click-storm costs the workers nothing).
- :func:`perform_dry_run` (worker) claims it (RUNNING, lease and heartbeat, as solutions
  are), judges every sample through :func:`verifiers.services.judging.judge_text` and
  finishes it once (DONE, ``is_passed``). Passes iff the static checks pass, there is at
  least one reference solution, every reference solution is ACCEPTED, every wrong sample is
  REJECTED and the verifier raised on none (a RUNTIME_ERROR is a red row even on a wrong
  sample: the contract says bad input returns False); a judge error (no Lean toolchain on that
  worker) never passes. A Python draft is compiled first: when it does not compile, or the
  static checks fail, the samples are not judged (NOT_RUN) and the error is said once.
- :func:`requeue_stale_dry_runs` (beat) re-sends PENDING requests whose message was lost and
  RUNNING ones whose worker died (expired claim).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from judge.verdict import Outcome, Reason, Verdict
from verifiers.access import access_own_verifier
from verifiers.drafts import draft_fingerprint, draft_snapshot
from verifiers.exceptions import NotEditable
from verifiers.models import DryRun, DryRunStatus, Language, Verifier, VerifierStatus
from verifiers.services.claims import (
    claim_lease,
    claim_row,
    close_old_connections_now,
    heartbeat,
    new_claim_token,
    release_claim,
)
from verifiers.services.judging import (
    Draft,
    check_draft,
    judge_text,
    lean_toolchain_status,
    python_compile_error,
)
from verifiers.services.requeue import QueueSweep, requeue_stale

logger = logging.getLogger(__name__)

# The summary column's length (DryRun.summary); the full findings are in static_errors.
SUMMARY_CHARS = 500
NOT_JUDGED_STATIC = "not judged: the static checks refused the verifier (see the static errors)"
NOT_JUDGED_COMPILE = "not judged: the verifier does not compile (see the error above)"

RAISED_WARNING = (
    "the verifier raised on this sample instead of returning False: the contract says bad "
    "input must never raise (return False for it)"
)


def request_dry_run(*, author: AbstractBaseUser, verifier: Verifier) -> DryRun:
    """Record a dry run of the verifier's current draft and queue it for a judge worker."""
    with transaction.atomic():
        verifier = access_own_verifier(user=author, verifier_id=verifier.pk)
        locked = Verifier.objects.select_for_update().get(pk=verifier.pk)
        if locked.status == VerifierStatus.RETIRED:
            raise NotEditable("this verifier is retired")
        fingerprint = draft_fingerprint(locked)
        waiting = (
            locked.dry_runs.filter(
                fingerprint=fingerprint,
                status__in=[DryRunStatus.PENDING, DryRunStatus.RUNNING],
            )
            .order_by("-id")
            .first()
        )
        if waiting is not None:
            return waiting
        dry_run = DryRun.objects.create(
            verifier=locked,
            fingerprint=fingerprint,
            draft=draft_snapshot(locked),
            status=DryRunStatus.PENDING,
            summary="waiting for a judge worker",
        )
        transaction.on_commit(lambda: enqueue_dry_run(dry_run_id=dry_run.pk))
    return dry_run


def enqueue_dry_run(*, dry_run_id: int) -> None:
    """Send a dry run to the judge queue of its draft's language."""
    from verifiers.tasks import judge_dry_run_task

    draft = DryRun.objects.filter(pk=dry_run_id).values_list("draft", flat=True).first() or {}
    queue = "judge-lean" if draft.get("language") == Language.LEAN else "judge-python"
    judge_dry_run_task.apply_async(kwargs={"dry_run_id": dry_run_id}, queue=queue)


def perform_dry_run(*, dry_run_id: int, task_id: str | None = None) -> DryRun | None:
    """Claim a dry run, judge its samples and finish it once; None when it is not ours.

    Precondition: runs in a judge worker (the sandbox is here), never in the web process.
    """
    token = new_claim_token(task_id)
    lease = claim_lease()
    dry_run = claim_row(
        model=DryRun,
        pk=dry_run_id,
        token=token,
        lease=lease,
        pending=DryRunStatus.PENDING,
        running=DryRunStatus.RUNNING,
    )
    if dry_run is None:
        return None
    try:
        with heartbeat(
            model=DryRun, pk=dry_run_id, token=token, lease=lease, running=DryRunStatus.RUNNING
        ):
            outcome = _judge_snapshot(dry_run.draft)
        finished = DryRun.objects.filter(
            pk=dry_run_id, status=DryRunStatus.RUNNING, claim_token=token
        ).update(
            status=DryRunStatus.DONE,
            finished_at=timezone.now(),
            claimed_until=None,
            claim_token="",  # finished: no claim left to hold (as a judged solution)
            **outcome,
        )
    except BaseException:
        _release_after_failure(dry_run_id=dry_run_id, token=token)
        raise
    if not finished:
        return None  # our claim expired and another worker finished it first
    return DryRun.objects.get(pk=dry_run_id)


def requeue_stale_dry_runs(*, older_than: timedelta, limit: int = 200) -> int:
    """Re-send PENDING dry runs older than ``older_than`` and RUNNING ones whose claim expired,
    per judge queue and skipping those still queued (:mod:`verifiers.services.requeue`)."""
    # Containment, not a key lookup: NOT (draft @> ...) is true for a draft without a language.
    lean = Q(draft__contains={"language": str(Language.LEAN)})
    sent = requeue_stale(
        model=DryRun,
        pending=DryRunStatus.PENDING,
        running=DryRunStatus.RUNNING,
        older_than=older_than,
        sweeps=[
            QueueSweep("judge-python", None, ~lean, "verifiers.judge_dry_run", "dry_run_id"),
            QueueSweep("judge-lean", Language.LEAN, lean, "verifiers.judge_dry_run", "dry_run_id"),
        ],
        send=lambda dry_run_id: enqueue_dry_run(dry_run_id=dry_run_id),
        limit=limit,
    )
    return sum(sent.values())


def _release_after_failure(*, dry_run_id: int, token: str) -> None:
    try:
        close_old_connections_now()
        release_claim(
            model=DryRun,
            pk=dry_run_id,
            token=token,
            running=DryRunStatus.RUNNING,
            pending=DryRunStatus.PENDING,
        )
    except Exception:  # still no database: the lease expires and the sweep re-queues it
        logger.warning("could not release the claim on dry run %s", dry_run_id, exc_info=True)


def _judge_snapshot(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Judge a frozen draft's samples: the fields a finished DryRun gets."""
    draft = Draft(
        language=str(snapshot["language"]),
        source=str(snapshot["source"]),
        time_limit_s=float(snapshot["time_limit_s"]),
        memory_limit_mb=int(snapshot["memory_limit_mb"]),
        lean_project=str(snapshot.get("lean_project") or ""),
    )
    references = list(snapshot.get("reference_solutions") or [])
    wrongs = list(snapshot.get("wrong_solutions") or [])
    static = check_draft(draft=draft)
    failures: list[str] = []
    results: list[dict[str, Any]] = []
    lean_reason = ""
    if draft.language == Language.LEAN:
        available, reason = lean_toolchain_status()
        if not available:
            lean_reason = (
                f"Lean judging is unavailable on this server ({reason}): a Lean dry run "
                "cannot pass here, so this verifier cannot be published from this server"
            )
            failures.append(lean_reason)
    syntax_error = python_compile_error(draft)
    if syntax_error:
        # The static check names only the exception type; the author needs the message.
        failures.append(f"the verifier does not compile: {syntax_error}")
    static_errors = [e for e in static.errors if not syntax_error or "syntax error" not in e]
    if not static.is_ok:
        # One finding per part, so that the summary is cut between findings, never inside one.
        failures.extend(
            f"static checks failed: {error}" if position == 0 else error
            for position, error in enumerate(static_errors)
        )
    if not references:
        failures.append("add at least one reference solution (it must be ACCEPTED)")
    samples = [("reference", i, text) for i, text in enumerate(references)]
    samples += [("wrong", i, text) for i, text in enumerate(wrongs)]
    # A verifier the static check refused cannot be published: judging its samples would only
    # spend a judge worker (and run code the check refused).
    not_run = lean_reason or (
        NOT_JUDGED_COMPILE if syntax_error else "" if static.is_ok else NOT_JUDGED_STATIC
    )
    for kind, index, text in samples:
        expected = Outcome.ACCEPTED if kind == "reference" else Outcome.REJECTED
        if not_run:
            results.append(_sample_result(kind, index, expected, None, not_run))
            continue
        verdict = judge_text(verifier=draft, text=text)
        result = _sample_result(kind, index, expected, verdict, verdict.detail)
        results.append(result)
        if not result["is_ok"]:
            got = "the verifier raised" if result["warning"] else f"got {result['verdict']}"
            failure = f"{kind} sample {index + 1}: expected {expected.value}, {got}"
            if verdict.detail:
                failure += f" ({_first_line(verdict.detail)})"
            failures.append(failure)
    parts = failures or [f"passed: {len(samples)} sample(s) judged as expected"]
    return {
        "is_passed": not failures,
        "summary": summarise(parts),
        # Without the static check's bare "syntax error" entry when the compiler's message
        # leads the summary: the page and the publish refusals say it once.
        "static_errors": static_errors,
        "results": results,
    }


def summarise(parts: list[str], limit: int = SUMMARY_CHARS) -> str:
    """``parts`` joined with "; " in at most ``limit`` characters, cut between parts (never
    inside one), saying how many more there are: the full list is in the static errors and
    the results. A single part longer than the limit is cut at a word, with an ellipsis."""
    shown: list[str] = []
    for position, part in enumerate(parts):
        rest = len(parts) - position - 1
        more = f"; and {rest} more (see the static errors and the results)" if rest else ""
        candidate = "; ".join([*shown, part])
        if len(candidate) + len(more) <= limit:
            shown.append(part)
            continue
        if not shown:  # the first part alone is too long: cut it at a word
            room = limit - len(more) - 1
            head = part[:room].rsplit(" ", 1)[0] if " " in part[:room] else part[:room]
            return head + "\u2026" + more
        hidden = len(parts) - len(shown)
        return "; ".join(shown) + f"; and {hidden} more (see the static errors and the results)"
    return "; ".join(shown)


def _first_line(detail: str) -> str:
    """The first error's message: e.g. "SyntaxError: invalid syntax (line 3)", not the type."""
    lines = [line.strip() for line in detail.strip().splitlines() if line.strip()]
    return (lines[0] if lines else "")[:200]


def _sample_result(
    kind: str, index: int, expected: Outcome, verdict: Verdict | None, detail: str
) -> dict[str, Any]:
    got = verdict.verdict.value if verdict is not None else "NOT_RUN"
    raised = verdict is not None and verdict.reason is Reason.RUNTIME_ERROR
    return {
        "kind": kind,
        "index": index,
        "expected": expected.value,
        "verdict": got,
        "reason": verdict.reason.value if verdict is not None and verdict.reason else None,
        "detail": (detail or "")[:1000],
        "seed": verdict.seed if verdict is not None else None,
        "wall_time_s": round(verdict.wall_time_s, 3) if verdict is not None else None,
        "is_ok": got == expected.value and not raised,
        "warning": RAISED_WARNING if raised else "",
    }
