"""The migrated database every PostgreSQL test database of ``./run test`` is
copied from (``FLEET_TEST_DB_TEMPLATE``; Django's ``TEST["TEMPLATE"]``):
``python -m tests.support.db_template create NAME`` migrates a new database
NAME on ``DATABASE_URL``'s server, ``drop NAME`` removes it. Each test process
then copies it in a second instead of applying every migration (about 20 s of
CPU each, and ``./run test`` starts seven). The template is analysed before
it is copied: a copy counts no change of its own, so autovacuum never
analyses it, and without the template's statistics every query of the suite
would be planned on none."""

from __future__ import annotations

import os
import re
import sys
from urllib.parse import urlsplit, urlunsplit

import psycopg

_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def _on(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def _admin(url: str) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(_on(url, "postgres"), autocommit=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("create", "drop") or not _NAME.fullmatch(argv[1]):
        print("usage: python -m tests.support.db_template create|drop NAME", file=sys.stderr)
        return 2
    action, name = argv
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print("DATABASE_URL is not PostgreSQL: no template", file=sys.stderr)
        return 2
    with _admin(url) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        if action == "drop":
            return 0
        admin.execute(f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = _on(url, name)
    os.environ.pop("FLEET_TEST_DB_TEMPLATE", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fleet.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    # A copy keeps the template's planner statistics but counts no change of its own, so
    # autovacuum would never analyse it: without this, every test database runs on none.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
