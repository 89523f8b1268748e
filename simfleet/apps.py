"""The simulated fleet: asyncssh servers on 127.0.0.1 that answer like DGX
Sparks (the poll, the benchmark command, nccl-tests), the ``simulate``
command that serves them, and generated data (lab documents of any size,
a month of bookings, the ``demo`` command). For the demo, the tests and the
benchmarks only:
no product app imports it (an import-linter contract says so); it is
installed so ``manage.py simulate`` exists."""

from django.apps import AppConfig


class SimfleetConfig(AppConfig):
    name = "simfleet"
    verbose_name = "Simulated fleet (demo, tests, benchmarks)"
