"""Celery tasks: thin wrappers around ``services``.

``bookings.tick`` runs every minute from beat (the schedule is created after
migrations, see ``apps.py``): it starts and finishes bookings on time and
reminds owners once before the end.
"""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="bookings.tick", ignore_result=True)
def tick() -> dict[str, int]:
    return services.bookings_tick()
