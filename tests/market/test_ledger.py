"""The double-entry ledger service and the PostgreSQL guards behind it."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from market.exceptions import CurrencyMismatch, InsufficientFunds, InvalidOrder
from market.models import Account, AccountKind, LedgerTransaction, Posting
from market.money import Currency
from market.services.accounts import grant_demo_credits, grant_signup_bonus
from market.services.ledger import (
    get_system_account,
    get_user_account,
    get_user_accounts,
    lock_accounts,
    record_transaction,
    transfer,
)
from tests.factories import UserFactory
from tests.market.conftest import funded, legs
from tests.market.helpers import assert_market_invariants, balance, check_deferred_constraints
from tests.market.helpers import snapshot as market_snapshot

pytestmark = pytest.mark.django_db

Kind = LedgerTransaction.Kind
AVAILABLE, HELD, DEBT = AccountKind.AVAILABLE, AccountKind.HELD, AccountKind.DEBT


def snapshot():
    return market_snapshot()


def account(user, kind=AVAILABLE, currency=Currency.DEMO) -> Account:
    return get_user_account(user_id=user.pk, currency=currency, kind=kind)


def test_a_grant_mints_into_available_and_the_mint_goes_negative():
    user = UserFactory()
    txn = grant_demo_credits(user=user, amount_minor=2_500)
    assert (txn.kind, txn.currency) == ("demo_grant", "DEMO")
    assert legs(txn) == {(None, AccountKind.MINT, -2_500), (user.pk, AVAILABLE, 2_500)}
    assert balance(user) == 2_500
    mint = get_system_account(currency=Currency.DEMO, kind=AccountKind.MINT)
    # System accounts are never updated (no hot row): their balance is their postings' sum.
    assert mint.balance_minor == 0
    assert sum(mint.postings.values_list("amount_minor", flat=True)) == -2_500
    assert_market_invariants()


@pytest.mark.parametrize("amount", [0, -1])
def test_a_grant_must_be_positive(amount):
    user = UserFactory()
    before = snapshot()
    with pytest.raises(InvalidOrder):
        grant_demo_credits(user=user, amount_minor=amount)
    assert snapshot() == before


def test_the_signup_bonus_is_granted_once(settings):
    settings.DEMO_SIGNUP_GRANT_MINOR = 100_000
    user = UserFactory()
    first = grant_signup_bonus(user=user)
    before = snapshot()
    again = grant_signup_bonus(user=user)
    assert again.pk == first.pk and snapshot() == before
    assert balance(user) == 100_000


def test_transfer_moves_money_between_user_accounts():
    user = funded(1_000)
    txn = transfer(
        kind=Kind.BID_HOLD,
        currency=Currency.DEMO,
        legs=[(account(user), -400), (account(user, HELD), 400)],
        memo="hold",
    )
    assert legs(txn) == {(user.pk, AVAILABLE, -400), (user.pk, HELD, 400)}
    assert (balance(user), balance(user, HELD)) == (600, 400)
    check_deferred_constraints()


def test_legs_on_one_account_are_merged_into_one_posting():
    user = funded(1_000)
    mint = get_system_account(currency=Currency.DEMO, kind=AccountKind.MINT)
    txn = transfer(
        kind=Kind.DEMO_GRANT,
        currency=Currency.DEMO,
        legs=[(mint, -50), (account(user), 20), (account(user), 30)],
    )
    assert legs(txn) == {(None, AccountKind.MINT, -50), (user.pk, AVAILABLE, 50)}


@pytest.mark.parametrize(
    "amounts", [(-400, 399), (0, 0), (), (-1, 1, 1)], ids=["off-by-one", "zeros", "empty", "three"]
)
def test_an_unbalanced_transaction_is_refused_before_writing(amounts):
    user = funded(1_000)
    targets = [account(user), account(user, HELD), account(user, AccountKind.PENDING)]
    before = snapshot()
    with pytest.raises(ValueError, match="unbalanced|at least one"):
        transfer(
            kind=Kind.BID_HOLD,
            currency=Currency.DEMO,
            legs=list(zip(targets, amounts, strict=False)),
        )
    assert snapshot() == before


def test_taking_available_below_zero_is_refused():
    user = funded(1_000)
    available, held = account(user), account(user, HELD)
    before = snapshot()
    with pytest.raises(InsufficientFunds) as exc:
        transfer(
            kind=Kind.BID_HOLD,
            currency=Currency.DEMO,
            legs=[(available, -1_001), (held, 1_001)],
        )
    assert exc.value.code == "market:insufficient-funds"
    assert snapshot() == before


def test_taking_held_below_zero_is_refused():
    user = funded(1_000)
    available, held = account(user), account(user, HELD)
    before = snapshot()
    with pytest.raises(InsufficientFunds):
        transfer(
            kind=Kind.BID_RELEASE,
            currency=Currency.DEMO,
            legs=[(held, -1), (available, 1)],
        )
    assert snapshot() == before


def test_a_debt_account_goes_negative_and_never_above_zero():
    user = funded(1_000)
    debt = account(user, DEBT)
    # A refund after the seller spent the proceeds: the platform advances, the user owes.
    disputes = get_system_account(currency=Currency.DEMO, kind=AccountKind.DISPUTES)
    transfer(kind=Kind.DISPUTE, currency=Currency.DEMO, legs=[(debt, -300), (disputes, 300)])
    assert balance(user, DEBT) == -300
    # Settling more than is owed would take the debt above zero.
    before = snapshot()
    with pytest.raises(ValueError, match="debt account cannot go above zero"):
        transfer(
            kind=Kind.DEBT_SETTLE,
            currency=Currency.DEMO,
            legs=[(account(user), -301), (debt, 301)],
        )
    assert snapshot() == before
    transfer(
        kind=Kind.DEBT_SETTLE, currency=Currency.DEMO, legs=[(account(user), -300), (debt, 300)]
    )
    assert (balance(user), balance(user, DEBT)) == (700, 0)
    assert_market_invariants()


@pytest.mark.parametrize(
    ("kind", "value"), [(AVAILABLE, -1), (HELD, -1), (AccountKind.PENDING, -1), (DEBT, 1)]
)
def test_the_database_check_refuses_a_user_balance_of_the_wrong_sign(kind, value):
    user = UserFactory()
    target = account(user, kind)
    with pytest.raises(IntegrityError, match="account_user_balance_sign"), transaction.atomic():
        Account.objects.filter(pk=target.pk).update(balance_minor=value)
    target.refresh_from_db()
    assert target.balance_minor == 0


def test_currencies_never_mix_in_python():
    user = funded(1_000)
    usd = account(user, HELD, Currency.USD)
    before = snapshot()
    with pytest.raises(CurrencyMismatch) as exc:
        transfer(kind=Kind.BID_HOLD, currency=Currency.DEMO, legs=[(account(user), -5), (usd, 5)])
    assert exc.value.code == "market:currency-mismatch"
    assert snapshot() == before


@pytest.mark.parametrize("mismatch", ["posting vs account", "posting vs transaction"])
def test_currencies_never_mix_in_postgresql(mismatch):
    """Writes that bypass the service: the constraint trigger refuses them at commit."""
    user = funded(1_000)
    demo_available = account(user)
    usd_available = account(user, AVAILABLE, Currency.USD)
    before = snapshot()
    with pytest.raises(IntegrityError, match="mixes currencies"), transaction.atomic():
        if mismatch == "posting vs account":
            txn = LedgerTransaction.objects.create(kind="deposit", currency="USD")
            Posting.objects.create(
                transaction=txn, account=demo_available, currency="USD", amount_minor=5
            )
            Posting.objects.create(
                transaction=txn, account=usd_available, currency="USD", amount_minor=-5
            )
        else:
            txn = LedgerTransaction.objects.create(kind="deposit", currency="DEMO")
            Posting.objects.create(
                transaction=txn, account=usd_available, currency="USD", amount_minor=5
            )
            Posting.objects.create(
                transaction=txn, account=usd_available, currency="USD", amount_minor=-5
            )
        check_deferred_constraints()
    assert snapshot() == before


def test_an_unbalanced_transaction_is_refused_by_postgresql():
    user = funded(100)
    available = account(user)
    before = snapshot()
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        txn = LedgerTransaction.objects.create(kind="demo_grant", currency="DEMO")
        Posting.objects.create(transaction=txn, account=available, currency="DEMO", amount_minor=5)
        check_deferred_constraints()
    assert snapshot() == before


def test_a_zero_posting_is_refused_by_postgresql():
    user = funded(100)
    with pytest.raises(IntegrityError, match="posting_amount_nonzero"), transaction.atomic():
        txn = LedgerTransaction.objects.create(kind="demo_grant", currency="DEMO")
        Posting.objects.create(
            transaction=txn, account=account(user), currency="DEMO", amount_minor=0
        )


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE market_posting SET amount_minor = amount_minor + 1",
        "DELETE FROM market_posting",
        "UPDATE market_ledgertransaction SET memo = 'rewritten'",
        "DELETE FROM market_ledgertransaction",
    ],
)
def test_the_ledger_is_append_only(statement):
    funded(100)
    before = snapshot()
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(statement)
    assert snapshot() == before


def test_the_orm_cannot_rewrite_a_posting_either():
    funded(100)
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        Posting.objects.update(amount_minor=1)
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        Posting.objects.all().delete()


def test_recording_on_an_unlocked_user_account_is_a_bug():
    user = funded(100)
    available, held = account(user), account(user, HELD)
    before = snapshot()
    with pytest.raises(RuntimeError, match="not locked"), transaction.atomic():
        record_transaction(
            kind=Kind.BID_HOLD,
            currency=Currency.DEMO,
            legs=[(available, -10), (held, 10)],
            locked={},
        )
    assert snapshot() == before


def test_record_transaction_uses_the_locked_balance_not_a_stale_copy():
    user = funded(100)
    stale = account(user)  # balance 100
    grant_demo_credits(user=user, amount_minor=50)
    with transaction.atomic():
        locked = lock_accounts([stale, account(user, HELD)])
        record_transaction(
            kind=Kind.BID_HOLD,
            currency=Currency.DEMO,
            legs=[(stale, -150), (account(user, HELD), 150)],
            locked=locked,
        )
    assert (balance(user), balance(user, HELD)) == (0, 150)
    check_deferred_constraints()


def test_an_idempotency_key_moves_money_once():
    user = funded(1_000)
    legs_ = [(account(user), -100), (account(user, HELD), 100)]
    first = transfer(kind=Kind.BID_HOLD, currency=Currency.DEMO, legs=legs_, idempotency_key="k1")
    before = snapshot()
    again = transfer(kind=Kind.BID_HOLD, currency=Currency.DEMO, legs=legs_, idempotency_key="k1")
    assert again.pk == first.pk and snapshot() == before
    assert balance(user, HELD) == 100


def test_get_user_accounts_creates_only_the_missing_ones():
    user = funded(100)
    existing = account(user)
    got = get_user_accounts(keys=[(user.pk, HELD), (user.pk, AVAILABLE)], currency=Currency.DEMO)
    assert got[(user.pk, AVAILABLE)].pk == existing.pk
    assert got[(user.pk, HELD)].kind == HELD and got[(user.pk, HELD)].balance_minor == 0
    assert Account.objects.filter(owner=user).count() == 2


def test_account_kind_must_match_its_owner():
    user = UserFactory()
    with pytest.raises(IntegrityError, match="account_kind_matches_owner"), transaction.atomic():
        Account.objects.create(owner=user, currency="DEMO", kind=AccountKind.FEES)
    with pytest.raises(IntegrityError, match="account_kind_matches_owner"), transaction.atomic():
        Account.objects.create(owner=None, currency="DEMO", kind=AccountKind.AVAILABLE)
