"""The one state of each Spark, for the floors below the topology app.

The topology app computes it (``topology.live``: the inventory met with
telemetry's latest samples and alerts); the inventory's Sparks list and API,
and telemetry's pages, API and /metrics, show it. Imports only go downwards,
so topology hands its reader in here from its ``AppConfig.ready`` and the
lower floors ask this module. Without a reader (an app set without
topology) they get nothing and show no health, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from .health import HealthStatus


class SparkStateLike(Protocol):
    """What the lower floors read of a Spark's state (``topology.state.SparkState``)."""

    @property
    def name(self) -> str: ...
    @property
    def health(self) -> HealthStatus: ...
    @property
    def why(self) -> str: ...
    @property
    def alerts(self) -> tuple[str, ...]: ...
    @property
    def last_seen(self) -> datetime | None: ...
    @property
    def usable_gb(self) -> float: ...
    @property
    def usable_source(self) -> str: ...  # measured | expected
    @property
    def capacity_gb(self) -> float: ...
    @property
    def fresh(self) -> bool: ...


class LinkStateLike(Protocol):
    """What the lower floors read of a cabled link's state (``topology.state.LinkState``)."""

    @property
    def a(self) -> str: ...
    @property
    def b(self) -> str: ...
    @property
    def cable(self) -> str: ...
    @property
    def expected_gbps(self) -> int: ...
    @property
    def observed_gbps(self) -> int | None: ...
    @property
    def state(self) -> str: ...  # ok | half | down | unobserved


class GroupStateLike(Protocol):
    """What the lower floors read of a live group's state (``topology.live.GroupHealth``)."""

    @property
    def name(self) -> str: ...
    @property
    def health(self) -> HealthStatus: ...
    @property
    def measured_gbs(self) -> float | None: ...  # latest fabric verification's bus bandwidth, GB/s
    @property
    def measured_expected_gbs(self) -> float | None: ...  # what that run was judged against (low end), GB/s


class FleetLike(Protocol):
    """Every cabled link and every live group, read from ONE reading of the state."""

    @property
    def links(self) -> Sequence[LinkStateLike]: ...
    @property
    def groups(self) -> Sequence[GroupStateLike]: ...


Reader = Callable[[Iterable[str] | None], Mapping[str, SparkStateLike]]
FleetReader = Callable[[], FleetLike]
_readers: list[Reader] = []
_fleet_readers: list[FleetReader] = []


def provide(reader: Reader, fleet: FleetReader | None = None) -> None:
    """Register the readers (the topology app does, once)."""
    _readers[:] = [reader]
    _fleet_readers[:] = [fleet] if fleet is not None else []


@dataclass(frozen=True)
class _NoFleet:
    links: Sequence[LinkStateLike] = ()
    groups: Sequence[GroupStateLike] = ()


def fleet_state() -> FleetLike:
    """Every cabled link's and live group's state, read once; empty without a reader."""
    return _fleet_readers[0]() if _fleet_readers else _NoFleet()


def spark_states(names: Iterable[str] | None = None) -> Mapping[str, SparkStateLike]:
    """Each named Spark's state (every Spark with ``None``), by name; {} without a reader."""
    if not _readers:
        return {}
    return _readers[0](None if names is None else list(names))
