"""From cables to links: which ends exist, how fast each link can run, and
what is wrong with a cable on its own (speed, coding, ports, breakout).

Shape (which links form a ring, a switched group...) is ``shape``'s business.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from .data import (
    NO_CONNECTX_GBPS,
    NODE_PORT_GBPS,
    CableIn,
    EndIn,
    Finding,
    LabIn,
    Link,
    NodeIn,
    SwitchIn,
    SwitchPortIn,
)
from .findings import make_finding


@dataclass(frozen=True)
class End:
    device: str
    port: str  # switch ports in canonical form ("3", not "03")
    is_switch: bool
    port_ok: bool

    @property
    def label(self) -> str:
        return f"{self.device}:{self.port}"


@dataclass(frozen=True)
class Edge:
    link: Link
    ends: tuple[End, End]


@dataclass(frozen=True)
class Loop:
    cable: str
    device: str
    is_switch: bool


@dataclass
class Cabling:
    edges: list[Edge] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    # (device the finding belongs with, or None when no end of it is known; finding)
    findings: list[tuple[str | None, Finding]] = field(default_factory=list)
    # device pairs joined by a cable, self-joins included (for the components)
    joins: list[tuple[str, str]] = field(default_factory=list)

    def add(self, anchor: str | None, finding: Finding) -> None:
        self.findings.append((anchor, finding))


class LabIndex:
    """Name lookups; the first definition of a duplicated name wins (and is reported)."""

    def __init__(self, lab: LabIn, cabling: Cabling) -> None:
        self.nodes: dict[str, NodeIn] = {}
        self.switches: dict[str, SwitchIn] = {}
        self.switch_ports: dict[str, dict[str, SwitchPortIn]] = {}
        duplicated: set[str] = set()
        for node in lab.nodes:
            if node.name in self.nodes:
                duplicated.add(node.name)
            else:
                self.nodes[node.name] = node
        for switch in lab.switches:
            if switch.name in self.nodes or switch.name in self.switches:
                duplicated.add(switch.name)
                continue
            self.switches[switch.name] = switch
            ports: dict[str, SwitchPortIn] = {}
            for port in switch.ports:
                ports.setdefault(str(port.number), port)
            self.switch_ports[switch.name] = ports
        for name in sorted(duplicated):
            cabling.add(
                name,
                make_finding(
                    "duplicate-name",
                    f"The name {name} is given to more than one device; rename one so that cables end where intended.",
                    [name],
                ),
            )

    def resolve(self, end: EndIn) -> End | None:
        node = self.nodes.get(end.device)
        if node is not None:
            return End(end.device, end.port, False, end.port in node.ports)
        ports = self.switch_ports.get(end.device)
        if ports is None:
            return None
        port = _canonical_switch_port(end.port)
        return End(end.device, port, True, port in ports)


def _canonical_switch_port(port: str) -> str:
    try:
        return str(int(port.strip()))
    except ValueError:
        return port


def read_cables(lab: LabIn) -> tuple[LabIndex, Cabling]:
    cabling = Cabling()
    index = LabIndex(lab, cabling)
    usage: dict[tuple[str, str], list[str]] = defaultdict(list)
    # (switch, port, is a breakout leg) -> (speed a Spark link gets there, cable keys)
    slow_ports: dict[tuple[str, str, bool], tuple[int, set[str]]] = {}
    node_pairs: dict[tuple[str, str], set[str]] = defaultdict(set)

    for cable in lab.cables:
        ends = [index.resolve(e) for e in cable.ends]
        known = [e for e in ends if e is not None]
        anchor = known[0].device if known else None
        for raw, end in zip(cable.ends, ends, strict=True):
            if end is None:
                cabling.add(anchor, _unknown_device(cable, raw))
            else:
                usage[(end.device, end.port)].append(cable.key)
                if not end.port_ok:
                    cabling.add(end.device, _unknown_port(cable, end))

        expected = (2, 3) if cable.breakout else (2,)
        if len(cable.ends) not in expected:
            cabling.add(anchor, _malformed(cable, expected))
            continue
        if cable.coded_for.strip().lower() != "nvidia" and any(not e.is_switch for e in known):
            cabling.add(anchor, _uncoded(cable, known))
        trunk = ends[0]
        if cable.breakout and trunk is not None and not _can_break_out(index, trunk):
            cabling.add(trunk.device, _breakout_refused(cable, trunk))

        spark_link = _join(index, cabling, cable, ends, slow_ports, node_pairs)
        if spark_link and cable.speed_gbps < NODE_PORT_GBPS:
            cabling.add(anchor, _slow_cable(cable, known))

    for (device, port), holders in sorted(usage.items()):
        if len(holders) > 1:
            cabling.add(device, _port_conflict(device, port, holders))
    for (switch, number, leg), (speed, slow) in sorted(slow_ports.items()):
        cabling.add(switch, _slow_port(switch, number, speed, leg, slow))
    for (x, y), joined in sorted(node_pairs.items()):
        if len(joined) > 1:
            cabling.add(x, _duplicate_link(x, y, joined))
    return index, cabling


def _join(
    index: LabIndex,
    cabling: Cabling,
    cable: CableIn,
    ends: list[End | None],
    slow_ports: dict[tuple[str, str, bool], tuple[int, set[str]]],
    node_pairs: dict[tuple[str, str], set[str]],
) -> bool:
    """The cable's joins, loops and edges (a breakout: its trunk to each leg); whether it links a Spark."""
    trunk = ends[0]
    pairs = [(0, k) for k in range(1, len(ends))] if cable.breakout else [(0, 1)]
    spark_link = False
    for i, j in pairs:
        first, second = ends[i], ends[j]
        if first is None or second is None:
            continue
        cabling.joins.append((first.device, second.device))
        if first.device == second.device:
            cabling.loops.append(Loop(cable.key, first.device, first.is_switch))
            continue
        edge = _edge(index, cable, first, second, trunk_first=cable.breakout and i == 0)
        cabling.edges.append(edge)
        a, b = edge.ends
        if not a.is_switch:
            spark_link = True
            if not b.is_switch:
                node_pairs[(a.device, b.device)].add(cable.key)
            else:
                _note_slow_port(index, slow_ports, cable, b, leg=cable.breakout and b is trunk)
    return spark_link


def _can_break_out(index: LabIndex, trunk: End) -> bool:
    if not trunk.is_switch:
        return False
    port = index.switch_ports[trunk.device].get(trunk.port)
    # An unknown port is reported as such; do not pile a second error on it.
    return port is None or port.breakout


def _edge(index: LabIndex, cable: CableIn, first: End, second: End, *, trunk_first: bool) -> Edge:
    parts: list[tuple[int, str]] = [(cable.speed_gbps, f"cable {cable.type}")]
    for end, is_trunk in ((first, trunk_first), (second, False)):
        if not end.is_switch:
            if index.nodes[end.device].has_connectx:
                parts.append((NODE_PORT_GBPS, f"node port {end.label}"))
            else:
                parts.append((NO_CONNECTX_GBPS, f"node {end.device} (no ConnectX-7)"))
            continue
        port = index.switch_ports[end.device].get(end.port)
        if port is None:
            continue  # reported as unknown-port; its speed is not known
        if is_trunk:
            # A breakout trunk gives each leg half the port (400G -> 2 x 200G).
            parts.append((port.speed_gbps // 2, f"switch port {end.label} (breakout leg)"))
        else:
            parts.append((port.speed_gbps, f"switch port {end.label}"))
    gbps = min(speed for speed, _ in parts)
    slowest = dict.fromkeys(label for speed, label in parts if speed == gbps)
    limited_by = "" if gbps >= NODE_PORT_GBPS else " and ".join(slowest)

    a, b = first, second
    # The node end comes first; between two nodes or two switches, the smaller label.
    if (a.is_switch, a.label) > (b.is_switch, b.label):
        a, b = b, a
    return Edge(Link(a.label, b.label, cable.key, gbps, limited_by), (a, b))


def _note_slow_port(
    index: LabIndex,
    slow_ports: dict[tuple[str, str, bool], tuple[int, set[str]]],
    cable: CableIn,
    end: End,
    *,
    leg: bool,
) -> None:
    port = index.switch_ports[end.device].get(end.port)
    if port is None:
        return
    speed = port.speed_gbps // 2 if leg else port.speed_gbps
    if speed >= NODE_PORT_GBPS:
        return
    _, keys = slow_ports.setdefault((end.device, end.port, leg), (speed, set()))
    keys.add(cable.key)


# --- messages: one sentence each, what is wrong and the fix ---------------------------------------


def _unknown_device(cable: CableIn, raw: EndIn) -> Finding:
    return make_finding(
        "unknown-device",
        f"Cable {cable.key} ends on {raw.device}, which is neither a Spark nor a switch of this lab; "
        "fix the cable's end or add the device.",
        [cable.key, raw.device],
    )


def _unknown_port(cable: CableIn, end: End) -> Finding:
    return make_finding(
        "unknown-port",
        f"Cable {cable.key} ends on port {end.label}, which {end.device} does not have; fix the port.",
        [cable.key, end.label],
    )


def _malformed(cable: CableIn, expected: tuple[int, ...]) -> Finding:
    what = "a breakout cable has a trunk and one or two legs" if cable.breakout else "a cable has two"
    return make_finding(
        "malformed-cable",
        f"Cable {cable.key} has {len(cable.ends)} end{'' if len(cable.ends) == 1 else 's'} but {what}; fix its ends.",
        [cable.key],
    )


def _uncoded(cable: CableIn, known: list[End]) -> Finding:
    return make_finding(
        "uncoded-cable",
        f"Cable {cable.key} is coded for {cable.coded_for or 'no vendor'} and the ConnectX-7 NIC may "
        "refuse it; use an NVIDIA-coded or re-coded cable.",
        [cable.key, *(e.label for e in known if not e.is_switch)],
    )


def _breakout_refused(cable: CableIn, trunk: End) -> Finding:
    where = "Spark port" if not trunk.is_switch else "switch port"
    return make_finding(
        "breakout-not-supported",
        f"Breakout cable {cable.key} has its trunk on {where} {trunk.label}, which cannot break out; "
        "move the trunk to a breakout-capable 400 Gb/s switch port.",
        [cable.key, trunk.label],
    )


def _slow_cable(cable: CableIn, known: list[End]) -> Finding:
    return make_finding(
        "slow-cable",
        f"Cable {cable.key} ({cable.type}) carries only {cable.speed_gbps} Gb/s where a Spark port "
        "runs 200 Gb/s; replace it with a QSFP112 or QSFP56 DAC.",
        [cable.key, *(e.label for e in known if not e.is_switch)],
    )


def _slow_port(switch: str, port: str, speed: int, leg: bool, keys: set[str]) -> Finding:
    if leg:
        message = (
            f"Each breakout leg of switch port {switch}:{port} gets only {speed} Gb/s; "
            "put the trunk on a 400 Gb/s port to give each Spark 200 Gb/s."
        )
    else:
        message = (
            f"Switch port {switch}:{port} gives its Spark only {speed} Gb/s; move the Spark to a port of "
            "at least 200 Gb/s or to a 400 Gb/s port split by breakout."
        )
    return make_finding("slow-switch-port", message, [f"{switch}:{port}", *keys])


def _port_conflict(device: str, port: str, keys: list[str]) -> Finding:
    names = ", ".join(sorted(set(keys)))
    return make_finding(
        "port-conflict",
        f"Port {device}:{port} holds {len(keys)} cable ends ({names}) but takes only one; unplug all but one.",
        [f"{device}:{port}", *keys],
    )


def _duplicate_link(a: str, b: str, keys: set[str]) -> Finding:
    names = ", ".join(sorted(keys))
    return make_finding(
        "duplicate-link",
        f"Sparks {a} and {b} are joined by {len(keys)} cables ({names}), which adds no bandwidth "
        "because both ports share one NIC budget; remove the spare cable or use it to build a ring.",
        [a, b, *keys],
    )
