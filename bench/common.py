"""What the benchmark scripts share: a median timer. Scripts run as
``python bench/NAME.py``, so this module is imported as ``common``."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls: robust to a noisy, shared machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_var_dir(prefix: str) -> str:
    """A fresh FLEET_VAR_DIR for one run, with its own random secret key (as
    ``./run`` writes one into var/): the app refuses to start without a key
    while DEBUG is off, and a benchmark must not borrow the demo's."""
    import os
    import secrets
    import tempfile
    from pathlib import Path

    var = tempfile.mkdtemp(prefix=prefix)
    key = Path(var) / "secret_key"
    key.write_text(secrets.token_urlsafe(50))
    key.chmod(0o600)
    os.environ["FLEET_VAR_DIR"] = var
    return var


def paired_lab(names: list[str]) -> dict[str, list[dict[str, object]]]:
    """A lab document of Sparks with these names, cabled in pairs by their p0 ports."""
    pairs = zip(names[::2], names[1::2], strict=False)
    return {
        "sparks": [{"name": n, "hardware": "dgx-spark-128", "ssh": {"host": "127.0.0.1", "port": 22}} for n in names],
        "cables": [{"type": "qsfp112-dac", "ends": [f"{a}:p0", f"{b}:p0"]} for a, b in pairs],
    }


def django_client(prefix: str, role: str) -> object:
    """Django set up on a fresh embedded database in its own var folder
    (``bench_var_dir``), migrated, and a test client signed in as a user of
    ``role`` ("lab-admin", "member", ...): where the page benchmarks start."""
    import os

    bench_var_dir(prefix)
    os.environ.pop("DATABASE_URL", None)  # always a fresh embedded database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fleet.settings")
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from core.roles import set_role

    setup_test_environment()
    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="bench-pass-123")  # noqa: S106
    set_role(user, role)
    client = Client()
    client.force_login(user)
    return client


def lab_sizes_args(description: str) -> tuple[argparse.Namespace, list[int]]:
    """``--repeats N`` and ``--sizes`` of the benchmarks that build labs from
    simfleet/labgen.py's mix (Sparks per lab, multiples of 1,024): the
    arguments and the sizes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--sizes", default="1024", help="Sparks per lab, multiples of 1,024 (comma-separated)")
    args = parser.parse_args()
    try:
        counts = [int(n) for n in args.sizes.split(",")]
    except ValueError:
        counts = []
    if not counts or any(n <= 0 or n % 1024 for n in counts):
        parser.error("--sizes: multiples of 1024")
    return args, counts


def import_mixed_lab(count: int, *also: Any) -> float:
    """Replace the lab (catalogue and users stay) with simfleet/labgen.py's mix
    of ``count`` Sparks, per 1,024: 80 switched groups of 8, 70 rings of 4,
    50 direct pairs, 4 lone Sparks, through the product's lab import; ``also``:
    more models to empty first. The seconds the import took."""
    from core.actor import Actor
    from inventory.labio import lab_import
    from inventory.models import Cable, NodeGroup, NodeGroupMember, Spark, Switch
    from simfleet.labgen import lab_document

    for model in (*also, Cable, Spark, Switch, NodeGroupMember, NodeGroup):
        model.objects.all().delete()
    k = count // 1024
    doc = lab_document(switched=80 * k, rings=70 * k, pairs=50 * k, singles=4 * k, prefix="spark")
    start = time.perf_counter()
    lab_import(actor=Actor(source="import"), data=doc)
    return time.perf_counter() - start
