"""Poll Sparks over SSH in the foreground, without a broker: for admins and tests.

``poll --once`` polls every active Spark once (``--node NAME`` just that one,
whatever its status) and prints one line per node and a summary; without
``--once`` it repeats every FLEET_POLL_INTERVAL_S until interrupted.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from inventory.models import Spark
from telemetry import conf, poll_round
from telemetry.models import NodeState


def _gib(value: int | None) -> str:
    return f"{value / 2**30:.1f}" if value is not None else "-"


class Command(BaseCommand):
    help = "Poll Sparks over SSH now and store the results (no broker needed)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--once", action="store_true", help="poll once and exit")
        parser.add_argument("--node", help="poll only this Spark")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["node"]:
            spark = Spark.objects.filter(name=options["node"]).first()
            if spark is None:
                raise CommandError(f"--node: no Spark named {options['node']!r}")
            ids = [spark.pk]
        else:
            ids = []
        while True:
            self._round(ids or poll_round.active_spark_ids())
            if options["once"]:
                return
            time.sleep(conf.poll_interval_s())

    def _round(self, ids: list[int]) -> None:
        start = time.monotonic()
        stored = 0
        for part in poll_round.chunks(ids, conf.chunk_size()):
            stored += poll_round.poll_and_store(spark_ids=part).stored
        states = (
            NodeState.objects.filter(spark_id__in=ids)
            .select_related("spark", "latest", "latest__twin_set")
            .order_by("spark__name")
        )
        counts: dict[str, int] = {}
        self.stdout.write(f"{'node':<16} {'status':<9} {'memory used GiB':>16} {'twins up':>9}  note")
        for st in states:
            counts[st.status] = counts.get(st.status, 0) + 1
            row = st.latest
            memory = f"{_gib(row.mem_used_bytes)}/{_gib(row.mem_total_bytes)}" if row else "-"
            twins = f"{row.twins_up}/{len(row.twins)}" if row and row.twins is not None else "-"
            note = (row.error if row else "") or ""
            if st.key_status != NodeState.KeyStatus.OK:
                note = f"host key {st.get_key_status_display().lower()}" + (f"; {note}" if note else "")
            self.stdout.write(f"{st.spark.name:<16} {st.status:<9} {memory:>16} {twins:>9}  {note[:90]}")
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        self.stdout.write(
            f"polled {len(ids)} Sparks, stored {stored} samples in "
            f"{time.monotonic() - start:.1f} s: {summary or 'nothing'}"
        )
