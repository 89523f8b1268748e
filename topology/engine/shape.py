"""What one connected group of devices is: its kind, its four numbers' share
(memory and collective bandwidth) and the findings about its shape.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise

from topology.state import expected_usable_gb

from .cabling import Edge, LabIndex, Loop
from .data import MEMORY_BANDWIDTH_GBS, Finding, Kind, Memory
from .findings import make_finding

# Published NCCL collective bandwidth per link speed (docs/hardware.md, "Cables"):
# 200 Gb/s -> ~24 GB/s, 100 -> ~12, 40 -> ~5. Between anchors we interpolate;
# no Spark link runs above 200 Gb/s, so the class stops there.
_SPEED_CLASS: tuple[tuple[float, float], ...] = ((0.0, 0.0), (40.0, 5.0), (100.0, 12.0), (200.0, 24.0))
# NVIDIA supports rings of 3 and tests rings of 4; beyond that a switch pays off.
RING_LIMIT = 4


def link_speed_class(gbps: float) -> float:
    """Expected collective bandwidth (GB/s) over links of ``gbps`` Gb/s."""
    if gbps <= 0:
        return 0.0
    for (x0, y0), (x1, y1) in pairwise(_SPEED_CLASS):
        if gbps <= x1:
            return y0 + (y1 - y0) * (gbps - x0) / (x1 - x0)
    return _SPEED_CLASS[-1][1]


@dataclass
class Component:
    nodes: list[str]
    switches: list[str]
    edges: list[Edge]
    loops: list[Loop]


@dataclass(frozen=True)
class Shape:
    kind: Kind
    memory: Memory
    collective_gbs: float
    findings: list[Finding]


def describe(index: LabIndex, comp: Component, *, os_reserve_gb: float) -> Shape:
    nodes = comp.nodes
    nn = [e for e in comp.edges if not e.ends[0].is_switch and not e.ends[1].is_switch]
    ns = [e for e in comp.edges if not e.ends[0].is_switch and e.ends[1].is_switch]
    ss = [e for e in comp.edges if e.ends[0].is_switch]
    neighbours: dict[str, set[str]] = defaultdict(set)
    for e in nn:
        neighbours[e.ends[0].device].add(e.ends[1].device)
        neighbours[e.ends[1].device].add(e.ends[0].device)
    on_switches: dict[str, set[str]] = defaultdict(set)
    for e in ns:
        on_switches[e.ends[0].device].add(e.ends[1].device)
    switch_loops = [lp for lp in comp.loops if lp.is_switch]

    kind = _kind(comp, neighbours, on_switches, has_nn=bool(nn), has_ss=bool(ss or switch_loops))
    findings = _link_findings(comp, nn, ns, ss)
    findings += _shape_findings(index, comp, kind, neighbours, has_links=bool(nn or ss or switch_loops))
    findings.extend(_node_findings(index, comp, os_reserve_gb))
    if kind == "irregular" and nodes and not any(f.code in _EXPLAINS_IRREGULAR for f in findings):
        findings.append(
            make_finding(
                "irregular-cabling",
                f"Sparks {', '.join(nodes)} are cabled as neither a pair, a ring, a chain nor a switched "
                "group; cable each Spark's two ports to its two neighbours as a ring, or all to a switch.",
                nodes,
            )
        )

    return Shape(kind, _memory(index, nodes, os_reserve_gb), _collective(comp, kind, neighbours), findings)


def _link_findings(comp: Component, nn: list[Edge], ns: list[Edge], ss: list[Edge]) -> list[Finding]:
    """What the cables themselves say: mixed links, switches joined, loops, switches without Sparks."""
    switches = comp.switches
    findings: list[Finding] = []
    if nn and ns:
        findings.append(
            make_finding(
                "mixed-links",
                f"The group has Spark-to-Spark cables ({_keys(nn)}) and switch links, so collectives may "
                "take either path; cable it either as a ring or entirely to the switch.",
                [e.link.cable for e in nn],
            )
        )
    for e in ss:
        a, b = e.ends
        findings.append(
            make_finding(
                "inter-switch-link",
                f"Cable {e.link.cable} joins switches {a.device} and {b.device}, so Spark traffic crosses an "
                "extra hop; cable every Spark of the group to one switch.",
                [e.link.cable, a.device, b.device],
            )
        )
    for lp in comp.loops:
        if lp.is_switch:
            findings.append(
                make_finding(
                    "switch-loop",
                    f"Cable {lp.cable} runs from switch {lp.device} back to itself, which can loop traffic; unplug it.",
                    [lp.cable, lp.device],
                )
            )
        else:
            findings.append(
                make_finding(
                    "node-loop",
                    f"Cable {lp.cable} runs from {lp.device} back to itself and joins no cluster; "
                    "cable it to another Spark or unplug it.",
                    [lp.cable, lp.device],
                )
            )
    cabled = {e.ends[1].device for e in ns}
    for switch in switches:
        if switch not in cabled:
            findings.append(
                make_finding(
                    "switch-without-sparks",
                    f"Switch {switch} has no Spark cabled to it; cable Sparks to it or take it out of the lab.",
                    [switch],
                )
            )
    return findings


def _shape_findings(
    index: LabIndex, comp: Component, kind: str, neighbours: dict[str, set[str]], *, has_links: bool
) -> list[Finding]:
    """What the group's shape says: Sparks bridging switches, an open chain, too long a ring, one alone."""
    nodes, switches = comp.nodes, comp.switches
    findings: list[Finding] = []
    if nodes and len(switches) > 1 and not has_links and kind == "irregular":
        findings.append(
            make_finding(
                "node-bridges-switches",
                f"Switches {', '.join(switches)} are joined only through Sparks cabled to more than one of "
                "them, so some Sparks reach each other through another Spark; cable every Spark to "
                "every switch or all to one.",
                switches,
            )
        )
    if kind == "chain":
        findings.append(_open_chain(index, comp, neighbours))
    if not switches and len(nodes) > RING_LIMIT and kind in ("ring", "chain", "irregular"):
        findings.append(
            make_finding(
                "switch-recommended",
                f"The {kind} of {len(nodes)} Sparks ({nodes[0]} to {nodes[-1]}) sends far nodes' traffic "
                "through every node in between and cannot be split into groups; beyond four Sparks "
                "cable them to a switch (required for eight).",
                nodes,
            )
        )
    if kind == "single" and not comp.edges:
        findings.append(
            make_finding(
                "isolated-node",
                f"{nodes[0]} has no cluster cable, so it only runs what fits on one node; "
                "cable it to another Spark or a switch to pool its memory.",
                nodes,
            )
        )
    return findings


# Codes that already say why a group is irregular; otherwise "irregular-cabling" does.
_EXPLAINS_IRREGULAR = frozenset(
    {"mixed-links", "inter-switch-link", "switch-loop", "switch-without-sparks", "node-bridges-switches"}
)


def _kind(
    comp: Component,
    neighbours: dict[str, set[str]],
    on_switches: dict[str, set[str]],
    *,
    has_nn: bool,
    has_ss: bool,
) -> Kind:
    nodes, switches = comp.nodes, comp.switches
    if not nodes:
        return "irregular"
    if not switches:
        # The component is connected through Spark-to-Spark cables only, so
        # the shape follows from the distinct neighbours (a second cable to
        # the same neighbour is a duplicate-link finding, not another shape).
        if len(nodes) <= 2:
            return "single" if len(nodes) == 1 else "direct"
        degrees = [len(neighbours[n]) for n in nodes]
        pairs = sum(degrees) // 2
        if all(d == 2 for d in degrees) and pairs == len(nodes):
            return "ring"  # connected and every node of degree 2: one closed cycle
        if max(degrees) <= 2 and pairs == len(nodes) - 1:
            return "chain"  # connected, acyclic, degree at most 2: a path
        return "irregular"
    if has_nn or has_ss:
        return "irregular"
    # Several switches without inter-switch cables are one component only
    # through multi-homed Sparks; that is switched only if every Spark sees
    # every switch (rails), else some pairs go through a Spark.
    if len(switches) > 1 and any(len(on_switches[n]) != len(switches) for n in nodes):
        return "irregular"
    return "switched"


def _open_chain(index: LabIndex, comp: Component, neighbours: dict[str, set[str]]) -> Finding:
    first, last = [n for n in comp.nodes if len(neighbours[n]) == 1]
    used = {(end.device, end.port) for e in comp.edges for end in e.ends}
    used |= {(lp.device, p) for lp in comp.loops for p in index.nodes[lp.device].ports}

    def free(node: str) -> str | None:
        ports = [p for p in index.nodes[node].ports if (node, p) not in used]
        return min(ports) if ports else None

    pf, pl = free(first), free(last)
    if pf is not None and pl is not None:
        how = f"cable {first}:{pf} to {last}:{pl}"
    else:
        how = f"free a port on {first} and on {last} and cable them together"
    return make_finding(
        "open-chain",
        f"Sparks {first} and {last} are the open ends of a chain; {how} to close it into a ring.",
        [first, last],
    )


def _node_findings(index: LabIndex, comp: Component, os_reserve_gb: float) -> list[Finding]:
    findings: list[Finding] = []
    cabled = {end.device for e in comp.edges for end in e.ends}
    for name in comp.nodes:
        if not index.nodes[name].has_connectx and name in cabled:
            findings.append(
                make_finding(
                    "no-connectx",
                    f"{name} has no ConnectX-7 NIC (only a 10 Gb/s port) and cannot join a RoCE cluster; "
                    "uncable it or replace it with a DGX Spark.",
                    [name],
                )
            )
    sizes = sorted({index.nodes[n].memory_gb for n in comp.nodes})
    if len(sizes) > 1:
        smallest = [n for n in comp.nodes if index.nodes[n].memory_gb == sizes[0]]
        share = expected_usable_gb(sizes[0], os_reserve_gb)
        findings.append(
            make_finding(
                "mixed-memory",
                f"{', '.join(smallest)} ({sizes[0]:g} GB) share a group with {sizes[-1]:g} GB Sparks, so "
                f"symmetric sharding uses only {share:g} GB on every node; group Sparks of one size or "
                "place the model asymmetrically.",
                smallest,
            )
        )
    return findings


def _memory(index: LabIndex, nodes: list[str], os_reserve_gb: float) -> Memory:
    # Expected usable memory, as the one state defines it (topology.state): no telemetry here.
    usable = [expected_usable_gb(float(index.nodes[n].memory_gb), os_reserve_gb) for n in nodes]
    if not usable:
        return Memory(0.0, 0.0, 0.0, 0.0)
    return Memory(
        local_gb=max(usable),
        pooled_gb=round(sum(usable), 1),
        symmetric_gb=round(len(usable) * min(usable), 1),
        bandwidth_gbs=len(usable) * MEMORY_BANDWIDTH_GBS,
    )


def _collective(comp: Component, kind: Kind, neighbours: dict[str, set[str]]) -> float:
    # A collective needs two Sparks: a lone Spark on a switch has a link but no partner.
    if len(comp.nodes) < 2 or not comp.edges:
        return 0.0
    speed = link_speed_class(min(e.link.gbps for e in comp.edges))
    # A Spark forwarding between two Spark neighbours (ring, chain) splits one
    # NIC budget (~200 Gb/s over two PCIe x4 links) over both ports: about half.
    if any(len(neighbours[n]) >= 2 for n in comp.nodes):
        speed /= 2
    return speed


def _keys(edges: list[Edge]) -> str:
    return ", ".join(sorted({e.link.cable for e in edges}))
