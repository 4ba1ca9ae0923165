from django.apps import AppConfig


class VerifiersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "verifiers"
