"""Notifications: alert emails and webhooks, and the queue booking emails go through."""

from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from notifications import receivers

        receivers.connect()
