"""/payments/: the Stripe webhook, the USD panel's forms and return pages, and the API."""

from django.urls import URLPattern, URLResolver, include, path

from market.payments import views

app_name = "payments"

urlpatterns: list[URLPattern | URLResolver] = [
    path("webhooks/stripe/", views.stripe_webhook, name="stripe-webhook"),
    path("deposit/", views.deposit, name="deposit"),
    path("deposit/return/", views.deposit_return, name="deposit-return"),
    path("deposit/cancelled/", views.deposit_cancelled, name="deposit-cancelled"),
    path("withdraw/", views.withdraw, name="withdraw"),
    path("refund/", views.refund, name="refund"),
    path("connect/", views.connect_start, name="connect-start"),
    path("connect/refresh/", views.connect_refresh, name="connect-refresh"),
    path("connect/return/", views.connect_return, name="connect-return"),
    path("api/", include("market.payments.api.urls")),
]
