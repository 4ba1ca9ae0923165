"""/api/v1/ routes. Ids in paths are positive integers of at most 18 digits (a larger number
could not be a row id, and must be a 404, not a database error)."""

from django.urls import URLPattern, URLResolver, include, path, register_converter

from market.api import author_views as author
from market.api import solution_views as solutions
from market.api import views
from market.api.index_view import ApiIndexView


class IdConverter:
    regex = "[1-9][0-9]{0,17}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

app_name = "api"

urlpatterns: list[URLPattern | URLResolver] = [
    path("", ApiIndexView.as_view(), name="index"),
    # Activity feed and webhooks (owned by the activity app).
    path("", include("activity.api.urls")),
    path("me/", views.MeView.as_view(), name="me"),
    path("tokens/", views.TokenListView.as_view(), name="token-list"),
    path("tokens/<id:pk>/", views.TokenDetailView.as_view(), name="token-detail"),
    path("problems/", views.ProblemListView.as_view(), name="problem-list"),
    path("problems/<id:pk>/", views.ProblemDetailView.as_view(), name="problem-detail"),
    path("problems/<id:pk>/book/", views.OrderBookView.as_view(), name="problem-book"),
    path("problems/<id:pk>/trades/", views.ProblemTradesView.as_view(), name="problem-trades"),
    path("verifiers/<id:pk>/", views.VerifierDetailView.as_view(), name="verifier-detail"),
    path("solutions/", solutions.SolutionListView.as_view(), name="solution-list"),
    path("solutions/<id:pk>/", solutions.SolutionDetailView.as_view(), name="solution-detail"),
    path(
        "solutions/<id:pk>/status/",
        solutions.SolutionStatusView.as_view(),
        name="solution-status",
    ),
    path("orders/", views.OrderListView.as_view(), name="order-list"),
    path("orders/<id:pk>/", views.OrderDetailView.as_view(), name="order-detail"),
    path("orders/<id:pk>/cancel/", views.OrderCancelView.as_view(), name="order-cancel"),
    path("trades/", views.MyTradeListView.as_view(), name="my-trades"),
    path("account/balances/", views.BalanceView.as_view(), name="balances"),
    path("account/ledger/", views.LedgerView.as_view(), name="ledger"),
    path("author/problems/", author.AuthorProblemListView.as_view(), name="author-problem-list"),
    path(
        "author/problems/<id:pk>/",
        author.AuthorProblemDetailView.as_view(),
        name="author-problem-detail",
    ),
    path(
        "author/problems/<id:pk>/publish/",
        author.AuthorProblemPublishView.as_view(),
        name="author-problem-publish",
    ),
    path(
        "author/problems/<id:pk>/retire/",
        author.AuthorProblemRetireView.as_view(),
        name="author-problem-retire",
    ),
    path(
        "author/problems/<id:pk>/verifiers/",
        author.AuthorVerifierCreateView.as_view(),
        name="author-verifier-create",
    ),
    path(
        "author/verifiers/<id:pk>/",
        author.AuthorVerifierDetailView.as_view(),
        name="author-verifier-detail",
    ),
    path(
        "author/verifiers/<id:pk>/dry-runs/",
        author.AuthorDryRunView.as_view(),
        name="author-verifier-dry-runs",
    ),
    path(
        "author/dry-runs/<id:pk>/",
        author.AuthorDryRunDetailView.as_view(),
        name="author-dry-run-detail",
    ),
    path(
        "author/verifiers/<id:pk>/publish/",
        author.AuthorVerifierPublishView.as_view(),
        name="author-verifier-publish",
    ),
    path(
        "author/verifiers/<id:pk>/retire/",
        author.AuthorVerifierRetireView.as_view(),
        name="author-verifier-retire",
    ),
    # USD deposits, withdrawals, Connect onboarding, balances (owned by market.payments).
    path("payments/", include("market.payments.api.urls")),
]
