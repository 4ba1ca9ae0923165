"""Dry runs as records: queued by the web, judged once by the worker's service, swept."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from market.exceptions import NotFound
from market.services.problems import create_problem
from market.services.verifier_authoring import create_verifier, retire_verifier
from tests.factories import UserFactory
from tests.verifiers.test_publishing import YES
from verifiers.exceptions import NotEditable
from verifiers.models import DryRun, DryRunStatus, Verifier, VerifierStatus
from verifiers.services.dry_runs import (
    NOT_JUDGED_COMPILE,
    RAISED_WARNING,
    perform_dry_run,
    request_dry_run,
    requeue_stale_dry_runs,
    summarise,
)

pytestmark = pytest.mark.django_db

RAISES_ON_BAD_INPUT = '''"""An integer: 3."""


def verify(solution, rng):
    return int(solution) == 3
'''
DOES_NOT_PARSE = '''"""x"""
def verify(solution, rng)
    return True
'''


def _verifier(source: str = YES, **kwargs):
    author = UserFactory()
    problem = create_problem(author=author, title="Dry", statement_md="s")
    verifier = create_verifier(
        author=author, problem=problem, language="python", source=source, **kwargs
    )
    return author, verifier


def test_a_request_is_pending_with_a_frozen_draft_and_asking_again_returns_it():
    author, verifier = _verifier(reference_solutions=["yes"])
    first = request_dry_run(author=author, verifier=verifier)
    again = request_dry_run(author=author, verifier=verifier)
    assert again.pk == first.pk
    assert (first.status, first.is_passed, first.results) == (DryRunStatus.PENDING, False, [])
    assert first.draft["source"] == YES and first.draft["reference_solutions"] == ["yes"]
    assert DryRun.objects.count() == 1


def test_a_dry_run_is_judged_once():
    author, verifier = _verifier(reference_solutions=["yes"], wrong_solutions=["no"])
    requested = request_dry_run(author=author, verifier=verifier)
    done = perform_dry_run(dry_run_id=requested.pk)
    assert done is not None and (done.status, done.is_passed) == (DryRunStatus.DONE, True)
    assert done.finished_at is not None and done.claimed_until is None
    assert done.claim_token == ""  # a finished dry run holds no claim
    assert perform_dry_run(dry_run_id=requested.pk) is None
    done.refresh_from_db()
    assert (done.judge_attempts, len(done.results)) == (1, 2)


def test_the_worker_judges_the_draft_as_requested_not_as_edited_since():
    author, verifier = _verifier(reference_solutions=["yes"])
    requested = request_dry_run(author=author, verifier=verifier)
    verifier.draft_source = YES.replace('"yes"', '"no"')
    verifier.save(update_fields=["draft_source"])
    done = perform_dry_run(dry_run_id=requested.pk)
    assert done is not None and done.is_passed is True


def test_a_verifier_that_raises_on_a_wrong_sample_fails_the_dry_run():
    author, verifier = _verifier(
        RAISES_ON_BAD_INPUT, reference_solutions=["3"], wrong_solutions=["4", "abc"]
    )
    done = perform_dry_run(dry_run_id=request_dry_run(author=author, verifier=verifier).pk)
    assert done is not None and done.is_passed is False
    assert [(r["verdict"], r["reason"], r["is_ok"], r["warning"]) for r in done.results] == [
        ("ACCEPTED", None, True, ""),
        ("REJECTED", "WRONG_ANSWER", True, ""),
        ("REJECTED", "RUNTIME_ERROR", False, RAISED_WARNING),
    ]
    assert "ValueError: invalid literal for int() with base 10: 'abc'" in done.results[2]["detail"]
    assert done.summary.startswith("wrong sample 2: expected REJECTED, the verifier raised (")
    assert "ValueError" in done.summary


def test_a_verifier_that_does_not_parse_is_one_error_and_judges_no_sample():
    author, verifier = _verifier(
        DOES_NOT_PARSE, reference_solutions=["yes"], wrong_solutions=["a", "b", "c"]
    )
    done = perform_dry_run(dry_run_id=request_dry_run(author=author, verifier=verifier).pk)
    assert done is not None and done.is_passed is False
    assert done.summary == "the verifier does not compile: expected ':' (line 2)"
    assert [(r["verdict"], r["is_ok"], r["detail"]) for r in done.results] == [
        ("NOT_RUN", False, NOT_JUDGED_COMPILE)
    ] * 4


def test_a_verifier_that_parses_but_does_not_compile_judges_no_sample():
    # The parser accepts a module-level return; only the compiler refuses it. Without the
    # compile step every sample failed on its own with the same RUNTIME_ERROR.
    source = '"""x"""\nreturn 1\n\n\ndef verify(solution, rng):\n    return True\n'
    author, verifier = _verifier(source, reference_solutions=["yes"], wrong_solutions=["no"])
    done = perform_dry_run(dry_run_id=request_dry_run(author=author, verifier=verifier).pk)
    assert done is not None and done.is_passed is False
    assert done.summary.startswith("the verifier does not compile: 'return' outside function")
    assert [r["verdict"] for r in done.results] == ["NOT_RUN", "NOT_RUN"]


INJECTABLE = '''"""An expression."""
import sympy


def verify(solution, rng):
    for text in solution.split(";"):
        if sympy.Integer(text) == 4:
            return True
    return sympy.Poly(sympy.Symbol("x")).sub(solution).is_zero
'''


def test_a_dry_run_refused_by_the_static_check_judges_no_sample():
    author, verifier = _verifier(INJECTABLE, reference_solutions=["4"], wrong_solutions=["5"])
    done = perform_dry_run(dry_run_id=request_dry_run(author=author, verifier=verifier).pk)
    assert done is not None and done.is_passed is False
    assert [r["verdict"] for r in done.results] == ["NOT_RUN", "NOT_RUN"]
    assert all(r["seed"] is None and r["wall_time_s"] is None for r in done.results)
    assert done.summary.startswith("static checks failed: line 7: ")
    assert len(done.static_errors) == 3  # two findings and the advice, once


def test_the_summary_is_cut_between_findings_and_says_how_many_more():
    finding = "the solution reaches sympy.Integer(), not listed " * 3
    parts = [f"line {n}: {finding}" for n in range(9)]
    summary = summarise(parts)
    assert len(summary) <= 500
    shown = summary.split("; and ")[0].split("; ")
    assert shown == parts[: len(shown)]  # whole findings only
    more = len(parts) - len(shown)
    assert summary.endswith(f"; and {more} more (see the static errors and the results)")
    assert summarise(["short", "also short"]) == "short; also short"
    long_one = summarise(["word " * 200])
    assert len(long_one) <= 500 and long_one.endswith("word\u2026")


def test_someone_elses_or_a_retired_verifier_gets_no_dry_run():
    author, verifier = _verifier(reference_solutions=["yes"])
    with pytest.raises(NotFound):
        request_dry_run(author=UserFactory(), verifier=verifier)
    # Only a verifier that was published can be retired (a draft would become public).
    Verifier.objects.filter(pk=verifier.pk).update(status=VerifierStatus.PUBLISHED)
    retire_verifier(author=author, verifier=verifier)
    with pytest.raises(NotEditable):
        request_dry_run(author=author, verifier=verifier)
    assert not DryRun.objects.exists()


def _queued_dry_run_ids(client) -> list[int]:
    """The dry-run ids in the judge-python queue on the real Redis broker."""
    ids = []
    for raw in client.lrange("judge-python", 0, -1):
        message = json.loads(raw)
        _args, kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        ids.append(kwargs["dry_run_id"])
    return ids


def test_the_sweep_resends_lost_and_abandoned_dry_runs_only(settings):
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete("judge-python")
    author, verifier = _verifier(reference_solutions=["yes"])
    now = timezone.now()
    lost = DryRun.objects.create(verifier=verifier, fingerprint="a", draft={})
    DryRun.objects.filter(pk=lost.pk).update(created_at=now - timedelta(hours=1))
    fresh = DryRun.objects.create(verifier=verifier, fingerprint="b", draft={})
    abandoned = DryRun.objects.create(
        verifier=verifier,
        fingerprint="c",
        status=DryRunStatus.RUNNING,
        claimed_until=now - timedelta(seconds=1),
    )
    alive = DryRun.objects.create(
        verifier=verifier,
        fingerprint="d",
        status=DryRunStatus.RUNNING,
        claimed_until=now + timedelta(minutes=1),
    )
    assert requeue_stale_dry_runs(older_than=timedelta(minutes=5)) == 2
    sent = _queued_dry_run_ids(client)
    client.delete("judge-python")
    assert sorted(sent) == sorted([lost.pk, abandoned.pk])
    assert fresh.pk not in sent and alive.pk not in sent
