"""Time the reads that carry each group's measured fabric (the topology
pages, /api/groups, /metrics) with stored verifications, against the same
reads of the same lab before any verification was stored.

Every group's measured exchange comes from its latest finished verification
(``fabric.selectors.measured_exchanges``: one query for all the groups,
which loads each latest run's parsed result to find the nodes whose NCCL
chose TCP sockets). The cost depends on the number of groups and on how
many runs each group keeps, so the labs are the topology benchmark's at two
sizes (1,024 and 5,120 Sparks: 204 and 1,020 groups) and each group keeps 1,
then 20 runs. Each group's latest run is stored through the product's own path: a
verification started as ``manage.py verify`` starts one, its command answered
by the simulated fleet's nccl-tests (``simfleet.nccl_answers``, every rank's
"Using network" lines included) and judged as the task judges it; the
earlier runs of a history are copies of it, an hour apart.

The baseline, measured in the same run, is each read on the same lab with
no verification stored; the figures are ratios to it.

    .venv/bin/python bench/fabric_reads.py [--repeats N]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from common import django_client, median_seconds  # noqa: E402 - bench/ is the script's own folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZES = {
    1024: {"switched": 80, "rings": 70, "pairs": 50, "singles": 4},
    5120: {"switched": 400, "rings": 350, "pairs": 250, "singles": 20},
}
HISTORY = (1, 20)


def report(what: dict[str, object], base: dict[str, float], base_q: dict[str, tuple[int, int]], columns: list) -> None:
    """The table: each read's time with no runs, then with each history, as a ratio to it."""
    print(f"{'read':22} {'no runs':>9}" + "".join(f" {f'{h} run(s) a group':>24}" for h, *_ in columns))
    for name in what:
        line = f"{name:22} {base[name] * 1000:6.1f} ms"
        for _, _, got, got_q in columns:
            ratio = got[name] / base[name] if base[name] else float("nan")
            grew = "" if got_q[name][0] == base_q[name][0] else f" q{base_q[name][0]}>{got_q[name][0]}"
            line += f" {got[name] * 1000:7.1f} ms {ratio:5.2f} x{grew:>7}"
        print(line)
    pages = [name for name in what if not callable(what[name])]
    sizes = ", ".join(f"{n} {base_q[n][1] / 1024:.0f} > {columns[-1][3][n][1] / 1024:.0f} KB" for n in pages)
    print(f"  sizes (no runs > {columns[-1][0]} a group): {sizes}")
    grew = [n for n in what if any(got_q[n][0] != base_q[n][0] for *_, got_q in columns)]
    print(f"  queries grow with the history: {'NO' if not grew else 'YES: ' + ', '.join(grew)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    client: Any = django_client("bench-fabric-", "lab-admin")

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core.actor import Actor
    from fabric.models import FabricRun
    from fabric.selectors import measured_exchanges
    from fabric.services import _judged, verification_start
    from inventory.labio import lab_import
    from inventory.models import Cable, NodeGroup, NodeGroupMember, Spark, Switch
    from simfleet.labgen import lab_document
    from simfleet.nccl_answers import nccl_answer

    def reads(switched: int) -> dict[str, object]:
        ids = list(NodeGroup.objects.filter(auto=True, retired_at__isnull=True).values_list("pk", flat=True))
        return {
            "/topology/": "/topology/",
            "/groups/<switched>/": f"/groups/{switched}/",
            "/api/groups": "/api/groups",
            "/metrics": "/metrics",
            "measured_exchanges()": lambda: measured_exchanges(ids),
        }

    def call(what: object) -> tuple[int, int]:
        """(queries, bytes) of one read."""
        with CaptureQueriesContext(connection) as ctx:
            if callable(what):
                out = what()
                size = len(out)
            else:
                response = client.get(what)
                assert response.status_code == 200, (what, response.status_code)
                size = len(response.content)
        return len(ctx), size

    def timed(what: object) -> float:
        if callable(what):
            return median_seconds(what, args.repeats)
        return median_seconds(lambda: client.get(what), args.repeats)

    def store_runs(groups: list[NodeGroup], count: int) -> float:
        """Each group's latest verification (once), then ``count`` - 1 earlier
        ones, an hour apart, copies of it; the seconds it took."""
        start = time.perf_counter()
        fields = [f.attname for f in FabricRun._meta.concrete_fields if f.attname != "id"]
        for group in groups:
            latest = FabricRun.objects.filter(group=group).order_by("-finished_at").first()
            if latest is None:
                run = verification_start(actor=Actor(source="command"), group_id=group.pk, queue=False)
                hosts = [n["host"] for n in run.nodes]
                answer = nccl_answer(run.command, {h: set() for h in hosts}, {}, row_s=0.0)
                assert answer is not None and answer.exit_status == 0, run.command
                latest = _judged(run, "".join(text for _, text in answer.chunks), "")
                assert latest.status == FabricRun.Status.DONE, latest.error
                count -= 1
            have = FabricRun.objects.filter(group=group).count()
            earlier = []
            for i in range(have, have + count):
                copy = FabricRun(**{name: getattr(latest, name) for name in fields})
                copy.finished_at = latest.finished_at - timedelta(hours=i)
                earlier.append(copy)
            FabricRun.objects.bulk_create(earlier)
        return time.perf_counter() - start

    print(f"python {platform.python_version()} on {platform.machine()}, SQLite, {args.repeats} repeats, median")
    for sparks, shape in SIZES.items():
        for model in (FabricRun, Cable, Spark, Switch, NodeGroupMember, NodeGroup):
            model.objects.all().delete()
        lab_import(actor=Actor(source="import"), data=lab_document(**shape, prefix="spark"))
        assert Spark.objects.count() == sparks, Spark.objects.count()
        groups = list(NodeGroup.objects.filter(auto=True, retired_at__isnull=True).exclude(kind="single"))
        switched = next(g.pk for g in groups if g.kind == "switched")
        what = reads(switched)
        client.get("/topology/")  # the analysed fleet cached, as on a warm server
        base = {name: timed(w) for name, w in what.items()}
        base_q = {name: call(w) for name, w in what.items()}
        kept = 0
        columns = []
        for history in HISTORY:
            took = store_runs(groups, history - kept)
            kept = history
            got = {name: timed(w) for name, w in what.items()}
            got_q = {name: call(w) for name, w in what.items()}
            columns.append((history, took, got, got_q))
        runs = FabricRun.objects.count()
        print(f"\nlab: {sparks} Sparks, {len(groups)} groups verified; {runs} runs stored at the end")
        for history, took, _, _ in columns:
            print(f"  {history:>2} run(s) a group stored in {took:5.1f} s")
        report(what, base, base_q, columns)


if __name__ == "__main__":
    main()
