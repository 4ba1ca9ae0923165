"""Load the demo problems, the practice bot, its DEMO funds and its standing bids (idempotent)."""

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Load the demo problems and the practice bot (idempotent: a second run changes nothing)."

    def handle(self, *args: object, **options: object) -> None:
        from market.demo.loader import load_demo_problems
        from market.services.bot import refresh_practice_bids

        report = load_demo_problems()
        bids = refresh_practice_bids()
        self.stdout.write(
            f"Demo problems: {report.problems_created} created, "
            f"{report.versions_published} verifier versions published, "
            f"{report.unchanged} unchanged; practice bot bidding on {bids} problems."
        )
