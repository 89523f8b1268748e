"""Reads of the one state: the inventory (should be) and telemetry's latest
samples and open alerts (is), handed to the pure rules of ``topology.state``.

Every page, the planner, the API and /metrics read Sparks, links and groups
through here. A fixed number of queries whatever the fleet's size: the
Sparks (one), their latest samples (one), their open alerts (one), plus the
group overview's when links and groups are wanted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone

from core.health import HealthStatus
from core.hooks import Hook
from core.live import SparkFinding
from inventory.models import NodeGroupMember, Spark
from telemetry import conf
from telemetry.health import _addressed
from telemetry.models import Alert, NodeState
from telemetry.sample import TwinReading

from .engine import Group, link_speed_class
from .selectors import GroupView, Overview, groups_overview
from .state import (
    AlertSeen,
    FleetState,
    GroupState,
    LinkExpected,
    LinkState,
    MeasuredExchange,
    SparkExpected,
    SparkSeen,
    SparkState,
    TwinSeen,
    fleet_state,
    group_state,
    link_state,
    spark_state,
)

# Measured exchange bandwidth, by group id, from the floors above (the fabric
# app registers its latest finished verifications in its AppConfig.ready):
# one call for all the groups read at once, a fixed number of queries.
MeasuredReader = Callable[[Sequence[int]], Mapping[int, MeasuredExchange]]
MEASURED_PROVIDERS: Hook[MeasuredReader] = Hook("topology.measured_exchanges")


def measured_exchanges(group_ids: Sequence[int]) -> dict[int, MeasuredExchange]:
    """Each group's measured exchange, by id, from the registered providers (none: {})."""
    found: dict[int, MeasuredExchange] = {}
    if not group_ids:
        return found
    for provider in MEASURED_PROVIDERS:
        for gid, measured in provider(group_ids).items():
            found.setdefault(gid, measured)
    return found


def _addressed_twin(addresses: Iterable[str]) -> bool:
    return _addressed(TwinReading("", "", None, True, None, None, tuple(addresses)))


def _seen(names: list[str] | None) -> dict[str, SparkSeen]:
    """Telemetry's latest of these Sparks (every Spark with ``None``): two queries."""
    states = (
        NodeState.objects.select_related("latest", "latest__twin_set")
        .only(
            "spark__name",
            "status",
            "key_status",
            "last_poll_at",
            "last_sample_at",
            "latest__reachable",
            "latest__mem_available_bytes",
            "latest__twin_set_id",
            "latest__twin_set__twins",
            "latest__twins_inline",
            "latest__at",
        )
        .select_related("spark")
    )
    alerts = Alert.objects.filter(ended_at__isnull=True).values_list("spark__name", "code", "severity", "about")
    if names is not None:
        states = states.filter(spark__name__in=names)
        alerts = alerts.filter(spark__name__in=names)
    by_node: dict[str, list[AlertSeen]] = defaultdict(list)
    for name, code, severity, about in alerts.order_by("spark__name", "code"):
        by_node[name].append(AlertSeen(code, severity, tuple(about or ())))
    out = {}
    for row in states:
        latest = row.latest
        twins = None
        if latest is not None and latest.twins is not None:
            twins = tuple(
                TwinSeen(
                    t["port"],
                    t["name"],
                    bool(t["up"]),
                    t.get("speed_mbps"),
                    _addressed_twin(t.get("addresses") or ()),
                    t.get("rdma_state") in (None, "ACTIVE"),
                )
                for t in latest.twin_list
            )
        name = row.spark.name
        out[name] = SparkSeen(
            key=row.key_status,  # type: ignore[arg-type]
            verdict=row.status,
            last_poll_at=row.last_poll_at,
            last_sample_at=row.last_sample_at,
            reachable=latest.reachable if latest is not None else None,
            mem_available_bytes=latest.mem_available_bytes if latest is not None else None,
            twins=twins,
            alerts=tuple(by_node.get(name, ())),
        )
    return out


def _expected(names: list[str] | None) -> list[SparkExpected]:
    rows = Spark.objects.order_by("name").values_list("name", "hardware__memory_gb", "status", "ssh_host", "ssh_port")
    if names is not None:
        rows = rows.filter(name__in=names)
    return [
        SparkExpected(n, float(mem or 0), status == Spark.Status.ACTIVE, f"{host}:{port}")
        for n, mem, status, host, port in rows
    ]


def _now(now: datetime | None) -> datetime:
    return now or timezone.now()


def _reserve() -> float:
    return float(settings.FLEET_OS_RESERVE_GB)


def spark_states(names: Iterable[str] | None = None, *, now: datetime | None = None) -> dict[str, SparkState]:
    """Health and usable memory of these Sparks (all with ``None``), by name; three queries."""
    wanted = None if names is None else list(names)
    seen = _seen(wanted)
    at = _now(now)
    # read once, not once a Spark: a setting's lookup costs more than a Spark's state
    interval, reserve = conf.poll_interval_s(), _reserve()
    return {
        s.name: spark_state(s, seen.get(s.name), now=at, interval_s=interval, os_reserve_gb=reserve)
        for s in _expected(wanted)
    }


def spark_findings() -> dict[str, list[SparkFinding]]:
    """Every warning or error finding of a live group that names a Spark of it, by Spark, each
    once (a sub-group repeats its parent's): the generic path by which a finding about a Spark,
    whoever raises it (the engine, bookings, fabric, telemetry's alerts), reaches the Sparks
    list and the dashboard."""
    found: dict[str, list[SparkFinding]] = defaultdict(list)
    seen: set[tuple[str, str, str]] = set()
    for view in groups_overview().all():
        nodes = set(view.result.nodes)
        for f in view.findings:
            if f.severity not in ("warning", "error"):
                continue
            for name in f.objects:
                if name in nodes and (name, f.code, f.message) not in seen:
                    seen.add((name, f.code, f.message))
                    found[name].append(SparkFinding(f.code, f.severity, f.message))
    return dict(found)


def down_in_groups() -> dict[int, tuple[str, ...]]:
    """Each live group's down Sparks, by group id (groups without one left out):
    what the plan and booking forms mark a group with. Four queries."""
    rows = NodeGroupMember.objects.filter(group__retired_at__isnull=True).values_list("group_id", "spark__name")
    states = spark_states()
    found: dict[int, list[str]] = defaultdict(list)
    for gid, name in rows.order_by("group_id", "spark__name"):
        state = states.get(name)
        if state is not None and not state.runs:
            found[gid].append(name)
    return {gid: tuple(names) for gid, names in found.items()}


def down_mark(names: Sequence[str]) -> str:
    """The words a group's choice in a form carries when some of its Sparks are down ("" when none is)."""
    return f" · {len(names)} down ({', '.join(names)})" if names else ""


@dataclass
class Live:
    """The whole fleet's state with the group overview it was read with."""

    overview: Overview
    fleet: FleetState
    groups: dict[int, GroupState]

    def group(self, view: GroupView) -> GroupState:
        return self.groups[view.id]

    def spark(self, name: str) -> SparkState:
        return self.fleet.sparks[name]


def _links(result: Group) -> list[LinkExpected]:
    return [LinkExpected(link.a, link.b, link.cable, link.gbps) for link in result.links]


def group_state_of(
    result: Group,
    fleet: FleetState,
    *,
    measured: MeasuredExchange | None = None,
    by_key: Mapping[tuple[str, str], LinkState] | None = None,
) -> GroupState:
    """A group's state: the engine's reading of its cabling, the fleet's link and Spark states,
    and its measured exchange when a verification measured one (``by_key``: the
    fleet's links by their ends, built once when every group is read)."""
    if by_key is None:
        by_key = links_by_key(fleet)
    links = [by_key.get((e.a, e.b)) or link_state(e, fleet.sparks, {}) for e in _links(result)]
    return group_state(
        result.nodes,
        links,
        fleet.sparks,
        expected_exchange_gbs=result.collective_gbs,
        speed_class=link_speed_class,
        measured_gbs=measured.gbs if measured else None,
        measured_run=measured.run if measured else None,
        measured_at=measured.at if measured else None,
        measured_expected_gbs=measured.expected_gbs if measured else None,
        measured_socket_hosts=measured.socket_hosts if measured else (),
    )


def links_by_key(fleet: FleetState) -> dict[tuple[str, str], LinkState]:
    return {(link.a, link.b): link for link in fleet.links}


def live_state(
    *,
    overview: Overview | None = None,
    now: datetime | None = None,
    views: Sequence[GroupView] | None = None,
    every_spark: bool = False,
) -> Live:
    """Every Spark, link and live group (sub-groups included); with ``views``,
    only those groups, their Sparks and their links (one group's page, a page
    of the API's list, the drawings a page shows): what they show is the
    same, read at the cost of their own Sparks rather than the whole fleet's.
    ``every_spark``: every Spark's state even so (a page's fleet-wide counts)."""
    overview = overview or groups_overview()
    chosen = overview.all() if views is None else list(views)
    alone = views is not None and not every_spark
    names = sorted({name for view in chosen for name in view.result.nodes}) if alone else None
    seen = _seen(names)
    at = _now(now)
    expected = _expected(names)
    links: dict[tuple[str, str], LinkExpected] = {}
    for view in overview.groups if views is None else chosen:
        for link in _links(view.result):
            links.setdefault((link.a, link.b), link)
    fleet = fleet_state(
        expected, links.values(), seen, now=at, interval_s=conf.poll_interval_s(), os_reserve_gb=_reserve()
    )
    views = chosen
    measured = measured_exchanges([view.id for view in views])
    by_key = links_by_key(fleet)
    groups = {
        view.id: group_state_of(view.result, fleet, measured=measured.get(view.id), by_key=by_key) for view in views
    }
    return Live(overview, fleet, groups)


def group_state_for(
    result: Group, *, now: datetime | None = None, measured: MeasuredExchange | None = None
) -> GroupState:
    """One group's state, reading only its Sparks (three queries): for the planner."""
    names = list(result.nodes)
    seen = _seen(names)
    fleet = fleet_state(
        _expected(names),
        _links(result),
        seen,
        now=_now(now),
        interval_s=conf.poll_interval_s(),
        os_reserve_gb=_reserve(),
    )
    return group_state_of(result, fleet, measured=measured)


def group_out(view: GroupView, state: GroupState) -> dict[str, Any]:
    """A group as the API shows it: the engine's reading of its cabling and its state, exactly these keys."""
    g = view.result
    return {
        "id": view.id,
        "name": view.row.name,
        "kind": g.kind,
        "nodes": list(g.nodes),
        "switches": list(g.switches),
        "health": {"status": state.health, "why": state.why, "unhealthy": list(state.unhealthy)},
        "links": [
            {
                "a": link.a,
                "b": link.b,
                "cable": link.cable,
                "gbps": link.gbps,
                "expected_gbps": link.expected_gbps,
                "observed_gbps": link.observed_gbps,
                "state": link.state,
                "why": link.why,
                "measured_gbps": link.measured_gbps,
            }
            for link in state.links
        ],
        "slowest_gbps": state.slowest_gbps,
        "slowest_source": "observed" if state.slowest_observed else "expected",
        "exchange_gbs": state.exchange_gbs,
        "exchange_source": state.exchange_source,
        "measured_gbs": state.measured_gbs,
        "measured_run": state.measured_run,
        "measured_at": state.measured_at,
        "measured_socket_hosts": list(state.measured_socket_hosts),
        "memory": {
            "local_gb": state.memory.local_gb,
            "pooled_gb": state.memory.pooled_gb,
            "symmetric_gb": state.memory.symmetric_gb,
            "left_out": list(state.memory.left_out),
            "bandwidth_gbs": g.memory.bandwidth_gbs,
            "usable_gb_per_node": dict(state.memory.usable_gb_per_node),
            "usable_source_per_node": dict(state.memory.sources),
        },
        "findings": [
            {"code": f.code, "severity": f.severity, "message": f.message, "objects": list(f.objects)}
            for f in view.findings
        ],
    }


@dataclass(frozen=True)
class GroupHealth:
    """A live group's health and measured exchange, for /metrics (through ``core.live``)."""

    name: str
    health: HealthStatus
    measured_gbs: float | None
    measured_expected_gbs: float | None = None
    measured_socket_nodes: int = 0  # nodes whose NCCL chose TCP sockets in that verification


@dataclass(frozen=True)
class FleetSnapshot:
    """Every cabled link's state and every live group's health, from one ``live_state``."""

    links: tuple[LinkState, ...]
    groups: tuple[GroupHealth, ...]


def fleet_snapshot() -> FleetSnapshot:
    """The links and live groups (sub-groups included) of one reading of the state (for /metrics)."""
    live = live_state()
    states = [(view.row.name, live.group(view)) for view in live.overview.all()]
    groups = tuple(
        GroupHealth(
            name, state.health, state.measured_gbs, state.measured_expected_gbs, len(state.measured_socket_hosts)
        )
        for name, state in states
    )
    return FleetSnapshot(live.fleet.links, groups)
