"""Celery tasks: thin wrappers that fetch ids and call one service.

``poll_fleet`` (beat, every FLEET_POLL_INTERVAL_S) splits the active Sparks
into chunks and sends one ``poll_chunk`` per chunk, so workers share the
fleet and one slow chunk never delays the others. A chunk never expires
unpolled: one still queued when the next round begins polls only the Sparks
nobody polled since its own round began, and one whose time runs out (the
interval is over) stores what it polled and hands the rest on as a new chunk
to the same queue (a worker's first round at 10,000 Sparks, key exchanges
and all, may not fit one interval). ``poll_chunk`` is
acknowledged only after it ran (``acks_late``: a killed worker's chunk is
redelivered) and retries with backoff when the database is unavailable;
storing is one transaction and idempotent, so a retry never half-writes or
duplicates. ``check_stale`` and ``downsample`` keep health and storage tidy.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from telemetry import conf, poll_round, retention, services


def shard_queue(index: int) -> str:
    """The queue of one poll shard (FLEET_POLL_SHARDS)."""
    return f"telemetry.poll.{index}"


@shared_task(name="telemetry.poll_fleet", ignore_result=True)
def poll_fleet() -> int:
    ids = poll_round.active_spark_ids()
    interval = conf.poll_interval_s()
    parts = poll_round.chunks(ids, conf.chunk_size())
    # Nodes a worker has no open connection to yet (its first round, a new
    # Spark) get a connect time spread evenly over part of the interval, in
    # fleet order, so a cold round's key exchanges do not all burst at once.
    # Nodes with an open connection ignore it and are polled at once.
    start = time.time()
    slot_s = conf.connect_spread() * interval / max(len(ids), 1)
    offset = 0
    shards = conf.poll_shards()
    for index, part in enumerate(parts):
        # Nothing expires: a chunk late for its round polls what nobody polled
        # since the round began, and hands on what it cannot start in time.
        kwargs = {"connect_start": start + offset * slot_s, "slot_s": slot_s, "round_at": start,
                  "deadline": start + interval}  # fmt: skip
        if shards:
            queue = shard_queue(index % shards)
            poll_chunk.apply_async((part,), kwargs={**kwargs, "queue": queue}, queue=queue)
        else:
            poll_chunk.apply_async((part,), kwargs=kwargs)
        offset += len(part)
    return len(parts)


@shared_task(
    name="telemetry.poll_chunk",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    ignore_result=True,
)
def poll_chunk(
    ids: list[int],
    connect_start: float | None = None,
    slot_s: float = 0.0,
    round_at: float | None = None,
    deadline: float | None = None,
    queue: str | None = None,
) -> dict[str, Any]:
    """Poll and store a chunk. ``round_at``/``deadline`` (Unix times): its
    round's start and end; ``queue``: its shard's queue, where what it hands on goes."""
    interval, now = conf.poll_interval_s(), time.time()
    # A chunk that starts after its round's end (queued behind a slow first round)
    # gets an interval of its own rather than handing everything on at once.
    stop_at = None if deadline is None else deadline if deadline > now else now + interval
    report = poll_round.poll_and_store(
        spark_ids=ids,
        pooled=conf.pool_connections(),
        connect_start=connect_start,
        slot_s=slot_s,
        round_at=datetime.fromtimestamp(round_at, UTC) if round_at is not None else None,
        stop_at=stop_at,
    )
    if report.handed_on and stop_at is not None:
        # The rest, as a chunk of its own: it keeps its round (so whichever of it and
        # the next round's chunk comes second skips what the first polled) and gets
        # the next interval; new connections spread over it as the round's were.
        kwargs = {"connect_start": time.time(), "slot_s": slot_s, "round_at": round_at,
                  "deadline": stop_at + interval, "queue": queue}  # fmt: skip
        if queue:
            poll_chunk.apply_async((report.handed_on,), kwargs=kwargs, queue=queue)
        else:
            poll_chunk.apply_async((report.handed_on,), kwargs=kwargs)
    return report.as_dict()


@shared_task(
    name="telemetry.check_stale",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=3,
    ignore_result=True,
)
def check_stale() -> dict[str, Any]:
    report = services.stale_check().as_dict()
    # Once a round for the whole fleet: groups that changed with the cabling, Sparks retired.
    report["software_drift"] = services.software_drift_sync().as_dict()
    return report


@shared_task(
    name="telemetry.downsample",
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=5,
    max_retries=3,
    ignore_result=True,
)
def downsample() -> dict[str, int]:
    report = retention.downsample()
    return {
        "folded": report.folded,
        "buckets": report.buckets,
        "aggregates_deleted": report.aggregates_deleted,
        "partitions_dropped": report.partitions_dropped,
        "twin_sets_deleted": report.twin_sets_deleted,
    }
