"""Write market/sql/engine/<routine>.sql from the migrated database (files kept by hand since)."""

from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = (
        "Write one .sql file per routine of the schema engine of the connected, migrated "
        "database into market/sql/engine/ (pg_get_functiondef). Refuses to overwrite a file "
        "unless --force."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="overwrite existing files")

    def handle(self, *args: object, **options: object) -> None:
        from django.db import connection

        from market.engine_sql import SQL_DIR, live_definitions

        with connection.cursor() as cursor:
            definitions = live_definitions(cursor)
        SQL_DIR.mkdir(parents=True, exist_ok=True)
        written = 0
        for name, definition in definitions.items():
            path = SQL_DIR / f"{name}.sql"
            # A file kept by hand carries a header of why-comments the database does not have.
            if path.exists() and not options["force"]:
                continue
            path.write_text(definition)
            written += 1
        self.stdout.write(f"{written} of {len(definitions)} routines written to {SQL_DIR}.")
