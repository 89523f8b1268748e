"""Reads survive whatever is stored. PostgreSQL keeps timestamps Python
cannot hold (before year 1, e.g. year 1 at +14:00 stored as 1 BC, or after
9999); psycopg refuses to load them and every list showing such a row would
fail. On every PostgreSQL connection the timestamptz loader is wrapped so an
out-of-range value loads as the nearest date Python can hold (shown as is:
``0001-01-02`` or ``9999-12-30``). Nothing new gets in: the edge refuses
dates outside 2000..2100."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def clamp_out_of_range_timestamps(sender: Any, connection: Any, **kwargs: Any) -> None:
    if connection.vendor != "postgresql":
        return
    from psycopg import DataError
    from psycopg.postgres import types
    from psycopg.pq import Format

    adapters = connection.connection.adapters
    oid = types["timestamptz"].oid
    base = adapters.get_loader(oid, Format.TEXT)
    if base is None or getattr(base, "clamps", False):
        return

    class Clamping(base):  # type: ignore[valid-type,misc]
        clamps = True

        def load(self, data: Any) -> Any:
            try:
                return super().load(data)
            except DataError:
                value = EARLIEST if bytes(data).rstrip().endswith(b"BC") else LATEST
                tz = getattr(self, "timezone", UTC)
                return value.replace(tzinfo=tz)

    adapters.register_loader("timestamptz", Clamping)
