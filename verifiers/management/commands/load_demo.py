"""Load the demo problems (idempotent). Placeholder until the demo set lands."""

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Load the demo problems and the practice bot (idempotent)."

    def handle(self, *args: object, **options: object) -> None:
        self.stdout.write("No demo problems yet.")
