"""market.access.access_solution: the hand-written query (ff5bbe5) held to the ORM rule it
replaced, case by case.

Who may read a solution: its solver, or a buyer holding an entitlement to it; nobody else (not
the problem's author, not staff, not a buyer of another solution, not an anonymous caller), and
a solution nobody may read looks exactly like one that does not exist. The reference below is
the ORM query of 30af107, word for word; each case compares the row the SQL builds (solution,
verifier version, verdict) with the ORM's, field by field.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import Exists, OuterRef, Q
from django.test.utils import CaptureQueriesContext

from market.access import access_solution
from market.exceptions import NotFound
from market.models import Entitlement, Solution, SolutionStatus
from market.services.orders import place_ask, place_bid
from tests.api.conftest import assert_error, client_for
from tests.factories import UserFactory
from tests.market.conftest import Market, demo, funded

pytestmark = pytest.mark.django_db

MAX_ID = 2**63 - 1


def _orm_rule(user, solution_id: int) -> Solution | None:
    """access_solution as 30af107 wrote it (the ORM's select_related and EXISTS)."""
    uid = user.pk if user is not None and user.is_authenticated else None
    if uid is None:
        return None
    entitled = Entitlement.objects.filter(solution_id=OuterRef("pk"), user_id=uid)
    return (
        Solution.objects.select_related("verdict", "verifier_version")
        .filter(Q(solver_id=uid) | Exists(entitled), pk=solution_id)
        .first()
    )


def _values(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def _verdict(solution: Solution):
    try:
        return solution.verdict
    except Solution.verdict.RelatedObjectDoesNotExist:  # type: ignore[attr-defined]
        return None


def test_the_sql_answers_every_caller_and_solution_as_the_orm_rule_did():
    market = Market()
    author = market.problem.author
    seller, buyer, other_buyer = funded(), funded(), funded()
    sold = market.accepted(solver=seller)  # judged: it has a verdict record
    place_ask(seller=seller, solution=sold, price=demo(100), quantity=1)
    place_bid(buyer=buyer, problem=market.problem, price=demo(100), quantity=1)
    unsold = market.accepted(solver=funded())  # the buyer holds no copy of this one
    pending = market.solution(SolutionStatus.PENDING, solver=seller)  # no verdict record
    # other_buyer bought a copy of ``unsold`` only: an entitlement, to another solution.
    place_ask(seller=unsold.solver, solution=unsold, price=demo(100), quantity=1)
    place_bid(buyer=other_buyer, problem=market.problem, price=demo(100), quantity=1)
    assert Entitlement.objects.filter(user=buyer, solution=sold).exists()
    assert Entitlement.objects.filter(user=other_buyer, solution=unsold).exists()
    staff = UserFactory(is_staff=True)
    superuser = UserFactory(is_staff=True, is_superuser=True)
    inactive_solver = funded(is_active=False)
    inactive_own = market.solution(SolutionStatus.PENDING, solver=inactive_solver)
    callers = {
        "solver": seller,
        "buyer": buyer,
        "buyer of another solution": other_buyer,
        "problem author": author,
        "staff": staff,
        "superuser": superuser,
        "inactive solver": inactive_solver,
        "anonymous": AnonymousUser(),
        "nobody": None,
    }
    ids = {
        "sold": sold.pk,
        "unsold": unsold.pk,
        "pending": pending.pk,
        "inactive's own": inactive_own.pk,
        "missing": Solution.objects.order_by("-pk").first().pk + 1,
        "largest id": MAX_ID,
    }
    readable = set()
    for caller_name, caller in callers.items():
        for id_name, solution_id in ids.items():
            label = (caller_name, id_name)
            expected = _orm_rule(caller, solution_id)
            with CaptureQueriesContext(connection) as queries:
                try:
                    found = access_solution(user=caller, solution_id=solution_id)
                except NotFound:
                    found = None
            assert len(queries.captured_queries) <= 1, label
            if expected is None:
                assert found is None, label
                continue
            readable.add(label)
            assert found is not None, label
            with CaptureQueriesContext(connection) as later:
                assert _values(found) == _values(expected), label
                assert _values(found.verifier_version) == _values(expected.verifier_version)
                want, got = _verdict(expected), _verdict(found)
                assert (want is None) == (got is None), label
                if want is not None:
                    assert _values(got) == _values(want), label
                    assert got.solution is found
            assert later.captured_queries == [], label  # version and verdict came with it

    # What the rule says, spelled out: the solver and a holder of a copy, nobody else.
    assert readable == {
        ("solver", "sold"),
        ("solver", "pending"),
        ("buyer", "sold"),
        ("buyer of another solution", "unsold"),
        ("inactive solver", "inactive's own"),  # the API refuses its token before (below)
    }


def test_a_solution_the_caller_may_not_read_is_the_same_json_404_as_a_missing_one():
    market = Market()
    solution = market.accepted(solver=funded())
    missing = solution.pk + 1000
    others = {
        "stranger": client_for(funded()),
        "author": client_for(market.problem.author),
        "staff": client_for(UserFactory(is_staff=True, is_superuser=True)),
    }
    for name, client in others.items():
        for suffix in ("", "status/", "?wait=0", "status/?wait=0.5"):
            hidden = client.get(f"/api/v1/solutions/{solution.pk}/{suffix}")
            absent = client.get(f"/api/v1/solutions/{missing}/{suffix}")
            assert_error(hidden, 404, "not-found")
            assert hidden.json() == absent.json(), (name, suffix)
            assert "ETag" not in hidden.headers, (name, suffix)
    # The largest id the URL takes (18 digits) is a 404 too, never a 500.
    assert_error(others["stranger"].get(f"/api/v1/solutions/{10**18 - 1}/"), 404, "not-found")


def test_an_inactive_solvers_token_reads_nothing():
    solver = funded()
    solution = Market().accepted(solver=solver)
    client = client_for(solver)
    assert client.get(f"/api/v1/solutions/{solution.pk}/").status_code == 200
    type(solver).objects.filter(pk=solver.pk).update(is_active=False)
    assert client.get(f"/api/v1/solutions/{solution.pk}/").status_code == 401
