"""Writing a chunk's sample rows and node states in one statement each.

A poll round stores every Spark of a chunk at once. Django's ``bulk_create``
binds every value of every row as a parameter (about 20 a row) and builds
the statement in Python; on PostgreSQL the rows go in with one ``COPY``
instead (ids drawn from the table's sequence in one query first, since a
``COPY`` returns none), and the node states change with one ``UPDATE ...
FROM unnest(...)`` of arrays, a parameter per column whatever the chunk's
size. SQLite (the embedded default) keeps ``bulk_create`` and one
``executemany`` of plain UPDATEs.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Any

from django.db import connection, transaction

from core.db import array_literal
from telemetry.models import NodeSample, NodeState, TwinSet
from telemetry.sample import PollResult, Sample

# The sample columns a poll writes, in COPY order (``id`` is drawn first).
SAMPLE_COLUMNS = (
    "spark_id", "at", "reachable", "error", "duration_ms", "status",
    "mem_total_bytes", "mem_available_bytes", "mem_used_bytes", "swap_total_bytes", "swap_free_bytes",
    "psi_full_avg10", "gpu_util_pct", "gpu_temp_c", "gpu_power_w", "load1", "uptime_s", "twins_up",
    "twin_set_id", "errors", "processes", "disk_total_bytes", "disk_free_bytes",
)  # fmt: skip
_JSON = frozenset({"errors", "processes"})
_TWIN_SET_AT = SAMPLE_COLUMNS.index("twin_set_id")

# The node state columns a poll writes (see ``states_update``).
STATE_COLUMNS = ("status", "latest_id", "last_poll_at", "last_sample_at", "presented_key", "key_status", "boot_at")
_STATE_FIELDS = ("status", "latest", "last_poll_at", "last_sample_at", "presented_key", "key_status", "boot_at")
_STATE_TYPES = ("text", "bigint", "timestamptz", "timestamptz", "text", "text", "timestamptz")


def plain(value: Any) -> Any:
    """A choice (``HealthStatus``, ``KeyStatus``) as its stored text: drivers
    may write an Enum member by its name."""
    return value.value if isinstance(value, Enum) else value


def twin_pack(sample: Sample | None) -> list[list[Any]] | None:
    from telemetry.models import TWIN_FIELDS

    if sample is None or sample.twins is None:
        return None
    return [[getattr(t, f) if f != "addresses" else list(t.addresses) for f in TWIN_FIELDS] for t in sample.twins]


def twin_set_key(text: str) -> int:
    """A twin set's key: the first 64 bits of BLAKE2b over its JSON text, as a
    signed bigint. Two different lists share a key with a chance of about
    n^2 / 2^65 for n distinct lists (1e-10 for a hundred thousand)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True)


# Each Spark's last twins as parsed, with their JSON text and set key: a pooled
# poller hands over the same parsed twins while a Spark's link texts do not
# change (``parsers.ParseMemo``), so a steady fleet's twins are packed and
# hashed once.
_packed: dict[int, tuple[object, str, int]] = {}


def _twin_set_of(spark_id: int, sample: Sample | None) -> tuple[int, str] | None:
    """(key, JSON text) of this poll's twins; None when it read none."""
    if sample is None or sample.twins is None:
        return None
    seen = _packed.get(spark_id)
    if seen is not None and seen[0] is sample.twins:
        return seen[2], seen[1]
    text = json.dumps(twin_pack(sample))
    key = twin_set_key(text)
    _packed[spark_id] = (sample.twins, text, key)
    return key, text


# Twin sets this process knows are stored, with when it last said so (time.monotonic):
# a store names a known set without a statement, and tells the database again (its
# ``used_at``) once ``TWIN_SET_REFRESH_S`` have passed. Entries are added only once
# the transaction that stored them commits; a flush of the tables (tests) empties it.
TWIN_SET_REFRESH_S = 600.0
_twin_sets_known: dict[int, float] = {}


def twin_sets_forget(**_: Any) -> None:
    """Forget which twin sets are stored (after a database flush: ``post_migrate``)."""
    _twin_sets_known.clear()


def twin_sets_of(rows: Sequence[tuple[Any, ...]]) -> dict[int, str]:
    """The twin sets (key -> JSON text) these rows (``sample_values``) point at."""
    sets = {}
    for row in rows:
        key = row[_TWIN_SET_AT]
        if key is not None:
            _, text, packed_key = _packed[row[0]]
            if packed_key != key:  # rows are stored as they are built, a Spark's poll at a time
                raise RuntimeError(f"Spark {row[0]}: its twins changed between building its row and storing it")
            sets[key] = text
    return sets


def twin_sets_ensure(sets: dict[int, str], *, now: datetime) -> int:
    """Make sure these twin sets (key -> JSON text) are stored and their
    ``used_at`` is recent: one statement for those this process has not
    confirmed within ``TWIN_SET_REFRESH_S``, none when it has. Returns how
    many were written."""
    clock = time.monotonic()
    # In key order: two chunks sharing sets (unaddressed Sparks can read the same twins) lock them alike.
    due = {
        k: sets[k] for k in sorted(sets) if clock - _twin_sets_known.get(k, -TWIN_SET_REFRESH_S) >= TWIN_SET_REFRESH_S
    }
    if not due:
        return 0
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(TwinSet._meta.db_table)
        with connection.cursor() as cursor:
            # Names from the model's metadata; keys, texts and the time are parameters.
            cursor.execute(
                f"INSERT INTO {table} (id, twins, used_at) "  # noqa: S608
                "SELECT k, t::jsonb, %s FROM unnest(%s::bigint[], %s::text[]) AS v(k, t) ORDER BY k "
                "ON CONFLICT (id) DO UPDATE SET used_at = EXCLUDED.used_at",
                [now, array_literal(list(due)), array_literal(list(due.values()))],
            )
    else:
        TwinSet.objects.bulk_create(
            [TwinSet(id=k, twins=json.loads(t), used_at=now) for k, t in due.items()],
            update_conflicts=True, unique_fields=["id"], update_fields=["used_at"],
        )  # fmt: skip
    transaction.on_commit(lambda: _twin_sets_known.update(dict.fromkeys(due, clock)))
    return len(due)


def _json(value: Any) -> str:
    """A JSON column's text (no parse error, the usual case, without encoding)."""
    return "[]" if value == [] else json.dumps(value)


def process_pack(sample: Sample | None) -> list[list[Any]] | None:
    if sample is None or sample.processes is None:
        return None
    return [[p.pid, p.used_mib, p.name[:200], p.user] for p in sample.processes[:64]]


def sample_values(spark_id: int, result: PollResult, status: str) -> tuple[Any, ...]:
    """One poll as the values of ``SAMPLE_COLUMNS`` (JSON columns as Python lists)."""
    sample = result.sample
    memory = sample.memory if sample else None
    gpu = sample.gpu if sample else None
    twins = sample.twins if sample else None
    return (
        spark_id,
        result.at,
        result.reachable,
        result.error[:500],
        result.duration_ms,
        plain(status),
        memory.total_bytes if memory else None,
        memory.available_bytes if memory else None,
        memory.used_bytes if memory else None,
        memory.swap_total_bytes if memory else None,
        memory.swap_free_bytes if memory else None,
        memory.psi_full_avg10 if memory else None,
        gpu.util_pct if gpu else None,
        gpu.temp_c if gpu else None,
        gpu.power_w if gpu else None,
        sample.load1 if sample else None,
        sample.uptime_s if sample else None,
        sum(1 for t in twins if t.up) if twins is not None else None,
        twin_set[0] if (twin_set := _twin_set_of(spark_id, sample)) is not None else None,
        [e[:300] for e in (sample.errors if sample else ())][:20],
        process_pack(sample),
        disk.total_bytes if (disk := sample.disk if sample else None) else None,
        disk.free_bytes if disk else None,
    )


def sample_row(values: tuple[Any, ...]) -> NodeSample:
    """The model instance of ``sample_values`` (what the generic path saves)."""
    fields = dict(zip(SAMPLE_COLUMNS, values, strict=True))
    return NodeSample(**fields)


def samples_insert(rows: Sequence[tuple[Any, ...]], *, now: datetime) -> list[int]:
    """Insert the rows (``sample_values``) and return their ids, in order; their
    twin sets are stored first where this process does not know them stored."""
    if not rows:
        return []
    twin_sets_ensure(twin_sets_of(rows), now=now)
    if connection.vendor != "postgresql":
        created = NodeSample.objects.bulk_create([sample_row(r) for r in rows], batch_size=500)
        ids = [row.pk for row in created]
        if any(pk is None for pk in ids):  # a backend that cannot return ids from a bulk insert
            ids = [NodeSample.objects.get(spark_id=r[0], at=r[1]).pk for r in rows]
        return ids
    table = connection.ops.quote_name(NodeSample._meta.db_table)
    json_at = [i for i, name in enumerate(SAMPLE_COLUMNS) if name in _JSON]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [NodeSample._meta.db_table, len(rows)],
        )
        ids = [pk for (pk,) in cursor.fetchall()]
        # Names come from the model's metadata; values go through COPY's own encoding.
        columns = ", ".join(connection.ops.quote_name(c) for c in ("id", *SAMPLE_COLUMNS))
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for pk, values in zip(ids, rows, strict=True):
                out = list(values)
                for i in json_at:
                    if out[i] is not None:
                        out[i] = _json(out[i])
                copy.write_row((pk, *out))
    return ids


def states_update(rows: Sequence[tuple[Any, ...]]) -> None:
    """Write (spark id, *STATE_COLUMNS) of each node: one statement."""
    if not rows:
        return
    meta = NodeState._meta
    quote = connection.ops.quote_name
    table, key = quote(meta.db_table), quote(str(meta.pk.column))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            assignments = ", ".join(f"{quote(c)} = v.{quote(c)}" for c in STATE_COLUMNS)
            arrays = ", ".join(f"%s::{t}[]" for t in ("bigint", *_STATE_TYPES))
            names = ", ".join(quote(c) for c in ("spark", *STATE_COLUMNS))
            # Each column as one array literal: a text parameter, not a list psycopg dumps value by value
            # (the choices are str enums: written as their text).
            kinds = {"bigint": "int", "text": "text", "timestamptz": "time"}
            columns = [
                array_literal(list(column), kinds[t])
                for column, t in zip(zip(*rows, strict=True), ("bigint", *_STATE_TYPES), strict=True)
            ]
            # Only names from the model's own metadata are interpolated; values are parameters.
            cursor.execute(
                f"UPDATE {table} AS s SET {assignments} FROM unnest({arrays}) AS v({names}) "  # noqa: S608
                f"WHERE s.{key} = v.{quote('spark')}",
                columns,
            )
            return
        fields = [meta.get_field(name) for name in _STATE_FIELDS]
        assignments = ", ".join(f"{quote(c)} = %s" for c in STATE_COLUMNS)
        sql = f"UPDATE {table} SET {assignments} WHERE {key} = %s"  # noqa: S608
        params = [
            [f.get_db_prep_save(plain(v), connection) for f, v in zip(fields, row[1:], strict=True)] + [row[0]]  # type: ignore[union-attr]
            for row in rows
        ]
        cursor.executemany(sql, params)
