"""A hypothesis state machine over the market's services on PostgreSQL.

Rules: deposit DEMO, submit a solution, judge it (ACCEPTED or REJECTED through
``record_verdict`` with a real ``judge.verdict.Verdict``), place bids and asks (sometimes with a
client order id, sometimes replayed), cancel (the owner, or a stranger). After every step every
invariant of issue 2 §4 is checked (helpers.VIOLATIONS, including the deferred ledger
triggers). Each rule also predicts its own outcome from a small model: which calls must be
refused with which code, and that a refusal changes nothing.

Each example runs inside a savepoint of the test's transaction and is rolled back at teardown,
so examples are independent and the test leaves nothing behind.
"""

from __future__ import annotations

import pytest
from django.db import transaction
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from judge.verdict import Outcome, Reason, Verdict
from market.exceptions import (
    AskAlreadyOpen,
    BidAlreadyOpen,
    ClientOrderIdReused,
    DomainError,
    InsufficientFunds,
    NotFound,
    OrderNotOpen,
    SalesLimit,
    SelfTrade,
    SolutionLimit,
    SolutionNotAccepted,
)
from market.models import AccountKind, Order, OrderSide, OrderStatus, Trade
from market.services.accounts import grant_demo_credits
from market.services.order_checks import SALES_LIMIT, SOLUTION_LIMIT
from market.services.orders import cancel_order, place_ask, place_bid
from market.services.solutions import record_verdict
from tests.factories import SolutionFactory, UserFactory
from tests.market.conftest import PHASES, Market, demo
from tests.market.helpers import assert_market_invariants, balance, snapshot

USERS = 4
PROBLEMS = 2
prices = st.integers(min_value=1, max_value=12)
quantities = st.integers(min_value=1, max_value=3)
# A bid's quantity may also be at the solution limit's edge (held is small here).
bid_quantities = st.one_of(
    quantities, quantities, st.integers(SOLUTION_LIMIT - 3, SOLUTION_LIMIT + 1)
)
# An ask's, at the sales limit's edge (a solution is sold a few times here).
ask_quantities = st.one_of(quantities, quantities, st.integers(SALES_LIMIT - 3, SALES_LIMIT + 1))
client_ids = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))


class MarketMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.savepoint = transaction.savepoint()
        self.users = [UserFactory() for _ in range(USERS)]
        self.markets = [Market() for _ in range(PROBLEMS)]
        self.solutions: list[tuple[object, int]] = []  # (solution, market index)
        self.orders: list[Order] = []
        # (user pk, client order id) -> the parameters of the first successful placement.
        self.client_ids: dict[tuple[int, str], tuple[object, ...]] = {}

    def teardown(self) -> None:
        transaction.savepoint_rollback(self.savepoint)

    @initialize(amounts=st.lists(st.integers(0, 500), min_size=USERS, max_size=USERS))
    def fund_everyone(self, amounts):
        for user, amount in zip(self.users, amounts, strict=True):
            if amount:
                grant_demo_credits(user=user, amount_minor=amount)

    @initialize(solvers=st.lists(st.integers(0, USERS - 1), min_size=PROBLEMS, max_size=PROBLEMS))
    def one_accepted_solution_per_problem(self, solvers):
        for market, user in enumerate(solvers):
            self.submit_a_solution_that_the_judge_accepts(user=user, market=market)

    # --- rules -----------------------------------------------------------------------------

    @rule(user=st.integers(0, USERS - 1), amount=st.integers(1, 300))
    def deposit_demo(self, user, amount):
        before = balance(self.users[user])
        grant_demo_credits(user=self.users[user], amount_minor=amount)
        assert balance(self.users[user]) == before + amount

    @rule(user=st.integers(0, USERS - 1), market=st.integers(0, PROBLEMS - 1))
    def submit_solution(self, user, market):
        solution = SolutionFactory(
            verifier_version=self.markets[market].version, solver=self.users[user]
        )
        self.solutions.append((solution, market))

    @rule(user=st.integers(0, USERS - 1), market=st.integers(0, PROBLEMS - 1))
    def submit_a_solution_that_the_judge_accepts(self, user, market):
        solution = SolutionFactory(
            verifier_version=self.markets[market].version, solver=self.users[user]
        )
        judged = record_verdict(
            solution_id=solution.pk, verdict=Verdict(Outcome.ACCEPTED, None, "ok", seed=7)
        )
        assert judged.status == "accepted"
        solution.status = judged.status
        self.solutions.append((solution, market))

    @precondition(lambda self: self.solutions)
    @rule(data=st.data(), accept=st.booleans())
    def judge(self, data, accept):
        solution, _ = data.draw(st.sampled_from(self.solutions))
        verdict = (
            Verdict(Outcome.ACCEPTED, None, "ok", seed=1)
            if accept
            else Verdict(Outcome.REJECTED, Reason.WRONG_ANSWER, "no", seed=1)
        )
        was = solution.status
        solution.refresh_from_db()
        judged = record_verdict(solution_id=solution.pk, verdict=verdict)
        if was in ("accepted", "rejected"):
            assert judged.status == was  # a verdict is written once
        else:
            assert judged.status == ("accepted" if accept else "rejected")
        solution.status = judged.status

    @rule(
        user=st.integers(0, USERS - 1),
        market=st.integers(0, PROBLEMS - 1),
        price=prices,
        quantity=bid_quantities,
        client_order_id=client_ids,
    )
    def bid(self, user, market, price, quantity, client_order_id):
        buyer = self.users[user]
        problem = self.markets[market].problem
        params = ("bid", problem.pk, None, price, quantity)
        expected = self._expected_replay(buyer, client_order_id, params)
        if expected is None and self._open(buyer, problem.pk, OrderSide.BID).exists():
            expected = BidAlreadyOpen  # one open bid per buyer and problem
        if (
            expected is None
            and self._open(buyer, problem.pk, OrderSide.ASK, price_minor__lte=price).exists()
        ):
            expected = SelfTrade  # it would cross the buyer's own ask
        held = Trade.objects.filter(buyer=buyer, problem_id=problem.pk).count()
        if expected is None and held + quantity > SOLUTION_LIMIT:
            expected = SolutionLimit  # past the solutions a buyer may hold of one problem
        if expected is None and price * quantity > balance(buyer):
            expected = InsufficientFunds
        self._place(
            expected,
            buyer,
            client_order_id,
            params,
            lambda: place_bid(
                buyer=buyer,
                problem=problem,
                price=demo(price),
                quantity=quantity,
                client_order_id=client_order_id,
            ),
        )

    @precondition(lambda self: self.solutions)
    @rule(data=st.data(), price=prices, quantity=ask_quantities, client_order_id=client_ids)
    def ask(self, data, price, quantity, client_order_id):
        solution, market = data.draw(st.sampled_from(self.solutions))
        self._ask(solution, market, price, quantity, client_order_id)

    @precondition(lambda self: any(s.status == "accepted" for s, _ in self.solutions))
    @rule(data=st.data(), price=prices, quantity=ask_quantities, client_order_id=client_ids)
    def ask_with_an_accepted_solution(self, data, price, quantity, client_order_id):
        accepted = [(s, m) for s, m in self.solutions if s.status == "accepted"]
        solution, market = data.draw(st.sampled_from(accepted))
        self._ask(solution, market, price, quantity, client_order_id)

    def _ask(self, solution, market, price, quantity, client_order_id):
        seller = solution.solver
        params = ("ask", self.markets[market].problem.pk, solution.pk, price, quantity)
        expected = self._expected_replay(seller, client_order_id, params)
        if expected is None and solution.status != "accepted":
            expected = SolutionNotAccepted
        if expected is None and self._has_open_ask(solution):
            expected = AskAlreadyOpen  # one open ask per solution and seller
        problem_id = self.markets[market].problem.pk
        if (
            expected is None
            and self._open(seller, problem_id, OrderSide.BID, price_minor__gte=price).exists()
        ):
            expected = SelfTrade  # it would cross the seller's own bid
        sold = Trade.objects.filter(solution=solution).count()
        if expected is None and sold + quantity > SALES_LIMIT:
            expected = SalesLimit  # past the copies a solution may sell
        self._place(
            expected,
            seller,
            client_order_id,
            params,
            lambda: place_ask(
                seller=seller,
                solution=solution,
                price=demo(price),
                quantity=quantity,
                client_order_id=client_order_id,
            ),
        )

    @precondition(lambda self: self.solutions)
    @rule(data=st.data(), user=st.integers(0, USERS - 1))
    def ask_with_someone_elses_solution(self, data, user):
        solution, _ = data.draw(st.sampled_from(self.solutions))
        if solution.solver_id == self.users[user].pk:
            return
        self._refused(
            NotFound,
            lambda: place_ask(
                seller=self.users[user], solution=solution, price=demo(5), quantity=1
            ),
        )

    @precondition(lambda self: self.orders)
    @rule(data=st.data())
    def cancel(self, data):
        order = data.draw(st.sampled_from(self.orders))
        order.refresh_from_db()
        owner = order.owner
        if order.status != "open":
            self._refused(OrderNotOpen, lambda: cancel_order(user=owner, order_id=order.pk))
            return
        held = balance(owner, AccountKind.HELD)
        available = balance(owner)
        release = order.price_minor * order.remaining if order.side == OrderSide.BID else 0
        cancelled = cancel_order(user=owner, order_id=order.pk)
        assert cancelled.status == "cancelled"
        assert balance(owner, AccountKind.HELD) == held - release
        assert balance(owner) == available + release

    @precondition(lambda self: self.orders)
    @rule(data=st.data(), user=st.integers(0, USERS - 1))
    def stranger_cancels(self, data, user):
        order = data.draw(st.sampled_from(self.orders))
        if order.owner_id == self.users[user].pk:
            return
        self._refused(NotFound, lambda: cancel_order(user=self.users[user], order_id=order.pk))

    # --- invariants ------------------------------------------------------------------------

    @invariant()
    def market_invariants_hold(self):
        assert_market_invariants()

    # --- helpers ---------------------------------------------------------------------------

    def _open(self, owner, problem_id: int, side: str, **price):
        return Order.objects.filter(
            owner=owner, problem_id=problem_id, side=side, status=OrderStatus.OPEN, **price
        )

    def _has_open_ask(self, solution) -> bool:
        return any(
            o.solution_id == solution.pk
            and Order.objects.filter(pk=o.pk, status=OrderStatus.OPEN).exists()
            for o in self.orders
        )

    def _expected_replay(self, user, client_order_id, params):
        if client_order_id is None:
            return None
        first = self.client_ids.get((user.pk, client_order_id))
        if first is None:
            return None
        return "replay" if first[0] == params else ClientOrderIdReused

    def _place(self, expected, user, client_order_id, params, call):
        event(f"{params[0]}: {getattr(expected, '__name__', expected)}")
        if expected is not None and expected != "replay":
            self._refused(expected, call)
            return
        if expected == "replay":
            before = snapshot()
            order = call()
            assert order.pk == self.client_ids[(user.pk, client_order_id)][1]
            assert snapshot() == before
            return
        trades_before = Trade.objects.count()
        order = call()
        side, _, solution_id, price, quantity = params
        assert (order.side, order.solution_id, order.price_minor, order.quantity) == (
            side,
            solution_id,
            price,
            quantity,
        )
        new_trades = Trade.objects.count() - trades_before
        event(f"{side}: {new_trades} trades")
        assert order.quantity - order.remaining == new_trades
        self.orders.append(order)
        if client_order_id is not None:
            self.client_ids[(user.pk, client_order_id)] = (params, order.pk)

    def _refused(self, error, call):
        before = snapshot()
        with pytest.raises(DomainError) as exc:
            call()
        assert type(exc.value) is error, exc.value
        assert snapshot() == before


@pytest.mark.django_db
def test_market_state_machine():
    run_state_machine_as_test(
        MarketMachine,
        settings=settings(
            max_examples=25,
            stateful_step_count=35,
            deadline=None,
            database=None,
            phases=PHASES,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
