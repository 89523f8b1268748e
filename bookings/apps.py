"""The bookings app. ``ready`` creates the once-a-minute beat schedule
after migrations (an admin's later edits are kept), adds the
busy-without-booking findings to the topology layer, and tells fabric
verification who may start a run on a group (``fabric.services.RUN_PERMISSION``)."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate

SCHEDULE_NAME = "bookings: start, finish and remind"


def schedule_create(**kwargs: Any) -> None:
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    if PeriodicTask.objects.filter(name=SCHEDULE_NAME).exists():
        return
    every, _ = IntervalSchedule.objects.get_or_create(every=1, period=IntervalSchedule.MINUTES)
    PeriodicTask.objects.create(name=SCHEDULE_NAME, task="bookings.tick", interval=every)


class BookingsConfig(AppConfig):
    name = "bookings"
    verbose_name = "Bookings"

    def ready(self) -> None:
        from . import conf  # noqa: F401 - its settings readers, read at start-up (core.config.read_at_start)

        post_migrate.connect(schedule_create, sender=self, dispatch_uid="bookings-schedule")
        from core import panels

        from . import findings
        from .templatetags.bookings_tags import group_panel

        findings.register()
        from fabric.services import RUN_PERMISSION

        from .selectors import may_start_run

        RUN_PERMISSION.add(may_start_run)
        from inventory.services import CABLES_REMOVED, DELETE_HOLDS

        from .services import cables_removed, holds_locked

        DELETE_HOLDS.add(holds_locked)  # a Spark a booking holds is not deleted from under it
        CABLES_REMOVED.add(cables_removed)  # a booking's owner is told when a cable of its Sparks goes
        panels.slot("group").add(group_panel, order=10)  # who holds a group, on its page
