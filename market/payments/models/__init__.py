"""Real money through Stripe: webhook events, deposits, disputes, connected accounts,
withdrawals and the hold window of USD sale proceeds.

The ledger (market.models.ledger) holds the balances; these rows hold the Stripe side of each
movement and the state machines around it. Every row that moves money points at the ledger
transaction that moved it."""

from market.payments.models.deposits import (
    STRIPE_DISPUTE_CLOSED_STATUSES,
    STRIPE_DISPUTE_OPEN_STATUSES,
    Deposit,
    DepositRefund,
    DepositStatus,
    Dispute,
    DisputeStatus,
    RefundStatus,
    StripeEvent,
)
from market.payments.models.payouts import (
    ConnectedAccount,
    ProceedsHold,
    Withdrawal,
    WithdrawalStatus,
)
from market.payments.models.provenance import (
    DisputeLotTaking,
    FundsLot,
    ReconciliationRun,
    SaleReversal,
    TradeFunding,
    TransferReversal,
    TransferReversalStatus,
    WithdrawalFunding,
)

__all__ = [
    "StripeEvent",
    "DepositStatus",
    "Deposit",
    "DisputeStatus",
    "STRIPE_DISPUTE_OPEN_STATUSES",
    "STRIPE_DISPUTE_CLOSED_STATUSES",
    "Dispute",
    "RefundStatus",
    "DepositRefund",
    "ConnectedAccount",
    "WithdrawalStatus",
    "Withdrawal",
    "ProceedsHold",
    "FundsLot",
    "TradeFunding",
    "DisputeLotTaking",
    "SaleReversal",
    "ReconciliationRun",
    "WithdrawalFunding",
    "TransferReversal",
    "TransferReversalStatus",
]
