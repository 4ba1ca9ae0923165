"""Payments API routes. Mounted at /payments/api/; can also be included under /api/v1/."""

from django.urls import URLPattern, URLResolver, path

from market.payments.api import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("usd/", views.UsdSummaryView.as_view(), name="api-usd"),
    path("usd/history/", views.UsdHistoryView.as_view(), name="api-usd-history"),
    path("deposits/", views.DepositListView.as_view(), name="api-deposits"),
    path(
        "deposits/<int:deposit_id>/refund/",
        views.DepositRefundView.as_view(),
        name="api-deposit-refund",
    ),
    path("refunds/", views.DepositRefundListView.as_view(), name="api-refunds"),
    path("withdrawals/", views.WithdrawalListView.as_view(), name="api-withdrawals"),
    path("connect/", views.ConnectView.as_view(), name="api-connect"),
    path(
        "connect/onboarding/", views.ConnectOnboardingView.as_view(), name="api-connect-onboarding"
    ),
]
