"""Benchmarks: measured and published decode and prefill records, runs
started on a booked group over SSH, their parsers, pages, charts and API.
It stands on placement (the model catalogue, the performance model) and
hands placement the lab's runs to calibrate on (``placement.lab_calibration.LAB_RUNS``)."""

from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "benchmarks"
    verbose_name = "Benchmarks"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from placement.lab_calibration import LAB_RUNS

        from .lab_runs import lab_runs
        from .seed import seed_after_migrate

        LAB_RUNS.add(lab_runs)
        # A flushed database (transactional tests, `manage.py flush`) gets the
        # published figures back, as it gets the model catalogue.
        post_migrate.connect(seed_after_migrate, sender=self, dispatch_uid="benchmarks-seed")
