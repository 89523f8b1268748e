"""Reads survive whatever is stored. PostgreSQL keeps timestamps Python
cannot hold (before year 1, e.g. year 1 at +14:00 stored as 1 BC, or after
9999); psycopg refuses to load them and every list showing such a row would
fail. On every PostgreSQL connection the timestamptz loader is wrapped so an
out-of-range value loads as the nearest date Python can hold (shown as is:
``0001-01-02`` or ``9999-12-30``). Nothing new gets in: the edge refuses
dates outside 2000..2100."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from django.db.models import Field, Lookup

EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def clamp_out_of_range_timestamps(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Also the faster parse: Django's timestamptz loader subclasses psycopg's
    pure-Python one (about 6 us a value); this one calls psycopg's own loader,
    its C implementation with ``psycopg[binary]`` (about 1 us), and sets the
    zone as Django's does. A poll chunk reads about five timestamps a Spark."""
    if connection.vendor != "postgresql":
        return
    import psycopg
    from psycopg import DataError, abc
    from psycopg.adapt import Loader
    from psycopg.postgres import types
    from psycopg.pq import Format

    adapters = connection.connection.adapters
    oid = types["timestamptz"].oid
    django_loader = adapters.get_loader(oid, Format.TEXT)
    found = psycopg.adapters.get_loader(oid, Format.TEXT)
    if django_loader is None or found is None or getattr(django_loader, "clamps", False):
        return
    parser: type[abc.Loader] = found

    class Clamping(Loader):
        clamps = True
        # Django's ``create_cursor`` registers its own loader on a cursor whose zone differs from this one.
        timezone = getattr(django_loader, "timezone", UTC)

        def __init__(self, oid: int, context: Any = None) -> None:
            super().__init__(oid, context)
            self._parse = parser(oid, context).load

        def load(self, data: Any) -> Any:
            try:
                value = self._parse(data)
            except DataError:
                value = EARLIEST if bytes(data).rstrip().endswith(b"BC") else LATEST
            return value.replace(tzinfo=self.timezone)

    adapters.register_loader("timestamptz", Clamping)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def array_literal(values: Iterable[Any], kind: str | None = None) -> str:
    """``values`` as a PostgreSQL array literal, to send as ONE text parameter
    (cast in the statement, ``%s::bigint[]``): psycopg dumps a list parameter
    element by element in Python, several times the CPU of joining the text.
    ``kind`` ("int", "text", "time") says what every element is (or None),
    else it is worked out: None (NULL), bools, ints, floats, datetimes and
    strings (any ``str``, e.g. a ``StrEnum`` member, as its text, quoted, its
    backslashes and double quotes escaped). The literal is a bound parameter,
    never part of the statement."""
    items = values if isinstance(values, list) else list(values)
    if kind is None:
        kinds = {type(v) for v in items}
        kinds.discard(type(None))
        if kinds <= {int}:
            kind = "int"
        elif all(issubclass(k, str) for k in kinds):
            kind = "text"
        elif kinds <= {datetime}:
            kind = "time"
    if kind == "int":
        body = ",".join("NULL" if v is None else str(v) for v in items)
    elif kind == "text":
        body = ",".join("NULL" if v is None else _quoted(v) for v in items)
    elif kind == "time":
        body = ",".join("NULL" if v is None else '"' + v.isoformat() + '"' for v in items)
    else:
        parts = []
        for v in items:
            if v is None:
                parts.append("NULL")
            elif isinstance(v, bool):
                parts.append("t" if v else "f")
            elif isinstance(v, int | float):
                parts.append(repr(v))
            else:
                parts.append(_quoted(v.isoformat() if isinstance(v, datetime) else str(v)))
        body = ",".join(parts)
    return "{" + body + "}"


class AnyOf(Lookup):  # type: ignore[type-arg]
    """``field__any_of=[...]``: ``field IN (...)`` sent as ``field = ANY(%s::type[])``
    with one text parameter on PostgreSQL (``array_literal``). Django's ``__in``
    writes a placeholder per value, which the driver then splits and quotes one
    by one on the client: for the poll round's lists of hundreds of ids that
    costs more CPU than the statement. Other databases get ``__in``'s SQL.
    Give a set where the list is long: Django resolves a list's or a tuple's
    values one by one before any lookup sees them, a set it passes as it is."""

    lookup_name = "any_of"

    def get_db_prep_lookup(self, value: Any, connection: Any) -> tuple[str, list[Any]]:
        field = self.lhs.output_field
        if _target(field).get_internal_type() in _INTEGERS:
            values = [int(v) for v in value]  # what an integer field's prep does, without a call per value
        else:
            values = [field.get_db_prep_value(v, connection, prepared=False) for v in value]
        return "%s", [values]

    def get_prep_lookup(self) -> Any:
        return list(self.rhs)

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        _, (values,) = self.get_db_prep_lookup(self.rhs, connection)
        if connection.vendor == "postgresql":
            kind = _target(self.lhs.output_field).rel_db_type(connection)  # bigint, not bigserial, for an id
            return f"{lhs} = ANY(%s::{kind}[])", [*lhs_params, array_literal(values)]
        if not values:
            return "1 = 0", list(lhs_params)
        return f"{lhs} IN ({', '.join(['%s'] * len(values))})", [*lhs_params, *values]


def _target(field: Any) -> Any:
    """The field whose values a lookup compares: a relation's target field."""
    return field.target_field if field.is_relation else field


# Fields whose value prep is int(value) (ForeignKey to an integer key included, by its target's type).
_INTEGERS = frozenset({"AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField",
                       "SmallIntegerField", "PositiveIntegerField", "PositiveBigIntegerField",
                       "PositiveSmallIntegerField"})  # fmt: skip


def any_of_register() -> None:
    from django.db.models.fields.related import ForeignObject

    Field.register_lookup(AnyOf)
    ForeignObject.register_lookup(AnyOf)  # relations take only their own lookups (ids, not instances)
