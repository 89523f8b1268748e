"""``analyse``: split a lab into connected groups and describe each one."""

from __future__ import annotations

from collections import defaultdict

from .cabling import Edge, Loop, read_cables
from .data import Finding, Group, LabIn, Memory
from .shape import Component, describe

_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


def analyse(lab: LabIn, *, os_reserve_gb: float = 4.0) -> list[Group]:
    """Groups of the lab, ordered by their smallest node name, Spark-less ones last.

    Never raises on odd cabling: what does not add up becomes a finding. A
    finding about a cable none of whose ends is a known device belongs to no
    group; such findings come in one last group with an empty key.
    """
    index, cabling = read_cables(lab)
    parent = {name: name for name in (*index.nodes, *index.switches)}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]  # path halving keeps lookups flat
            name = parent[name]
        return name

    for a, b in cabling.joins:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    members: dict[str, list[str]] = defaultdict(list)
    for name in parent:
        members[root(name)].append(name)
    edges: dict[str, list[Edge]] = defaultdict(list)
    for edge in cabling.edges:
        edges[root(edge.ends[0].device)].append(edge)
    loops: dict[str, list[Loop]] = defaultdict(list)
    for loop in cabling.loops:
        loops[root(loop.device)].append(loop)
    findings: dict[str | None, list[Finding]] = defaultdict(list)
    for anchor, finding in cabling.findings:
        findings[None if anchor is None else root(anchor)].append(finding)

    groups: list[Group] = []
    for top, names in members.items():
        nodes = sorted(n for n in names if n in index.nodes)
        switches = sorted(n for n in names if n in index.switches)
        comp = Component(nodes, switches, edges[top], loops[top])
        shape = describe(index, comp, os_reserve_gb=os_reserve_gb)
        groups.append(
            Group(
                key=tuple(nodes or switches),
                kind=shape.kind,
                nodes=tuple(nodes),
                switches=tuple(switches),
                links=tuple(sorted((e.link for e in comp.edges), key=lambda k: (k.a, k.b, k.cable))),
                memory=shape.memory,
                collective_gbs=shape.collective_gbs,
                findings=_ordered([*findings[top], *shape.findings]),
            )
        )
    if findings[None]:
        empty = Memory(0.0, 0.0, 0.0, 0.0)
        groups.append(Group((), "irregular", (), (), (), empty, 0.0, _ordered(findings[None])))
    groups.sort(key=lambda g: (0 if g.nodes else 1 if g.switches else 2, g.key))
    return groups


def _ordered(findings: list[Finding]) -> tuple[Finding, ...]:
    return tuple(sorted(findings, key=lambda f: (_SEVERITY_RANK[f.severity], f.code, f.objects, f.message)))
