"""Celery task of the fabric app: run one queued verification (thin: id in, service call)."""

from __future__ import annotations

from celery import shared_task

from .services import verification_execute


# One attempt: a verification loads every node of the group for minutes; a
# redelivered message finds the run taken (not queued) and stops.
@shared_task(name="fabric.verify", ignore_result=True)
def verify_fabric(run_id: int) -> str:
    run = verification_execute(run_id=run_id)
    return "skipped: not queued" if run is None else f"{run.status}: {run.verdict} {run.avg_busbw}"
