"""Time the Django side of a poll round: storing 1,000 poll results.

``bench/poll_fleet.py`` measures fetching and parsing; this measures what
follows, ``telemetry.services.results_store`` (sample rows, host key notes,
health rules, alert sync, link rules, node state) for a 1,000-Spark lab cabled
in pairs, against a bare baseline in the same run: one ``bulk_create`` of the
same 1,000 sample rows and nothing else. Results are real parser output of
simulated Sparks (``render_poll_output``), one in ten with a down twin so
alerts open and stay open. Rounds after the first are the steady state
(alerts already open, refreshed, none duplicated).

Runs in a throwaway database made like the test database (``test_`` prefix
for PostgreSQL, a file under a temp dir for SQLite):

    .venv/bin/python bench/poll_store.py [--nodes 1000] [--rounds 5]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sparkfleet .venv/bin/python bench/poll_store.py
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import bench_var_dir, paired_lab  # noqa: E402 - bench/ is the script's own folder

if "DATABASE_URL" not in os.environ:
    bench_var_dir("fleet-bench-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fleet.settings")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402

from core.actor import Actor  # noqa: E402
from inventory.labio import lab_import  # noqa: E402
from inventory.models import Spark  # noqa: E402
from simfleet.simulator import make_nodes, render_poll_output  # noqa: E402
from telemetry import services  # noqa: E402
from telemetry.expectations import expectations_cached  # noqa: E402
from telemetry.models import Alert, NodeSample  # noqa: E402
from telemetry.parsers import parse_poll_output  # noqa: E402
from telemetry.sample import PollResult  # noqa: E402


def lab(count: int) -> dict:
    """The simulated fleet's names (``make_nodes``), cabled in pairs."""
    return paired_lab([n.name for n in make_nodes(count, topology="pairs")])


def results_at(samples: dict[str, object], at: datetime) -> list[PollResult]:
    return [
        PollResult(
            name=name,
            at=at,
            reachable=True,
            sample=sample,
            error="",
            host_key="ssh-ed25519 AAAA",
            host_key_status="ok",
            duration_ms=40.0,
        )
        for name, sample in samples.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions of the steady rounds")
    args = parser.parse_args()
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        with transaction.atomic():
            lab_import(actor=Actor(source="command"), data=lab(args.nodes))
        nodes = make_nodes(args.nodes, topology="pairs")
        for node in nodes[::10]:
            node.faults = {"twin-down"}
        samples = {n.name: parse_poll_output(render_poll_output(nodes, n.name, seed=1)) for n in nodes}
        start = datetime.now(UTC) - timedelta(hours=1)

        store_s = []
        profiler = cProfile.Profile()
        for round_no in range(args.rounds):
            at = start + timedelta(seconds=30 * round_no)
            batch = results_at(samples, at)
            profiling = args.profile and round_no > 0
            t0 = time.perf_counter()
            if profiling:
                profiler.enable()
            # As a worker's chunk: the expectations kept per inventory version (one query when unchanged).
            expectations = expectations_cached(list(Spark.objects.values_list("pk", flat=True)))
            report = services.results_store(results=batch, now=at + timedelta(seconds=1), expectations=expectations)
            if profiling:
                profiler.disable()
            store_s.append(time.perf_counter() - t0)
            assert report.stored == args.nodes, report
        open_alerts = Alert.objects.filter(ended_at=None).count()

        spark_ids = dict(Spark.objects.values_list("name", "pk"))
        base_s = []
        for round_no in range(args.rounds):
            at = start + timedelta(seconds=30 * (round_no + args.rounds))
            batch = results_at(samples, at)
            rows = [services._sample_row(Spark(pk=spark_ids[r.name]), r, "ok") for r in batch]
            t0 = time.perf_counter()
            with transaction.atomic():
                NodeSample.objects.bulk_create(rows)
            base_s.append(time.perf_counter() - t0)

        first, steady = store_s[0], statistics.median(store_s[1:] or store_s)
        base = statistics.median(base_s)
        print(
            f"python {platform.python_version()} on {platform.machine()}, {connection.vendor}, "
            f"{args.rounds} rounds of {args.nodes} results"
        )
        print(
            f"results_store, first round:  {first * 1000:8.1f} ms  ({first / args.nodes * 1e6:7.1f} us per node; "
            f"opens {open_alerts} alerts)"
        )
        print(f"results_store, steady state: {steady * 1000:8.1f} ms  ({steady / args.nodes * 1e6:7.1f} us per node)")
        print(f"baseline bulk_create only:   {base * 1000:8.1f} ms  ({base / args.nodes * 1e6:7.1f} us per node)")
        print(f"ratio (steady / baseline):   {steady / base:8.1f} x")
        print(f"share of a 30 s poll interval: {steady / 30 * 100:.2f} %")
        if args.profile:
            print(f"cProfile of the {args.rounds - 1} steady rounds (cumulative time, with the profiler's overhead):")
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(args.profile)
    finally:
        connection.creation.destroy_test_db(test_db, verbosity=0)


if __name__ == "__main__":
    main()
