"""A typed client for the FormalMarket REST API (standard library only).

from formalmarket_client import FormalMarketClient
fm = FormalMarketClient("http://127.0.0.1:8000", token="fm_...")
solution = fm.submit("demo-factor-391", "17 23", wait_s=25)  # held until the verdict
verdict = fm.wait(solution, timeout=60)
"""

from formalmarket_client.client import FormalMarketClient
from formalmarket_client.errors import (
    ApiError,
    AuthenticationError,
    Conflict,
    FormalMarketError,
    InsufficientFunds,
    InvalidRequest,
    MoneyArgumentError,
    NotFound,
    PermissionDenied,
    ServerError,
    Throttled,
    TransportError,
    VerdictTimeout,
)
from formalmarket_client.models import (
    Balance,
    Book,
    BookLevel,
    Event,
    EventPage,
    Fill,
    Order,
    Page,
    Problem,
    Solution,
    Trade,
    Verdict,
    VerifierInfo,
)
from formalmarket_client.money import Money

__all__ = [
    "ApiError",
    "AuthenticationError",
    "Balance",
    "Book",
    "BookLevel",
    "Conflict",
    "Event",
    "EventPage",
    "Fill",
    "FormalMarketClient",
    "FormalMarketError",
    "InsufficientFunds",
    "InvalidRequest",
    "Money",
    "MoneyArgumentError",
    "NotFound",
    "Order",
    "Page",
    "PermissionDenied",
    "Problem",
    "ServerError",
    "Solution",
    "Throttled",
    "Trade",
    "TransportError",
    "Verdict",
    "VerdictTimeout",
    "VerifierInfo",
]
