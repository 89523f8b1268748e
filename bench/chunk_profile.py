"""Where a warm poll chunk's CPU goes, fetch to committed rows, in one worker-like process.

Simulated Sparks (``simfleet``) in a separate process, the fleet registered as
``bench/fleet_round.py`` registers it (same database), then
``telemetry.poll_round.poll_and_store`` on one chunk with pooled connections,
as a worker runs it: a first call opens the connections, then ``--rounds``
warm calls are timed (CPU of this process, both threads: the SSH loop's and
Django's), then as many are profiled with cProfile (the Django thread). The
floor in the same run: the bare asyncssh loop on the same connections'
Sparks (``poll_fleet.py``'s Floor), warm.

    .venv/bin/python bench/chunk_profile.py --nodes 250 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import multiprocessing
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import fleet_round  # noqa: E402 - bench/ is the script's own folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--cold", action="store_true", help="print the first call's profile too")
    parser.add_argument("--database", default=fleet_round.DEFAULT_DB)
    parser.add_argument("--broker", default=fleet_round.DEFAULT_BROKER)
    args = parser.parse_args()
    args.interval, args.chunk, args.ssh_concurrency, args.shards = 60, args.nodes, 128, 0
    fleet_round._raise_nofile()
    var = ROOT / "var" / "bench"
    var.mkdir(parents=True, exist_ok=True)
    fleet_round.setup_django(args, var, tempfile.mkdtemp(prefix="fleet-metrics-"))

    from simfleet.simulator import make_nodes
    from telemetry import poll_round
    from telemetry.keys import client_key_ensure

    public = client_key_ensure(var / "fleet_ssh_key")
    names = [n.name for n in make_nodes(args.nodes)]
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    proc = multiprocessing.get_context("spawn").Process(
        target=fleet_round._serve, args=(names, args.nodes, public, str(var / "host-keys"), theirs), daemon=True
    )
    proc.start()
    try:
        if not ours.poll(300):
            raise SystemExit("the simulator did not start")
        endpoints = ours.recv()
        ids = fleet_round.register(args.nodes, endpoints)[: args.nodes]
        fleet_round.activate(ids, args.nodes)
        from telemetry.models import NodeState, SoftwareState

        # A worker's first round: no connection, no software read yet (what a fresh fleet's first round does).
        SoftwareState.objects.filter(spark_id__in=ids).delete()
        NodeState.objects.filter(spark_id__in=ids).update(last_poll_at=None, last_sample_at=None, latest=None)
        cold = cProfile.Profile()
        t = time.process_time()
        cold.enable()
        poll_round.poll_and_store(spark_ids=ids, pooled=True)  # opens the connections
        cold.disable()
        cold_cpu = time.process_time() - t
        cpu, own = [], []
        for _ in range(args.rounds):  # timed without the profiler
            t, d = time.process_time(), time.thread_time()
            report = poll_round.poll_and_store(spark_ids=ids, pooled=True)
            cpu.append(time.process_time() - t)
            own.append(time.thread_time() - d)
            assert report.stored == args.nodes, report.as_dict()
        # CPU time, not wall time: waiting for the database or the SSH thread is not counted.
        profiler = cProfile.Profile(time.thread_time)
        for _ in range(args.rounds):  # then profiled (the profiler inflates what it shows)
            profiler.enable()
            poll_round.poll_and_store(spark_ids=ids, pooled=True)
            profiler.disable()
        endpoints.sort(key=lambda e: names.index(e[0]))
        passes, _ = asyncio.run(fleet_round.floor_warm(endpoints, str(var / "fleet_ssh_key"), 128, passes=3))
        floor = sorted(passes, key=lambda f: f[1])[1]  # the median pass
        product = statistics.median(cpu) * 1000 / args.nodes
        floor_ms = floor[1] * 1000 / args.nodes
        print(f"chunk of {args.nodes}, {args.rounds} warm calls of poll_and_store (CPU of this process, median):")
        print(f"  product {product:.3f} ms per Spark, floor {floor_ms:.3f} ms per Spark: {product / floor_ms:.2f}x")
        django = statistics.median(own) * 1000 / args.nodes
        print(f"  of which this (Django) thread {django:.3f} ms, the SSH loop's thread {product - django:.3f} ms")
        first = cold_cpu * 1000 / args.nodes
        print(f"  the first call (every connection new, every software read): {first:.3f} ms per Spark")
        out = io.StringIO()
        if args.cold:
            pstats.Stats(cold, stream=out).sort_stats("cumulative").print_stats(r"telemetry|core|inventory", args.top)
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("cumulative").print_stats(r"telemetry|core|inventory", args.top)
        stats.sort_stats("tottime").print_stats(args.top)
        print(out.getvalue())
    finally:
        ours.send("stop")
        proc.join(30)


if __name__ == "__main__":
    main()
