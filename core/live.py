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
from datetime import datetime
from typing import Protocol

HEALTH_STATUSES = ("ok", "degraded", "down", "unknown", "new")


class SparkStateLike(Protocol):
    """What the lower floors read of a Spark's state (``topology.state.SparkState``)."""

    @property
    def name(self) -> str: ...
    @property
    def health(self) -> str: ...  # ok | degraded | down | unknown | new
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
    def health(self) -> str: ...  # ok | degraded | down | unknown | new
    @property
    def measured_gbs(self) -> float | None: ...  # latest fabric verification's bus bandwidth, GB/s


Reader = Callable[[Iterable[str] | None], Mapping[str, SparkStateLike]]
LinkReader = Callable[[], Sequence[LinkStateLike]]
GroupReader = Callable[[], Sequence[GroupStateLike]]
_readers: list[Reader] = []
_link_readers: list[LinkReader] = []
_group_readers: list[GroupReader] = []


def provide(reader: Reader, links: LinkReader | None = None, groups: GroupReader | None = None) -> None:
    """Register the readers (the topology app does, once)."""
    _readers[:] = [reader]
    _link_readers[:] = [links] if links is not None else []
    _group_readers[:] = [groups] if groups is not None else []


def group_states() -> Sequence[GroupStateLike]:
    """Every live group's health and measured exchange; () without a reader."""
    return _group_readers[0]() if _group_readers else ()


def link_states() -> Sequence[LinkStateLike]:
    """Every cabled link's state; () without a reader."""
    return _link_readers[0]() if _link_readers else ()


def spark_states(names: Iterable[str] | None = None) -> Mapping[str, SparkStateLike]:
    """Each named Spark's state (every Spark with ``None``), by name; {} without a reader."""
    if not _readers:
        return {}
    return _readers[0](None if names is None else list(names))
