"""Time the plan page and POST /api/plans on a 1,024-Spark lab, with query counts.

The lab is the one bench/topology_page.py uses (80 switched groups of 8 on
CRS804s by breakout, 70 rings of 4, 50 direct pairs, 4 lone Sparks; every
fifth Spark 64 GB), imported through the product's lab import into a fresh
SQLite database in a temporary directory. One input: Llama-3.3-70B on a
switched group of 8, context 32,768, 8 streams, throughput goal, vLLM.
Requests go through Django's test client (no network, no browser), so the
time is the server's, rendering included. Query counts are taken on the
17-Spark demo lab and again on the 1,024-Spark lab: they must not grow. The
baseline, in the same run, is the Spark list page (50 rows a page).

    .venv/bin/python bench/plan_page.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import django_client, median_seconds  # noqa: E402 - bench/ is the script's own folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INPUT = {"model": "llama-3.3-70b", "context_tokens": 32768, "concurrency": 8, "goal": "throughput", "engine": "vllm"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--scale", type=int, default=1, help="the big lab at this many times 1,024 Sparks")
    args = parser.parse_args()

    client: Any = django_client("bench-plans-", "member")

    import yaml
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core.actor import Actor
    from inventory.labio import lab_import
    from inventory.models import Cable, NodeGroup, NodeGroupMember, Spark, Switch
    from placement.selectors import groupspec_for
    from simfleet.labgen import lab_document

    def requests(node: str) -> dict[str, Callable[[], object]]:
        gid = NodeGroup.objects.get(members__spark__name=node, auto=True, retired_at__isnull=True).pk
        query = "&".join(f"{k}={v}" for k, v in {**INPUT, "group": gid}.items())
        body = json.dumps({**INPUT, "group": gid})
        names = sorted(NodeGroupMember.objects.filter(group_id=gid).values_list("spark__name", flat=True))
        by_names = json.dumps({**INPUT, "nodes": names})
        best = client.post("/api/plans", body, content_type="application/json").json()["recommended"]
        return {
            "/plans/ (full page)": lambda: client.get(f"/plans/?{query}"),
            "/plans/ (htmx partial)": lambda: client.get(f"/plans/?{query}", headers={"HX-Request": "true"}),
            "/plans/launch/ (recommended)": lambda: client.get(f"/plans/launch/?{query}&plan={best}"),
            "POST /api/plans": lambda: client.post("/api/plans", body, content_type="application/json"),
            "POST /api/plans (nodes)": lambda: client.post("/api/plans", by_names, content_type="application/json"),
            "/benchmarks/groups/<id>/": lambda: client.get(f"/benchmarks/groups/{gid}/"),
            "/sparks/ (baseline)": lambda: client.get("/sparks/"),
        }

    sizes: dict[str, int] = {}

    def count(name: str, call: Callable[[], object]) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = call()
        assert response.status_code == 200, (name, response.status_code)  # type: ignore[attr-defined]
        sizes[name] = len(response.content)  # type: ignore[attr-defined]
        return len(ctx)

    lab_import(actor=Actor(source="import"), data=yaml.safe_load((ROOT / "labs" / "demo.yaml").read_text()))
    small = {name: count(name, call) for name, call in requests("spark-07").items()}

    for model in (Cable, Spark, Switch, NodeGroupMember, NodeGroup):
        model.objects.all().delete()
    lab_import(
        actor=Actor(source="import"),
        data=lab_document(
            switched=80 * args.scale,
            rings=70 * args.scale,
            pairs=50 * args.scale,
            singles=4 * args.scale,
            prefix="spark",
        ),
    )
    fleet = Spark.objects.count()
    assert fleet == 1024 * args.scale
    big = requests("spark-0001")
    large = {name: count(name, call) for name, call in big.items()}
    group = NodeGroup.objects.get(members__spark__name="spark-0001", auto=True, retired_at__isnull=True)
    spec_time = median_seconds(lambda: groupspec_for(group), args.repeats)
    timed = {name: median_seconds(call, args.repeats) for name, call in big.items()}

    print(f"python {platform.python_version()} on {platform.machine()}, SQLite, {args.repeats} repeats, median")
    print(
        f"lab: {fleet} Sparks, {NodeGroup.objects.filter(retired_at__isnull=True).count()} groups; input: "
        + ", ".join(f"{k} {v}" for k, v in INPUT.items())
        + ", switched group of 8"
    )
    print(f"groupspec_for(group):        {spec_time * 1000:7.1f} ms  (lab read + engine on the group + twins)")
    print(f"{'request':28} {'server time':>12} {'queries at 17':>14} {f'at {fleet:,}':>9} {'size':>8}")
    for name in big:
        print(f"{name:28} {timed[name] * 1000:9.1f} ms {small[name]:>14} {large[name]:>9} {sizes[name] / 1024:5.0f} KB")
    grew = [name for name in big if large[name] > small[name]]
    print(f"queries grow with the fleet: {'NO' if not grew else 'YES: ' + ', '.join(grew)}")
    page = max(timed["/plans/ (full page)"], timed["POST /api/plans"])
    baseline = timed["/sparks/ (baseline)"]
    print(f"plan page / baseline: {timed['/plans/ (full page)'] / baseline:.1f} x")
    print(f"goal: plan page and POST /api/plans well under 1 s: {'met' if page < 0.5 else 'MISSED'}")


if __name__ == "__main__":
    main()
