"""PostgreSQL's timestamps load as Django loads them, through psycopg's own
(C) parser, and a value Python cannot hold loads clamped instead of failing."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.postgres,
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").split(":")[0] not in ("postgres", "postgresql"),
        reason="the loader is PostgreSQL's",
    ),
]


def _loader() -> type:
    from psycopg.postgres import types
    from psycopg.pq import Format

    connection.ensure_connection()
    return connection.connection.adapters.get_loader(types["timestamptz"].oid, Format.TEXT)


def test_timestamps_load_aware_in_utc_to_the_microsecond_as_sent():
    sent = [
        datetime(2026, 12, 2, 1, 3, 36, 365350, tzinfo=UTC),
        datetime(2000, 1, 1, tzinfo=UTC),
        datetime(2027, 3, 28, 0, 30, tzinfo=UTC) + timedelta(microseconds=1),
    ]
    with connection.cursor() as cursor:
        cursor.execute("SELECT unnest(%s::timestamptz[])", [sent])
        got = [row[0] for row in cursor.fetchall()]
    assert got == sent
    assert all(value.tzinfo is UTC for value in got)


def test_out_of_range_timestamps_load_clamped_through_a_cursor():
    with connection.cursor() as cursor:
        cursor.execute("SELECT '0001-01-01T00:00:00+14:00'::timestamptz, 'infinity'::timestamptz")
        early, late = cursor.fetchone()
    assert (early, late) == (datetime(1, 1, 2, tzinfo=UTC), datetime(9999, 12, 30, tzinfo=UTC))


def test_the_loader_parses_with_psycopgs_own_and_keeps_djangos_zone():
    import psycopg
    from psycopg.postgres import types
    from psycopg.pq import Format

    loader = _loader()
    assert getattr(loader, "clamps", False)
    # Django's create_cursor compares this zone with the connection's before putting its own loader back.
    assert loader.timezone == connection.timezone
    parser = psycopg.adapters.get_loader(types["timestamptz"].oid, Format.TEXT)
    with connection.cursor() as cursor:
        used = cursor.cursor.adapters.get_loader(types["timestamptz"].oid, Format.TEXT)
        assert used is loader
        assert type(loader(types["timestamptz"].oid, cursor.cursor)._parse.__self__) is parser
