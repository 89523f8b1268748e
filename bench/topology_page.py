"""Time the topology pages on labs of 1,024 Sparks and more, with their query counts.

Each lab is the mix bench/topology_engine.py builds, per 1,024 Sparks: 80
switched groups of 8 on CRS804s with breakout cables, 70 rings of 4, 50
direct pairs, 4 lone Sparks (every fifth Spark 64 GB), imported through the
product's lab import into a fresh SQLite database in a temporary directory.
Each page is fetched through Django's test client (no network, no browser):
the time is the server's. Query counts are taken first on the 17-Spark demo
lab, then at each size: they must not grow. The baselines, measured in the
same run at each size, are the Spark list page (50 rows a page) and the
bare engine on the same lab.

    .venv/bin/python bench/topology_page.py [--repeats N] [--sizes 1024,4096]
"""

from __future__ import annotations

import platform
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from common import django_client, import_mixed_lab, lab_sizes_args, median_seconds  # noqa: E402 - bench/ is the script's own folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    args, counts = lab_sizes_args(__doc__.splitlines()[0])

    client: Any = django_client("bench-topology-", "lab-admin")

    import yaml
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core.actor import Actor
    from inventory.labio import lab_import
    from inventory.models import NodeGroup
    from topology.selectors import groups_overview
    from topology.services import lab_read

    def group_of(node: str) -> int:
        return NodeGroup.objects.get(members__spark__name=node, auto=True, retired_at__isnull=True).pk

    def pages(switched_node: str) -> dict[str, str]:
        gid = group_of(switched_node)
        return {
            "/topology/": "/topology/",
            "/groups/<switched>/": f"/groups/{gid}/",
            "/memory/": "/memory/",
            "/api/groups": "/api/groups",
            "/sparks/ (baseline)": "/sparks/",
        }

    sizes: dict[str, int] = {}

    def queries(path: str) -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        sizes[path] = len(response.content)
        return len(ctx)

    demo = yaml.safe_load((ROOT / "labs" / "demo.yaml").read_text())
    lab_import(actor=Actor(source="import"), data=demo)
    small = {name: queries(path) for name, path in pages("spark-07").items()}

    print(f"python {platform.python_version()} on {platform.machine()}, SQLite, {args.repeats} repeats, median")
    grew: list[str] = []
    for count in counts:
        imported = import_mixed_lab(count)
        snapshot = lab_read()
        groups = snapshot.analyse()
        assert len(snapshot.lab.nodes) == count
        kinds = Counter(g.kind for g in groups)
        big_pages = pages("spark-0001")
        large = {name: queries(path) for name, path in big_pages.items()}

        engine = median_seconds(snapshot.analyse, args.repeats)
        read = median_seconds(lab_read, args.repeats)
        overview = median_seconds(groups_overview, args.repeats)
        timed = {name: median_seconds(lambda p=path: client.get(p), args.repeats) for name, path in big_pages.items()}
        base = timed["/sparks/ (baseline)"]

        print()
        print(
            f"lab: {len(snapshot.lab.nodes)} Sparks, {len(snapshot.lab.switches)} switches, "
            f"{len(snapshot.lab.cables)} cables; imported in {imported:.1f} s"
        )
        print(f"groups: {len(groups)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
        print(f"engine analyse():      {engine * 1000:8.1f} ms")
        print(f"lab_read() (5 queries): {read * 1000:7.1f} ms")
        print(f"groups_overview():     {overview * 1000:8.1f} ms  (read + engine + groups)")
        at = f"at {count:,}"
        print(f"{'page':24} {'server time':>12} {'x baseline':>10} {'queries at 17':>14} {at:>9} {'size':>9}")
        for name, path in big_pages.items():
            print(
                f"{name:24} {timed[name] * 1000:9.1f} ms {timed[name] / base:9.2f}x {small[name]:>14} "
                f"{large[name]:>9} {sizes[path] / 1024:6.0f} KB"
            )
        grew += [f"{name} at {count:,}" for name in big_pages if large[name] > small[name]]
        print(f"goal:  engine well under 1 s: {'met' if engine < 1.0 else 'MISSED'}")
    print()
    print(f"queries grow with the fleet: {'NO' if not grew else 'YES: ' + ', '.join(grew)}")


if __name__ == "__main__":
    main()
