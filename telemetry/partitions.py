"""Samples in day partitions on PostgreSQL, so retention drops a day instead
of deleting its rows one by one.

``telemetry_nodesample`` is partitioned by range of ``at`` (migration
``telemetry.0004``): one partition per UTC day, ``telemetry_nodesample_pYYYYMMDD``,
made a few days ahead by the hourly retention task (``partitions_ensure``), and
a default partition that takes whatever falls outside them (rows older than the
first day partition, or a day nobody made in time: it is moved out of the
default partition when its day partition is made). The primary key is
``(id, at)``; ids still come from one sequence, so ``id`` stays unique.

On SQLite (the embedded default) the table is a plain table and retention
deletes rows, as before; ``partitioned()`` tells which.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.db import connection
from django.db.backends.utils import CursorWrapper

TABLE = "telemetry_nodesample"
DEFAULT = f"{TABLE}_default"
DAYS_AHEAD = 3  # today and the next days always have their partition


@dataclass(frozen=True)
class DayPartition:
    name: str
    day: date

    @property
    def start(self) -> datetime:
        return datetime(self.day.year, self.day.month, self.day.day, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(days=1)


def partition_name(day: date) -> str:
    return f"{TABLE}_p{day:%Y%m%d}"


def partitioned() -> bool:
    """Whether the samples table is partitioned (PostgreSQL after telemetry.0004)."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_partitioned_table WHERE partrelid = %s::regclass", [TABLE])
        return cursor.fetchone() is not None


def day_partitions(cursor: CursorWrapper | None = None) -> list[DayPartition]:
    """The day partitions there are, oldest first (not the default one)."""

    def read(c: CursorWrapper) -> list[DayPartition]:
        c.execute(
            "SELECT child.relname FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid "
            "WHERE pg_inherits.inhparent = %s::regclass",
            [TABLE],
        )
        prefix = f"{TABLE}_p"
        days = [
            datetime.strptime(name[len(prefix) :], "%Y%m%d").date()
            for (name,) in c.fetchall()
            if name.startswith(prefix)
        ]
        return [DayPartition(partition_name(d), d) for d in sorted(days)]

    if cursor is not None:
        return read(cursor)
    with connection.cursor() as c:
        return read(c)


def day_partition_create(cursor: CursorWrapper, day: date) -> bool:
    """Make ``day``'s partition if it is missing, moving its rows out of the
    default partition first (attaching checks that none is left there).
    Run inside a transaction. True when it was made."""
    name = partition_name(day)
    cursor.execute("SELECT to_regclass(%s)", [name])
    if cursor.fetchone()[0] is not None:
        return False
    part = DayPartition(name, day)
    cursor.execute(f'CREATE TABLE "{name}" (LIKE "{TABLE}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)')
    # Every name in these statements is a constant or a date (no text from a request).
    cursor.execute(
        f'WITH moved AS (DELETE FROM "{DEFAULT}" WHERE at >= %s AND at < %s RETURNING *) '  # noqa: S608
        f'INSERT INTO "{name}" SELECT * FROM moved',
        [part.start, part.end],
    )
    cursor.execute(
        f'ALTER TABLE "{TABLE}" ATTACH PARTITION "{name}" FOR VALUES FROM (%s) TO (%s)', [part.start, part.end]
    )
    return True


def partitions_ensure(*, now: datetime, days_ahead: int = DAYS_AHEAD) -> int:
    """Today's partition and the next ``days_ahead`` days'; how many were made."""
    from django.db import transaction

    today = now.astimezone(UTC).date()
    made = 0
    for offset in range(days_ahead + 1):
        with transaction.atomic(), connection.cursor() as cursor:
            made += day_partition_create(cursor, today + timedelta(days=offset))
    return made


def partition_drop_keeping(cursor: CursorWrapper, part: DayPartition, keep: set[int]) -> int:
    """Drop a day partition whose rows were folded; the rows in ``keep`` (nodes'
    latest polls) are put back through the parent, into the default partition,
    with their ids. Run inside a transaction. Returns the rows put back."""
    name = part.name  # a date's name, no text from a request
    cursor.execute(f'CREATE TEMPORARY TABLE kept_samples ON COMMIT DROP AS SELECT * FROM "{name}" WHERE false')  # noqa: S608
    if keep:
        cursor.execute(f'INSERT INTO kept_samples SELECT * FROM "{name}" WHERE id = ANY(%s)', [sorted(keep)])  # noqa: S608
    # Deferred foreign-key checks of rows written earlier in this transaction are
    # run now: a table with pending checks cannot be dropped.
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    cursor.execute(f'DROP TABLE "{name}"')
    cursor.execute(f'INSERT INTO "{TABLE}" SELECT * FROM kept_samples')  # noqa: S608
    put_back = int(cursor.rowcount)
    cursor.execute("DROP TABLE kept_samples")
    return put_back
