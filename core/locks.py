"""The per-Spark lock every writer that takes Sparks for something holds
until its commit: a booking, a serving, a fabric verification, a delete."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

# Namespace of the per-Spark advisory locks (pg_advisory_xact_lock(int, int)).
LOCK_SPACE = 0x5BF1


def lock_sparks(spark_ids: Iterable[int]) -> None:
    """PostgreSQL: hold each Spark's lock until commit, taken in id order so
    that two writers never wait on each other in a circle. Call it inside the
    transaction that checks and then takes the Sparks."""
    if connection.vendor != "postgresql":
        return  # SQLite: BEGIN IMMEDIATE already holds the only write lock
    with connection.cursor() as cursor:
        for pk in sorted(set(spark_ids)):
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s::int)", [LOCK_SPACE, pk])
