"""Backups of the whole database with the engine's own tools, and restores
that are all or nothing.

- PostgreSQL: ``pg_dump --format=custom`` (the client must be the server's
  major version or newer). A restore replays the dump with ``psql`` in ONE
  transaction that first empties the schema: it either replaces everything
  or changes nothing. The password goes to the tools in ``PGPASSWORD``,
  never on a command line.
- SQLite: the online backup API (a consistent copy while the app runs); a
  restore copies the backup's pages into the live file the same way.

After a restore, ``migrate`` brings a backup taken by an older release up to
the current schema (``manage.py restore`` runs it). No app import: the
tables are whatever the migrations made.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from django.db import connection

PG_MAGIC = b"PGDMP"
SQLITE_MAGIC = b"SQLite format 3\x00"


class BackupError(Exception):
    """A backup or restore that cannot be done, said in words."""


def _pg(settings: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """Connection arguments and environment for the PostgreSQL client tools."""
    args = ["--dbname", str(settings["NAME"])]
    if settings.get("HOST"):
        args += ["--host", str(settings["HOST"])]
    if settings.get("PORT"):
        args += ["--port", str(settings["PORT"])]
    if settings.get("USER"):
        args += ["--username", str(settings["USER"])]
    env = {**os.environ, "PGCONNECT_TIMEOUT": "10"}
    if settings.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings["PASSWORD"])
    return args, env


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(f"{name} is not installed: install the PostgreSQL client (Debian: postgresql-client)")
    return found


def _run(argv: list[str], env: dict[str, str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    run = subprocess.run(argv, env=env, capture_output=True, check=False, **kwargs)  # noqa: S603 - fixed tools, no shell
    if run.returncode != 0:
        raise BackupError(f"{Path(argv[0]).name} failed: {run.stderr.decode(errors='replace').strip()[-800:]}")
    return run


def backup(path: Path) -> int:
    """Write the whole database to ``path`` (atomically: a partial file never has its name). Returns its size."""
    settings = connection.settings_dict
    partial = path.with_name(path.name + ".partial")
    try:
        if connection.vendor == "postgresql":
            args, env = _pg(settings)
            _run(
                [_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", "--file", str(partial), *args],
                env,
            )
        elif connection.vendor == "sqlite":
            source = sqlite3.connect(str(settings["NAME"]))
            target = sqlite3.connect(str(partial))
            try:
                source.backup(target)
            finally:
                target.close()
                source.close()
        else:
            raise BackupError(f"backups of {connection.vendor} are not built")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path.stat().st_size


def kind_of(path: Path) -> str:
    with path.open("rb") as handle:
        head = handle.read(16)
    if head.startswith(PG_MAGIC):
        return "postgresql"
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    raise BackupError(f"{path} is not a Spark Fleet backup (neither a pg_dump custom archive nor a SQLite file)")


def restore(path: Path) -> None:
    """Replace the whole database with the backup at ``path``: everything, or (on any error) nothing."""
    kind = kind_of(path)
    if kind != connection.vendor:
        raise BackupError(f"{path} is a {kind} backup; this database is {connection.vendor}")
    settings = connection.settings_dict
    connection.close()
    if kind == "postgresql":
        args, env = _pg(settings)
        script = _run([_tool("pg_restore"), "--no-owner", "--no-privileges", "--file", "-", str(path)], env).stdout
        prelude = b"DROP SCHEMA public CASCADE;\nCREATE SCHEMA public;\n"
        psql = [_tool("psql"), "--no-psqlrc", "--quiet", "--single-transaction", "-v", "ON_ERROR_STOP=1", *args]
        _run(psql, env, input=prelude + script)
    else:
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            # A damaged or truncated backup is refused before anything is copied.
            (verdict,) = source.execute("PRAGMA quick_check").fetchone()
            if verdict != "ok":
                raise BackupError(f"{path} is damaged: {verdict}")
            target = sqlite3.connect(str(settings["NAME"]))
            try:
                source.backup(target)  # one step, in one write transaction of the live file
            finally:
                target.close()
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{path} cannot be read as a database: {exc}") from exc
        finally:
            source.close()
