"""Celery beat's scheduler for Spark Fleet: django-celery-beat's database
scheduler (schedules edited in the admin) that also touches a heartbeat file
on every tick (at most every 5 s), so a healthcheck tells a beat that runs
from one that hangs (``python -m fleet.healthcheck beat``). The file sits at
``FLEET_BEAT_HEARTBEAT``, by default in the temporary folder, outside the
app's read-only folder.

    celery -A fleet beat --scheduler fleet.beat:HeartbeatScheduler
"""

from __future__ import annotations

from typing import Any

from django_celery_beat.schedulers import DatabaseScheduler

from fleet.healthcheck import heartbeat_path


class HeartbeatScheduler(DatabaseScheduler):  # type: ignore[misc]  # django-celery-beat ships no types
    def tick(self, *args: Any, **kwargs: Any) -> float:
        interval = super().tick(*args, **kwargs)
        path = heartbeat_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        return float(interval)
