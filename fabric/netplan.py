"""Each Spark's cluster network set-up as a netplan file, and its checker.

Owns the addressing rules of NVIDIA's "Connect three Sparks" playbook and its
cluster set-up script (``docs/launch-and-fabric.md``): every physical port is
two Linux interfaces ("twins", one per PCIe domain), and each twin of each
link gets its OWN subnet (a /24), the same on both ends of the cable; two
twins in one subnet break routing and NCCL. A switch is one segment: every
node cabled to it shares its two twin subnets. MTU 9000 on every cabled twin.

Addresses follow what telemetry saw, twin by twin, where it is already
consistent (one IPv4 address per end, both ends in one subnet, apart from
the other twin's); otherwise a free /24 is assigned to that twin, so applying
the file never renumbers a working twin, whatever its partner twin's state.
Plain data in, YAML text out; no Django.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import yaml

CLUSTER_MTU = 9000
NETPLAN_PATH = "/etc/netplan/40-cx7.yaml"  # the file NVIDIA's playbooks write
# port -> (twin on PCIe domain 0000, twin on domain 0002)
TWIN_IFACES: dict[str, tuple[str, str]] = {
    "p0": ("enp1s0f0np0", "enP2p1s0f0np0"),
    "p1": ("enp1s0f1np1", "enP2p1s0f1np1"),
}
# Where fresh subnets come from: 192.168.100.0/24 upwards, as the simulated
# fleet and the playbooks' examples (192.168.x.0/24) do.
POOL = ipaddress.IPv4Network("192.168.0.0/16")
POOL_START = 100

Address = ipaddress.IPv4Interface


@dataclass(frozen=True)
class Segment:
    """One layer-2 segment of the cluster network: a cable between two Sparks
    (``key`` "spark-01:p0|spark-02:p0") or a switch (``key`` "switch:sw-1"),
    with the (node, port) ends cabled into it."""

    key: str
    ends: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class NetworkPlan:
    """node -> interface -> address (CIDR), and per segment where its
    addresses come from ("observed" by telemetry, "assigned" here, or
    "partly observed": one twin kept as telemetry saw it, the other assigned)."""

    addresses: dict[str, dict[str, str]]
    sources: dict[str, str]
    subnets: dict[str, tuple[str, str]] = field(default_factory=dict)


def segments_from_links(links: Iterable[tuple[str, str]], nodes: Iterable[str]) -> list[Segment]:
    """Segments from a topology group's links ("node:port", "node:port" or
    "switch:port"): one per node-to-node cable, one per switch."""
    names = set(nodes)
    direct: dict[str, list[tuple[str, str]]] = {}
    switches: dict[str, list[tuple[str, str]]] = {}
    for a, b in links:
        ends = [tuple(x.rsplit(":", 1)) for x in (a, b)]
        spark_ends = [(n, p) for n, p in ends if n in names and p in TWIN_IFACES]
        others = [n for n, _ in ends if n not in names]
        if len(spark_ends) == 2:
            key = "|".join(sorted(f"{n}:{p}" for n, p in spark_ends))
            direct[key] = sorted(spark_ends)
        elif len(spark_ends) == 1 and others:
            bucket = switches.setdefault(f"switch:{others[0]}", [])
            if spark_ends[0] not in bucket:
                bucket.append(spark_ends[0])
    result = [Segment(k, tuple(v)) for k, v in sorted(direct.items())]
    result += [Segment(k, tuple(sorted(v))) for k, v in sorted(switches.items())]
    return result


def _observed_v4(observed: Mapping[str, Mapping[str, Sequence[str]]], node: str, iface: str) -> list[Address]:
    found = []
    for text in (observed.get(node) or {}).get(iface) or ():
        try:
            addr = ipaddress.ip_interface(str(text))
        except ValueError:
            continue
        if isinstance(addr, ipaddress.IPv4Interface) and not addr.is_loopback:
            found.append(addr)
    return found


def _kept_twin(
    segment: Segment,
    observed: Mapping[str, Mapping[str, Sequence[str]]],
    taken: set[ipaddress.IPv4Network],
    index: int,
) -> dict[tuple[str, str], Address] | None:
    """The observed addresses of one twin (0 or 1) of the segment, if they follow the rules:
    one IPv4 address on every end, one subnet, distinct hosts, apart from the other twin's
    observed subnets and from every subnet already taken."""
    chosen: dict[tuple[str, str], Address] = {}
    for node, port in segment.ends:
        found = _observed_v4(observed, node, TWIN_IFACES[port][index])
        if len(found) != 1:
            return None
        chosen[(node, port)] = found[0]
    networks = {a.network for a in chosen.values()}
    hosts = {a.ip for a in chosen.values()}
    if len(networks) != 1 or len(hosts) != len(chosen):
        return None
    net = networks.pop()
    if net.prefixlen > 30 or net.is_link_local or any(net.overlaps(t) for t in taken):
        return None
    partner = {
        a.network for node, port in segment.ends for a in _observed_v4(observed, node, TWIN_IFACES[port][1 - index])
    }
    if any(net.overlaps(other) for other in partner):
        return None  # both twins in one subnet: neither follows the rule
    return chosen


def _free_subnets(taken: set[ipaddress.IPv4Network], count: int) -> list[ipaddress.IPv4Network]:
    found: list[ipaddress.IPv4Network] = []
    subnets = list(POOL.subnets(new_prefix=24))
    for net in subnets[POOL_START:] + subnets[:POOL_START]:
        if not any(net.overlaps(t) for t in taken):
            found.append(net)
            taken.add(net)
            if len(found) == count:
                return found
    raise ValueError("no free /24 left in 192.168.0.0/16 for the cluster links")


def plan_addresses(
    segments: Sequence[Segment], observed: Mapping[str, Mapping[str, Sequence[str]]] | None = None
) -> NetworkPlan:
    """One subnet per twin per segment; observed addresses kept where they follow the rules."""
    observed = observed or {}
    taken: set[ipaddress.IPv4Network] = set()
    addresses: dict[str, dict[str, str]] = {}
    sources: dict[str, str] = {}
    subnets: dict[str, tuple[str, str]] = {}
    pending: list[tuple[Segment, int]] = []  # the twins to assign a subnet to
    nets: dict[str, list[str]] = {}
    for segment in segments:
        nets[segment.key] = ["", ""]
        kept = 0
        for index in (0, 1):
            chosen = _kept_twin(segment, observed, taken, index)
            if chosen is None:
                pending.append((segment, index))
                continue
            kept += 1
            net = next(iter(chosen.values())).network
            taken.add(net)
            nets[segment.key][index] = str(net)
            for (node, port), addr in chosen.items():
                addresses.setdefault(node, {})[TWIN_IFACES[port][index]] = str(addr)
        sources[segment.key] = {2: "observed", 1: "partly observed", 0: "assigned"}[kept]
    # observed subnets of twins outside any kept segment stay clear of new ones
    for per_iface in observed.values():
        for texts in per_iface.values():
            for text in texts or ():
                try:
                    seen = ipaddress.ip_interface(str(text))
                except ValueError:
                    continue
                if isinstance(seen, ipaddress.IPv4Interface) and not seen.network.is_link_local:
                    taken.add(seen.network)
    for segment, index in pending:
        (net,) = _free_subnets(taken, 1)
        nets[segment.key][index] = str(net)
        for host, (node, port) in enumerate(segment.ends, start=1):
            addresses.setdefault(node, {})[TWIN_IFACES[port][index]] = f"{net.network_address + host}/24"
    for segment in segments:
        first, second = nets[segment.key]
        subnets[segment.key] = (first, second)
    return NetworkPlan(addresses, sources, subnets)


def netplan_yaml(node: str, plan: NetworkPlan, *, group: str = "") -> str:
    """The netplan file for one Spark: its cabled twins, static, MTU 9000."""
    ethernets = {
        iface: {"dhcp4": False, "mtu": CLUSTER_MTU, "addresses": [cidr]}
        for iface, cidr in sorted((plan.addresses.get(node) or {}).items())
    }
    header = (
        f"# {NETPLAN_PATH} for {node}{f' (group {group})' if group else ''}: cluster twins, one subnet "
        "per twin per link, MTU 9000.\n"
        f"# Install: sudo install -m 600 this-file {NETPLAN_PATH} && sudo netplan apply\n"
    )
    body = yaml.safe_dump(
        {"network": {"version": 2, "ethernets": ethernets}}, sort_keys=False, default_flow_style=False
    )
    return header + body


def check_netplans(files: Mapping[str, str], segments: Sequence[Segment]) -> list[str]:
    """Every rule a group's netplan files must follow, as problems (empty: all good).

    Parses the YAML; checks MTU 9000 and static addressing on every cabled twin,
    one subnet per twin per segment shared by all its ends, distinct hosts, and
    no subnet used by two twins or two segments.
    """
    problems: list[str] = []
    parsed = {node: _file_addresses(node, text, problems) for node, text in files.items()}
    owner: dict[ipaddress.IPv4Network, str] = {}
    for segment in segments:
        for index in (0, 1):
            _check_twin(segment, index, parsed, owner, problems)
    return problems


def _file_addresses(node: str, text: str, problems: list[str]) -> dict[str, Address]:
    """One file's interfaces and their address; its problems (YAML, version, MTU, DHCP) noted."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        problems.append(f"{node}: not YAML ({exc})")
        return {}
    ethernets = ((data or {}).get("network") or {}).get("ethernets") or {}
    if (data or {}).get("network", {}).get("version") != 2:
        problems.append(f"{node}: network.version must be 2")
    found: dict[str, Address] = {}
    for iface, conf in ethernets.items():
        if conf.get("mtu") != CLUSTER_MTU:
            problems.append(f"{node}:{iface}: mtu is {conf.get('mtu')}, not {CLUSTER_MTU}")
        if conf.get("dhcp4") is not False:
            problems.append(f"{node}:{iface}: dhcp4 must be false")
        addrs = conf.get("addresses") or []
        if len(addrs) != 1:
            problems.append(f"{node}:{iface}: one address expected, found {len(addrs)}")
            continue
        try:
            found[iface] = ipaddress.IPv4Interface(addrs[0])
        except ValueError:
            problems.append(f"{node}:{iface}: {addrs[0]!r} is not an IPv4 address with a prefix")
    return found


def _check_twin(
    segment: Segment,
    index: int,
    parsed: Mapping[str, Mapping[str, Address]],
    owner: dict[ipaddress.IPv4Network, str],
    problems: list[str],
) -> None:
    """One twin of a segment: every end in the file, one subnet, distinct hosts, a subnet of its own."""
    found: list[Address] = []
    for node, port in segment.ends:
        iface = TWIN_IFACES[port][index]
        addr = parsed.get(node, {}).get(iface)
        if addr is None:
            problems.append(f"{node}:{iface}: cabled ({segment.key}) but not in the file")
            continue
        found.append(addr)
    nets = {a.network for a in found}
    if len(nets) > 1:
        problems.append(f"{segment.key} twin {index}: ends in different subnets ({', '.join(sorted(map(str, nets)))})")
    if len({a.ip for a in found}) != len(found):
        problems.append(f"{segment.key} twin {index}: two ends share an address")
    for net in nets:
        label = f"{segment.key} twin {index}"
        clash = next((who for other, who in owner.items() if other.overlaps(net)), None)
        if clash is not None and clash != label:
            problems.append(f"{label} and {clash} share subnet {net}")
        owner[net] = label
