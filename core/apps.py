"""The ground floor every app stands on: errors, the actor, roles, API
authentication and configuration. It imports no other app of the project."""

from typing import Any

from django.apps import AppConfig


def settings_check(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    """Every reader marked ``core.config.read_at_start`` reads its setting: a
    value that cannot be read stops start-up, named, with what is expected."""
    from django.core import checks

    from .config import unreadable_settings

    return [checks.Error(problem, id="core.E001") for problem in unreadable_settings()]


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.core import checks
        from django.db.backends.signals import connection_created

        checks.register(settings_check)

        from .db import any_of_register, clamp_out_of_range_timestamps

        any_of_register()
        connection_created.connect(clamp_out_of_range_timestamps, dispatch_uid="core.clamp_timestamps")
