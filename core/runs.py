"""What every long run started from a page shares (fabric verifications,
benchmark runs): a sign of life written while it runs, so that a run whose
worker was killed is told apart from one still going, and the beat schedule
of the task that fails such runs.

A run row has ``status`` (with a ``running`` value), ``started_at``,
``heartbeat_at``, ``task_id`` and ``attempts``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import Model, Q, QuerySet
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
