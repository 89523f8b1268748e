"""Netplan files per Spark: parsed back as YAML, one subnet per twin per link,
MTU 9000, the same subnet on both ends of a cable, never two twins in one.

    direct:   spark-01:p0 ===== spark-02:p0
    ring:     spark-01:p1 - spark-02:p0, spark-02:p1 - spark-03:p0, spark-03:p1 - spark-01:p0
    switched: spark-0{1..4}:p0 ===== sw-1
"""

import ipaddress

import pytest
import yaml

from fabric.netplan import TWIN_IFACES, Segment, check_netplans, netplan_yaml, plan_addresses, segments_from_links

NODES3 = ["spark-01", "spark-02", "spark-03"]
LINKS = {
    "direct": (["spark-01", "spark-02"], [("spark-01:p0", "spark-02:p0")]),
    "ring": (NODES3, [("spark-01:p1", "spark-02:p0"), ("spark-02:p1", "spark-03:p0"), ("spark-01:p0", "spark-03:p1")]),
    "switched": ([f"spark-0{i}" for i in range(1, 5)], [(f"spark-0{i}:p0", f"sw-1:{i}") for i in range(1, 5)]),
}


def files_for(kind, observed=None):
    nodes, links = LINKS[kind]
    segments = segments_from_links(links, nodes)
    plan = plan_addresses(segments, observed)
    return {n: netplan_yaml(n, plan, group=kind) for n in nodes}, segments, plan


def twin_addresses(files):
    """(node, iface) -> IPv4Interface, read back from the YAML text."""
    found = {}
    for node, text in files.items():
        data = yaml.safe_load(text)
        assert data["network"]["version"] == 2
        for iface, conf in data["network"]["ethernets"].items():
            assert conf["mtu"] == 9000 and conf["dhcp4"] is False
            (cidr,) = conf["addresses"]
            found[(node, iface)] = ipaddress.IPv4Interface(cidr)
    return found


@pytest.mark.parametrize("kind", list(LINKS))
def test_every_kind_follows_the_rules(kind):
    files, segments, _ = files_for(kind)
    addresses = twin_addresses(files)
    subnets_by_segment = []
    for segment in segments:
        for index in (0, 1):
            ends = [addresses[(n, TWIN_IFACES[p][index])] for n, p in segment.ends]
            assert len({a.network for a in ends}) == 1, "both ends of a twin share its subnet"
            assert len({a.ip for a in ends}) == len(ends)
            subnets_by_segment.append(ends[0].network)
    assert len(set(subnets_by_segment)) == len(subnets_by_segment), "no two twins in one subnet"
    cabled = {(n, TWIN_IFACES[p][i]) for s in segments for n, p in s.ends for i in (0, 1)}
    assert set(addresses) == cabled, "exactly the cabled twins"
    assert check_netplans(files, segments) == []


def test_ring_has_one_segment_per_cable_and_both_ports_per_node():
    files, segments, _ = files_for("ring")
    assert len(segments) == 3
    data = yaml.safe_load(files["spark-02"])
    assert sorted(data["network"]["ethernets"]) == sorted(TWIN_IFACES["p0"] + TWIN_IFACES["p1"])


def test_switch_is_one_segment_shared_by_every_node():
    _, segments, plan = files_for("switched")
    assert [s.key for s in segments] == ["switch:sw-1"]
    assert plan.addresses["spark-04"]["enp1s0f0np0"].startswith(plan.subnets["switch:sw-1"][0].rsplit(".", 1)[0])


def test_consistent_observed_addresses_are_kept():
    observed = {
        "spark-01": {"enp1s0f0np0": ["10.9.0.1/24", "fe80::1/64"], "enP2p1s0f0np0": ["10.9.1.1/24"]},
        "spark-02": {"enp1s0f0np0": ["10.9.0.2/24"], "enP2p1s0f0np0": ["10.9.1.2/24"]},
    }
    files, segments, plan = files_for("direct", observed)
    assert plan.sources == {"spark-01:p0|spark-02:p0": "observed"}
    assert twin_addresses(files)[("spark-02", "enP2p1s0f0np0")] == ipaddress.IPv4Interface("10.9.1.2/24")
    assert check_netplans(files, segments) == []


def test_a_working_twin_keeps_its_address_whatever_its_partner_twin():
    """The demo's ring-1: one twin down (no address), the other running 192.168.104.1 to .2:
    the working twin keeps its addresses, only the down one is assigned a subnet."""
    observed = {
        "spark-01": {"enp1s0f0np0": ["192.168.104.1/24"], "enP2p1s0f0np0": []},
        "spark-02": {"enp1s0f0np0": ["192.168.104.2/24"], "enP2p1s0f0np0": ["fe80::2/64"]},
    }
    files, segments, plan = files_for("direct", observed)
    assert plan.sources == {"spark-01:p0|spark-02:p0": "partly observed"}
    addresses = twin_addresses(files)
    assert addresses[("spark-01", "enp1s0f0np0")] == ipaddress.IPv4Interface("192.168.104.1/24")
    assert addresses[("spark-02", "enp1s0f0np0")] == ipaddress.IPv4Interface("192.168.104.2/24")
    second = addresses[("spark-01", "enP2p1s0f0np0")].network
    assert (
        second != ipaddress.ip_network("192.168.104.0/24")
        and second == addresses[("spark-02", "enP2p1s0f0np0")].network
    )
    assert plan.subnets["spark-01:p0|spark-02:p0"] == ("192.168.104.0/24", str(second))
    assert check_netplans(files, segments) == []


@pytest.mark.parametrize(
    "observed",
    [
        # both twins in one subnet (the trap), link-local on both, one end missing
        {
            "spark-01": {"enp1s0f0np0": ["10.9.0.1/24"], "enP2p1s0f0np0": ["10.9.0.101/24"]},
            "spark-02": {"enp1s0f0np0": ["10.9.0.2/24"], "enP2p1s0f0np0": ["10.9.0.102/24"]},
        },
        {
            "spark-01": {"enp1s0f0np0": ["169.254.3.1/16"], "enP2p1s0f0np0": ["169.254.9.1/16"]},
            "spark-02": {"enp1s0f0np0": ["169.254.3.2/16"], "enP2p1s0f0np0": ["169.254.9.2/16"]},
        },
        {"spark-01": {"enp1s0f0np0": ["10.9.0.1/24"], "enP2p1s0f0np0": ["10.9.1.1/24"]}},
    ],
)
def test_broken_observed_addressing_is_replaced(observed):
    files, segments, plan = files_for("direct", observed)
    assert plan.sources == {"spark-01:p0|spark-02:p0": "assigned"}
    assert check_netplans(files, segments) == []
    used = {a.network for a in twin_addresses(files).values()}
    assert ipaddress.ip_network("10.9.0.0/24") not in used


def test_checker_catches_each_broken_rule():
    segments = [Segment("spark-01:p0|spark-02:p0", (("spark-01", "p0"), ("spark-02", "p0")))]
    good, _, _ = files_for("direct")
    same = good["spark-02"].replace("192.168.101.2/24", "192.168.100.3/24")
    assert any("share subnet" in p for p in check_netplans({**good, "spark-02": same}, segments))
    low = good["spark-01"].replace("mtu: 9000", "mtu: 1500")
    assert any("mtu is 1500" in p for p in check_netplans({**good, "spark-01": low}, segments))
    apart = good["spark-02"].replace("192.168.100.2/24", "192.168.50.2/24")
    assert any("different subnets" in p for p in check_netplans({**good, "spark-02": apart}, segments))
    assert any("not YAML" in p for p in check_netplans({**good, "spark-01": "a: [b"}, segments))
