from typing import Any

from django.apps import AppConfig


class MarketConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "market"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_login_failed

        # Failed password checks also count against the client's address (login_guard).
        user_login_failed.connect(_count_address_failure, dispatch_uid="market-login-guard-address")


def _count_address_failure(
    sender: Any, credentials: Any, request: Any = None, **kwargs: Any
) -> None:
    from market.login_guard import note_address_failure

    note_address_failure(request=request)
