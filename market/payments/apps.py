from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "market.payments"
    label = "payments"

    def ready(self) -> None:
        # config/celery.py autodiscovers market.tasks only: register ours here.
        from market.payments import tasks  # noqa: F401
