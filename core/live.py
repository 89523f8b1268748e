"""The one state of each Spark, for the floors below the topology app.

The topology app computes it (``topology.live``: the inventory met with
telemetry's latest samples and alerts); the inventory's Sparks list and API,
and telemetry's pages, API and /metrics, show it. Imports only go downwards,
so topology adds its readers to ``SPARK_STATES`` and ``FLEET_STATE`` from its
``AppConfig.ready`` and the lower floors ask this module. Without a reader (an app set without
topology) they get nothing and show no health, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .health import HealthStatus
from .hooks import Hook


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
    def usable_source(self) -> str: ...  # measured | expected | unavailable (down)
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
    @property
    def measured_socket_nodes(self) -> int: ...  # nodes whose NCCL chose TCP sockets in that run


class FleetLike(Protocol):
    """Every cabled link and every live group, read from ONE reading of the state."""

    @property
    def links(self) -> Sequence[LinkStateLike]: ...
    @property
    def groups(self) -> Sequence[GroupStateLike]: ...


Reader = Callable[[Iterable[str] | None], Mapping[str, SparkStateLike]]
FleetReader = Callable[[], FleetLike]
# Spark name -> what it runs (telemetry.software_store.software_out; None: never read)
SoftwareReader = Callable[[Sequence[str]], Mapping[str, Mapping[str, Any] | None]]


@dataclass(frozen=True)
class SparkFinding:
    """A group finding about one Spark (topology's engine or a floor above: bookings, fabric)."""

    code: str
    severity: str  # warning | error
    message: str


# Spark name -> the findings of its groups that name it (warnings and errors, each once)
FindingsReader = Callable[[], Mapping[str, Sequence[SparkFinding]]]
SPARK_STATES: Hook[Reader] = Hook("core.live.spark_states")
SPARK_FINDINGS: Hook[FindingsReader] = Hook("core.live.spark_findings")
FLEET_STATE: Hook[FleetReader] = Hook("core.live.fleet_state")
SPARK_SOFTWARE: Hook[SoftwareReader] = Hook("core.live.spark_software")


@dataclass(frozen=True)
class _NoFleet:
    links: Sequence[LinkStateLike] = ()
    groups: Sequence[GroupStateLike] = ()


def fleet_state() -> FleetLike:
    """Every cabled link's and live group's state, read once; empty without a reader."""
    reader = FLEET_STATE.first()
    return reader() if reader is not None else _NoFleet()


def spark_software(names: Sequence[str]) -> Mapping[str, Mapping[str, Any] | None]:
    """Each named Spark's software (telemetry's reader), by name; {} without a reader."""
    reader = SPARK_SOFTWARE.first()
    return {} if reader is None else reader(list(names))


def spark_findings() -> Mapping[str, Sequence[SparkFinding]]:
    """Every finding about a Spark, by Spark name, from its groups (topology's reader); {} without one.
    The Sparks list and the dashboard show them beside the Spark's alerts."""
    reader = SPARK_FINDINGS.first()
    return {} if reader is None else reader()


def spark_states(names: Iterable[str] | None = None) -> Mapping[str, SparkStateLike]:
    """Each named Spark's state (every Spark with ``None``), by name; {} without a reader."""
    reader = SPARK_STATES.first()
    return {} if reader is None else reader(None if names is None else list(names))
