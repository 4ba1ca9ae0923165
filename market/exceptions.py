"""Typed domain errors with stable codes.

Two families: :class:`UserError` (the caller's fault; never retried, shown to the user) and
:class:`PlatformError` (ours; retried and logged). The API maps both to
``{"error": {"code", "message", "fields"}}``.
"""

from __future__ import annotations

# The bases are re-exported: market code keeps importing its errors from one place.
from domain.errors import DomainError as DomainError
from domain.errors import NotFound as NotFound
from domain.errors import PlatformError as PlatformError
from domain.errors import UserError as UserError


class InsufficientFunds(UserError):
    code = "market:insufficient-funds"
    http_status = 402


class InvalidOrder(UserError):
    code = "market:invalid-order"


class AskAlreadyOpen(UserError):
    """The seller already has an open ask on this solution: one ask sells any number of copies."""

    code = "market:ask-already-open"
    http_status = 409


class BidAlreadyOpen(UserError):
    """The buyer already has an open bid on this problem: one bid buys up to its quantity."""

    code = "market:bid-already-open"
    http_status = 409


class SelfTrade(UserError):
    """The order would cross one of its owner's own open orders on the same problem."""

    code = "market:self-trade"
    http_status = 409


class SolutionLimit(UserError):
    """The bid would take its buyer past the limit of solutions held of one problem."""

    code = "market:solution-limit"
    http_status = 409


class SalesLimit(UserError):
    """The ask would take its solution past the limit of copies sold."""

    code = "market:sales-limit"
    http_status = 409


class SolutionNotAccepted(UserError):
    code = "market:solution-not-accepted"
    http_status = 409


class NotTradable(UserError):
    code = "market:not-tradable"
    http_status = 409


class OrderNotOpen(UserError):
    code = "market:order-not-open"
    http_status = 409


class ClientOrderIdReused(UserError):
    code = "market:client-order-id-reused"
    http_status = 422


class CurrencyMismatch(UserError):
    code = "market:currency-mismatch"


class InvalidProblem(UserError):
    """A field of a problem is out of bounds (empty title, unknown currency, NUL character)."""

    code = "market:invalid-problem"


class InvalidSolution(UserError):
    code = "market:invalid-solution"


class SubmissionsClosed(UserError):
    code = "market:submissions-closed"
    http_status = 409
