from market.models.ledger import Account, AccountKind, LedgerTransaction, Posting
from market.models.orders import Entitlement, Order, OrderSide, OrderStatus, Trade
from market.models.problems import Problem, ProblemStatus, Solution, SolutionStatus, VerdictRecord

__all__ = [
    "Account",
    "AccountKind",
    "Entitlement",
    "LedgerTransaction",
    "Order",
    "OrderSide",
    "OrderStatus",
    "Posting",
    "Problem",
    "ProblemStatus",
    "Solution",
    "SolutionStatus",
    "Trade",
    "VerdictRecord",
]
