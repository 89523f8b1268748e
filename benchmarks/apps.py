"""Benchmarks: measured and published decode and prefill records, runs
started on a booked group over SSH, their parsers, pages, charts and API.
It stands on placement (the model catalogue, the performance model) and
hands placement the lab's runs to calibrate on (``placement.lab_calibration.LAB_RUNS``)."""

from typing import Any

from django.apps import AppConfig

REAP_SCHEDULE = "benchmarks: fail runs whose worker stopped"


def schedule_create(**kwargs: Any) -> None:
    """The once-a-minute reaper's beat schedule, made after migrations (an admin's later edits are kept)."""
    from core.runs import schedule_ensure

    schedule_ensure(name=REAP_SCHEDULE, task="benchmarks.reap", every=1, period="minutes")


class BenchmarksConfig(AppConfig):
    name = "benchmarks"
    verbose_name = "Benchmarks"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from placement.lab_calibration import LAB_RUNS

        from . import conf  # noqa: F401 - its settings readers, read at start-up (core.config.read_at_start)
        from .lab_runs import lab_runs
        from .seed import seed_after_migrate

        LAB_RUNS.add(lab_runs)
        # A flushed database (transactional tests, `manage.py flush`) gets the
        # published figures back, as it gets the model catalogue.
        post_migrate.connect(seed_after_migrate, sender=self, dispatch_uid="benchmarks-seed")
        post_migrate.connect(schedule_create, sender=self, dispatch_uid="benchmarks-schedule")
