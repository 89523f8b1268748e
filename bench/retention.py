"""Time raw-poll retention and weigh the stored polls, at several fleet sizes.

For each size N, a lab of N Sparks gets one UTC day of polls every 30 s
(2,880 rows per Spark, each a copy of a real parsed poll of a simulated
Spark, written with one INSERT ... SELECT), twice: once into that day's
partition and once into a day that has no partition (so it sits in the default
partition, as rows did before partitioning). ``telemetry.retention.downsample``
then folds both days into five-minute aggregates; the partitioned day is
dropped whole, the other is deleted row by row, in the same run: the ratio
is what partitioning saves. Bytes per Spark per day are the day partition's
size on disk with its indexes, divided by N; the twin sets the polls point at
(``telemetry.TwinSet``: one per Spark here, their twins never change) are
weighed apart, since they are stored once, not every day. Above
``--row-delete-max`` Sparks only the partition path runs (the row-by-row one
takes hours there: it is the same code, measured at the smaller sizes).

PostgreSQL only (SQLite has no partitions: it deletes rows). Runs in a
throwaway database made like the test database:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sparkfleet .venv/bin/python bench/retention.py [--sizes 100,300]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import bench_var_dir, paired_lab  # noqa: E402 - bench/ is the script's own folder

bench_var_dir("fleet-bench-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fleet.settings")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from core.actor import Actor  # noqa: E402
from inventory.labio import lab_import  # noqa: E402
from inventory.models import Spark  # noqa: E402
from simfleet.simulator import SparkModel, _link_networks, make_nodes  # noqa: E402
from telemetry import partitions, retention, sample_rows  # noqa: E402
from telemetry.models import NodeAggregate, NodeSample, NodeState, TwinSet  # noqa: E402
from telemetry.parsers import parse_poll_output  # noqa: E402
from telemetry.sample import PollResult  # noqa: E402

POLL_S = 30
PARTITIONED_DAY = datetime(2026, 6, 7, tzinfo=UTC)  # gets a partition
UNPARTITIONED_DAY = datetime(2026, 5, 7, tzinfo=UTC)  # no partition: the default one holds it


def lab(count: int) -> dict:
    """The simulated fleet's names (``make_nodes``), cabled in pairs."""
    return paired_lab([n.name for n in make_nodes(count, topology="pairs")])


def fill_day(day: datetime) -> int:
    """One row per Spark at ``day``'s first second (real parsed polls), copied every 30 s over the day."""
    nodes = make_nodes(Spark.objects.count(), topology="pairs")
    names = sorted(Spark.objects.values_list("name", flat=True))
    ids = dict(Spark.objects.values_list("name", "pk"))
    networks, everyone = _link_networks(nodes), [n.name for n in nodes]  # the fleet's cabling, worked out once
    rows = []
    for node, name in zip(nodes, names, strict=True):
        sample = parse_poll_output(SparkModel(node, networks, everyone, seed=1).output())
        result = PollResult(
            name=name,
            at=day,
            reachable=True,
            sample=sample,
            error="",
            host_key="ssh-ed25519 AAAA",
            host_key_status="ok",
            duration_ms=40.0,
        )
        rows.append(sample_rows.sample_values(ids[name], result, "ok"))
    sample_rows.twin_sets_ensure(sample_rows.twin_sets_of(rows), now=day)  # one statement for the fleet's sets
    NodeSample.objects.bulk_create([sample_rows.sample_row(r) for r in rows], batch_size=1000)
    cols = [f.column for f in NodeSample._meta.concrete_fields if f.column not in ("id", "at")]
    listed = ", ".join(cols)
    with connection.cursor() as c:
        c.execute(
            f"INSERT INTO {partitions.TABLE} ({listed}, at) "  # noqa: S608 - column names from the model
            f"SELECT {listed}, gs.at FROM {partitions.TABLE} t, "
            "generate_series(%s::timestamptz + interval '30 seconds', %s::timestamptz - interval '30 seconds', "
            "interval '30 seconds') AS gs(at) WHERE t.at = %s",
            [day, day + timedelta(days=1), day],
        )
    return NodeSample.objects.filter(at__gte=day, at__lt=day + timedelta(days=1)).count()


def size_of(table: str) -> int:
    with connection.cursor() as c:
        c.execute("SELECT pg_total_relation_size(%s::regclass)", [table])
        return int(c.fetchone()[0])


def one_size(count: int, row_delete: bool) -> dict[str, Any]:
    t0 = time.perf_counter()
    with transaction.atomic():
        lab_import(actor=Actor(source="command"), data=lab(count))
    with transaction.atomic(), connection.cursor() as c:
        partitions.day_partition_create(c, PARTITIONED_DAY.date())
    rows = fill_day(PARTITIONED_DAY)
    if row_delete:
        fill_day(UNPARTITIONED_DAY)
    with connection.cursor() as c:
        c.execute("VACUUM ANALYZE " + partitions.TABLE)
    day_bytes = size_of(partitions.partition_name(PARTITIONED_DAY.date()))
    set_bytes = size_of(TwinSet._meta.db_table)
    fill_s = time.perf_counter() - t0

    # The row-by-row path first (the day in the default partition), then the partition drop.
    rows_s = None
    if row_delete:
        t0 = time.perf_counter()
        by_rows = retention.downsample(now=UNPARTITIONED_DAY + timedelta(days=3))
        rows_s = time.perf_counter() - t0
        assert by_rows.folded == rows, (by_rows, rows)
    t0 = time.perf_counter()
    by_partition = retention.downsample(now=PARTITIONED_DAY + timedelta(days=3))
    partition_s = time.perf_counter() - t0
    assert by_partition.folded == rows, (by_partition, rows)
    assert by_partition.partitions_dropped >= 1
    assert not NodeSample.objects.filter(at__lt=PARTITIONED_DAY + timedelta(days=1)).exists()
    for model in (NodeAggregate, NodeState, NodeSample, TwinSet, Spark):
        model.objects.all().delete()
    return {"rows": rows, "day_bytes": day_bytes, "set_bytes": set_bytes, "rows_s": rows_s,
            "partition_s": partition_s, "fill_s": fill_s}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,300")
    parser.add_argument("--row-delete-max", type=int, default=1000, help="largest size the row-by-row path runs at")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("bench/retention.py needs PostgreSQL: set DATABASE_URL (SQLite keeps rows in one table)")
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        print(
            f"python {platform.python_version()} on {platform.machine()}, postgresql, one day of polls every {POLL_S} s"
        )
        print(
            f"{'Sparks':>7} {'rows':>11} {'bytes/Spark/day':>16} {'sets B/Spark':>13} {'row delete':>11} "
            f"{'partition drop':>15} {'ratio':>6} {'us/row (drop)':>14} {'fill':>7}"
        )
        for count in (int(s) for s in args.sizes.split(",")):
            r = one_size(count, count <= args.row_delete_max)
            rows_s = f"{r['rows_s']:>10.1f}s" if r["rows_s"] is not None else f"{'-':>11}"
            ratio = f"{r['rows_s'] / r['partition_s']:>6.2f}" if r["rows_s"] is not None else f"{'-':>6}"
            print(
                f"{count:>7,} {r['rows']:>11,} {r['day_bytes'] / count:>16,.0f} {r['set_bytes'] / count:>13,.0f} "
                f"{rows_s} {r['partition_s']:>14.1f}s {ratio} {r['partition_s'] / r['rows'] * 1e6:>14.1f} "
                f"{r['fill_s']:>6.0f}s",
                flush=True,
            )
    finally:
        connection.creation.destroy_test_db(test_db, verbosity=0)


if __name__ == "__main__":
    main()
