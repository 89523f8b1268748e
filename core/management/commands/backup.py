"""python manage.py backup FILE: the whole database to FILE (pg_dump's custom format, or a SQLite copy)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from core.backup import BackupError, backup


class Command(BaseCommand):
    help = "Back up the whole database to a file (restore it with `manage.py restore FILE --yes`)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="where to write the backup (replaced atomically if it exists)")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.parent.is_dir():
            raise CommandError(f"{path.parent} is not a folder")
        applied = MigrationRecorder(connection).migration_qs.count()
        try:
            size = backup(path)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"Backed up the {connection.vendor} database ({applied} migrations applied) to {path}: {size:,} bytes"
        )
