"""Reads for placement: node groups as the planner's ``GroupSpec``, the model
catalogue, benchmark lists and the leaderboard.

``groupspec_for`` runs the topology engine on the inventory restricted to a
group's nodes (so a sub-group of a switch is planned as the Sparks it names,
and a stale group is caught), read around them: the group's Sparks and the
switches their cables reach, not the whole lab
(``topology.services.lab_read_around``). It plans on the group as observed (the one state,
``topology.live``: each Spark's usable memory, the slowest observed link),
takes interface names from the Twin rows of the ports the group's links use,
and cluster addresses from telemetry's latest samples when that app offers
them (else a clearly marked placeholder). A constant number of queries,
whatever the size of the lab (one more per tier of switches crossed).
"""

from __future__ import annotations

import ipaddress
import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import Count, QuerySet

from core.errors import NotFound
from core.health import UNHEALTHY
from core.validation import as_whole_number, whole_number
from inventory.models import NodeGroup, NodeGroupMember, Spark, Twin
from telemetry.conf import launch_image, mgmt_iface
from telemetry.selectors import latest_samples
from telemetry.software_store import image_pin
from topology.engine import Group, LabIn, analyse
from topology.live import group_state_for
from topology.services import UNSPLITTABLE, lab_read_around
from topology.state import GroupState, SparkState

from .errors import PlacementError
from .launch import LaunchSettings, usable_mgmt_ip
from .models import LlmModel, SavedPlan
from .planner import GroupSpec, NodeSpec

if TYPE_CHECKING:
    from topology.state import MeasuredExchange

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlannedGroup:
    """A group ready for the planner: its spec, its row (None for a node list),
    what the engine saw, and whether addresses came from telemetry."""

    spec: GroupSpec
    group: NodeGroup | None
    topology: Group
    addresses_measured: bool
    state: GroupState | None = None  # the group as observed (what the spec was built from)

    @property
    def unhealthy(self) -> list[SparkState]:
        """Every degraded or down Spark the plans include."""
        if self.state is None:
            return []
        return [s for s in self.state.sparks if s.health in UNHEALTHY]

    @property
    def down(self) -> list[SparkState]:
        """The group's down Sparks: no memory, nothing is placed on them."""
        if self.state is None:
            return []
        return [s for s in self.state.sparks if not s.runs]

    @property
    def label(self) -> str:
        return self.group.name if self.group else ", ".join(n.name for n in self.spec.nodes)


def _restrict(lab: LabIn, names: set[str]) -> LabIn:
    """The lab with only these Sparks: cables leaving the set are dropped, a
    breakout keeps its trunk and the legs inside the set; switches stay."""
    switches = {s.name for s in lab.switches}
    cables = []
    for cable in lab.cables:
        ends = tuple(e for e in cable.ends if e.device in names or e.device in switches)
        if len(ends) == len(cable.ends) or (cable.breakout and len(ends) >= 2 and ends[0] == cable.ends[0]):
            cables.append(replace(cable, ends=ends))
    return LabIn(tuple(n for n in lab.nodes if n.name in names), lab.switches, tuple(cables))


def _analyse(lab: LabIn) -> list[Group]:
    return [g for g in analyse(lab, os_reserve_gb=settings.FLEET_OS_RESERVE_GB) if g.nodes]


def _latest_samples(names: list[str]) -> Any:
    """The latest stored sample of each of these nodes, for these nodes only
    (telemetry's dashboard reader would read every node of the fleet)."""
    return latest_samples(names)


def _latest_twin_addresses(names: list[str]) -> dict[str, dict[str, list[str]]]:
    """node -> interface -> addresses from telemetry; {} without telemetry (or
    when reading it fails: the commands then show placeholders)."""
    try:
        latest = _latest_samples(names)
    except Exception:  # an optional integration must not break planning
        log.warning(
            "reading telemetry's latest samples failed; launch commands use placeholder addresses", exc_info=True
        )
        return {}
    result: dict[str, dict[str, list[str]]] = {}
    for name, sample in (latest or {}).items():
        node = getattr(name, "name", name)  # keyed by name or by Spark row
        result[str(node)] = dict(_twin_addresses(sample))
    return result


def _twin_addresses(sample: Any) -> Iterable[tuple[str, list[str]]]:
    """(interface, addresses) of a stored sample row, a telemetry Sample or a dict."""
    twins = getattr(sample, "twin_list", None)
    if twins is None:
        sample = getattr(sample, "sample", sample)
        twins = sample.get("twins") if isinstance(sample, dict) else getattr(sample, "twins", None)
    for twin in twins or ():
        if isinstance(twin, dict):
            yield str(twin.get("name")), list(twin.get("addresses") or ())
        elif isinstance(twin, list | tuple):  # telemetry's packed row: name first, addresses last
            yield str(twin[0]), list(twin[6] if len(twin) > 6 else ())
        else:
            yield str(getattr(twin, "name", "")), list(getattr(twin, "addresses", ()) or ())


def _ipv4(addresses: list[str]) -> str | None:
    for text in addresses:
        try:
            iface = ipaddress.ip_interface(str(text))
        except ValueError:
            continue
        if iface.version == 4:
            return str(iface.ip)
    return None


def placeholder_ip(node: str, iface: str | None) -> str:
    return f"<ip of {node} on {iface or 'its cluster interface'}>"


def _node_specs(
    group: Group, usable: dict[str, float], connectx: dict[str, bool], spark_ids: dict[str, int]
) -> tuple[tuple[NodeSpec, ...], bool]:
    cabled: set[tuple[str, str]] = set()
    for link in group.links:
        for end in (link.a, link.b):
            device, _, port = end.partition(":")
            if device in usable:
                cabled.add((device, port))
    ifaces: dict[str, dict[str, dict[str, tuple[str, str]]]] = defaultdict(lambda: defaultdict(dict))
    rows = Twin.objects.filter(port__spark_id__in=[spark_ids[n] for n in group.nodes]).values_list(
        "port__spark__name", "port__name", "pcie_domain", "name", "rdma"
    )
    for node, port, domain, name, rdma in rows:
        if (node, port) in cabled:
            ifaces[node][port][domain] = (name, rdma)
    addresses = _latest_twin_addresses(list(group.nodes))
    measured = bool(addresses)
    nodes = []
    for name in group.nodes:
        ports = {p: [twins[d] for d in sorted(twins)] for p, twins in sorted(ifaces[name].items())}
        port_ifaces = {p: (t[0][0], t[-1][0]) for p, t in ports.items()}
        port_rdma = {p: (t[0][1], t[-1][1]) for p, t in ports.items()}
        first = next(iter(port_ifaces.values()), (None, None))[0]
        ip = _ipv4(addresses.get(name, {}).get(first or "", []))
        measured = measured and ip is not None
        nodes.append(
            NodeSpec(name, usable[name], connectx[name], port_ifaces, port_rdma, ip or placeholder_ip(name, first))
        )
    return tuple(nodes), measured


def _planned(group: Group, row: NodeGroup | None, ident: str, snapshot: Any) -> PlannedGroup:
    connectx = {n.name: n.has_connectx for n in snapshot.lab.nodes}
    state = group_state_for(group, measured=_measured_exchange(row))
    nodes, measured = _node_specs(group, state.memory.usable_gb_per_node, connectx, snapshot.spark_ids)
    # The slowest link still carrying traffic, as observed; a single node has
    # no link (and a pair whose only link is down none left): the planner
    # still wants a positive figure.
    link = state.slowest_gbps or state.expected_slowest_gbps or 200
    spec = GroupSpec(
        ident,
        group.kind,
        nodes,
        float(link),
        bus_gbytes_per_s=state.measured_gbs,
        socket_hosts=state.measured_socket_hosts,
        measured_run=state.measured_run,
    )
    return PlannedGroup(spec, row, group, measured, state)


def _measured_exchange(row: NodeGroup | None) -> MeasuredExchange | None:
    """Measured fabric used: the group's latest fabric verification, if any
    (fabric sits beside placement; imported here so neither imports the other at load)."""
    if row is None or row.pk is None:
        return None
    from fabric.selectors import latest_exchange

    return latest_exchange(row.pk)


def vllm_image() -> str:
    """The lab's vLLM image (FLEET_VLLM_IMAGE): the container launches', the
    serving's and, on a head node without vllm, the benchmark client's."""
    return launch_image()


def launch_settings_for(planned: PlannedGroup) -> LaunchSettings:
    """The lab's launch settings for a group: the management interface
    (FLEET_MGMT_IFACE, all nodes the same), each node's management address
    (its SSH host when that is a usable IP), the vLLM image (FLEET_VLLM_IMAGE)
    and the memory the OS keeps (FLEET_OS_RESERVE_GB)."""
    names = [n.name for n in planned.spec.nodes]
    hosts = Spark.objects.filter(name__in=names).values_list("name", "ssh_host")
    return LaunchSettings(
        mgmt_iface=mgmt_iface(),
        mgmt_ips={name: ip for name, host in hosts if (ip := usable_mgmt_ip(host))},
        vllm_image=(image := vllm_image()),
        vllm_pin=image_pin(image),
        os_reserve_gb=float(settings.FLEET_OS_RESERVE_GB),
    )


def live_group_or_error(group_id: Any, path: str = "group") -> NodeGroup:
    group_id = as_whole_number(group_id)
    row = (
        NodeGroup.objects.filter(pk=group_id).first()
        if isinstance(group_id, int) and not isinstance(group_id, bool)
        else None
    )
    if row is None:
        raise PlacementError(f"no node group with id {group_id!r}", path)
    if row.retired_at is not None:
        raise PlacementError(
            f"group {row.name} (id {row.pk}) was retired on {row.retired_at:%Y-%m-%d %H:%M}: "
            "its cabling is gone; pick a live group",
            path,
        )
    return row


def groupspec_for(group: NodeGroup) -> PlannedGroup:
    """The planner's view of a live group: the engine run on its nodes only."""
    names = set(group.members.values_list("spark__name", flat=True))
    if not names:
        raise PlacementError(f"group {group.name} has no Sparks", "group")
    snapshot = lab_read_around(names)
    found = _analyse(_restrict(snapshot.lab, names))
    if len(found) != 1:
        raise PlacementError(
            f"the Sparks of group {group.name} no longer form one connected group "
            f"({len(found)} pieces): the cabling changed",
            "group",
        )
    return _planned(found[0], group, str(group.pk), snapshot)


def groupspec_for_nodes(names: Any, path: str = "nodes") -> PlannedGroup:
    """The planner's view of Sparks named by hand: they must be a whole group
    of the cabling or a sub-group of a switched one."""
    if not isinstance(names, list | tuple) or not names:
        raise PlacementError("name at least one Spark", path)
    known = set(Spark.objects.filter(name__in=[n for n in names if isinstance(n, str)]).values_list("name", flat=True))
    errors = []
    for i, name in enumerate(names):
        if not isinstance(name, str) or name not in known:
            errors.append((f"{path}[{i}]", f"no Spark is named {name!r}"))
        elif names.index(name) != i:
            errors.append((f"{path}[{i}]", f"{name} is named twice"))
    if errors:
        raise PlacementError(errors)
    wanted = set(names)
    # the cabled components the named Sparks belong to: their live auto groups (one per component,
    # kept by topology.services.groups_sync after every inventory write), read around their Sparks
    around = wanted | set(
        NodeGroupMember.objects.filter(
            group__auto=True, group__retired_at__isnull=True, group__members__spark__name__in=wanted
        ).values_list("spark__name", flat=True)
    )
    snapshot = lab_read_around(around)
    components = [g for g in _analyse(_restrict(snapshot.lab, around)) if wanted & set(g.nodes)]
    if len(components) > 1:
        pieces = "; ".join(", ".join(n for n in g.nodes if n in wanted) for g in components)
        raise PlacementError(
            f"these Sparks are not cabled together: they fall into {len(components)} groups ({pieces})", path
        )
    whole = components[0]
    if wanted != set(whole.nodes) and whole.kind != "switched":
        what = "cannot be split" if whole.kind in UNSPLITTABLE else "can only be planned whole"
        raise PlacementError(
            f"{', '.join(sorted(wanted))} are part of a {whole.kind} group of {len(whole.nodes)} "
            f"({', '.join(whole.nodes)}) that {what}: name all its Sparks, or Sparks on one switch",
            path,
        )
    group = whole if wanted == set(whole.nodes) else _analyse(_restrict(snapshot.lab, wanted))[0]
    return _planned(group, None, "nodes:" + ",".join(sorted(wanted)), snapshot)


def working_part(planned: PlannedGroup) -> tuple[PlannedGroup, str]:
    """The part of a group its down Sparks leave, as the engine reads the
    cabling without them (a chain that loses an end is a shorter chain), and
    a sentence saying what was left out. Several pieces left: the one with the
    most Sparks (then the most usable memory). PlacementError when every
    Spark is down."""
    down = {s.name for s in planned.down}
    names = {n.name for n in planned.spec.nodes} - down
    if not names:
        raise PlacementError(f"every Spark of {planned.label} is down: nothing can run there", "group")
    snapshot = lab_read_around(names)
    pieces = _analyse(_restrict(snapshot.lab, names))
    usable = {n.name: n.usable_gb for n in planned.spec.nodes}
    pieces.sort(key=lambda g: (-len(g.nodes), -sum(usable.get(n, 0.0) for n in g.nodes)))
    piece = pieces[0]
    cut = sorted(names - set(piece.nodes))
    ident = "nodes:" + ",".join(sorted(piece.nodes))
    words = f"left out, down: {', '.join(sorted(down))}"
    if cut:
        words += f"; cut off from the rest by it: {', '.join(cut)}"
    return _planned(piece, None, ident, snapshot), words


def when_healthy(planned: PlannedGroup) -> PlannedGroup:
    """The whole group as it would be planned with its down Sparks working
    again: their expected usable memory in place of none."""
    healthy = {s.name: s.healthy_gb for s in planned.down}
    nodes = tuple(replace(n, usable_gb=healthy.get(n.name, n.usable_gb)) for n in planned.spec.nodes)
    link = planned.state.expected_slowest_gbps if planned.state else planned.spec.link_gbps
    spec = replace(planned.spec, nodes=nodes, link_gbps=float(link or planned.spec.link_gbps))
    return replace(planned, spec=spec, state=None)


# ---------------------------------------------------------------- catalogue and groups


def models_list() -> QuerySet[LlmModel]:
    return LlmModel.objects.prefetch_related("variants").order_by("name")


def model_get(slug: Any, path: str = "model") -> LlmModel:
    row = LlmModel.objects.prefetch_related("variants").filter(slug=slug).first() if isinstance(slug, str) else None
    if row is None:
        known = ", ".join(LlmModel.objects.order_by("slug").values_list("slug", flat=True)[:30])
        if not isinstance(slug, str) or not slug.strip():
            raise PlacementError(f"a model's slug is required; known: {known}", path)
        raise PlacementError(f"no model with slug {slug!r}; known: {known}", path)
    return row


def model_at(slug: str) -> LlmModel:
    """The model an address names (``/api/models/{slug}``), or NotFound (404)."""
    row = LlmModel.objects.prefetch_related("variants").filter(slug=slug).first()
    if row is None:
        raise NotFound(f"no model with slug {slug!r}", "slug")
    return row


def live_groups() -> QuerySet[NodeGroup]:
    """Live groups with their size, largest first (the ones worth planning on)."""
    return NodeGroup.objects.filter(retired_at__isnull=True).annotate(size=Count("members")).order_by("-size", "name")


def saved_plan_get(pk: Any, path: str = "pk") -> SavedPlan:
    """A kept plan, or NotFound naming ``path``."""
    row = None
    number = pk if isinstance(pk, int) and not isinstance(pk, bool) else whole_number(pk)
    if number is not None:
        row = SavedPlan.objects.select_related("model", "group").filter(pk=number).first()
    if row is None:
        raise NotFound(f"no saved plan {pk!r}", path)
    return row
