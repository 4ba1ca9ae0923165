"""Permission-checked fetchers: "missing" and "not yours" raise the same NotFound.

Every API view and page that fetches an object by id on behalf of a user goes through one of
these (Zulip's ``access_stream_by_id``): there is no other way to learn that an id exists.
Verifiers and dry runs are fetched through ``verifiers.access``.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q

from market.exceptions import NotFound
from market.models import Entitlement, Order, Problem, ProblemStatus, Solution

PUBLIC_PROBLEM_STATUSES = (ProblemStatus.PUBLISHED, ProblemStatus.RETIRED)

User = AbstractBaseUser | AnonymousUser


def _user_id(user: User | None) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def access_problem(*, user: User | None, problem_id: int) -> Problem:
    """A published or retired problem, or the caller's own draft."""
    visible = Q(status__in=PUBLIC_PROBLEM_STATUSES)
    if (uid := _user_id(user)) is not None:
        visible |= Q(author_id=uid)
    problem = Problem.objects.filter(visible, pk=problem_id).first()
    if problem is None:
        raise NotFound("no such problem")
    return problem


def access_own_problem(*, user: User | None, problem_id: int) -> Problem:
    """A problem the caller authored, in any state."""
    problem = Problem.objects.filter(pk=problem_id, author_id=_user_id(user)).first()
    if problem is None or _user_id(user) is None:
        raise NotFound("no such problem")
    return problem


def access_solution(*, user: User | None, solution_id: int) -> Solution:
    """A solution the caller submitted, or one they bought (hold an entitlement to), with its
    verifier version and verdict: what the API renders, in one query.

    Nobody else learns that it exists; whoever may see it may read its text.
    """
    uid = _user_id(user)
    if uid is None:
        raise NotFound("no such solution")
    # EXISTS rather than a join on entitlements: no DISTINCT over the text and the verdict.
    entitled = Entitlement.objects.filter(solution_id=OuterRef("pk"), user_id=uid)
    solution = (
        Solution.objects.select_related("verdict", "verifier_version")
        .filter(Q(solver_id=uid) | Exists(entitled), pk=solution_id)
        .first()
    )
    if solution is None:
        raise NotFound("no such solution")
    return solution


def access_own_solution(*, user: User | None, solution_id: int) -> Solution:
    """A solution the caller submitted (to offer it for sale)."""
    uid = _user_id(user)
    solution = Solution.objects.filter(pk=solution_id, solver_id=uid).first()
    if solution is None or uid is None:
        raise NotFound("no such solution")
    return solution


def access_own_order(*, user: User | None, order_id: int) -> Order:
    uid = _user_id(user)
    order = Order.objects.select_related("problem").filter(pk=order_id, owner_id=uid).first()
    if order is None or uid is None:
        raise NotFound("no such order")
    return order
