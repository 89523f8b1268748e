"""python manage.py restore FILE --yes: replace the whole database with a backup, then migrate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.backup import BackupError, kind_of, restore


class Command(BaseCommand):
    help = (
        "Replace the whole database with a backup made by `manage.py backup` (all or nothing), then apply "
        "migrations so a backup from an older release reaches the current schema. Stop web, worker and beat first."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a backup made by `manage.py backup`")
        parser.add_argument("--yes", action="store_true", help="confirm: everything now in the database is replaced")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            kind = kind_of(path)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        if not options["yes"]:
            raise CommandError(f"{path} is a {kind} backup; add --yes to replace everything in the database with it")
        try:
            restore(path)
        except BackupError as exc:
            raise CommandError(f"nothing was changed: {exc}") from exc
        self.stdout.write(f"Restored {path}; applying migrations ...")
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("Done: the database is the backup's, at the current schema.")
