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

from django.db.models import Field, Lookup

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


class AnyOf(Lookup):  # type: ignore[type-arg]
    """``field__any_of=[...]``: ``field IN (...)`` sent as ``field = ANY(%s)`` with
    one array parameter on PostgreSQL. Django's ``__in`` writes a placeholder
    per value, which the driver then splits and quotes one by one on the
    client: for the poll round's lists of hundreds of ids that costs more CPU
    than the statement. Other databases get ``__in``'s SQL."""

    lookup_name = "any_of"

    def get_db_prep_lookup(self, value: Any, connection: Any) -> tuple[str, list[Any]]:
        field = self.lhs.output_field
        values = [field.get_db_prep_value(v, connection, prepared=False) for v in value]
        return "%s", [values]

    def get_prep_lookup(self) -> Any:
        return list(self.rhs)

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        _, (values,) = self.get_db_prep_lookup(self.rhs, connection)
        if connection.vendor == "postgresql":
            return f"{lhs} = ANY(%s)", [*lhs_params, values]
        if not values:
            return "1 = 0", list(lhs_params)
        return f"{lhs} IN ({', '.join(['%s'] * len(values))})", [*lhs_params, *values]


def any_of_register() -> None:
    from django.db.models.fields.related import ForeignObject

    Field.register_lookup(AnyOf)
    ForeignObject.register_lookup(AnyOf)  # relations take only their own lookups (ids, not instances)
