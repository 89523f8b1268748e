"""Serving settings with their defaults (Django settings, else the environment,
else the default: ``core.config``); start-up reads each (``read_at_start``)."""

from __future__ import annotations

from core.config import number, read_at_start, setting, whole


@read_at_start
def base_port() -> int:
    """FLEET_SERVE_PORT: the first port engines and routers are given on a node (8000, vLLM's own)."""
    return setting("FLEET_SERVE_PORT", 8000, whole(1, 65535))


@read_at_start
def metrics_timeout_s() -> float:
    """How long the serving pages wait for an engine's /metrics (FLEET_SERVE_METRICS_TIMEOUT_S)."""
    return setting("FLEET_SERVE_METRICS_TIMEOUT_S", 1.5, number(0, above=True))


@read_at_start
def step_timeout_s() -> float:
    """The longest one serving step may run over SSH (FLEET_SERVE_STEP_S, default 15 minutes)."""
    return setting("FLEET_SERVE_STEP_S", 900.0, number(0, above=True))


@read_at_start
def ready_timeout_s() -> float:
    """How long an engine may take to load its model and answer (FLEET_SERVE_READY_S, default 30 minutes)."""
    return setting("FLEET_SERVE_READY_S", 1800.0, number(0, above=True))


@read_at_start
def pull_timeout_s() -> float:
    """How long a node's image step may download the launch image (FLEET_SERVE_PULL_S, default an hour)."""
    return setting("FLEET_SERVE_PULL_S", 3600.0, number(0, above=True))


@read_at_start
def weights_timeout_s() -> float:
    """How long a node's weights step may download the model (FLEET_SERVE_WEIGHTS_S, default two hours)."""
    return setting("FLEET_SERVE_WEIGHTS_S", 7200.0, number(0, above=True))
