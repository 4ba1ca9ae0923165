"""Errors of the sandbox layer."""

from __future__ import annotations


class SandboxUnavailable(RuntimeError):
    """A security layer is missing or the sandbox cannot start: the platform's fault.

    A worker that sees this at startup must refuse to take jobs; a job that sees it gets a
    JUDGE_ERROR verdict and is retried. Never run a verifier without the sandbox.
    """
