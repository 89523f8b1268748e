"""The ground floor every app stands on: errors, the actor, roles, API
authentication and configuration. It imports no other app of the project."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from .db import any_of_register, clamp_out_of_range_timestamps

        any_of_register()
        connection_created.connect(clamp_out_of_range_timestamps, dispatch_uid="core.clamp_timestamps")
