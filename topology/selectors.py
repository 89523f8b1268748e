"""Reads of node groups: each live group with the engine's description of it
(kind, links, memory, findings) and its sub-groups. Memory per node is the
one state's (``topology.live``), never a second reckoning here.

One overview costs a constant number of queries whatever the fleet's size:
five for the lab (``services.lab_read``) and two for the groups and their
members. Reads never write: the groups follow the cabling because every
inventory write re-syncs them (``services.groups_sync_hook``) and so does
``migrate`` (``topology.apps``).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection

from inventory.models import (
    Cable,
    CableEnd,
    CatalogueEntry,
    Change,
    NodeGroup,
    NodeGroupMember,
    Port,
    Spark,
    Switch,
)

from .engine import CableIn, Finding, Group, LabIn, Memory, analyse
from .services import (
    GROUP_FINDING_PROVIDERS,
    LabSnapshot,
    lab_read,
    live_group,
    live_members,
)

_RANK = {"error": 0, "warning": 1, "info": 2}


@dataclass
class GroupView:
    row: NodeGroup
    result: Group  # the engine's group; for a sub-group, its Sparks analysed on their own
    findings: tuple[Finding, ...]  # the engine's plus the providers' (telemetry alerts)
    subgroups: list[GroupView] = field(default_factory=list)
    parent: NodeGroup | None = None

    @property
    def id(self) -> int:
        return self.row.pk

    @property
    def severities(self) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for f in self.findings:
            counts[f.severity] += 1
        return {s: counts[s] for s in ("error", "warning", "info") if counts[s]}

    @property
    def free_nodes(self) -> list[str]:
        """Nodes in no sub-group yet: what a new sub-group may take."""
        taken = {n for sub in self.subgroups for n in sub.result.nodes}
        return [n for n in self.result.nodes if n not in taken]


@dataclass
class Overview:
    groups: list[GroupView]  # live auto groups, in the engine's order, with their sub-groups
    loose: list[Group]  # switches without Sparks, findings tied to no device
    snapshot: LabSnapshot

    def all(self, *, include_subgroups: bool = True) -> list[GroupView]:
        out = []
        for view in self.groups:
            out.append(view)
            if include_subgroups:
                out.extend(view.subgroups)
        return out

    def find(self, group_id: int) -> GroupView | None:
        return next((v for v in self.all() if v.id == group_id), None)


# The analysed fleet, kept per process for the inventory version it was read
# at: a group page or a page of drawings then costs the version query, the
# providers' findings and its own drawing, not reading and analysing every
# Spark again. Any write changes the version (see ``inventory_version``).
_cache_lock = threading.Lock()
_cached: dict[str, Any] = {"version": None, "overview": None}


def inventory_version() -> tuple[Any, ...]:
    """One query that changes with every inventory write: the change log's last
    entry, and counts and last-change times of what the analysis reads (so a
    write behind the services' back, which logs nothing, changes it too)."""
    t = {m.__name__: m._meta.db_table for m in (Change, Spark, Switch, Port, Cable, CableEnd, NodeGroup,
                                               NodeGroupMember, CatalogueEntry)}  # fmt: skip
    # Table names come from the models' own metadata: no input reaches this SQL.
    sql = (
        f"SELECT (SELECT MAX(id) FROM {t['Change']}), (SELECT MAX(at) FROM {t['Change']}),"  # noqa: S608
        f" (SELECT COUNT(*) FROM {t['Spark']}), (SELECT MAX(updated_at) FROM {t['Spark']}),"
        f" (SELECT COUNT(*) FROM {t['Switch']}), (SELECT MAX(updated_at) FROM {t['Switch']}),"
        f" (SELECT COUNT(*) FROM {t['Port']}), (SELECT MAX(id) FROM {t['Port']}),"
        f" (SELECT COUNT(*) FROM {t['Cable']}), (SELECT MAX(updated_at) FROM {t['Cable']}),"
        f" (SELECT COUNT(*) FROM {t['CableEnd']}), (SELECT MAX(id) FROM {t['CableEnd']}),"
        f" (SELECT COUNT(*) FROM {t['NodeGroup']} WHERE retired_at IS NULL), (SELECT MAX(id) FROM {t['NodeGroup']}),"
        f" (SELECT COUNT(*) FROM {t['NodeGroupMember']}), (SELECT MAX(id) FROM {t['NodeGroupMember']}),"
        f" (SELECT COUNT(*) FROM {t['CatalogueEntry']}), (SELECT MAX(id) FROM {t['CatalogueEntry']})"
    )
    with connection.cursor() as cur:
        cur.execute(sql)
        row = cur.fetchone()
    return (connection.alias, *(str(v) for v in row))


def _fresh(view: GroupView, parent: NodeGroup | None = None) -> GroupView:
    """A copy a request may annotate (findings) without touching the cached one."""
    copy = GroupView(view.row, view.result, view.findings, parent=view.parent)
    copy.subgroups = [_fresh(sub) for sub in view.subgroups]
    return copy


def groups_overview() -> Overview:
    version = inventory_version()
    with _cache_lock:
        base = _cached["overview"] if _cached["version"] == version else None
    if base is None:
        base = _analysed_overview()
        with _cache_lock:
            _cached.update(version=version, overview=base)
    overview = Overview([_fresh(v) for v in base.groups], base.loose, base.snapshot)
    _add_provider_findings(overview)
    return overview


def _analysed_overview() -> Overview:
    snap = lab_read()
    analysed = snap.analyse()
    components = [g for g in analysed if g.nodes]
    # A read: the groups were synced by the write that changed the cabling
    # (services.AFTER_CHANGE) or by migrate; nothing is written here.
    rows, members, _ = live_members()
    by_id = {g.pk: g for g in rows}
    owner = {n: g.pk for g in rows if g.auto for n in members[g.pk]}
    views: dict[int, GroupView] = {}
    for comp in components:
        gid = owner.get(comp.nodes[0])
        if gid is not None and gid not in views:
            views[gid] = GroupView(by_id[gid], comp, comp.findings)
    cables = _cables_by_device(snap.lab)
    for sub in rows:
        parent = views.get(sub.parent_id) if sub.parent_id else None
        if parent is None:
            continue
        result = _sub_result(snap, parent.result, sorted(members[sub.pk]), cables)
        parent.subgroups.append(GroupView(sub, result, result.findings, parent=parent.row))
    ordered = list(views.values())
    for view in ordered:
        view.subgroups.sort(key=lambda v: v.row.name)
    return Overview(ordered, [g for g in analysed if not g.nodes], snap)


def group_detail(group_id: int) -> tuple[GroupView, Overview]:
    """One live group (auto or sub-group) and the overview it was read from."""
    overview = groups_overview()
    view = overview.find(group_id)
    if view is None:
        live_group(group_id)  # raises NotFound, naming a retired group as such
        raise AssertionError("a live group missing from the overview")  # pragma: no cover
    return view, overview


def _add_provider_findings(overview: Overview) -> None:
    """One call per provider for the whole fleet (constant queries), then each
    finding to every group whose nodes it names."""
    if not GROUP_FINDING_PROVIDERS:
        return
    names = [n.name for n in overview.snapshot.lab.nodes]
    by_node: dict[str, list[Finding]] = defaultdict(list)
    for provider in GROUP_FINDING_PROVIDERS:
        for finding in provider(None, names):
            for device in dict.fromkeys(obj.rsplit(":", 1)[0] for obj in finding.objects):
                by_node[device].append(finding)
    for view in overview.all():
        extra = list(dict.fromkeys(f for n in view.result.nodes for f in by_node.get(n, [])))
        if extra:
            view.findings = tuple(sorted((*view.findings, *extra), key=lambda f: _RANK.get(f.severity, 3)))


def _cables_by_device(lab: LabIn) -> dict[str, list[CableIn]]:
    out: dict[str, list[CableIn]] = defaultdict(list)
    for cable in lab.cables:
        for end in cable.ends:
            out[end.device].append(cable)
    return out


def _sub_result(snap: LabSnapshot, parent: Group, nodes: list[str], cables: dict[str, list[CableIn]]) -> Group:
    """A sub-group analysed on its own: its Sparks, the parent's switches and
    only the cable ends that reach them (a breakout keeps its trunk)."""
    keep, switches = set(nodes), set(parent.switches)
    picked: dict[int, CableIn] = {}
    for node in nodes:
        for cable in cables.get(node, []):
            ends = tuple(e for e in cable.ends if e.device in keep or e.device in switches)
            if len(ends) >= 2 and (not cable.breakout or ends[0] == cable.ends[0]):
                picked[id(cable)] = CableIn(
                    cable.key, cable.type, cable.speed_gbps, cable.breakout, cable.coded_for, ends
                )
    lab = LabIn(
        tuple(n for n in snap.lab.nodes if n.name in keep),
        tuple(s for s in snap.lab.switches if s.name in switches),
        tuple(picked.values()),
    )
    found = [g for g in analyse(lab, os_reserve_gb=settings.FLEET_OS_RESERVE_GB) if g.nodes]
    if len(found) == 1:
        return found[0]
    return _merged(found)


def _merged(parts: list[Group]) -> Group:
    """Sparks of a sub-group that no longer reach each other without the rest
    of the parent: shown as one irregular group, never a crash."""
    nodes = tuple(sorted(n for g in parts for n in g.nodes))
    if not nodes:
        return Group((), "irregular", (), (), (), Memory(0.0, 0.0, 0.0, 0.0), 0.0, ())
    usable_min = min(g.memory.symmetric_gb / len(g.nodes) for g in parts)
    memory = Memory(
        max(g.memory.local_gb for g in parts),
        sum(g.memory.pooled_gb for g in parts),
        usable_min * len(nodes),
        sum(g.memory.bandwidth_gbs for g in parts),
    )
    findings = tuple(f for g in parts for f in g.findings)
    return Group(
        nodes,
        "irregular",
        nodes,
        tuple(sorted({s for g in parts for s in g.switches})),
        tuple(link for g in parts for link in g.links),
        memory,
        0.0,
        findings,
    )
