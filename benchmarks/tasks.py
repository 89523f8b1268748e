"""Celery tasks of benchmarks: run one queued benchmark, and fail runs whose
worker stopped (thin: ids in, service calls)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from .runs import run_execute, runs_abandon_stale


# The name placement gave it before benchmarks had their own app: a run queued
# just before an upgrade is still picked up by a worker of the new version.
# Late acks with reject_on_worker_lost (settings): a worker that dies mid-run
# leaves the message unacknowledged, so it comes back and the run is started
# again (at most benchmarks.runs.MAX_ATTEMPTS times).
@shared_task(bind=True, name="placement.run_benchmark", ignore_result=True)
def run_benchmark(self: Any, run_id: int) -> str:
    run = run_execute(run_id=run_id, task_id=self.request.id or "")
    return "skipped: not queued" if run is None else f"{run.status}: {run.error or run.decode_tps}"


# Every minute (beat): a run whose worker vanished is failed after
# core.runs.HEARTBEAT_STALE_S of silence.
@shared_task(name="benchmarks.reap", ignore_result=True, expires=60)
def reap_benchmark_runs() -> int:
    return runs_abandon_stale()
