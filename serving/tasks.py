"""Celery tasks of serving (thin: ids in, service calls): start one, stop one,
the minute's tick (booking ends, abandoned starts) and reconciling with what
the nodes run, on a worker's start too."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from .runner import serving_execute, serving_stop_execute
from .upkeep import reconcile, servings_tick


@shared_task(bind=True, name="serving.start", ignore_result=True)
def start_serving(self: Any, serving_id: int) -> str:
    serving = serving_execute(serving_id=serving_id, task_id=self.request.id or "")
    return "skipped: not starting" if serving is None else f"{serving.status}: {serving.failed_step or serving.url}"


@shared_task(name="serving.stop", ignore_result=True)
def stop_serving(serving_id: int) -> str:
    serving = serving_stop_execute(serving_id=serving_id)
    return "skipped: not stopping" if serving is None else serving.status


@shared_task(name="serving.tick", ignore_result=True, expires=60)
def tick() -> dict[str, int]:
    return servings_tick()


@shared_task(name="serving.reconcile", ignore_result=True, expires=600)
def reconcile_nodes() -> dict[str, int]:
    return reconcile()


@worker_ready.connect
def _reconcile_on_start(**kwargs: Any) -> None:
    """A restarted worker never leaves an engine running unknown to the app."""
    reconcile_nodes.delay()
