"""One poll of some Sparks, from inventory ids to stored results.

Reads the targets (SSH host, port and user from the inventory) and accepted
host keys, polls over SSH with per-node timeouts (``telemetry.poller``),
then stores everything in one transaction (``services.results_store``).
Nodes whose host key changed are not contacted at all until an admin
accepts the new key. The database is not touched while SSH runs, so a slow
node never holds a transaction open.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.utils import timezone

from inventory.models import Spark
from telemetry import conf, metrics
from telemetry.expectations import expectations_cached
from telemetry.models import NodeState
from telemetry.poller import Target, poll_nodes_sync, spread_connects
from telemetry.runtime import poll_pooled
from telemetry.services import StoreReport, results_store, software_drift_sync
from telemetry.software_script import software_poll_script
from telemetry.software_store import software_due_at


def targets_for(spark_ids: Iterable[int]) -> tuple[list[Target], dict[str, str | None], list[str]]:
    """(targets in name order, accepted keys by name, names held back for a changed host key).
    Plain values, one query of key lookups (no sort or filter the planner could answer by
    scanning a table: a chunk reads a few hundred of maybe ten thousand Sparks)."""
    rows = (
        Spark.objects.filter(pk__any_of=frozenset(spark_ids))
        .order_by()
        # What the targets and the software schedule read (not the software reading itself).
        .values_list(
            "pk", "name", "ssh_host", "ssh_port", "ssh_user", "telemetry__host_key", "telemetry__key_status",
            "telemetry__boot_at", "software__spark_id", "software__read_at", "software__boot_at",
        )
    )  # fmt: skip
    targets, known, held = [], {}, []
    now, every = timezone.now(), conf.software_interval_s()
    mismatch = NodeState.KeyStatus.MISMATCH
    for pk, name, host, port, user, host_key, key_status, booted, read_by, read_at, read_boot in sorted(
        rows, key=lambda row: row[1]
    ):
        if key_status == mismatch:
            held.append(name)
            continue
        due = read_by is None or software_due_at(pk, read_at, read_boot, booted, now=now, interval_s=every)
        targets.append(Target(name, host, port, user, software=due))
        known[name] = host_key or None
    return targets, known, held


def poll_and_store(
    *,
    spark_ids: Iterable[int],
    pooled: bool = False,
    connect_start: float | None = None,
    slot_s: float = 0.0,
    round_at: datetime | None = None,
    stop_at: float | None = None,
) -> StoreReport:
    """Poll and store. ``pooled``: reuse this process's SSH connections
    between calls (Celery workers); the one-off ``poll --once`` opens fresh ones.
    ``connect_start``/``slot_s`` (pooled only): new connections of this chunk
    start no earlier than ``connect_start + i * slot_s`` (the round's spread of
    key exchanges, see ``tasks.poll_fleet``). ``round_at``: when the chunk's
    round began; Sparks polled since then are left out (a chunk handed on, or
    a later round's, polled them). ``stop_at``: Unix time after which no Spark
    is started; those are in ``handed_on`` of the report, not polled."""
    ids = list(spark_ids)
    report_ahead = StoreReport()
    if round_at is not None:
        since = NodeState.objects.filter(spark_id__any_of=frozenset(ids), last_poll_at__gte=round_at)
        polled = set(since.values_list("spark_id", flat=True))
        report_ahead.polled_already = len(polled)
        ids = [i for i in ids if i not in polled]
    targets, known, _held = targets_for(ids)
    if not targets:
        return report_ahead
    expectations = expectations_cached(ids)
    key = conf.ssh_key_path()
    options: dict[str, Any] = dict(
        client_keys=[str(key)] if key.exists() else [],
        known_hosts=known,
        concurrency=conf.ssh_concurrency(),
        connect_timeout=conf.connect_timeout_s(),
        command_timeout=conf.command_timeout_s(),
        max_output_bytes=conf.max_output_bytes(),
        software_script=software_poll_script(nccl_home=conf.nccl_home(), images=conf.launch_images()),
    )
    began = time.perf_counter()
    if pooled:
        connect_at = None
        if connect_start is not None and slot_s > 0:
            connect_at = spread_connects([t.name for t in targets], start=connect_start, slot_s=slot_s)
        results = poll_pooled(targets, connect_at=connect_at, stop_at=stop_at, **options)
    else:
        results = poll_nodes_sync(targets, stop_at=stop_at, **options)
    fetched = time.perf_counter()
    # SSH time includes waiting for spread connect times on a worker's first round.
    metrics.POLL_PHASE.labels("ssh").observe(fetched - began)
    report = results_store(results=results, expectations=expectations)
    report.polled_already = report_ahead.polled_already
    started = {r.name for r in results}
    if len(started) < len(targets):  # the chunk's time ran out: the rest is handed on, not dropped
        names = [t.name for t in targets if t.name not in started]
        pks = dict(Spark.objects.filter(name__in=names).values_list("name", "pk"))
        report.handed_on = [pks[n] for n in names if n in pks]
    if report.software_changed:
        # Its own transaction, after the chunk's: the verdict spans groups other chunks store.
        drifted = software_drift_sync(spark_ids=report.software_ids)
        report.opened, report.closed = report.opened + drifted.opened, report.closed + drifted.closed
        report.statuses.update(drifted.statuses)
    metrics.POLL_PHASE.labels("store").observe(time.perf_counter() - fetched)
    return report


def active_spark_ids() -> list[int]:
    return list(Spark.objects.filter(status=Spark.Status.ACTIVE).order_by("pk").values_list("pk", flat=True))


def chunks(ids: list[int], size: int) -> list[list[int]]:
    return [ids[i : i + size] for i in range(0, len(ids), size)]
