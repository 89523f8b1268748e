"""Celery tasks of the fabric app (thin: ids in, service calls)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from .services import runs_abandon_stale, verification_execute


# Late acks with reject_on_worker_lost (settings): a worker that dies mid-run
# leaves the message unacknowledged, so it comes back and the run is started
# again (at most fabric.services.MAX_ATTEMPTS times); any other redelivery
# finds the run taken and stops. No automatic retry: a verification loads
# every node of the group for minutes.
@shared_task(bind=True, name="fabric.verify", ignore_result=True)
def verify_fabric(self: Any, run_id: int) -> str:
    run = verification_execute(run_id=run_id, task_id=self.request.id or "")
    return "skipped: not queued" if run is None else f"{run.status}: {run.verdict} {run.avg_busbw}"


# Every minute (beat): a run whose worker vanished is failed after
# fabric.services.HEARTBEAT_STALE_S of silence, so its group is free again.
@shared_task(name="fabric.reap", ignore_result=True, expires=60)
def reap_fabric_runs() -> int:
    return runs_abandon_stale()
