"""Dry runs in unit tests: requested as the web does, judged as the worker's task does."""

from __future__ import annotations

from verifiers.models import DryRun, Verifier
from verifiers.services.dry_runs import perform_dry_run, request_dry_run


def run_dry_run(*, author: object, verifier: Verifier) -> DryRun:
    """Request a dry run of the current draft, then judge it with the task's own service."""
    requested = request_dry_run(author=author, verifier=verifier)  # type: ignore[arg-type]
    perform_dry_run(dry_run_id=requested.pk)
    return DryRun.objects.get(pk=requested.pk)
