"""The telemetry app: polling, samples, health and alerts.

``ready`` creates the beat schedule after migrations (editable in the admin
afterwards: existing rows are never overwritten). Topology, a floor above,
reads alerts and measured memory itself (``topology.observed``).
"""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate

# name -> (task, every N seconds; None: the poll interval)
SCHEDULE: dict[str, tuple[str, int | None]] = {
    "telemetry: poll the fleet": ("telemetry.poll_fleet", None),
    "telemetry: check for stale nodes": ("telemetry.check_stale", None),
    "telemetry: downsample old samples": ("telemetry.downsample", 3600),
}


def schedule_create(**kwargs: Any) -> None:
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    from telemetry import conf

    for name, (task, every) in SCHEDULE.items():
        if PeriodicTask.objects.filter(name=name).exists():
            continue  # an admin may have changed it
        interval, _ = IntervalSchedule.objects.get_or_create(
            every=every or conf.poll_interval_s(), period=IntervalSchedule.SECONDS
        )
        PeriodicTask.objects.create(name=name, task=task, interval=interval)


def software_script_check(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    """FLEET_NCCL_HOME must be a plain folder: it goes into the software poll's
    script with the launch image, so it is checked at start-up (migrate,
    runserver, ``manage.py check``) and a lab reads the fix there rather than
    in every poll round's failure. A launch image that cannot be read at all
    is core.E001's (its reader is marked read_at_start)."""
    from django.core import checks
    from django.core.exceptions import ImproperlyConfigured

    from telemetry import conf
    from telemetry.software_script import SoftwareScriptError, software_lines

    try:
        images = conf.launch_images()
    except ImproperlyConfigured:
        return []
    try:
        software_lines(nccl_home=conf.nccl_home(), images=images)
    except SoftwareScriptError as exc:
        return [checks.Error(str(exc), id="telemetry.E002")]
    return []


class TelemetryConfig(AppConfig):
    name = "telemetry"
    verbose_name = "Telemetry"

    def ready(self) -> None:
        from django.core import checks

        from . import conf  # noqa: F401 - its settings readers, read at start-up (core.config.read_at_start)

        checks.register(software_script_check)
        post_migrate.connect(schedule_create, sender=self, dispatch_uid="telemetry-schedule")
        from telemetry.sample_rows import twin_sets_forget

        # A flush (tests) ends with post_migrate: the twin sets this process knew stored are gone.
        post_migrate.connect(twin_sets_forget, sender=self, dispatch_uid="telemetry-twin-sets")
        from core import live, panels
        from telemetry import metrics
        from telemetry.software_store import software_by_name
        from telemetry.templatetags.telemetry_tags import software_panel, spark_panel

        live.SPARK_SOFTWARE.add(software_by_name)  # the Spark API's ``software``
        metrics.connect_task_signals()
        panels.slot("spark").add(spark_panel)  # the Spark page's health box
        panels.slot("spark").add(software_panel, order=60)  # and what it runs
