"""The reference model's ledger batch (moved from market/services/ledger.py)."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

from market.models import Account, LedgerTransaction
from market.services.ledger import Leg, check_postings


@dataclasses.dataclass
class LedgerBatch:
    """Ledger transactions checked one by one now, written together afterwards.

    For the reference model (tests/market/dev_engine/engine.py): :meth:`add` applies
    the rules of :func:`check_postings` and updates the locked balances in memory, in order, so the
    batch is exactly the sequence of :func:`record_transaction` calls it replaces; the
    caller writes the rows (see tests/market/dev_engine/writes.py). ``transaction_ids`` are
    allocated by the caller (from the sequences) before the batch is filled.
    """

    currency: str
    locked: dict[int, Account]
    transaction_ids: list[int]
    transactions: list[tuple[int, str, str]] = dataclasses.field(default_factory=list)
    postings: list[tuple[int, int, int]] = dataclasses.field(default_factory=list)
    deltas: dict[int, int] = dataclasses.field(default_factory=lambda: defaultdict(int))

    def add(self, *, kind: LedgerTransaction.Kind, legs: Sequence[Leg], memo: str) -> int:
        """Check and add one transaction; return its (pre-allocated) id."""
        postings = check_postings(currency=self.currency, legs=legs, locked=self.locked)
        txn_id = self.transaction_ids[len(self.transactions)]
        self.transactions.append((txn_id, kind, memo[:200]))
        for pk, amount in sorted(postings.items()):
            self.postings.append((txn_id, pk, amount))
            if pk in self.locked:
                self.deltas[pk] += amount
                self.locked[pk].balance_minor += amount
        return txn_id
