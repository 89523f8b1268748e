"""Verify a group's fabric from the command line, in the foreground (no broker).

``manage.py verify group-spark-01`` (a group name or id) runs nccl-tests'
all_gather_perf across the group exactly as the page's "Verify fabric" does,
stores the run and prints its rows, average, verdict and findings.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.actor import Actor
from core.errors import FleetError
from core.validation import whole_number
from inventory.models import NodeGroup

from ...services import verification_execute, verification_start


class Command(BaseCommand):
    help = "Run a fabric verification (nccl-tests all_gather_perf) on a group now and print the verdict."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("group", help="group name or id")

    def handle(self, *args: Any, **options: Any) -> None:
        ref = options["group"]
        live = NodeGroup.objects.filter(retired_at__isnull=True)
        number = whole_number(ref)
        group = live.filter(pk=number).first() if number is not None else live.filter(name=ref).first()
        if group is None:
            raise CommandError(f"no live group {ref!r}")
        try:
            run = verification_start(actor=Actor(source="command"), group_id=group.pk, queue=False)
        except FleetError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"run {run.pk} on {group.name} ({run.kind}): {run.command}")
        done = verification_execute(run_id=run.pk)
        if done is None:
            raise CommandError("the run was taken by a worker")
        for row in (done.result or {}).get("rows", []):
            self.stdout.write(f"  {row['size_bytes'] / 2**30:6.2f} GiB  {row['busbw_oop']:6.2f} GB/s")
        measured = f"{done.avg_busbw:.2f} GB/s" if done.avg_busbw is not None else "nothing measured"
        self.stdout.write(f"{done.verdict or done.status}: {measured}; expected {done.expected_source}")
        for finding in done.findings:
            self.stdout.write(f"  [{finding['severity']}] {finding['code']}: {finding['message']}")
            self.stdout.write(f"      fix: {finding['fix']}")
        if done.error:
            self.stdout.write(f"  error: {done.error}")
