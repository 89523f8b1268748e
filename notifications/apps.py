"""Notifications: alert emails and webhooks, and the queue booking emails go through."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate

RESEND_SCHEDULE = "notifications: queue again what never reached the broker"


def schedule_create(**kwargs: Any) -> None:
    """The resender's beat schedule (every 5 minutes), made after migrations; an admin's edits are kept."""
    from core.runs import schedule_ensure

    schedule_ensure(name=RESEND_SCHEDULE, task="notifications.resend_unsent", every=5, period="minutes")


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from . import conf  # noqa: F401 - its settings readers, read at start-up (core.config.read_at_start)

        post_migrate.connect(schedule_create, sender=self, dispatch_uid="notifications-schedule")
        from core import panels
        from notifications import receivers
        from notifications.templatetags.alert_emails import profile_panel

        receivers.connect()
        panels.slot("profile").add(profile_panel)  # alert emails on the profile page
