"""The books of bench/adversarial_book.py: one published DEMO problem per case, and bulk SQL
builders that leave the rows the judge and the engine would have left (each builder says
where it takes a shortcut)."""

from __future__ import annotations

BEST = 100  # the price of the non-tradable orders


class World:
    """One published DEMO problem and the users of one case."""

    def __init__(self, tag: str) -> None:
        from django.contrib.auth import get_user_model

        from market.models import Problem, ProblemStatus
        from market.money import Currency
        from verifiers.models import Language, Verifier, VerifierVersion

        self.tag = tag
        self.user_model = get_user_model()
        author = self.user_model.objects.create_user(username=f"{tag}-author")
        self.problem = Problem.objects.create(
            author=author,
            title=f"Bench {tag}",
            slug=f"bench-{tag}",
            currency=Currency.DEMO,
            status=ProblemStatus.PUBLISHED,
        )
        verifier = Verifier.objects.create(
            problem=self.problem, language=Language.PYTHON, draft_source="def verify(s, rng): ..."
        )
        self.version = VerifierVersion.objects.create(
            verifier=verifier,
            number=1,
            language=Language.PYTHON,
            source=verifier.draft_source,
            sha256="0" * 64,
            time_limit_s=1.0,
            memory_limit_mb=64,
        )
        self._solutions = 0

    def user(self, name: str):
        return self.user_model.objects.create_user(username=f"{self.tag}-{name}")

    def funded(self, name: str):
        from market.services.accounts import grant_demo_credits

        user = self.user(name)
        grant_demo_credits(user=user, amount_minor=10_000_000)
        return user

    def seller(self, name: str):
        """A new seller with one ACCEPTED solution of the problem, and accounts that exist."""
        user = self.funded(name)
        return user, self.accepted(user)

    def accepted(self, solver):
        """A new ACCEPTED solution of the problem by ``solver`` (as the judge leaves it)."""
        from market.models import Solution, SolutionStatus

        self._solutions += 1
        return Solution.objects.create(
            problem=self.problem,
            verifier_version=self.version,
            solver=solver,
            text=f"solution {self.tag} {self._solutions}",
            sha256=f"{self._solutions:064d}",
            size_bytes=10,
            status=SolutionStatus.ACCEPTED,
        )

    def rest_asks(self, seller, solution, count: int, *, price: int, first_quantity: int) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, %(seller)s, 'ask', %(price)s, 'DEMO', q, q, 'open',
                       %(solution)s, NULL, now()
                FROM generate_series(0, %(count)s - 1) AS j,
                     LATERAL (SELECT CASE WHEN j = 0 THEN %(first)s ELSE 1 END AS q) AS x
                ORDER BY j
                """,
                {
                    "problem": self.problem.pk,
                    "seller": seller.pk,
                    "price": price,
                    "solution": solution.pk,
                    "count": count,
                    "first": first_quantity,
                },
            )

    def rest_bids(self, buyer, count: int, *, price: int, first_quantity: int) -> None:
        """``count`` bids of ``buyer`` (the first for ``first_quantity`` solutions, the others
        for one), with the holds they need granted and held through the ledger's services."""
        from django.db import connection

        from market.models import AccountKind, LedgerTransaction
        from market.money import Currency
        from market.services.accounts import grant_demo_credits
        from market.services.ledger import get_user_accounts, transfer

        held = price * (first_quantity + count - 1)
        grant_demo_credits(user=buyer, amount_minor=held)
        accounts = get_user_accounts(
            keys=[(buyer.pk, AccountKind.AVAILABLE), (buyer.pk, AccountKind.HELD)],
            currency=Currency.DEMO,
        )
        available = accounts[(buyer.pk, AccountKind.AVAILABLE)]
        holding = accounts[(buyer.pk, AccountKind.HELD)]
        transfer(
            kind=LedgerTransaction.Kind.BID_HOLD,
            currency=Currency.DEMO,
            legs=[(available, -held), (holding, held)],
        )
        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, %(buyer)s, 'bid', %(price)s, 'DEMO', q, q, 'open', NULL,
                       NULL, now()
                FROM generate_series(0, %(count)s - 1) AS j,
                     LATERAL (SELECT CASE WHEN j = 0 THEN %(first)s ELSE 1 END AS q) AS x
                ORDER BY j
                """,
                {
                    "problem": self.problem.pk,
                    "buyer": buyer.pk,
                    "price": price,
                    "first": first_quantity,
                    "count": count,
                },
            )

    def rest_solutions_with_asks(self, seller, count: int, *, price: int) -> list[int]:
        """``count`` ACCEPTED solutions of ``seller``, each with one open ask of 100 copies (the
        sales limit) at ``price`` (bulk SQL, as the judge and the engine would have left
        them)."""
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                """
                WITH s AS (
                    INSERT INTO market_solution (problem_id, verifier_version_id, solver_id, text,
                        sha256, size_bytes, status, pending_reason, judge_attempts,
                        claim_token, created_at)
                    SELECT %(problem)s, %(version)s, %(seller)s, 'bulk solution ' || j,
                           lpad(j::text, 64, '0'), 10, 'accepted', '', 0, '', now()
                    FROM generate_series(1, %(count)s) AS j
                    RETURNING id
                )
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, %(seller)s, 'ask', %(price)s, 'DEMO', 100, 100, 'open',
                       s.id, NULL, now()
                FROM s ORDER BY s.id
                RETURNING solution_id
                """,
                {
                    "problem": self.problem.pk,
                    "version": self.version.pk,
                    "seller": seller.pk,
                    "price": price,
                    "count": count,
                },
            )
            return sorted(row[0] for row in cursor.fetchall())

    def sell_one_copy_each(self, *, seller, buyer, solutions: list[int], price: int) -> None:
        """``buyer`` bought one copy of each solution from its open ask (bulk SQL): one filled
        bid, a trade, its ledger transaction with the buyer's payment and the seller's proceeds
        (no fee), and the entitlement, per solution; the asks keep the rest of their copies."""
        from django.db import connection

        from market.models import AccountKind
        from market.money import Currency
        from market.services.accounts import grant_demo_credits
        from market.services.ledger import get_user_accounts

        total = price * len(solutions)
        grant_demo_credits(user=buyer, amount_minor=total)
        grant_demo_credits(user=seller, amount_minor=1)  # the seller's available exists
        accounts = get_user_accounts(
            keys=[(buyer.pk, AccountKind.AVAILABLE), (seller.pk, AccountKind.AVAILABLE)],
            currency=Currency.DEMO,
        )
        paying = accounts[(buyer.pk, AccountKind.AVAILABLE)].pk
        proceeds = accounts[(seller.pk, AccountKind.AVAILABLE)].pk
        with connection.cursor() as cursor:
            cursor.execute(
                """
                WITH bid AS (
                    INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                        quantity, remaining, status, solution_id, client_order_id, created_at,
                        closed_at)
                    VALUES (%(problem)s, %(buyer)s, 'bid', %(price)s, 'DEMO', %(count)s, 0,
                            'filled', NULL, NULL, now(), now())
                    RETURNING id
                ), asks AS (
                    UPDATE market_order AS o SET remaining = o.remaining - 1
                    WHERE o.problem_id = %(problem)s AND o.side = 'ask' AND o.status = 'open'
                      AND o.solution_id = ANY (%(solutions)s)
                    RETURNING o.id, o.solution_id
                ), txn AS (
                    INSERT INTO market_ledgertransaction (kind, currency, memo, idempotency_key,
                        created_at)
                    SELECT 'trade', 'DEMO', 'bench copy of ' || asks.solution_id, NULL, now()
                    FROM asks ORDER BY asks.solution_id
                    RETURNING id, substr(memo, 15)::bigint AS solution_id
                ), legs AS (
                    INSERT INTO market_posting (transaction_id, account_id, currency,
                        amount_minor)
                    SELECT txn.id, x.account, 'DEMO', x.amount
                    FROM txn, LATERAL (VALUES (%(paying)s::bigint, -%(price)s::bigint),
                                              (%(proceeds)s::bigint, %(price)s::bigint))
                         AS x(account, amount)
                ), trades AS (
                    INSERT INTO market_trade (problem_id, bid_id, ask_id, buyer_id, seller_id,
                        solution_id, price_minor, fee_minor, currency, maker_side,
                        ledger_transaction_id, created_at)
                    SELECT %(problem)s, bid.id, asks.id, %(buyer)s, %(seller)s,
                           asks.solution_id, %(price)s, 0, 'DEMO', 'ask', txn.id, now()
                    FROM bid, asks JOIN txn ON txn.solution_id = asks.solution_id
                    RETURNING id, solution_id
                )
                INSERT INTO market_entitlement (user_id, solution_id, trade_id, created_at)
                SELECT %(buyer)s, trades.solution_id, trades.id, now() FROM trades
                """,
                {
                    "problem": self.problem.pk,
                    "buyer": buyer.pk,
                    "seller": seller.pk,
                    "price": price,
                    "count": len(solutions),
                    "solutions": solutions,
                    "paying": paying,
                    "proceeds": proceeds,
                },
            )
            cursor.execute(
                "UPDATE market_account SET balance_minor = balance_minor + %s WHERE id = %s",
                [-total, paying],
            )
            cursor.execute(
                "UPDATE market_account SET balance_minor = balance_minor + %s WHERE id = %s",
                [total, proceeds],
            )

    def sell_to_many_with_bids(
        self, *, seller, solutions: list, count: int, bid_price: int
    ) -> None:
        """``count`` new buyers each bought one copy of every solution of ``solutions`` (per
        solution one filled ask of ``seller`` for ``count`` copies, and per buyer a filled
        bid, a trade, its ledger transaction paid from one funder's account, the
        entitlement), and each rests one open bid for one solution at ``bid_price`` (bulk
        SQL; these bids hold nothing: the timed calls only pass over them)."""
        from django.db import connection

        from market.models import AccountKind
        from market.money import Currency
        from market.services.ledger import get_user_accounts

        buyers = self.user_model.objects.bulk_create(
            self.user_model(username=f"{self.tag}-b{i}", password="!") for i in range(count)
        )
        funder = self.funded("funder")
        accounts = get_user_accounts(
            keys=[(funder.pk, AccountKind.AVAILABLE), (seller.pk, AccountKind.AVAILABLE)],
            currency=Currency.DEMO,
        )
        paying = accounts[(funder.pk, AccountKind.AVAILABLE)].pk
        proceeds = accounts[(seller.pk, AccountKind.AVAILABLE)].pk
        price = BEST
        params = {
            "problem": self.problem.pk,
            "seller": seller.pk,
            "buyers": [b.pk for b in buyers],
            "count": count,
            "price": price,
            "bid_price": bid_price,
            "paying": paying,
            "proceeds": proceeds,
        }
        with connection.cursor() as cursor:
            for solution in solutions:
                cursor.execute(
                    """
                    WITH ask AS (
                        INSERT INTO market_order (problem_id, owner_id, side, price_minor,
                            currency, quantity, remaining, status, solution_id,
                            client_order_id, created_at, closed_at)
                        VALUES (%(problem)s, %(seller)s, 'ask', %(price)s, 'DEMO', %(count)s,
                                0, 'filled', %(solution)s, NULL, now(), now())
                        RETURNING id
                    ), bids AS (
                        INSERT INTO market_order (problem_id, owner_id, side, price_minor,
                            currency, quantity, remaining, status, solution_id,
                            client_order_id, created_at, closed_at)
                        SELECT %(problem)s, b, 'bid', %(price)s, 'DEMO', 1, 0, 'filled', NULL,
                               NULL, now(), now()
                        FROM unnest(%(buyers)s::integer[]) AS b ORDER BY b
                        RETURNING id, owner_id
                    ), txn AS (
                        INSERT INTO market_ledgertransaction (kind, currency, memo,
                            idempotency_key, created_at)
                        SELECT 'trade', 'DEMO', 'bench copy for ' || b, NULL, now()
                        FROM unnest(%(buyers)s::integer[]) AS b ORDER BY b
                        RETURNING id, substr(memo, 16)::integer AS buyer_id
                    ), legs AS (
                        INSERT INTO market_posting (transaction_id, account_id, currency,
                            amount_minor)
                        SELECT txn.id, x.account, 'DEMO', x.amount
                        FROM txn, LATERAL (VALUES (%(paying)s::bigint, -%(price)s::bigint),
                                                  (%(proceeds)s::bigint, %(price)s::bigint))
                             AS x(account, amount)
                    ), trades AS (
                        INSERT INTO market_trade (problem_id, bid_id, ask_id, buyer_id,
                            seller_id, solution_id, price_minor, fee_minor, currency,
                            maker_side, ledger_transaction_id, created_at)
                        SELECT %(problem)s, bids.id, ask.id, bids.owner_id, %(seller)s,
                               %(solution)s, %(price)s, 0, 'DEMO', 'ask', txn.id, now()
                        FROM ask, bids JOIN txn ON txn.buyer_id = bids.owner_id
                        RETURNING id, buyer_id
                    )
                    INSERT INTO market_entitlement (user_id, solution_id, trade_id, created_at)
                    SELECT trades.buyer_id, %(solution)s, trades.id, now() FROM trades
                    """,
                    {**params, "solution": solution.pk},
                )
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, b, 'bid', %(bid_price)s, 'DEMO', 1, 1, 'open', NULL, NULL,
                       now()
                FROM unnest(%(buyers)s::integer[]) AS b ORDER BY b
                """,
                params,
            )
            total = price * count * len(solutions)
            cursor.execute(
                "UPDATE market_account SET balance_minor = balance_minor + %s WHERE id = %s",
                [-total, paying],
            )
            cursor.execute(
                "UPDATE market_account SET balance_minor = balance_minor + %s WHERE id = %s",
                [total, proceeds],
            )

    def rest_bids_of_many(self, count: int, *, price: int) -> None:
        """``count`` new buyers, each resting one open bid for one solution at ``price`` (bulk
        SQL; these bids hold nothing: the timed calls never reach them)."""
        from django.db import connection

        buyers = self.user_model.objects.bulk_create(
            self.user_model(username=f"{self.tag}-r{i}", password="!") for i in range(count)
        )
        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO market_order (problem_id, owner_id, side, price_minor, currency,
                    quantity, remaining, status, solution_id, client_order_id, created_at)
                SELECT %(problem)s, b, 'bid', %(price)s, 'DEMO', 1, 1, 'open', NULL, NULL,
                       now()
                FROM unnest(%(buyers)s::integer[]) AS b ORDER BY b
                """,
                {"problem": self.problem.pk, "price": price, "buyers": [b.pk for b in buyers]},
            )

    def analyze(self) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
