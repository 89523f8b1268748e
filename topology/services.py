"""Node groups: what bookings and placement plans target.

Owns three things:

- reading the whole lab out of the database as the topology engine's
  ``LabIn`` in a constant number of queries (``lab_read``);
- keeping one auto group per connected component of the cabling
  (``groups_sync``, run after every inventory write through
  ``services.AFTER_CHANGE``), with ids that survive unrelated edits;
- the admin's sub-groups of a switched group: create, rename, delete.

Extension points for later features are the module-level hook lists below.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core import errors
from core.actor import Actor
from core.errors import BadInput, NotFound
from core.hooks import Hook
from inventory import validators as v
from inventory.models import Cable, CableEnd, Change, NodeGroup, NodeGroupMember, Port, Spark, Switch
from inventory.services import change_record

from .engine import CableIn, EndIn, Finding, Group, LabIn, NodeIn, SwitchIn, SwitchPortIn, analyse

# Telemetry adds its alerts as findings: (group row, node names) -> findings.
# Pages and the list API ask once for every node of the fleet, with ``None``
# for the group, so that their query count stays flat; each finding then goes
# to the groups whose nodes it names in ``objects`` ("node" or "node:port").
GroupFindings = Callable[[NodeGroup | None, list[str]], list[Finding]]
GROUP_FINDING_PROVIDERS: Hook[GroupFindings] = Hook("topology.group_findings")

# Auto groups change because cables changed, whoever plugged them: the log says so.
CABLING = Actor(source="cabling")

# Kinds whose links cannot be shared out: every node of a ring or chain forwards
# its neighbours' traffic, and a direct pair is one cable (docs/hardware.md, "Topologies").
UNSPLITTABLE = {"ring", "direct", "chain"}


class NotSplittable(BadInput, errors.Conflict):
    """Splitting this group is refused because of its cabling (409, with the
    refusal's ``code``); pages show it like any bad input."""

    status = 409

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message, "")
        self.code = code

    def answer(self) -> tuple[int, dict[str, Any]]:
        return self.status, errors.envelope(
            self.prefix + str(self), [{"path": "id", "message": str(self), "code": self.code}]
        )


@dataclass(frozen=True)
class LabSnapshot:
    """The lab as the engine sees it, plus the facts the pages need per node."""

    lab: LabIn
    spark_ids: dict[str, int]
    memory_gb: dict[str, int]

    def analyse(self) -> list[Group]:
        return analyse(self.lab, os_reserve_gb=settings.FLEET_OS_RESERVE_GB)


_SPARK_FIELDS = ("id", "name", "hardware__memory_gb", "hardware__has_connectx")


def _snapshot(
    sparks: list[tuple[Any, ...]],
    switches_read: QuerySet[Switch],
    ports: QuerySet[Port],
    ends_read: QuerySet[CableEnd],
    cables_read: QuerySet[Cable],
) -> LabSnapshot:
    """The engine's ``LabIn`` of these Sparks (rows of ``_SPARK_FIELDS``) and
    of the switches, ports, cable ends and cables the querysets select: four
    queries. A cable's end names its device, a Spark read or not."""
    switches = dict(switches_read.values_list("id", "name"))
    spark_ports: dict[int, list[str]] = defaultdict(list)
    switch_ports: dict[int, list[SwitchPortIn]] = defaultdict(list)
    for spark_id, switch_id, name, number, speed, breakout in ports.order_by("number", "id").values_list(
        "spark_id", "switch_id", "name", "number", "speed_gbps", "breakout"
    ):
        if spark_id is not None:
            spark_ports[spark_id].append(name)
        else:
            switch_ports[switch_id].append(SwitchPortIn(number, speed, breakout))
    ends: dict[int, list[EndIn]] = defaultdict(list)
    for cable_id, spark_name, switch_id, port_name in ends_read.order_by("cable_id", "position").values_list(
        "cable_id", "port__spark__name", "port__switch_id", "port__name"
    ):
        ends[cable_id].append(EndIn(spark_name if switch_id is None else switches[switch_id], port_name))
    cables = tuple(
        CableIn(cable_label or f"cable-{pk}", slug, speed or 0, breakout, coded_for, tuple(ends[pk]))
        for pk, cable_label, slug, speed, breakout, coded_for in cables_read.order_by("id").values_list(
            "id", "label", "type__slug", "type__speed_gbps", "type__breakout", "coded_for"
        )
    )
    nodes = tuple(NodeIn(name, float(mem or 0), connectx, tuple(spark_ports[pk])) for pk, name, mem, connectx in sparks)
    lab = LabIn(nodes, tuple(SwitchIn(switches[pk], tuple(ps)) for pk, ps in sorted(switch_ports.items())), cables)
    return LabSnapshot(lab, {n: pk for pk, n, _, _ in sparks}, {n: int(m or 0) for _, n, m, _ in sparks})


def lab_read() -> LabSnapshot:
    """The whole inventory as a ``LabIn``: five queries whatever the fleet's size
    (``values_list`` rows, no model instances: this runs on every page view)."""
    sparks = list(Spark.objects.order_by("name").values_list(*_SPARK_FIELDS))
    return _snapshot(sparks, Switch.objects.all(), Port.objects.all(), CableEnd.objects.all(), Cable.objects.all())


def lab_read_around(names: Iterable[str]) -> LabSnapshot:
    """These Sparks and what their cables reach through switches, as a
    ``LabIn`` to be restricted to them (``placement.selectors._restrict``):
    the named Sparks, every switch reachable from them through cables that
    do not pass another Spark (with all its ports), and every cable with an
    end on one of those ports. A cable's end on an unnamed Spark keeps that
    Spark's name, so restricting drops it as it would from ``lab_read``; the
    unnamed Sparks themselves are not read.

    Restricted to ``names``, the engine finds the same groups with nodes as
    on the whole lab restricted to them, for a fraction of the rows: a group's
    plan no longer reads a lab of thousands of Sparks. Queries: five without
    a switch, seven for Sparks on one switch, one more per further tier of
    switches crossed, whatever the size of the lab."""
    sparks = list(Spark.objects.filter(name__in=set(names)).order_by("name").values_list(*_SPARK_FIELDS))
    spark_ids = [pk for pk, _, _, _ in sparks]
    cable_ids: set[int] = set()
    switch_ids: set[int] = set()
    frontier: dict[str, Any] = {"port__spark_id__in": spark_ids}
    while frontier:
        touching = CableEnd.objects.filter(**frontier).values("cable_id")
        reached = set(
            CableEnd.objects.filter(cable_id__in=touching)
            .exclude(cable_id__in=cable_ids)
            .values_list("cable_id", "port__switch_id")
        )
        cable_ids |= {cable for cable, _ in reached}
        new = {switch for _, switch in reached if switch is not None} - switch_ids
        switch_ids |= new
        frontier = {"port__switch_id__in": sorted(new)} if new else {}
    return _snapshot(
        sparks,
        Switch.objects.filter(id__in=switch_ids),
        Port.objects.filter(Q(spark_id__in=spark_ids) | Q(switch_id__in=switch_ids)),
        CableEnd.objects.filter(cable_id__in=cable_ids),
        Cable.objects.filter(id__in=cable_ids),
    )


# ---------------------------------------------------------------- sync


def live_members() -> tuple[list[NodeGroup], dict[int, set[str]], dict[tuple[int, str], int]]:
    rows = list(NodeGroup.objects.filter(retired_at__isnull=True).order_by("id"))
    members: dict[int, set[str]] = defaultdict(set)
    member_ids: dict[tuple[int, str], int] = {}
    for pk, gid, name in NodeGroupMember.objects.filter(group__retired_at__isnull=True).values_list(
        "id", "group_id", "spark__name"
    ):
        members[gid].add(name)
        member_ids[(gid, name)] = pk
    return rows, members, member_ids


def _match(components: list[Group], auto: list[NodeGroup], members: dict[int, set[str]]) -> dict[int, int]:
    """Component index -> auto group id, largest member overlap first; on a tie
    the older group (smaller id) and the first component win, so the result
    does not depend on dict order."""
    owner = {name: g.pk for g in auto for name in members[g.pk]}
    candidates = []
    for i, comp in enumerate(components):
        for gid, count in Counter(owner[n] for n in comp.nodes if n in owner).items():
            candidates.append((-count, gid, i))
    matched: dict[int, int] = {}
    taken: set[int] = set()
    for _, gid, i in sorted(candidates):
        if i not in matched and gid not in taken:
            matched[i] = gid
            taken.add(gid)
    return matched


def _free_name(base: str, taken: set[str]) -> str:
    base = base[:63].rstrip("-")
    name, n = base, 1
    while name in taken:
        n += 1
        suffix = f"-{n}"
        name = base[: 63 - len(suffix)].rstrip("-") + suffix
    taken.add(name)
    return name


def groups_sync(*, snapshot: LabSnapshot | None = None) -> bool:
    """Make the live auto groups match the cabling's connected components.

    Returns whether anything changed. Idempotent: with nothing to change it
    writes nothing (and logs nothing).
    """
    changed = False
    with transaction.atomic():
        _serialise()
        snap = snapshot or lab_read()
        components = [g for g in snap.analyse() if g.nodes]
        rows, members, member_ids = live_members()
        auto = [g for g in rows if g.auto]
        matched = _match(components, auto, members)
        by_id = {g.pk: g for g in rows}
        taken = {g.name for g in rows}
        now = timezone.now()
        add: list[NodeGroupMember] = []
        drop: list[int] = []
        target: dict[int, set[str]] = {}
        for i, comp in enumerate(components):
            nodes = set(comp.nodes)
            gid = matched.get(i)
            if gid is None:
                # Not logged: a new component follows from cable changes the log
                # already holds; created_at says when the group appeared.
                group = NodeGroup.objects.create(name=_free_name(f"group-{comp.nodes[0]}", taken), kind=comp.kind)
                add += [NodeGroupMember(group=group, spark_id=snap.spark_ids[n]) for n in sorted(nodes)]
                changed = True
                continue
            group, old = by_id[gid], members[gid]
            target[gid] = nodes
            if group.kind == comp.kind and old == nodes:
                continue
            if group.kind != comp.kind:
                group.kind = comp.kind
                group.save(update_fields=["kind"])
            add += [NodeGroupMember(group=group, spark_id=snap.spark_ids[n]) for n in sorted(nodes - old)]
            drop += [member_ids[(gid, n)] for n in old - nodes]
            changed = True
        retire = [g for g in auto if g.pk not in target]
        # A sub-group lives while its parent does and its nodes are still the parent's.
        retire += [
            g
            for g in rows
            if g.parent_id is not None
            and not (g.parent_id in target and members[g.pk] and members[g.pk] <= target[g.parent_id])
        ]
        # Retiring is logged: bookings and plans name groups, and their owners
        # need to see when and why a group went away.
        for group in retire:
            why = "its cabling is gone" if group.auto else "its nodes left the parent group, or the parent is gone"
            change_record(
                actor=CABLING,
                action=Change.Action.DELETE,
                obj=group,
                before={"name": group.name, "kind": group.kind, "nodes": sorted(members[group.pk]), "retired": why},
                after=None,
            )
            changed = True
        if retire:
            NodeGroup.objects.filter(pk__in=[g.pk for g in retire]).update(retired_at=now)
        if drop:
            NodeGroupMember.objects.filter(pk__in=drop).delete()
        if add:
            NodeGroupMember.objects.bulk_create(add)
    return changed


# Any fixed number: it names the lock that one sync at a time holds.
_SYNC_LOCK = 0x5EA4C0DE


def _serialise() -> None:
    """One sync at a time on PostgreSQL (SQLite already has one writer), so two
    concurrent writes never both create the group of one new component; the
    second waits and then reads what the first committed."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_SYNC_LOCK])


def groups_sync_hook() -> None:
    """The ``services.AFTER_CHANGE`` entry (hooks take no arguments)."""
    groups_sync()


# ---------------------------------------------------------------- sub-groups


def live_group(group_id: Any) -> NodeGroup:
    group = (
        NodeGroup.objects.select_related("parent").filter(pk=group_id).first() if isinstance(group_id, int) else None
    )
    if group is None:
        raise NotFound(f"no group with id {group_id!r}", "id")
    if group.retired_at is not None:
        raise NotFound(
            f"group {group.name} (id {group.pk}) was retired on {group.retired_at:%Y-%m-%d %H:%M}: its cabling is gone",
            "id",
        )
    return group


def _name_errors(name: Any, group: NodeGroup | None) -> list[tuple[str, str]]:
    if (msg := v.check_name(name)) is not None:
        return [("name", msg)]
    clash = NodeGroup.objects.filter(name=name, retired_at__isnull=True)
    if group is not None:
        clash = clash.exclude(pk=group.pk)
    if clash.exists():
        return [("name", f"a group named {name!r} already exists")]
    return []


def refuse_split(parent: NodeGroup) -> None:
    """Raise unless ``parent`` is a live switched auto group that may be split."""
    if not parent.auto:
        raise BadInput(
            f"{parent.name} is itself a sub-group; split its parent "
            f"{parent.parent.name if parent.parent else 'group'} instead",
            "parent",
        )
    if parent.kind in UNSPLITTABLE:
        what = {"ring": "a ring", "chain": "a chain", "direct": "a direct pair"}[parent.kind]
        raise NotSplittable(
            "ring-not-splittable",
            f"{parent.name} is {what}: every node carries its neighbours' traffic over the same cables, so no "
            "part of it works on its own; book the whole group, or cable the Sparks to a switch to split them.",
        )
    if parent.kind != "switched":
        raise NotSplittable(
            "group-not-splittable",
            f"{parent.name} is {parent.kind}, not switched: only Sparks on one switch can be split into "
            "sub-groups; fix the cabling first.",
        )


def _few(names: list[str], limit: int = 6) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def subgroup_create(*, actor: Actor, parent: NodeGroup, name: Any, nodes: Any) -> NodeGroup:
    """Name some of a switched group's Sparks as a sub-group (e.g. one experiment)."""
    refuse_split(parent)
    with transaction.atomic():
        # The parent's row lock: two sub-groups made at once of the same Sparks were both taken
        # (each checked the other's absence before either wrote); SQLite's write lock does the same.
        NodeGroup.objects.select_for_update().filter(pk=parent.pk).first()
        return _subgroup_create(actor, parent, name, nodes)


def _subgroup_create(actor: Actor, parent: NodeGroup, name: Any, nodes: Any) -> NodeGroup:
    errors = _name_errors(name, None)
    if not isinstance(nodes, list | tuple):
        errors.append(("nodes", f"a list of Spark names, not {type(nodes).__name__}"))
        nodes = []
    elif not nodes:
        errors.append(("nodes", "name at least one Spark of the group"))
    in_parent = set(NodeGroupMember.objects.filter(group=parent).values_list("spark__name", flat=True))
    siblings = {
        spark: sub
        for sub, spark in NodeGroupMember.objects.filter(
            group__parent=parent, group__retired_at__isnull=True
        ).values_list("group__name", "spark__name")
    }
    known = dict(Spark.objects.filter(name__in=[n for n in nodes if isinstance(n, str)]).values_list("name", "id"))
    seen: set[str] = set()
    for i, node in enumerate(nodes):
        where = f"nodes[{i}]"
        if not isinstance(node, str) or node not in known:
            errors.append((where, f"no Spark is named {v._show(node)}"))
        elif node in seen:
            errors.append((where, f"{node} is named twice"))
        elif node not in in_parent:
            errors.append((where, f"{node} is not in group {parent.name} ({_few(sorted(in_parent))})"))
        elif node in siblings:
            errors.append((where, f"{node} is already in sub-group {siblings[node]} of {parent.name}"))
        if isinstance(node, str):
            seen.add(node)
    if errors:
        raise BadInput(errors)
    group = NodeGroup.objects.create(name=name, kind=parent.kind, parent=parent, auto=False)
    NodeGroupMember.objects.bulk_create(NodeGroupMember(group=group, spark_id=known[n]) for n in sorted(seen))
    change_record(
        actor=actor,
        action=Change.Action.CREATE,
        obj=group,
        before=None,
        after={"name": name, "kind": group.kind, "parent": parent.name, "nodes": sorted(seen)},
    )
    return group


def group_rename(*, actor: Actor, group: NodeGroup, name: Any) -> NodeGroup:
    errors = _name_errors(name, group)
    if errors:
        raise BadInput(errors)
    if name == group.name:
        return group
    with transaction.atomic():
        old = group.name
        group.name = name
        group.save(update_fields=["name"])
        change_record(actor=actor, action=Change.Action.UPDATE, obj=group, before={"name": old}, after={"name": name})
    return group


def subgroup_delete(*, actor: Actor, group: NodeGroup) -> None:
    """Retire a sub-group (the row stays for the bookings that name it)."""
    if group.auto:
        raise BadInput(
            f"{group.name} follows the cabling and cannot be deleted; unplug its cables to dissolve it, "
            "or delete one of its sub-groups",
            "id",
        )
    with transaction.atomic():
        before = {
            "name": group.name,
            "kind": group.kind,
            "parent": group.parent.name if group.parent else None,
            "nodes": sorted(group.members.values_list("spark__name", flat=True)),
        }
        group.retired_at = timezone.now()
        group.save(update_fields=["retired_at"])
        change_record(actor=actor, action=Change.Action.DELETE, obj=group, before=before, after=None)
