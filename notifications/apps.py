"""Notifications: alert emails and webhooks, and the queue booking emails go through."""

from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from core import panels
        from notifications import receivers
        from notifications.templatetags.alert_emails import profile_panel

        receivers.connect()
        panels.register("profile", profile_panel)  # alert emails on the profile page
