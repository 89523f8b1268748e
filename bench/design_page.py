"""Time the lab designer (POST /api/designs and /design/) on labs of growing size.

Three labs, each imported through the product's lab import into a fresh
SQLite database in a temporary directory: the 17-Spark demo lab, and the
generated labs of ``simfleet.labgen`` with 1,024 and 5,120 Sparks (switched
groups of 8, rings of 4, direct pairs, lone Sparks; every fifth Spark 64 GB).
On each lab, as a member through Django's test client (the server's time,
rendering included):

- a new design: 8 planned DGX Spark 128 GB for two target models
  (Llama-3.3-70B at one stream, gpt-oss-120b at 8 streams), by the API and
  by the page; it does not read the lab, so it must not grow with it;
- growing the lab (``from_inventory``) by 2 planned Sparks: designed on the
  demo lab, refused on the large ones (over 32 Sparks in all, the designer's
  MAX_SPARKS), which must
  not cost more on a larger lab;
- the Spark list page (50 rows a page) as the baseline.

    .venv/bin/python bench/design_page.py [--repeats N]
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

MODELS = [
    {"model": "llama-3.3-70b", "context_tokens": 8192, "concurrency": 1},
    {"model": "gpt-oss-120b", "context_tokens": 32768, "concurrency": 8},
]
NEW = {"sparks": [{"hardware": "dgx-spark-128", "planned": 8}], "models": MODELS}
GROW = {"from_inventory": True, "sparks": [{"hardware": "dgx-spark-128", "planned": 2}]}
PAGE = (
    "/design/?hardware_1=dgx-spark-128&planned_1=8&model_1=llama-3.3-70b&context_1=8192&concurrency_1=1"
    "&model_2=gpt-oss-120b&context_2=32768&concurrency_2=8"
)
LABS = (("demo", 17, None), ("1,024", 1024, 1), ("5,120", 5120, 5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    client: Any = django_client("bench-design-", "member")

    import yaml
    from django.db import connection

    from core.actor import Actor
    from inventory.labio import lab_import
    from inventory.models import Cable, NodeGroup, NodeGroupMember, Spark, Switch
    from simfleet.labgen import lab_document

    def post(body: dict[str, object]) -> Callable[[], object]:
        return lambda: client.post("/api/designs", json.dumps(body), content_type="application/json")

    calls: dict[str, tuple[Callable[[], object], tuple[int, ...]]] = {
        "POST /api/designs (8 new)": (post(NEW), (200,)),
        "/design/ (8 new, page)": (lambda: client.get(PAGE), (200,)),
        "POST /api/designs (grow +2)": (post(GROW), (200, 400)),
        "/sparks/ (baseline)": (lambda: client.get("/sparks/"), (200,)),
    }
    rows: dict[str, dict[str, tuple[float, int, int]]] = {}
    for label, size, scale in LABS:
        for model in (Cable, Spark, Switch, NodeGroupMember, NodeGroup):
            model.objects.all().delete()
        if scale is None:
            data = yaml.safe_load((ROOT / "labs" / "demo.yaml").read_text())
        else:
            data = lab_document(
                switched=80 * scale, rings=70 * scale, pairs=50 * scale, singles=4 * scale, prefix="spark"
            )
        lab_import(actor=Actor(source="import"), data=data)
        assert Spark.objects.count() == size, (label, Spark.objects.count())
        rows[label] = {}
        for name, (call, ok) in calls.items():
            queries: list[str] = []

            def counted(execute: Any, sql: str, *rest: Any, queries: list[str] = queries) -> Any:
                queries.append(sql)
                return execute(sql, *rest)

            with connection.execute_wrapper(counted):
                response = call()
            status = response.status_code  # type: ignore[attr-defined]
            assert status in ok, (name, label, status, response.content[:300])  # type: ignore[attr-defined]
            rows[label][name] = (median_seconds(call, args.repeats), len(queries), status)

    print(f"python {platform.python_version()} on {platform.machine()}, SQLite, {args.repeats} repeats, median")
    print(
        "new: 8 planned DGX Spark 128 GB, two target models; grow: the lab + 2 planned "
        "(over 32 Sparks in all: refused with 400)"
    )
    head = "".join(f"{label + ' Sparks':>26}" for label, _, _ in LABS)
    print(f"{'request':30}{head}")
    for name in calls:
        cells = "".join(
            f"{rows[label][name][0] * 1000:9.1f} ms {rows[label][name][1]:3d} q {rows[label][name][2]}{'':2}"
            for label, _, _ in LABS
        )
        print(f"{name:30}{cells}")
    small, large = LABS[1][0], LABS[-1][0]
    for name in calls:
        if name.startswith("/sparks/"):
            continue
        grew = rows[large][name][0] / rows[small][name][0]
        print(
            f"{name}: 5,120 / 1,024 Sparks = {grew:.2f} x time, queries {rows[small][name][1]} -> "
            f"{rows[large][name][1]}"
        )
    base = rows[large]["/sparks/ (baseline)"][0]
    print(f"POST /api/designs (8 new) / baseline at 5,120: {rows[large]['POST /api/designs (8 new)'][0] / base:.1f} x")


if __name__ == "__main__":
    main()
