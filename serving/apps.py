"""The serving app: models started from a plan on a booked group. ``ready``
adds the served nodes to bookings' busy-without-booking rule
(``bookings.findings.SERVED_NODES``), the owner's serving to the booking's
end reminder (``bookings.notify.ENDING_EXTRAS``), creates the beat schedules
(the minute's tick; reconciling every five minutes, and on a worker's start)."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def schedule_create(**kwargs: Any) -> None:
    from core.runs import schedule_ensure

    schedule_ensure(name="serving: stop at the booking's end", task="serving.tick", every=1, period="minutes")
    # besides a worker's start: an engine that died is seen within minutes
    schedule_ensure(name="serving: reconcile with the nodes", task="serving.reconcile", every=5, period="minutes")


class ServingConfig(AppConfig):
    name = "serving"
    verbose_name = "Serving"

    def ready(self) -> None:
        from . import conf  # noqa: F401 - its settings readers, read at start-up (core.config.read_at_start)

        post_migrate.connect(schedule_create, sender=self, dispatch_uid="serving-schedule")
        from core import panels

        from . import hooks
        from .panels import plan_actions, saved_plan_actions

        hooks.register()
        panels.slot("plan-actions").add(plan_actions)  # the Serve button of each plan on the plan page
        panels.slot("saved-plan-actions").add(saved_plan_actions)
