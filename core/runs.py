"""What every long run started from a page shares (fabric verifications,
benchmark runs): a sign of life written while it runs, so that a run whose
worker was killed is told apart from one still going, and the beat schedule
of the task that fails such runs.

A run row has ``status`` (``queued``, ``running``, ``failed``, ...),
``error``, ``started_at``, ``heartbeat_at``, ``task_id`` and ``attempts``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import F, Model, Q, QuerySet
from django.utils import timezone

log = logging.getLogger(__name__)

# A running run writes its heartbeat this often, and is failed once it has
# been silent for HEARTBEAT_STALE_S (its worker was killed or lost its machine).
HEARTBEAT_S = 10.0
HEARTBEAT_STALE_S = 90
WORKER_GONE = (
    "abandoned: the worker running it stopped (no sign of life for {s} s, killed or restarted); "
    "nothing will finish it, start it again"
)


@contextmanager
def heartbeat(model: type[Model], pk: int, *, running: str, every_s: float = HEARTBEAT_S) -> Iterator[None]:
    """Write the run's ``heartbeat_at`` every ``every_s`` while the body runs
    (from a thread of its own, with its own database connection)."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(every_s):
                try:
                    model._default_manager.filter(pk=pk, status=running).update(heartbeat_at=timezone.now())
                except Exception:  # the database may be restarting: the next beat tries again
                    log.warning("%s %s: could not store its heartbeat", model.__name__, pk, exc_info=True)
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


MAX_ATTEMPTS = 2  # a run whose worker died is started again once, then failed


def run_claim(
    model: type[Model],
    run_id: int,
    task_id: str,
    *,
    restart: dict[str, Any] | None = None,
    failed: dict[str, Any] | None = None,
) -> bool:
    """Take a queued run (``status`` queued to running); or start again a run
    this very task was running when its worker died (the message comes back
    only if it was never acknowledged: late acks, ``reject_on_worker_lost``,
    and a visibility timeout longer than any run), at most MAX_ATTEMPTS times
    in all, clearing the fields in ``restart``; past that the run is failed
    with ``failed``'s fields beside its status and error. Any other delivery
    finds the run taken: False."""
    rows = model._default_manager
    now = timezone.now()
    fresh = {"status": "running", "started_at": now, "heartbeat_at": now, "task_id": task_id[:64]}
    if rows.filter(pk=run_id, status="queued").update(attempts=1, **fresh):
        return True
    if not task_id:
        return False
    mine = rows.filter(pk=run_id, status="running", task_id=task_id[:64])
    if mine.filter(attempts__lt=MAX_ATTEMPTS).update(attempts=F("attempts") + 1, **(restart or {}), **fresh):
        log.warning("%s %s: its worker stopped while running it; starting it again", model.__name__, run_id)
        return True
    mine.update(
        status="failed",
        error=f"abandoned: the worker running it stopped {MAX_ATTEMPTS} times; start it again",
        **(failed or {}),
    )
    return False


def silent_runs(runs: QuerySet[Any], *, stale_s: float = HEARTBEAT_STALE_S) -> QuerySet[Any]:
    """The running rows of ``runs`` that gave no sign of life for ``stale_s``."""
    silent = timezone.now() - timedelta(seconds=stale_s)
    return runs.filter(Q(heartbeat_at__lt=silent) | Q(heartbeat_at=None, started_at__lt=silent))


def schedule_ensure(*, name: str, task: str, every: int, period: str) -> None:
    """A beat schedule made after migrations if it does not exist (an admin's
    later edits in the admin are kept). ``period``: django-celery-beat's
    ``IntervalSchedule`` period (``"minutes"``, ``"days"``, ...)."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    if PeriodicTask.objects.filter(name=name).exists():
        return
    interval, _ = IntervalSchedule.objects.get_or_create(every=every, period=period)
    PeriodicTask.objects.create(name=name, task=task, interval=interval)
