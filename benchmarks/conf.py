"""Benchmark settings (Django settings, else the environment, else the default:
``core.config``); start-up reads each (``read_at_start``)."""

from __future__ import annotations

from core.config import number, read_at_start, setting


@read_at_start
def bench_timeout_s() -> float:
    """The longest a benchmark run may take on its head node (FLEET_BENCH_TIMEOUT_S, default 30 minutes)."""
    return setting("FLEET_BENCH_TIMEOUT_S", 1800.0, number(0, above=True))
