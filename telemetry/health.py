"""Health rules: from poll results and samples to verdicts with stable codes
(stored as alerts by ``services``).

Pure functions over plain data (no I/O, no Django). ``evaluate_node`` checks
one node against what the inventory expects of it, ``evaluate_links`` checks
both ends of each cable together (MTU), ``node_status`` sums alerts up into
ok / degraded / down / unknown. Every alert message is one sentence that
names the object and the fix. Codes are stable: pages, the API and stored
alerts key on them; ``HEALTH_CODES`` describes each.

The half-speed twin trap (docs/hardware.md) is judged from which twins are
up and addressed, never from a speed field: a healthy twin reports
200000 Mb/s even though its PCIe link carries only ~100 Gb/s.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from core.health import HealthStatus
from telemetry.poll_script import TWIN_BY_IFNAME, TWINS
from telemetry.sample import PollResult, Sample, TwinReading

Severity = Literal["critical", "warning", "info"]


@dataclass(frozen=True, slots=True)
class CodeInfo:
    severity: Severity  # the usual severity; some rules lower it case by case
    description: str


HEALTH_CODES: dict[str, CodeInfo] = {
    "unreachable": CodeInfo(
        "critical", "The node did not answer the poll: SSH connection failed, or the command timed out."
    ),
    "host-key-mismatch": CodeInfo(
        "critical", "The node presented another SSH host key than the accepted one; nothing was run on it."
    ),
    "host-key-unknown": CodeInfo("info", "No host key accepted yet for this node: an admin must review and accept it."),
    "link-down": CodeInfo("critical", "A twin interface of a cabled port is down."),
    "link-negotiated-100g": CodeInfo(
        "warning", "A twin reports 100000 Mb/s on a port the inventory expects at 200 Gb/s."
    ),
    "single-half": CodeInfo(
        "warning", "Only one twin of a cabled port is up and addressed: the port carries about 100 Gb/s, not 200."
    ),
    "twins-same-subnet": CodeInfo(
        "critical", "Both twins of a port are in the same IP subnet, which breaks routing and NCCL."
    ),
    "mtu-mismatch": CodeInfo("warning", "The two ends of a link have different MTUs."),
    "mtu-not-9000": CodeInfo(
        "warning",
        "A cabled twin is up with an MTU other than 9000: advice for full bandwidth, not a precondition "
        "(NVIDIA's playbooks run at 1500).",
    ),
    "rdma-port-down": CodeInfo(
        "critical", "A twin interface is up but its RoCE port is not ACTIVE: NCCL cannot use it for RDMA."
    ),
    "memory-pressure": CodeInfo(
        "critical", "Unified memory is nearly exhausted (available under the threshold, or PSI full stalls high)."
    ),
    "disk-low": CodeInfo(
        "warning",
        "The root filesystem, where Docker's images and the Hugging Face cache live, is nearly full (critical "
        "when nearly none is left): the next image or model download fails part-way.",
    ),
    "cabling-drift": CodeInfo("warning", "LLDP sees a different neighbour on a port than the inventory says."),
    "stale": CodeInfo("warning", "No sample from this node for three poll intervals."),
    "parse-error": CodeInfo("info", "Part of the node's answer could not be read."),
    "software-drift": CodeInfo(
        "warning",
        "A Spark runs other software than the rest of its group or than the lab expects (DGX OS, kernel, GPU "
        "driver, CUDA, ConnectX-7 firmware, NCCL or a launch image): a multi-node run may hang or slow down.",
    ),
}


# Alerts that already say why a node sends no sample: ``stale`` is not raised beside them.
OUTAGE_CODES = frozenset({"unreachable", "host-key-mismatch", "host-key-unknown"})


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one rule found wrong with a node or link. ``objects``: what it is
    about, as "node", "node:port" or "node:ifname". ``services`` stores open
    verdicts as ``models.Verdict`` rows (opened, updated, ended)."""

    code: str
    severity: Severity
    message: str
    objects: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ExpectedLink:
    """What the inventory says is at the other end of a port, and its speed."""

    peer: str  # "node:port" (another Spark) or "switch:port"
    gbps: int = 200


@dataclass(frozen=True, slots=True)
class NodeExpectation:
    name: str
    cabled_ports: Mapping[str, ExpectedLink] = field(default_factory=dict)  # "p0"/"p1" -> link


@dataclass(frozen=True, slots=True)
class Thresholds:
    memory_available_fraction: float = 0.05
    psi_full_avg10: float = 10.0  # % of the last 10 s all tasks stalled on memory
    stale_intervals: float = 3.0
    disk_free_fraction: float = 0.10  # disk-low below this share of the root filesystem free...
    disk_critical_fraction: float = 0.03  # ...and critical below this one


def _verdict(code: str, message: str, *objects: str, severity: Severity | None = None) -> Verdict:
    return Verdict(code, severity or HEALTH_CODES[code].severity, message, objects)


# --------------------------------------------------------------------------- reachability


def _reachability(name: str, result: PollResult) -> list[Verdict]:
    if result.host_key_status == "mismatch":
        return [
            _verdict(
                "host-key-mismatch",
                f"{name} presented a different SSH host key than the accepted one, so nothing was run on it; "
                "check whether the node was reinstalled or replaced, then accept the new key only if it is expected.",
                name,
            )
        ]
    if result.host_key_status == "unknown":
        if not result.reachable:
            return [
                _verdict(
                    "unreachable",
                    f"{name} could not be reached to fetch its host key ({result.error}): nothing answers on "
                    "its address and port, so check them, then its power, management network and sshd.",
                    name,
                )
            ]
        return [
            _verdict(
                "host-key-unknown",
                f"{name} has no accepted SSH host key yet; an admin should compare the presented key with the node's "
                "console (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) and accept it.",
                name,
            )
        ]
    if not result.reachable:
        return [
            _verdict(
                "unreachable",
                f"{name} did not answer SSH ({result.error}); check its power, management network and sshd.",
                name,
            )
        ]
    if result.sample is None:
        return [
            _verdict(
                "unreachable",
                f"{name} accepted SSH but the poll did not complete ({result.error}); a Spark out of unified memory "
                "often freezes like this, so check its console and reboot it if it hangs.",
                name,
            )
        ]
    return []


# --------------------------------------------------------------------------- sample rules


def _memory(name: str, sample: Sample, thresholds: Thresholds) -> list[Verdict]:
    memory = sample.memory
    if memory is None:
        return []
    fraction = memory.available_fraction
    low = fraction is not None and fraction < thresholds.memory_available_fraction
    stalled = memory.psi_full_avg10 is not None and memory.psi_full_avg10 > thresholds.psi_full_avg10
    if not (low or stalled):
        return []
    available = f"{fraction * 100:.1f}%" if fraction is not None else "unknown"
    psi = f"{memory.psi_full_avg10:.1f}%" if memory.psi_full_avg10 is not None else "unknown"
    return [
        _verdict(
            "memory-pressure",
            f"{name} has {available} of its unified memory available and PSI full stalls at {psi}; stop or shrink "
            "a workload now, because a Spark out of unified memory freezes or resets instead of failing cleanly.",
            name,
        )
    ]


def disk_size(n: float) -> str:
    """Bytes as a person reads a disk's size: 41 GB, 3.9 TB (decimal units, as df -H and vendors say)."""
    return f"{n / 1e12:.1f} TB" if n >= 1e12 else f"{n / 1e9:.0f} GB"


def disk_level(free_fraction: float | None, thresholds: Thresholds | None = None) -> str:
    """How full a root filesystem is, by the disk-low rule's thresholds: "critical", "low" or "" (fine, or unknown)."""
    thresholds = thresholds or Thresholds()
    if free_fraction is None or free_fraction >= thresholds.disk_free_fraction:
        return ""
    return "critical" if free_fraction < thresholds.disk_critical_fraction else "low"


# The disk's trend: the least-squares line through the last FILL_WINDOW_S of free
# space (the line the SparkDiskFillingUp rule's predict_linear draws), no forecast
# from less than FILL_MIN_SPAN_S of it, none past FILL_HORIZON_S (a slow drift is no news).
FILL_WINDOW_S = 6 * 3600
FILL_MIN_SPAN_S = 3600
FILL_HORIZON_S = 30 * 86400


def disk_full_in(points: list[tuple[float, int]]) -> float | None:
    """Seconds until the root filesystem is full at the rate of ``points``
    ((unix time, free bytes), the last FILL_WINDOW_S of polls): the last poll's
    free space over the rate the least-squares line through them falls at (so a
    sudden fill counts from what is left, not from where the line says).
    None when it does not fall, when the points span under FILL_MIN_SPAN_S, or
    when full is further than FILL_HORIZON_S."""
    if len(points) < 3 or points[-1][0] - points[0][0] < FILL_MIN_SPAN_S:
        return None
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_f = sum(f for _, f in points) / n
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    slope = sum((t - mean_t) * (f - mean_f) for t, f in points) / spread  # bytes a second
    if slope >= 0:
        return None
    seconds = max(0.0, points[-1][1] / -slope)
    return seconds if seconds <= FILL_HORIZON_S else None


def duration_words(seconds: float) -> str:
    """About how long, as a person says it: 40 minutes, 5 hours, 3 days."""
    if seconds < 3570:
        minutes = max(1, round(seconds / 60))
        return f"{minutes} minute{'s' * (minutes > 1)}"
    if seconds < 2 * 86400:
        hours = round(seconds / 3600)
        return f"{hours} hour{'s' * (hours > 1)}"
    return f"{round(seconds / 86400)} days"


def _disk(name: str, sample: Sample, thresholds: Thresholds) -> list[Verdict]:
    disk = sample.disk
    fraction = disk.free_fraction if disk is not None else None
    level = disk_level(fraction, thresholds)
    if disk is None or fraction is None or not level:
        return []
    return [
        _verdict(
            "disk-low",
            f"{name} has {disk_size(disk.free_bytes)} ({fraction * 100:.1f}%) of its "
            f"{disk_size(disk.total_bytes)} root filesystem free, where Docker's images and the Hugging Face "
            "cache live, so the next image or model download fails part-way; `docker system df` and "
            "`du -sh ~/.cache/huggingface/hub/*` show what holds it, and `docker image prune` removes images no "
            "container uses.",
            name,
            severity="critical" if level == "critical" else None,
        )
    ]


@functools.lru_cache(maxsize=65536)
def _interface(cidr: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface | None:
    """An address as text, parsed once per process (a fleet's twins keep their addresses)."""
    try:
        return ipaddress.ip_interface(cidr)
    except ValueError:
        return None


def _addressed(twin: TwinReading) -> bool:
    """Has an address NCCL/RoCE can use: IPv4 (link-local 169.254/16 counts) or global IPv6."""
    for cidr in twin.addresses:
        iface = _interface(cidr)
        if iface is None:
            continue
        if iface.version == 4 or not iface.is_link_local:
            return True
    return False


def _networks(twin: TwinReading) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    nets = []
    for cidr in twin.addresses:
        iface = _interface(cidr)
        if iface is None:
            continue
        if iface.version == 6 and iface.is_link_local:
            continue  # fe80::/64 is on every interface and routes nothing
        nets.append(iface.network)
    return nets


def _same_node(a: str | None, b: str) -> bool:
    if a is None:
        return False
    return a.lower().split(".")[0] == b.lower().split(".")[0]


def _same_port(seen: str | None, expected: str) -> bool:
    if seen is None:
        return True  # no port in the LLDP data: judge by the system name only
    if seen.lower() == expected.lower():
        return True
    known = TWIN_BY_IFNAME.get(seen)
    return known is not None and known[0] == expected


def _port(name: str, port: str, link: ExpectedLink, sample: Sample) -> list[Verdict]:
    alerts: list[Verdict] = []
    ref = f"{name}:{port}"
    by_name = {t.name: t for t in sample.twins_of(port)}
    pair = [(ifname, rdma, by_name.get(ifname)) for ifname, rdma in TWINS[port]]
    down = [ifname for ifname, _, twin in pair if twin is None or not twin.up]
    if down:
        whole = len(down) == len(pair)
        alerts.append(
            _verdict(
                "link-down",
                f"{ref} is cabled to {link.peer} but twin {' and '.join(down)} {'are' if whole else 'is'} down; "
                "check the cable is seated and coded for NVIDIA/Mellanox, then bring the interface up.",
                ref,
                *(f"{name}:{d}" for d in down),
                severity="critical" if whole else "warning",
            )
        )
    stuck = [t for _, _, t in pair if t is not None and t.up and t.rdma_state not in (None, "ACTIVE")]
    for twin in stuck:
        alerts.append(
            _verdict(
                "rdma-port-down",
                f"{ref}: {twin.name} is up but its RoCE port {twin.rdma} is {twin.rdma_state}, so RDMA (NCCL) "
                f"cannot use it; check `rdma link show`, then reload the driver (modprobe -r mlx5_ib; modprobe "
                "mlx5_ib) or reboot, and update the ConnectX-7 firmware if it stays down.",
                ref,
                f"{name}:{twin.name}",
            )
        )
    low_mtu = [t for _, _, t in pair if t is not None and t.up and t.mtu is not None and t.mtu != 9000]
    if low_mtu:
        alerts.append(
            _verdict(
                "mtu-not-9000",
                f"{ref}: {', '.join(f'{t.name} has MTU {t.mtu}' for t in low_mtu)}; MTU 9000 is advised for full "
                "bandwidth (NVIDIA's playbooks run at 1500): set mtu: 9000 in the node's netplan file (the group "
                "page offers one) and apply it, and on a switch raise its Spark-facing ports' MTU too.",
                ref,
            )
        )
    usable = [(ifname, rdma) for ifname, rdma, twin in pair if twin is not None and twin.up and _addressed(twin)]
    if len(usable) == 1 and link.gbps > 100:
        other = next((ifname, rdma) for ifname, rdma, _ in pair if (ifname, rdma) not in usable)
        hca = ",".join(rdma for _, rdma in TWINS[port])
        alerts.append(
            _verdict(
                "single-half",
                f"{ref} carries traffic on {usable[0][0]} only, so about 100 of its {link.gbps} Gb/s; bring up "
                f"and address {other[0]} in its own subnet and list both RoCE devices in NCCL_IB_HCA ({hca}).",
                ref,
            )
        )
    slow = [
        t.name for _, _, t in pair if t is not None and t.up and t.speed_mbps is not None and t.speed_mbps <= 100_000
    ]
    if slow and link.gbps >= 200:
        alerts.append(
            _verdict(
                "link-negotiated-100g",
                f"{ref} negotiated 100 Gb/s on {', '.join(slow)} where the inventory expects {link.gbps} Gb/s to "
                f"{link.peer}; set the switch port to 200G without auto-negotiation or use a QSFP56/QSFP112 cable.",
                ref,
            )
        )
    twins = [t for _, _, t in pair if t is not None]
    if len(twins) == 2:
        overlap = [
            str(a) for a in _networks(twins[0]) for b in _networks(twins[1]) if a.version == b.version and a.overlaps(b)
        ]
        if overlap:
            alerts.append(
                _verdict(
                    "twins-same-subnet",
                    f"{ref} has both twins in {overlap[0]}, which breaks routing and NCCL; give "
                    f"{twins[1].name} its own subnet (e.g. one /24 per twin, the same on both ends of the cable).",
                    ref,
                )
            )
    return alerts


def _cabling(name: str, expectation: NodeExpectation, sample: Sample) -> list[Verdict]:
    alerts: list[Verdict] = []
    for port, pair in TWINS.items():
        ifnames = {ifname for ifname, _ in pair}
        seen = [n for n in sample.neighbours or () if n.local_if in ifnames]
        if not seen:
            continue  # no LLDP on this port: nothing to compare
        ref = f"{name}:{port}"
        link = expectation.cabled_ports.get(port)
        first = seen[0]
        seen_text = f"{first.system_name or '?'}:{first.port_id or '?'}"
        if link is None:
            alerts.append(
                _verdict(
                    "cabling-drift",
                    f"LLDP sees {seen_text} on {ref} but the inventory has no cable there; record the cable in the "
                    "inventory or unplug it.",
                    ref,
                )
            )
            continue
        peer, _, peer_port = link.peer.rpartition(":")
        wrong = [n for n in seen if not (_same_node(n.system_name, peer) and _same_port(n.port_id, peer_port))]
        if wrong:
            shown = f"{wrong[0].system_name or '?'}:{wrong[0].port_id or '?'}"
            alerts.append(
                _verdict(
                    "cabling-drift",
                    f"LLDP sees {shown} on {ref} where the inventory says {link.peer}; move the cable back or "
                    "update the inventory.",
                    ref,
                )
            )
    return alerts


def _parse_errors(name: str, sample: Sample) -> list[Verdict]:
    if not sample.errors:
        return []
    more = f" and {len(sample.errors) - 1} more" if len(sample.errors) > 1 else ""
    # Info while the rest of the sample is usable; a warning when nothing is,
    # so a node answering only garbage does not look healthy.
    useless = sample.memory is None and sample.twins is None
    return [
        _verdict(
            "parse-error",
            f"Part of {name}'s answer could not be read ({sample.errors[0]}{more}); check that nvidia-smi, "
            "iproute2 and the other tools run there, or report the output.",
            name,
            severity="warning" if useless else "info",
        )
    ]


# --------------------------------------------------------------------------- public API


def evaluate_node(
    name: str,
    observed: PollResult | Sample | None,
    expectation: NodeExpectation | None,
    *,
    now: datetime,
    last_sample_at: datetime | None,
    interval_s: float,
    thresholds: Thresholds | None = None,
) -> list[Verdict]:
    """All alerts for one node.

    ``observed``: the latest PollResult, or the latest stored Sample, or None.
    ``expectation``: the inventory's cabling for this node (None: skip link
    and cabling rules). ``last_sample_at``: when the last sample was taken
    (aware datetime; None if never; a PollResult carrying a sample counts as
    now). ``stale`` fires once that is older than ``stale_intervals`` poll
    intervals; a node never sampled is "unknown", not stale.
    """
    thresholds = thresholds or Thresholds()
    alerts: list[Verdict] = []
    sample: Sample | None = None
    sampled_at = last_sample_at
    reachability: list[Verdict] = []
    if isinstance(observed, PollResult):
        reachability = _reachability(name, observed)
        alerts += reachability
        sample = observed.sample
        if sample is not None and (sampled_at is None or observed.at > sampled_at):
            sampled_at = observed.at
    elif isinstance(observed, Sample):
        sample = observed
    # One outage, one alert: a node that does not answer (or whose key is in
    # question) is not also stale; its own alert says why no sample came.
    quiet = any(v.code in OUTAGE_CODES for v in reachability)
    if (
        not quiet
        and sampled_at is not None
        and (now - sampled_at).total_seconds() > thresholds.stale_intervals * interval_s
    ):
        minutes = (now - sampled_at).total_seconds() / 60
        alerts.append(
            _verdict(
                "stale",
                f"{name} has sent no sample for {minutes:.0f} min ({thresholds.stale_intervals:g} poll intervals); "
                "check that the poller runs and the node answers SSH.",
                name,
            )
        )
    if sample is None:
        return alerts
    alerts += _memory(name, sample, thresholds)
    alerts += _disk(name, sample, thresholds)
    if expectation is not None:
        alerts += _links_judged(name, expectation, sample)
    alerts += _parse_errors(name, sample)
    return alerts


# The link and cabling verdicts of each node, with the readings and expectation
# they were judged on. A pooled poller hands over the very same twins and
# neighbours objects while a node's link and LLDP texts do not change
# (``parsers.ParseMemo``), so a steady fleet is judged once, not every round.
_judged: dict[str, tuple[object, object, NodeExpectation, list[Verdict]]] = {}


def _links_judged(name: str, expectation: NodeExpectation, sample: Sample) -> list[Verdict]:
    seen = _judged.get(name)
    if seen is not None and seen[0] is sample.twins and seen[1] is sample.neighbours and seen[2] == expectation:
        return list(seen[3])
    verdicts: list[Verdict] = []
    if sample.twins is not None:
        for port, link in sorted(expectation.cabled_ports.items()):
            if port in TWINS:
                verdicts += _port(name, port, link, sample)
    verdicts += _cabling(name, expectation, sample)
    if sample.twins is not None:  # None is one shared object: nothing to tell samples apart by
        _judged[name] = (sample.twins, sample.neighbours, expectation, verdicts)
    return list(verdicts)


def evaluate_links(
    samples: Mapping[str, Sample | None],
    links: Iterable[tuple[tuple[str, str], tuple[str, str]]],
) -> list[Verdict]:
    """Rules that need both ends of a node-to-node cable: ``mtu-mismatch``.

    ``links``: ((node, port), (node, port)) pairs. Twins are compared by twin
    index (domain 0000 with 0000, 0002 with 0002), as they are cabled.
    """
    alerts: list[Verdict] = []
    for (a, a_port), (b, b_port) in links:
        sa, sb = samples.get(a), samples.get(b)
        if sa is None or sb is None or a_port not in TWINS or b_port not in TWINS:
            continue
        a_mtu = {t.twin_index: t.mtu for t in sa.twins_of(a_port) if t.mtu}
        b_mtu = {t.twin_index: t.mtu for t in sb.twins_of(b_port) if t.mtu}
        differ = [(i, a_mtu[i], b_mtu[i]) for i in sorted(a_mtu.keys() & b_mtu.keys()) if a_mtu[i] != b_mtu[i]]
        if differ:
            _, ma, mb = differ[0]
            alerts.append(
                _verdict(
                    "mtu-mismatch",
                    f"MTU is {ma} on {a}:{a_port} but {mb} on {b}:{b_port}; set the same MTU (9000 for RoCE) on "
                    "both ends of the cable.",
                    f"{a}:{a_port}",
                    f"{b}:{b_port}",
                )
            )
    return alerts


def node_status(alerts: Sequence[Verdict], reachable: bool | None) -> HealthStatus:
    """Sum up one node: "down" (cannot be used or trusted), "unknown" (no
    current data: never polled, key not accepted, or stale), "degraded" (any
    warning or critical alert), else "ok". ``reachable`` None: never polled."""
    codes = {a.code for a in alerts}
    if reachable is False or codes & {"unreachable", "host-key-mismatch"}:
        return HealthStatus.DOWN
    if reachable is None or codes & {"host-key-unknown", "stale"}:
        return HealthStatus.UNKNOWN
    if any(a.severity in ("critical", "warning") for a in alerts):
        return HealthStatus.DEGRADED
    return HealthStatus.OK
