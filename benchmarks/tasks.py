"""Celery tasks of benchmarks: run one queued benchmark (thin: ids in, service call)."""

from __future__ import annotations

from celery import shared_task

from .runs import run_execute


# The name placement gave it before benchmarks had their own app: a run queued
# just before an upgrade is still picked up by a worker of the new version.
@shared_task(name="placement.run_benchmark", ignore_result=True)
def run_benchmark(run_id: int) -> str:
    run = run_execute(run_id=run_id)
    return "skipped: not queued" if run is None else f"{run.status}: {run.error or run.decode_tps}"
