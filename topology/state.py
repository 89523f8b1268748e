"""One state per Spark, link and group: what the inventory says should be,
met with what the latest telemetry saw, and how old that is.

Pure (no Django): plain dataclasses in, plain dataclasses out, and ``now``
passed in, so the same inputs always give the same state. Every page, the
planner, the API and /metrics read the answer of ``fleet_state``; nothing
else decides a Spark's health, its usable memory or a link's speed.

The rules, written down once (docs/state.md says the same in prose):

- **Spark health** ``ok | degraded | down | unknown | new``. ``new``: never
  polled, or reached with an SSH host key awaiting an admin's acceptance (the
  action to take is given; a new Spark is not counted as down). ``down``: the
  last poll did not reach it (a Spark never reached at all is told to check
  its address and port: nothing answers there), or it presented another host
  key. ``unknown``: no
  sample for ``STALE_INTERVALS`` poll intervals. Otherwise the verdict of
  the health rules on its last poll: ``degraded`` with any warning or
  critical alert, else ``ok``.
- **Usable memory**, what a model can take on that Spark now, in GB of 10^9
  bytes: *unavailable* = 0 on a down Spark (nothing can run there; groups
  leave it out of their pooled and symmetric memory and say so);
  *measured* = MemAvailable of a fresh sample (not stale); else
  *expected* = the catalogue capacity (MemTotal a Spark of that size
  reports, published: 127,600,748 kB on a 128 GB Spark = 130.7 GB) minus
  the OS reserve.
- **Link** ``ok | half | down | unobserved``: each Spark end of the cable is
  read from its latest fresh sample. The port carries 100 Gb/s per twin that
  is up, addressed and whose RoCE port is active (the PCIe x4 behind each twin), at most the speed the
  link negotiated, at most what the cabling allows (expected). A twin's
  speed field alone never says "half": a healthy twin reports 200000 Mb/s.
  A link with a down Spark at one end is down.
- **Group** health rolls up its Sparks and links; its slowest link is the
  slowest observed (the expected speed stands in for an unobserved link and
  is labelled so); its exchange bandwidth class follows that link.
  ``measured_gbs`` (with its run and date) is the measured figure: the latest
  finished fabric verification, which the fabric app provides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from core.health import HEALTH_STATUSES, UNHEALTHY, HealthStatus

LinkStatus = Literal["ok", "half", "down", "unobserved"]
Source = Literal["measured", "expected", "unavailable"]
KeyStatus = Literal["ok", "unknown", "mismatch"]

LINK_STATES: tuple[LinkStatus, ...] = ("ok", "half", "down", "unobserved")

GB = 10**9  # the one unit of memory on every page and in the API
# Published: a 128 GB Spark reports MemTotal 127,600,748 kB (spark-ops notes;
# docs/state.md). A 64 GB Spark is taken as half of that.
MEMTOTAL_KB_PER_128 = 127_600_748
CAPACITY_GB_PER_NOMINAL_GB = MEMTOTAL_KB_PER_128 * 1024 / GB / 128
# What one twin (one PCIe Gen5 x4 link) carries, whatever its speed field says.
TWIN_GBPS = 100
# A sample older than this many poll intervals is not "now" any more
# (telemetry's ``stale`` rule uses the same number).
STALE_INTERVALS = 3.0

_SEVERE = ("critical", "warning")


def capacity_gb(nominal_gb: float) -> float:
    """Unified memory a Spark of this catalogue size reports (MemTotal), GB."""
    return nominal_gb * CAPACITY_GB_PER_NOMINAL_GB


def expected_usable_gb(nominal_gb: float, os_reserve_gb: float) -> float:
    """Usable memory without a fresh sample: capacity minus the OS reserve, GB (one decimal)."""
    return round(max(0.0, capacity_gb(nominal_gb) - os_reserve_gb), 1)


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class SparkExpected:
    """What the inventory says of one Spark."""

    name: str
    memory_gb: float  # catalogue size: 128 or 64
    active: bool = True  # False: in maintenance or retired (not polled)
    address: str = ""  # "host:port" the poller connects to (named when nothing answers there)


@dataclass(frozen=True)
class LinkExpected:
    """One cabled link as the topology engine reads it (``Link``)."""

    a: str  # "node:port"
    b: str  # "node:port" or "switch:port"
    cable: str
    gbps: int  # what the cabling allows


@dataclass(frozen=True)
class TwinSeen:
    port: str  # "p0" / "p1"
    name: str  # Linux interface
    up: bool
    speed_mbps: int | None
    addressed: bool  # has an address NCCL/RoCE can use
    rdma_active: bool = True  # its RoCE port is ACTIVE (or not reported): RDMA can use it


@dataclass(frozen=True)
class AlertSeen:
    code: str
    severity: str  # critical | warning | info
    objects: tuple[str, ...] = ()


@dataclass(frozen=True)
class SparkSeen:
    """What telemetry stored of one Spark. A Spark never polled has none."""

    key: KeyStatus
    verdict: str  # the health rules' status of its last poll: ok | degraded | down | unknown
    last_poll_at: datetime | None
    last_sample_at: datetime | None  # last poll that brought a sample
    reachable: bool | None  # did the last poll reach it
    mem_available_bytes: int | None  # of the latest sample
    twins: tuple[TwinSeen, ...] | None  # of the latest sample; None: not read
    alerts: tuple[AlertSeen, ...] = ()


# ---------------------------------------------------------------- outputs


@dataclass(frozen=True)
class SparkState:
    name: str
    health: HealthStatus
    why: str  # one sentence; for "new" the action to take
    alerts: tuple[str, ...]  # open alert codes, sorted, each once
    last_seen: datetime | None  # last sample
    usable_gb: float
    usable_source: Source
    capacity_gb: float
    healthy_gb: float = 0.0  # expected usable memory once it works again (capacity minus the OS reserve)

    @property
    def fresh(self) -> bool:
        return self.usable_source == "measured"

    @property
    def runs(self) -> bool:
        """Can run something now: every Spark but a down one (its memory is unavailable)."""
        return self.health is not HealthStatus.DOWN

    @property
    def usable_note(self) -> str:
        """Where ``usable_gb`` comes from, in words."""
        if self.usable_source == "unavailable":
            return "down, nothing can run on it"
        if self.usable_source == "expected":
            return f"capacity {self.capacity_gb:.1f} GB − OS reserve, no fresh sample"
        return "MemAvailable of the latest sample"


@dataclass(frozen=True)
class LinkState:
    a: str
    b: str
    cable: str
    expected_gbps: int
    observed_gbps: int | None  # None: nothing observed
    state: LinkStatus
    why: str
    measured_gbps: float | None = None  # a measured exchange (fabric verification), when there is one

    @property
    def gbps(self) -> int:
        """The speed to draw and plan with: observed, else expected."""
        return self.expected_gbps if self.observed_gbps is None else self.observed_gbps

    @property
    def label(self) -> str:
        """Short text for a diagram: "200G", "100G (one twin)", "down", "200G expected"."""
        if self.state == "down":
            return "down"
        if self.state == "unobserved":
            return f"{self.expected_gbps}G expected"
        if self.state == "half":
            return f"{self.gbps}G ({self.why_short})"
        return f"{self.gbps}G"

    @property
    def why_short(self) -> str:
        if "negotiated" in self.why:
            return "negotiated"
        if "one twin" in self.why:
            return "one twin"
        return "slow"


@dataclass(frozen=True)
class GroupMemory:
    usable_gb_per_node: dict[str, float]
    sources: dict[str, Source]
    local_gb: float  # the most one node can take alone
    pooled_gb: float  # summed over the nodes that can run something: distributed, never one machine's memory
    symmetric_gb: float  # those nodes x the smallest of them: what symmetric sharding can use
    left_out: tuple[str, ...] = ()  # down Sparks: no memory counted, nothing placed on them

    @property
    def counted(self) -> int:
        """How many of the group's Sparks the figures count."""
        return len(self.usable_gb_per_node) - len(self.left_out)

    @property
    def measured(self) -> int:
        return sum(1 for s in self.sources.values() if s == "measured")


@dataclass(frozen=True)
class MeasuredExchange:
    """A group's measured exchange: the latest finished fabric verification's
    average bus bandwidth (GB/s), its run and when it finished, and the low
    end of what the group's links should give as that run was judged (GB/s)."""

    gbs: float
    run: int
    at: datetime | None
    expected_gbs: float | None = None
    socket_hosts: tuple[str, ...] = ()  # the nodes whose NCCL chose TCP sockets in that run


@dataclass(frozen=True)
class GroupState:
    health: HealthStatus
    why: str
    nodes: tuple[str, ...]
    links: tuple[LinkState, ...]
    memory: GroupMemory
    slowest_gbps: int  # slowest link still carrying traffic: observed, else expected; 0 without links
    slowest_observed: bool  # False when the slowest figure is the inventory's (nothing observed there)
    expected_slowest_gbps: int
    exchange_gbs: float  # collective bandwidth class over the slowest link, GB/s
    measured_gbs: float | None = None  # measured exchange bandwidth (fabric verification), when there is one
    unhealthy: tuple[str, ...] = ()  # Sparks that are degraded or down
    sparks: tuple[SparkState, ...] = ()  # the group's Sparks' states, in the group's order
    measured_run: int | None = None  # the fabric verification run that measured ``measured_gbs``
    measured_at: datetime | None = None  # when that run finished
    # the low end of what the links should give, as that run was judged (GB/s): below it, the fabric underperforms
    measured_expected_gbs: float | None = None
    # the nodes whose NCCL fell back to TCP sockets in that run (RoCE not used there)
    measured_socket_hosts: tuple[str, ...] = ()

    @property
    def exchange_source(self) -> str:
        """Where ``exchange_gbs`` comes from: always a prediction; a measured
        figure is ``measured_gbs`` beside it, never in its place."""
        return "predicted from observed links" if self.slowest_observed else "predicted from the cabling"


@dataclass(frozen=True)
class FleetState:
    sparks: dict[str, SparkState]
    links: tuple[LinkState, ...]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = dict.fromkeys(HEALTH_STATUSES, 0)
        for s in self.sparks.values():
            out[s.health] += 1
        return out


# ---------------------------------------------------------------- Sparks


def _age_s(now: datetime, then: datetime | None) -> float | None:
    return None if then is None else (now - then).total_seconds()


def _ago(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def spark_state(
    expected: SparkExpected, seen: SparkSeen | None, *, now: datetime, interval_s: float, os_reserve_gb: float
) -> SparkState:
    """One Spark's state (the rules are in the module's docstring)."""
    capacity = round(capacity_gb(expected.memory_gb), 1)
    alerts = tuple(sorted({a.code for a in seen.alerts})) if seen else ()
    last_seen = seen.last_sample_at if seen else None
    age = _age_s(now, last_seen)
    fresh = age is not None and age <= STALE_INTERVALS * interval_s
    healthy = expected_usable_gb(expected.memory_gb, os_reserve_gb)
    health, why = _health(expected, seen, age, fresh, interval_s)
    source: Source
    if health is HealthStatus.DOWN:
        usable, source = 0.0, "unavailable"
    elif seen is not None and fresh and seen.mem_available_bytes is not None:
        usable, source = round(seen.mem_available_bytes / GB, 1), "measured"
    else:
        usable, source = healthy, "expected"
    return SparkState(expected.name, health, why, alerts, last_seen, usable, source, capacity, healthy)


def _health(
    expected: SparkExpected, seen: SparkSeen | None, age: float | None, fresh: bool, interval_s: float
) -> tuple[HealthStatus, str]:
    name = expected.name
    if seen is None or seen.last_poll_at is None:
        if not expected.active:
            return HealthStatus.UNKNOWN, f"{name} is not active in the inventory, so it is not polled."
        return HealthStatus.NEW, f"{name} has never been polled: check its SSH address, then wait for the next poll."
    if seen.key == "mismatch":
        return HealthStatus.DOWN, f"{name} presented another SSH host key than the accepted one; nothing is run on it."
    where = f" on {expected.address}" if expected.address else ""
    if seen.reachable is False and seen.key != "ok":
        # never reached with an accepted key: most often a wrong address or port
        return HealthStatus.DOWN, f"nothing answers{where}: check the address and port"
    if seen.key == "unknown":
        return HealthStatus.NEW, (
            f"{name}'s SSH host key awaits acceptance: compare it with the node's console and accept "
            "it on the node's page (or manage.py hostkeys accept)."
        )
    if seen.reachable is False or seen.verdict == HealthStatus.DOWN:
        return (
            HealthStatus.DOWN,
            f"{name} did not answer its last poll{where}: check its power, management network and sshd.",
        )
    if not fresh:
        if age is None:
            return HealthStatus.UNKNOWN, f"{name} answered but has not sent a sample yet."
        return HealthStatus.UNKNOWN, f"{name} has sent no sample for {_ago(age)} ({STALE_INTERVALS:g} poll intervals)."
    severe = sorted({a.code for a in seen.alerts if a.severity in _SEVERE})
    if severe or seen.verdict == HealthStatus.DEGRADED:
        return HealthStatus.DEGRADED, f"{name}: {', '.join(severe) or 'a warning'}."
    return HealthStatus.OK, f"{name} answered {_ago(age or 0.0)} ago with nothing to report."


# ---------------------------------------------------------------- links


@dataclass(frozen=True)
class _End:
    gbps: int | None  # None: not observed
    why: str


def _end(device: str, port: str, expected_gbps: int, state: SparkState | None, seen: SparkSeen | None) -> _End:
    ref = f"{device}:{port}"
    if state is None:
        return _End(None, "")  # a switch end: telemetry reads Sparks only
    if state.health is HealthStatus.DOWN:
        return _End(0, f"{device} is down")
    if not state.fresh or seen is None or seen.twins is None:
        return _End(None, f"no fresh sample of {device}")
    twins = [t for t in seen.twins if t.port == port]
    up = [t for t in twins if t.up]
    if not up:
        return _End(0, f"{ref}: both twins down")
    usable = [t for t in up if t.addressed and t.rdma_active]
    if not usable:
        return _End(0, f"{ref}: twins up but none has both an address and an active RoCE port")
    speeds = [t.speed_mbps for t in up if t.speed_mbps]
    negotiated = min(speeds) // 1000 if speeds else expected_gbps
    by_twins = TWIN_GBPS * len(usable)
    gbps = min(expected_gbps, by_twins, negotiated)
    if gbps >= expected_gbps:
        return _End(gbps, "")
    if negotiated <= by_twins and negotiated < expected_gbps:
        return _End(gbps, f"{ref} negotiated {negotiated} Gb/s")
    return _End(gbps, f"{ref} carries traffic on one twin ({usable[0].name})")


def link_state(link: LinkExpected, sparks: Mapping[str, SparkState], seen: Mapping[str, SparkSeen]) -> LinkState:
    """One cabled link: its Spark ends read from their latest fresh samples."""
    ends = []
    for ref in (link.a, link.b):
        device, _, port = ref.rpartition(":")
        ends.append(_end(device, port, link.gbps, sparks.get(device), seen.get(device)))
    observed = [e for e in ends if e.gbps is not None]
    reasons = "; ".join(e.why for e in ends if e.why)
    if not observed:
        why = reasons or "no Spark end of this link is polled"
        return LinkState(link.a, link.b, link.cable, link.gbps, None, "unobserved", f"{why}: speed from the cabling")
    gbps = min(e.gbps or 0 for e in observed)
    if gbps <= 0:
        return LinkState(link.a, link.b, link.cable, link.gbps, 0, "down", reasons)
    if gbps < link.gbps:
        return LinkState(
            link.a, link.b, link.cable, link.gbps, gbps, "half", f"{reasons}: about {gbps} of {link.gbps} Gb/s"
        )
    return LinkState(link.a, link.b, link.cable, link.gbps, gbps, "ok", "")


# ---------------------------------------------------------------- fleet and groups


def fleet_state(
    sparks: Iterable[SparkExpected],
    links: Iterable[LinkExpected],
    seen: Mapping[str, SparkSeen],
    *,
    now: datetime,
    interval_s: float,
    os_reserve_gb: float,
) -> FleetState:
    """Every Spark's and every cabled link's state."""
    states = {
        s.name: spark_state(s, seen.get(s.name), now=now, interval_s=interval_s, os_reserve_gb=os_reserve_gb)
        for s in sparks
    }
    return FleetState(states, tuple(link_state(link, states, seen) for link in links))


_GROUP_RANK: dict[HealthStatus, int] = {
    HealthStatus.DOWN: 0,
    HealthStatus.DEGRADED: 1,
    HealthStatus.UNKNOWN: 2,
    HealthStatus.NEW: 3,
    HealthStatus.OK: 4,
}


def group_state(
    nodes: Sequence[str],
    links: Sequence[LinkState],
    sparks: Mapping[str, SparkState],
    *,
    expected_exchange_gbs: float,
    speed_class: Callable[[float], float],
    measured_gbs: float | None = None,
    measured_run: int | None = None,
    measured_at: datetime | None = None,
    measured_expected_gbs: float | None = None,
    measured_socket_hosts: tuple[str, ...] = (),
) -> GroupState:
    """A group's state from its Sparks' and links' states.

    ``expected_exchange_gbs`` is the engine's class for the cabling (it knows
    which kinds halve it: a Spark forwarding for two neighbours); the observed
    class keeps that ratio over ``speed_class`` of the slowest observed link.
    """
    members = [sparks[n] for n in nodes if n in sparks]
    usable = {s.name: s.usable_gb for s in members}
    sources = {s.name: s.usable_source for s in members}
    values = [s.usable_gb for s in members if s.runs]
    memory = GroupMemory(
        usable,
        sources,
        max(values, default=0.0),
        round(sum(values), 1),
        round(len(values) * min(values, default=0.0), 1),
        tuple(s.name for s in members if not s.runs),
    )
    live = [link for link in links if link.state != "down"]
    expected_slowest = min((link.expected_gbps for link in links), default=0)
    slowest = min((link.gbps for link in live), default=0)
    slowest_observed = all(link.observed_gbps is not None for link in live if link.gbps == slowest) and bool(live)
    base = speed_class(expected_slowest)
    exchange = expected_exchange_gbs * speed_class(slowest) / base if base > 0 else 0.0
    health, why = _group_health(members, links)
    unhealthy = tuple(s.name for s in members if s.health in UNHEALTHY)
    return GroupState(
        health,
        why,
        tuple(nodes),
        tuple(links),
        memory,
        slowest,
        slowest_observed,
        expected_slowest,
        round(exchange, 1),
        measured_gbs,
        unhealthy,
        tuple(members),
        measured_run if measured_gbs is not None else None,
        measured_at if measured_gbs is not None else None,
        measured_expected_gbs if measured_gbs is not None else None,
        measured_socket_hosts if measured_gbs is not None else (),
    )


def _group_health(members: list[SparkState], links: Sequence[LinkState]) -> tuple[HealthStatus, str]:
    if not members:
        return HealthStatus.UNKNOWN, "no Sparks"
    down = [s.name for s in members if s.health is HealthStatus.DOWN]
    if len(down) == len(members):
        return HealthStatus.DOWN, f"every Spark is down ({', '.join(down)})"
    parts = []
    if down:
        parts.append(f"down: {', '.join(down)}")
    degraded = [s.name for s in members if s.health is HealthStatus.DEGRADED]
    if degraded:
        parts.append(f"degraded: {', '.join(degraded)}")
    bad_links = [f"{link.a}–{link.b} {link.state}" for link in links if link.state in ("half", "down")]
    if bad_links:
        parts.append("links: " + ", ".join(bad_links))
    if parts:
        return HealthStatus.DEGRADED, "; ".join(parts)
    waiting = [s for s in members if s.health in (HealthStatus.UNKNOWN, HealthStatus.NEW)]
    if waiting:
        worst = min(waiting, key=lambda s: _GROUP_RANK[s.health]).health
        return worst, f"{worst}: {', '.join(s.name for s in waiting)}"
    if any(link.state == "unobserved" for link in links):
        return HealthStatus.OK, "every Spark answers; some links are not observed (a switch end)"
    return HealthStatus.OK, "every Spark and link as cabled"


@dataclass(frozen=True)
class Counted:
    """A headline: the sum of what is measured, and how many are not."""

    measured_gb: float
    measured: int
    expected: int
    expected_gb: float = field(default=0.0)
    unavailable: int = 0  # down Sparks: no memory counted


def usable_headline(states: Iterable[SparkState]) -> Counted:
    states = list(states)
    measured = [s.usable_gb for s in states if s.usable_source == "measured"]
    rest = [s.usable_gb for s in states if s.usable_source == "expected"]
    down = sum(1 for s in states if s.usable_source == "unavailable")
    return Counted(round(sum(measured), 1), len(measured), len(rest), round(sum(rest), 1), down)
