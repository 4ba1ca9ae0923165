"""Typed errors of the verifiers app (their bases live in the neutral ``domain.errors``)."""

from __future__ import annotations

from domain.errors import UserError


class InvalidVerifier(UserError):
    """A field of a verifier is out of bounds (budget over the caps, bad language)."""

    code = "verifiers:invalid"


class NotEditable(UserError):
    """The problem or verifier is in a state that does not allow this change."""

    code = "verifiers:not-editable"
    http_status = 409


class PublishRefused(UserError):
    """A publishing precondition failed; ``fields`` says which ones."""

    code = "verifiers:publish-refused"
    http_status = 409


class LeanUnavailable(UserError):
    """No Lean toolchain on this server: a Lean dry run cannot pass, so Lean cannot publish."""

    code = "verifiers:lean-unavailable"
    http_status = 409
