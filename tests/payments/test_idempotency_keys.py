"""once_per_key: a deposit, withdrawal or refund is made once per user and idempotency key
(shown with deposits; the three services' replay tests go through it too)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from market.payments.models import Deposit
from market.payments.services.idempotency_keys import once_per_key
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _deposit(user, key: str | None) -> Deposit:
    with transaction.atomic():
        return Deposit.objects.create(user=user, amount_minor=1_000, idempotency_key=key)


def _replayed(existing: Deposit) -> Deposit:
    existing.checkout_url = "replayed"
    return existing


def test_a_used_key_replays_its_row_and_creates_nothing():
    user = UserFactory()
    first = _deposit(user, "k1")

    again = once_per_key(
        Deposit, user_id=user.pk, key="k1", create=lambda: _deposit(user, "k1"), replay=_replayed
    )

    assert (again.pk, again.checkout_url) == (first.pk, "replayed")
    assert Deposit.objects.filter(user=user).count() == 1


def test_without_a_key_or_with_a_new_one_each_call_creates():
    user, other = UserFactory(), UserFactory()
    _deposit(other, "k1")  # another user's key is not this user's

    made = [
        once_per_key(Deposit, user_id=user.pk, key=key, create=lambda k=key: _deposit(user, k),
                     replay=_replayed)
        for key in (None, None, "k1")
    ]  # fmt: skip

    assert len({deposit.pk for deposit in made}) == 3
    assert [deposit.checkout_url for deposit in made] == ["", "", ""]


def test_a_request_that_loses_the_race_for_a_key_replays_the_winners_row():
    user = UserFactory()
    winner: list[Deposit] = []

    def create_after_the_winner() -> Deposit:
        # The other request commits its row between our look-up and our insert.
        winner.append(_deposit(user, "k1"))
        return _deposit(user, "k1")

    got = once_per_key(
        Deposit, user_id=user.pk, key="k1", create=create_after_the_winner, replay=_replayed
    )

    assert (got.pk, got.checkout_url) == (winner[0].pk, "replayed")
    assert Deposit.objects.filter(user=user).count() == 1


def test_an_integrity_error_with_no_row_of_the_key_is_raised():
    user = UserFactory()

    def broken() -> Deposit:
        with transaction.atomic():
            return Deposit.objects.create(user=user, amount_minor=-1, idempotency_key="k2")

    with pytest.raises(IntegrityError):
        once_per_key(Deposit, user_id=user.pk, key="k2", create=broken, replay=_replayed)


def test_an_integrity_error_without_a_key_is_raised_not_answered_with_a_keyless_row():
    user = UserFactory()
    _deposit(user, None)  # an earlier deposit made without a key

    def broken() -> Deposit:
        with transaction.atomic():
            return Deposit.objects.create(user=user, amount_minor=-1, idempotency_key=None)

    with pytest.raises(IntegrityError):
        once_per_key(Deposit, user_id=user.pk, key=None, create=broken, replay=_replayed)
    assert Deposit.objects.filter(user=user).count() == 1
