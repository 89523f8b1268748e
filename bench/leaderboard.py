"""Time the leaderboard (/benchmarks/) and the records API as runs pile up, with the rows they read.

A fresh SQLite database, migrated (so it holds the published runs the
product ships), then measured runs added in steps up to each size: finished
runs of eight catalogue models on the demo lab's pairs, at 1 to 32 streams,
with a queued or failed one in every ten (which the board skips). At each
size the page is fetched through Django's test client as a member (the
server's time, rendering included, no network, no browser) at one stream
(its default) and at any concurrency, with the rows its queries return and
their count; then the records API, whole (as scripts have read it) and a
page of 100. The baseline, timed in the same run at each size, is the Spark
list page (50 rows a page), whose cost does not depend on the runs.

    .venv/bin/python bench/leaderboard.py [--repeats N] [--sizes 1000,5000]
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import django_client, median_seconds  # noqa: E402 - bench/ is the script's own folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS = (
    "llama-3.3-70b",
    "qwen3-32b",
    "gpt-oss-120b",
    "qwen3.6-35b-a3b",
    "llama-3.1-8b",
    "qwen3-235b-a22b",
    "gpt-oss-20b",
    "nemotron-3-nano-30b-a3b",
)
LEVELS = (1, 1, 1, 2, 4, 8, 16, 32)  # one run in three at one stream


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sizes", default="1000,5000", help="measured runs added, comma-separated, rising")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    client: Any = django_client("bench-leaderboard-", "member")

    import yaml
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from benchmarks.models import BenchmarkRun
    from core.actor import Actor
    from inventory.labio import lab_import
    from inventory.models import NodeGroup
    from placement.models import LlmModel

    lab_import(actor=Actor(source="import"), data=yaml.safe_load((ROOT / "labs" / "demo.yaml").read_text()))
    groups = list(NodeGroup.objects.filter(kind="direct", retired_at__isnull=True).order_by("name"))
    models = [LlmModel.objects.get(slug=slug) for slug in MODELS]
    published = BenchmarkRun.objects.filter(source=BenchmarkRun.Source.PUBLISHED).count()

    def add(start: int, stop: int) -> None:
        runs = []
        for i in range(start, stop):
            model, group, level = models[i % len(models)], groups[i % len(groups)], LEVELS[(i // 3) % len(LEVELS)]
            status = BenchmarkRun.Status.DONE
            if i % 10 == 9:
                status = BenchmarkRun.Status.FAILED if i % 20 == 19 else BenchmarkRun.Status.QUEUED
            runs.append(
                BenchmarkRun(
                    source=BenchmarkRun.Source.MEASURED,
                    group=group,
                    group_name=group.name,
                    topology_kind=group.kind,
                    node_count=2,
                    model=model,
                    model_name=model.slug,
                    engine="vllm",
                    backend="nccl",
                    tp=2,
                    concurrency=level,
                    input_len=1024,
                    output_len=256,
                    decode_tps=None if status != BenchmarkRun.Status.DONE else 5.0 + (i * 7919 % 1000) / 10 * level,
                    tpot_ms=20.0,
                    status=status,
                )
            )
        BenchmarkRun.objects.bulk_create(runs, batch_size=500)

    pages: dict[str, Callable[[], object]] = {
        "/benchmarks/ (one stream)": lambda: client.get("/benchmarks/"),
        "/benchmarks/?concurrency=any": lambda: client.get("/benchmarks/?concurrency=any"),
        "/api/benchmarks (whole list)": lambda: client.get("/api/benchmarks"),
        "/api/benchmarks?limit=100": lambda: client.get("/api/benchmarks?limit=100"),
        "/sparks/ (baseline)": lambda: client.get("/sparks/"),
    }

    def counted(call: Callable[[], object]) -> tuple[int, int, int]:
        """(queries, rows they returned, response bytes)."""
        rows = 0
        with CaptureQueriesContext(connection) as ctx:
            response = call()
        assert response.status_code == 200, response.status_code  # type: ignore[attr-defined]
        # the rows each SELECT returned, read again with the same SQL (the page's own cursor is gone)
        with connection.cursor() as cursor:
            for q in ctx.captured_queries:
                if q["sql"].lstrip().upper().startswith("SELECT") and "placement_benchmarkrun" in q["sql"]:
                    cursor.execute(f"SELECT COUNT(*) FROM ({q['sql']})")  # noqa: S608 - the page's own SQL
                    rows += cursor.fetchone()[0]
        return len(ctx), rows, len(response.content)  # type: ignore[attr-defined]

    print(f"python {platform.python_version()} on {platform.machine()}, SQLite, {args.repeats} repeats, median")
    print(f"runs: {published} published (shipped) + the measured runs below; {len(models)} models, 1 to 32 streams")
    print(
        f"{'measured':>9} {'request':30} {'server time':>12} {'x baseline':>11} {'queries':>8} {'run rows':>9} "
        f"{'size':>7}"
    )
    done = 0
    for size in sizes:
        add(done, size)
        done = size
        timed = {name: median_seconds(call, args.repeats) for name, call in pages.items()}
        base = timed["/sparks/ (baseline)"]
        for name, call in pages.items():
            queries, rows, size_bytes = counted(call)
            print(
                f"{size:>9,} {name:30} {timed[name] * 1000:9.1f} ms {timed[name] / base:>10.1f}x "
                f"{queries:>8} {rows:>9,} {size_bytes / 1024:5.0f} KB"
            )


if __name__ == "__main__":
    main()
