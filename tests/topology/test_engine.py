"""Example tests of the topology engine: one lab per kind and per finding.

Each docstring draws the cabling. Builders at the top make labs compactly
and are shared with the hypothesis properties in test_topology_props.py.
Plain pytest, no database.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from topology.engine import (
    FINDING_CATALOGUES,
    CableIn,
    EndIn,
    Finding,
    Group,
    LabIn,
    NodeIn,
    SwitchIn,
    SwitchPortIn,
    analyse,
    finding_catalogue,
    finding_description,
    link_speed_class,
)

# --- builders ------------------------------------------------------------------------------------

SPEED = {
    "qsfp112-dac": 400,
    "qsfp56-dac": 200,
    "qsfp28-dac": 100,
    "qsfp-plus-dac": 40,
    "qsfp-dd-2x-qsfp56-breakout": 200,
}
BREAKOUT = "qsfp-dd-2x-qsfp56-breakout"


def spark(name: str, memory_gb: float = 128, *, connectx: bool = True, ports: Iterable[str] = ("p0", "p1")):
    return NodeIn(name, memory_gb, connectx, tuple(ports))


def switch(name: str, count: int, speed: int, breakout: bool) -> SwitchIn:
    return SwitchIn(name, tuple(SwitchPortIn(i, speed, breakout) for i in range(1, count + 1)))


def crs804(name: str = "sw-1") -> SwitchIn:
    """MikroTik CRS804 DDQ: 4 x 400G, each splits into 2 x 200G."""
    return switch(name, 4, 400, True)


def crs504(name: str = "sw-1") -> SwitchIn:
    """MikroTik CRS504-4XQ-IN: 4 x 100G, no breakout."""
    return switch(name, 4, 100, False)


def _end(spec: str) -> EndIn:
    device, _, port = spec.rpartition(":")
    return EndIn(device, port)


def cable(key: str, a: str, b: str, type: str = "qsfp112-dac", coded: str = "nvidia") -> CableIn:
    return CableIn(key, type, SPEED[type], False, coded, (_end(a), _end(b)))


def breakout(key: str, trunk: str, *legs: str, coded: str = "nvidia") -> CableIn:
    return CableIn(key, BREAKOUT, 200, True, coded, tuple(_end(s) for s in (trunk, *legs)))


def lab(*items: NodeIn | SwitchIn | CableIn) -> LabIn:
    return LabIn(
        tuple(i for i in items if isinstance(i, NodeIn)),
        tuple(i for i in items if isinstance(i, SwitchIn)),
        tuple(i for i in items if isinstance(i, CableIn)),
    )


def names(n: int) -> list[str]:
    return [f"spark-{i:02d}" for i in range(1, n + 1)]


def chain_items(n: int, type: str = "qsfp112-dac") -> list[NodeIn | SwitchIn | CableIn]:
    """spark-01:p1 ── spark-02:p0, spark-02:p1 ── spark-03:p0, ..."""
    ns = names(n)
    items: list[NodeIn | SwitchIn | CableIn] = [spark(x) for x in ns]
    items += [cable(f"c{i + 1}", f"{a}:p1", f"{b}:p0", type) for i, (a, b) in enumerate(zip(ns, ns[1:]))]
    return items


def chain(n: int, type: str = "qsfp112-dac") -> LabIn:
    return lab(*chain_items(n, type))


def ring(n: int, type: str = "qsfp112-dac") -> LabIn:
    """A chain closed by a last cable from the last Spark's p1 to the first's p0."""
    ns = names(n)
    return lab(*chain_items(n, type), cable(f"c{n}", f"{ns[-1]}:p1", f"{ns[0]}:p0", type))


def direct_pair(type: str = "qsfp112-dac", coded: str = "nvidia") -> LabIn:
    return lab(spark("spark-a"), spark("spark-b"), cable("c1", "spark-a:p0", "spark-b:p0", type, coded))


def switched(n: int, sw: SwitchIn | None = None, type: str = "qsfp112-dac") -> LabIn:
    """n Sparks on one switch: two per port by breakout if the switch can, else one per port."""
    sw = sw or crs804()
    ns = names(n)
    items: list[NodeIn | SwitchIn | CableIn] = [sw, *(spark(x) for x in ns)]
    if sw.ports[0].breakout:
        for i in range(0, n, 2):
            legs = [f"{x}:p0" for x in ns[i : i + 2]]
            items.append(breakout(f"b{i // 2 + 1}", f"{sw.name}:{i // 2 + 1}", *legs))
    else:
        items += [cable(f"c{i + 1}", f"{x}:p0", f"{sw.name}:{i + 1}", type) for i, x in enumerate(ns)]
    return lab(*items)


def one(groups: list[Group]) -> Group:
    assert len(groups) == 1, [g.key for g in groups]
    return groups[0]


def codes(group: Group) -> list[str]:
    return [f.code for f in group.findings]


def the(group: Group, code: str) -> Finding:
    found = [f for f in group.findings if f.code == code]
    assert len(found) == 1, (code, codes(group))
    return found[0]


# --- kinds -----------------------------------------------------------------------------------------


def test_single_spark_is_single_and_isolated():
    """
    spark-a   (no cluster cable)
    """
    g = one(analyse(lab(spark("spark-a"))))
    assert (g.kind, g.key, g.links, g.collective_gbs) == ("single", ("spark-a",), (), 0.0)
    assert g.slowest_link_gbps == 0
    assert g.memory.local_gb == g.memory.pooled_gb == 126.7
    assert the(g, "isolated-node").severity == "info"
    assert the(g, "isolated-node").objects == ("spark-a",)


def test_direct_pair_runs_native_200():
    """
    spark-a:p0 ──qsfp112── spark-b:p0
    """
    g = one(analyse(direct_pair()))
    assert g.kind == "direct"
    assert g.nodes == ("spark-a", "spark-b") and g.switches == ()
    [link] = g.links
    assert (link.a, link.b, link.cable, link.gbps, link.limited_by) == (
        "spark-a:p0",
        "spark-b:p0",
        "c1",
        200,
        "",
    )
    assert g.collective_gbs == pytest.approx(24.0)
    assert g.memory.pooled_gb == 253.4 and g.memory.local_gb == 126.7
    assert g.memory.bandwidth_gbs == 546.0
    assert g.findings == ()


def test_node_to_node_link_puts_smaller_end_first():
    """
    spark-b:p1 ──qsfp56── spark-a:p0      (listed b first)
    """
    g = one(analyse(lab(spark("spark-a"), spark("spark-b"), cable("c1", "spark-b:p1", "spark-a:p0", "qsfp56-dac"))))
    assert (g.links[0].a, g.links[0].b, g.links[0].gbps) == ("spark-a:p0", "spark-b:p1", 200)


def test_ring_of_four_halves_collective_bandwidth():
    """
    spark-01:p1 ── spark-02:p0
    spark-02:p1 ── spark-03:p0
    spark-03:p1 ── spark-04:p0
    spark-04:p1 ── spark-01:p0     (closed)
    """
    g = one(analyse(ring(4)))
    assert g.kind == "ring"
    assert len(g.links) == 4 and all(x.gbps == 200 for x in g.links)
    # Both ports share one NIC budget: a 200G ring gets about half of 24.
    assert g.collective_gbs == pytest.approx(12.0)
    assert g.memory.pooled_gb == 506.8 and g.memory.symmetric_gb == 506.8
    assert g.memory.bandwidth_gbs == 4 * 273.0
    assert g.findings == ()


def test_ring_of_three_is_a_ring():
    """
    spark-01 ── spark-02 ── spark-03 ── back to spark-01
    """
    g = one(analyse(ring(3)))
    assert g.kind == "ring" and g.findings == ()


def test_chain_is_open_and_says_which_ports_close_it():
    """
    spark-01:p1 ── spark-02:p0
    spark-02:p1 ── spark-03:p0        spark-01:p0 and spark-03:p1 free
    """
    g = one(analyse(chain(3)))
    assert g.kind == "chain"
    f = the(g, "open-chain")
    assert f.objects == ("spark-01", "spark-03")
    assert "spark-01:p0" in f.message and "spark-03:p1" in f.message
    assert g.collective_gbs == pytest.approx(12.0)  # middle Spark forwards on both ports


def test_switched_eight_sparks_on_crs804_by_breakout():
    """
              ┌─ leg ─ spark-01:p0
    sw-1:1 ═══╡
              └─ leg ─ spark-02:p0
    ... sw-1:2 → 03, 04; sw-1:3 → 05, 06; sw-1:4 → 07, 08
    """
    g = one(analyse(switched(8)))
    assert g.kind == "switched" and g.switches == ("sw-1",)
    assert len(g.links) == 8
    assert {x.gbps for x in g.links} == {200} and {x.limited_by for x in g.links} == {""}
    assert g.links[0].a == "spark-01:p0" and g.links[0].b == "sw-1:1"
    assert g.collective_gbs == pytest.approx(24.0)
    assert g.findings == ()


def test_switched_on_crs504_is_capped_by_switch_ports():
    """
    spark-01:p0 ──qsfp112── sw-1:1  (100G)
    spark-02:p0 ──qsfp112── sw-1:2  (100G)
    """
    g = one(analyse(switched(2, crs504())))
    assert g.kind == "switched"
    assert [(x.gbps, x.limited_by) for x in g.links] == [
        (100, "switch port sw-1:1"),
        (100, "switch port sw-1:2"),
    ]
    assert g.collective_gbs == pytest.approx(12.0) and g.slowest_link_gbps == 100
    slow = [f for f in g.findings if f.code == "slow-switch-port"]
    assert [f.objects for f in slow] == [("c1", "sw-1:1"), ("c2", "sw-1:2")]
    assert "slow-cable" not in codes(g)


def test_lone_spark_on_a_switch_is_switched_without_collective():
    """
    sw-1:1 ═══ leg ── spark-01:p0      (second leg unused)
    """
    g = one(analyse(switched(1, crs804())))
    assert g.kind == "switched" and g.links[0].gbps == 200
    assert g.collective_gbs == 0.0  # no partner to exchange with
    assert "isolated-node" not in codes(g)


def test_sparks_on_every_switch_are_switched_rails():
    """
    spark-a:p0 ── sw-1:1     spark-a:p1 ── sw-2:1
    spark-b:p0 ── sw-1:2     spark-b:p1 ── sw-2:2
    """
    g = one(
        analyse(
            lab(
                spark("spark-a"),
                spark("spark-b"),
                crs804("sw-1"),
                crs804("sw-2"),
                cable("c1", "spark-a:p0", "sw-1:1"),
                cable("c2", "spark-b:p0", "sw-1:2"),
                cable("c3", "spark-a:p1", "sw-2:1"),
                cable("c4", "spark-b:p1", "sw-2:2"),
            )
        )
    )
    assert g.kind == "switched" and g.switches == ("sw-1", "sw-2")
    assert g.collective_gbs == pytest.approx(24.0)  # two ports to switches do not double it
    assert g.findings == ()


def test_ring_closed_through_a_switch_is_irregular():
    """
    spark-01:p1 ── spark-02:p0
    spark-02:p1 ── spark-03:p0
    spark-03:p1 ── sw-1:2
    spark-01:p0 ── sw-1:1         (Spark-to-Spark cables and switch links in one group)
    """
    g = one(
        analyse(
            lab(
                *chain_items(3),
                crs804(),
                cable("s1", "spark-01:p0", "sw-1:1"),
                cable("s2", "spark-03:p1", "sw-1:2"),
            )
        )
    )
    assert g.kind == "irregular" and g.switches == ("sw-1",)
    assert the(g, "mixed-links").objects == ("c1", "c2")
    assert "open-chain" not in codes(g) and "irregular-cabling" not in codes(g)
    assert g.collective_gbs == pytest.approx(12.0)  # spark-02 forwards between two Spark neighbours


def test_switches_cabled_together_are_irregular():
    """
    spark-a:p0 ── sw-1:1
    sw-1:2 ══qsfp112══ sw-2:1
    spark-b:p0 ── sw-2:2
    """
    g = one(
        analyse(
            lab(
                spark("spark-a"),
                spark("spark-b"),
                crs804("sw-1"),
                crs804("sw-2"),
                cable("c1", "spark-a:p0", "sw-1:1"),
                cable("isl", "sw-1:2", "sw-2:1"),
                cable("c2", "spark-b:p0", "sw-2:2"),
            )
        )
    )
    assert g.kind == "irregular"
    f = the(g, "inter-switch-link")
    assert f.objects == ("isl", "sw-1", "sw-2") and f.severity == "warning"
    switch_link = [x for x in g.links if x.cable == "isl"]
    assert [(x.a, x.b) for x in switch_link] == [("sw-1:2", "sw-2:1")]


def test_switch_cabled_to_itself_is_a_switch_loop():
    """
              ┌─ leg ─ spark-01:p0
    sw-1:1 ═══╡
              └─ leg ─ spark-02:p0
    sw-1:3 ──qsfp112── sw-1:4   (loop)
    """
    base = switched(2)
    g = one(analyse(LabIn(base.nodes, base.switches, (*base.cables, cable("x", "sw-1:3", "sw-1:4")))))
    assert g.kind == "irregular"
    f = the(g, "switch-loop")
    assert f.severity == "error" and f.objects == ("sw-1", "x")
    assert all(x.cable != "x" for x in g.links)  # a loop is no link
    assert len(g.links) == 2


def test_switch_without_sparks_is_its_own_group_and_comes_last():
    """
    spark-a (alone)       sw-9 (no cables)      sw-1 (no cables)
    """
    groups = analyse(lab(crs804("sw-9"), spark("spark-a"), crs804("sw-1")))
    assert [g.key for g in groups] == [("spark-a",), ("sw-1",), ("sw-9",)]
    g = groups[1]
    assert (g.kind, g.nodes, g.switches, g.collective_gbs) == ("irregular", (), ("sw-1",), 0.0)
    assert g.memory.pooled_gb == 0.0
    assert the(g, "switch-without-sparks").objects == ("sw-1",)


def test_sparks_bridging_two_switches_are_irregular():
    """
    spark-a:p0 ── sw-1:1
    spark-b:p0 ── sw-1:2    spark-b:p1 ── sw-2:1
    spark-c:p0 ── sw-2:2
    (spark-a reaches spark-c only through spark-b)
    """
    g = one(
        analyse(
            lab(
                *(spark(x) for x in ("spark-a", "spark-b", "spark-c")),
                crs804("sw-1"),
                crs804("sw-2"),
                cable("c1", "spark-a:p0", "sw-1:1"),
                cable("c2", "spark-b:p0", "sw-1:2"),
                cable("c3", "spark-b:p1", "sw-2:1"),
                cable("c4", "spark-c:p0", "sw-2:2"),
            )
        )
    )
    assert g.kind == "irregular"
    assert the(g, "node-bridges-switches").objects == ("sw-1", "sw-2")


def test_spark_with_three_neighbours_is_irregular_cabling():
    """
    hub has three ports (not a real Spark; a data entry that claims so):
    hub:p0 ── spark-a:p0    hub:p1 ── spark-b:p0    hub:p2 ── spark-c:p0
    """
    g = one(
        analyse(
            lab(
                spark("hub", ports=("p0", "p1", "p2")),
                *(spark(x) for x in ("spark-a", "spark-b", "spark-c")),
                cable("c1", "hub:p0", "spark-a:p0"),
                cable("c2", "hub:p1", "spark-b:p0"),
                cable("c3", "hub:p2", "spark-c:p0"),
            )
        )
    )
    assert g.kind == "irregular"
    assert codes(g) == ["irregular-cabling"]


# --- findings ----------------------------------------------------------------------------------


def test_mixed_memory_symmetric_uses_smallest():
    """
    spark-a (128 GB):p0 ──qsfp112── spark-b (64 GB):p0
    """
    g = one(analyse(lab(spark("spark-a", 128), spark("spark-b", 64), cable("c1", "spark-a:p0", "spark-b:p0"))))
    # expected usable: 130.7 GB (128 GB Spark's MemTotal) - 4 and 65.3 - 4
    assert g.memory.local_gb == 126.7
    assert g.memory.pooled_gb == 188.0
    assert g.memory.symmetric_gb == 122.6
    f = the(g, "mixed-memory")
    assert f.objects == ("spark-b",) and f.severity == "warning"


def test_os_reserve_is_a_parameter():
    """
    spark-a (64 GB), alone
    """
    g = one(analyse(lab(spark("spark-a", 64)), os_reserve_gb=3.0))
    assert g.memory.local_gb == 62.3  # 65.3 GB MemTotal of a 64 GB Spark - 3


@pytest.mark.parametrize(
    ("type", "gbps", "collective"),
    [("qsfp28-dac", 100, 12.0), ("qsfp-plus-dac", 40, 5.0), ("qsfp56-dac", 200, 24.0)],
)
def test_cable_speed_caps_the_link(type, gbps, collective):
    """
    spark-a:p0 ──<type>── spark-b:p0
    """
    g = one(analyse(direct_pair(type)))
    assert g.links[0].gbps == gbps
    assert g.collective_gbs == pytest.approx(collective)
    if gbps < 200:
        assert g.links[0].limited_by == f"cable {type}"
        assert the(g, "slow-cable").objects == ("c1", "spark-a:p0", "spark-b:p0")
    else:
        assert g.links[0].limited_by == "" and g.findings == ()


def test_slow_cable_on_slow_port_names_both():
    """
    spark-01:p0 ──qsfp28── sw-1:1 (100G)
    """
    g = one(analyse(switched(1, crs504(), "qsfp28-dac")))
    assert g.links[0].limited_by == "cable qsfp28-dac and switch port sw-1:1"
    assert {"slow-cable", "slow-switch-port"} <= set(codes(g))


def test_breakout_leg_gets_half_of_the_switch_port():
    """
    sw-1:1 (200G, breakout) ═══ leg ── spark-01:p0
                               leg ── spark-02:p0
    """
    g = one(analyse(switched(2, switch("sw-1", 4, 200, True))))
    assert [x.gbps for x in g.links] == [100, 100]
    assert g.links[0].limited_by == "switch port sw-1:1 (breakout leg)"
    f = the(g, "slow-switch-port")
    assert f.objects == ("b1", "sw-1:1") and "breakout leg" in f.message


def test_uncoded_cable_warns():
    """
    spark-a:p0 ──qsfp112 (generic)── spark-b:p0
    """
    g = one(analyse(direct_pair(coded="generic")))
    f = the(g, "uncoded-cable")
    assert f.severity == "warning" and f.objects == ("c1", "spark-a:p0", "spark-b:p0")
    assert "NVIDIA-coded or re-coded" in f.message


def test_uncoded_cable_between_switches_is_not_reported():
    """
    spark-a:p0 ── sw-1:1      sw-1:2 ══generic══ sw-2:1
    """
    g = one(
        analyse(
            lab(
                spark("spark-a"),
                crs804("sw-1"),
                crs804("sw-2"),
                cable("c1", "spark-a:p0", "sw-1:1"),
                cable("isl", "sw-1:2", "sw-2:1", coded="generic"),
            )
        )
    )
    assert "uncoded-cable" not in codes(g)


def test_second_cable_between_two_sparks_adds_no_speed():
    """
    spark-a:p0 ──qsfp112── spark-b:p0
    spark-a:p1 ──qsfp112── spark-b:p1
    """
    g = one(
        analyse(
            lab(
                spark("spark-a"),
                spark("spark-b"),
                cable("c1", "spark-a:p0", "spark-b:p0"),
                cable("c2", "spark-a:p1", "spark-b:p1"),
            )
        )
    )
    assert g.kind == "direct"
    assert [x.cable for x in g.links] == ["c1", "c2"]
    assert g.collective_gbs == pytest.approx(24.0)
    assert the(g, "duplicate-link").objects == ("c1", "c2", "spark-a", "spark-b")


def test_rtx_spark_cabled_in_is_an_error_and_caps_the_link():
    """
    spark-a:p0 ──qsfp112── rtx-a:p0   (rtx-a has no ConnectX-7)
    """
    g = one(analyse(lab(spark("spark-a"), spark("rtx-a", connectx=False), cable("c1", "spark-a:p0", "rtx-a:p0"))))
    f = the(g, "no-connectx")
    assert f.severity == "error" and f.objects == ("rtx-a",)
    assert g.links[0].gbps == 10 and g.links[0].limited_by == "node rtx-a (no ConnectX-7)"
    assert g.links[0].a == "rtx-a:p0"  # node ends: smaller name first


def test_rtx_spark_alone_is_only_isolated():
    """
    rtx-a (no cables)
    """
    g = one(analyse(lab(spark("rtx-a", connectx=False))))
    assert codes(g) == ["isolated-node"]


def test_ring_of_five_recommends_a_switch_and_four_does_not():
    """
    spark-01 ── spark-02 ── spark-03 ── spark-04 ── spark-05 ── back to spark-01
    """
    g = one(analyse(ring(5)))
    assert g.kind == "ring"
    f = the(g, "switch-recommended")
    assert f.severity == "info" and len(f.objects) == 5
    assert "switch-recommended" not in codes(one(analyse(ring(4))))


def test_long_chain_recommends_a_switch_too():
    """
    spark-01 ── spark-02 ── ... ── spark-06   (open)
    """
    g = one(analyse(chain(6)))
    assert {"open-chain", "switch-recommended"} <= set(codes(g))


def test_breakout_trunk_on_a_port_that_cannot_split_is_an_error():
    """
    sw-1:1 (CRS504, 100G, no breakout) ═══ leg ── spark-01:p0
                                          leg ── spark-02:p0
    """
    g = one(
        analyse(
            lab(
                crs504(),
                spark("spark-01"),
                spark("spark-02"),
                breakout("b1", "sw-1:1", "spark-01:p0", "spark-02:p0"),
            )
        )
    )
    f = the(g, "breakout-not-supported")
    assert f.severity == "error" and f.objects == ("b1", "sw-1:1")
    assert [x.gbps for x in g.links] == [50, 50]


def test_breakout_trunk_on_a_spark_port_is_an_error():
    """
    spark-a:p0 ═══ leg ── spark-b:p0
                  leg ── spark-c:p0
    """
    items = [spark(x) for x in ("spark-a", "spark-b", "spark-c")]
    g = one(analyse(lab(*items, breakout("b1", "spark-a:p0", "spark-b:p0", "spark-c:p0"))))
    assert the(g, "breakout-not-supported").objects == ("b1", "spark-a:p0")
    assert all(x.gbps <= 200 for x in g.links)


def test_two_cables_on_one_port_conflict():
    """
    spark-a:p0 ──┬── spark-b:p0
                 └── spark-c:p0
    """
    items = [spark(x) for x in ("spark-a", "spark-b", "spark-c")]
    g = one(analyse(lab(*items, cable("c1", "spark-a:p0", "spark-b:p0"), cable("c2", "spark-a:p0", "spark-c:p0"))))
    f = the(g, "port-conflict")
    assert f.severity == "error" and f.objects == ("c1", "c2", "spark-a:p0")


def test_cable_to_unknown_device_is_reported_on_the_known_end():
    """
    spark-a:p0 ── ghost:p0   (ghost is not in the lab)
    """
    g = one(analyse(lab(spark("spark-a"), cable("c1", "spark-a:p0", "ghost:p0"))))
    assert g.kind == "single"
    assert the(g, "unknown-device").objects == ("c1", "ghost")


def test_cable_with_no_known_end_lands_in_a_keyless_group_last():
    """
    ghost-1:p0 ── ghost-2:p0     spark-a (alone)
    """
    groups = analyse(lab(spark("spark-a"), cable("c1", "ghost-1:p0", "ghost-2:p0")))
    assert [g.key for g in groups] == [("spark-a",), ()]
    assert codes(groups[1]) == ["unknown-device", "unknown-device"]


def test_unknown_ports_are_errors():
    """
    spark-a:p7 ── sw-1:9      (spark has p0/p1; CRS804 has ports 1..4)
    """
    g = one(analyse(lab(spark("spark-a"), crs804(), cable("c1", "spark-a:p7", "sw-1:9"))))
    assert sorted(f.objects for f in g.findings if f.code == "unknown-port") == [
        ("c1", "spark-a:p7"),
        ("c1", "sw-1:9"),
    ]
    assert g.links[0].gbps == 200  # an unknown switch port adds no speed limit of its own


def test_switch_port_numbers_are_read_as_numbers():
    """
    spark-a:p0 ── sw-1:"03"  (same as sw-1:3)
    """
    g = one(analyse(lab(spark("spark-a"), crs504(), cable("c1", "spark-a:p0", "sw-1:03"))))
    assert g.links[0].b == "sw-1:3" and g.links[0].gbps == 100
    assert "unknown-port" not in codes(g)


@pytest.mark.parametrize(
    "ends",
    [(), (EndIn("spark-a", "p0"),), (EndIn("spark-a", "p0"), EndIn("spark-b", "p0"), EndIn("spark-b", "p1"))],
)
def test_cable_with_wrong_number_of_ends_is_malformed(ends):
    """
    spark-a:p0 ── (nothing)      or a plain cable with three ends
    """
    bad = CableIn("c1", "qsfp112-dac", 400, False, "nvidia", ends)
    groups = analyse(LabIn((spark("spark-a"), spark("spark-b")), (), (bad,)))
    found = [f for g in groups for f in g.findings if f.code == "malformed-cable"]
    assert [f.objects for f in found] == [("c1",)]
    assert all(g.links == () for g in groups)


def test_duplicate_names_are_errors():
    """
    spark-a (128)   spark-a (64)   switch "spark-a"
    """
    g = one(analyse(LabIn((spark("spark-a"), spark("spark-a", 64)), (crs804("spark-a"),), ())))
    assert the(g, "duplicate-name").objects == ("spark-a",)
    assert g.memory.pooled_gb == 126.7  # the first definition wins


def test_spark_cabled_to_itself_is_a_node_loop_and_still_single():
    """
    spark-a:p0 ──┐
    spark-a:p1 ──┘
    """
    g = one(analyse(lab(spark("spark-a"), cable("c1", "spark-a:p0", "spark-a:p1"))))
    assert g.kind == "single" and g.links == ()
    assert set(codes(g)) == {"node-loop", "isolated-node"}


# --- the catalogue ---------------------------------------------------------------------------------

# A lab per finding code; the test below checks the catalogue has no code without a scenario.
SCENARIOS: dict[str, LabIn] = {
    "mixed-memory": lab(spark("spark-a", 128), spark("spark-b", 64), cable("cab-c", "spark-a:p0", "spark-b:p0")),
    "slow-cable": direct_pair("qsfp28-dac"),
    "slow-switch-port": switched(2, crs504()),
    "uncoded-cable": direct_pair(coded="generic"),
    "duplicate-link": lab(
        spark("spark-a"),
        spark("spark-b"),
        cable("cab-c1", "spark-a:p0", "spark-b:p0"),
        cable("cab-c2", "spark-a:p1", "spark-b:p1"),
    ),
    "no-connectx": lab(spark("spark-a"), spark("spark-r", connectx=False), cable("cab-c", "spark-a:p0", "spark-r:p0")),
    "isolated-node": lab(spark("spark-a")),
    "node-loop": lab(spark("spark-a"), cable("cab-c", "spark-a:p0", "spark-a:p1")),
    "open-chain": chain(3),
    "switch-recommended": ring(6),
    "mixed-links": lab(*chain_items(3), crs804(), cable("cab-s", "spark-01:p0", "sw-1:1")),
    "irregular-cabling": lab(
        spark("spark-h", ports=("p0", "p1", "p2")),
        *(spark(f"spark-{x}") for x in "abc"),
        *(cable(f"cab-{x}", f"spark-h:p{i}", f"spark-{x}:p0") for i, x in enumerate("abc")),
    ),
    "breakout-not-supported": lab(crs504(), spark("spark-a"), breakout("cab-b", "sw-1:1", "spark-a:p0")),
    "switch-without-sparks": lab(crs804()),
    "switch-loop": lab(crs804(), cable("cab-c", "sw-1:1", "sw-1:2")),
    "inter-switch-link": lab(crs804("sw-1"), crs804("sw-2"), cable("cab-c", "sw-1:1", "sw-2:1")),
    "node-bridges-switches": lab(
        spark("spark-a"),
        spark("spark-b"),
        crs804("sw-1"),
        crs804("sw-2"),
        cable("cab-c1", "spark-a:p0", "sw-1:1"),
        cable("cab-c2", "spark-a:p1", "sw-2:1"),
        cable("cab-c3", "spark-b:p0", "sw-2:2"),
    ),
    "port-conflict": lab(
        spark("spark-a"),
        spark("spark-b"),
        spark("spark-c"),
        cable("cab-1", "spark-a:p0", "spark-b:p0"),
        cable("cab-2", "spark-a:p0", "spark-c:p0"),
    ),
    "unknown-device": lab(spark("spark-a"), cable("cab-c", "spark-a:p0", "ghost:p0")),
    "unknown-port": lab(spark("spark-a"), spark("spark-b"), cable("cab-c", "spark-a:p0", "spark-b:p9")),
    "malformed-cable": LabIn(
        (spark("spark-a"),),
        (),
        (CableIn("cab-c", "qsfp112-dac", 400, False, "nvidia", (EndIn("spark-a", "p0"),)),),
    ),
    "duplicate-name": LabIn((spark("spark-a"), spark("spark-a")), (), ()),
}


def all_findings(groups: list[Group]) -> list[Finding]:
    return [f for g in groups for f in g.findings]


@pytest.mark.parametrize("code", sorted(SCENARIOS))
def test_each_code_has_a_scenario_that_raises_it(code):
    """See SCENARIOS for the cabling of each."""
    found = [f for f in all_findings(analyse(SCENARIOS[code])) if f.code == code]
    assert found, code
    assert all(f.severity == finding_catalogue()[code][0] for f in found)


def test_every_catalogued_code_has_a_scenario_and_severity():
    """No cabling: the catalogue itself. Other rule sets (telemetry's health
    codes) add more codes at start-up; the engine's own are exactly the
    scenarios."""
    from topology.engine.findings import _CATALOGUE

    assert set(SCENARIOS) == set(_CATALOGUE)
    catalogue = finding_catalogue()
    assert set(SCENARIOS) <= set(catalogue)
    assert {severity for severity, _ in catalogue.values()} <= {"error", "warning", "info"}
    assert all(description.strip() for _, description in catalogue.values())


def test_messages_are_one_sentence_naming_their_objects():
    """Every scenario above: each message is one sentence and names its first object."""
    for code, scenario in SCENARIOS.items():
        for f in all_findings(analyse(scenario)):
            assert f.message.endswith(".") and ". " not in f.message, (code, f.message)
            assert f.objects and any(o in f.message for o in f.objects), (code, f)


def test_an_app_adds_codes_and_two_meanings_of_one_code_are_refused():
    """No cabling: an app above adds its own codes through the hook."""
    code = "test-only-half-twin"
    mine = {code: ("warning", "Only one twin of a port is up.")}
    assert finding_description(code) == ""
    with FINDING_CATALOGUES.added(lambda: mine), FINDING_CATALOGUES.added(lambda: dict(mine)):  # twice, one meaning
        assert finding_catalogue()[code] == ("warning", "Only one twin of a port is up.")
        assert finding_description(code) == "Only one twin of a port is up."
        with FINDING_CATALOGUES.added(lambda: {code: ("error", "Only one twin of a port is up.")}):
            with pytest.raises(ValueError, match=code):
                finding_catalogue()
    assert finding_description(code) == ""  # gone with the entries


# --- numbers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gbps", "gbs"),
    [(0, 0.0), (-5, 0.0), (10, 1.25), (40, 5.0), (100, 12.0), (150, 18.0), (200, 24.0), (400, 24.0)],
)
def test_link_speed_class(gbps, gbs):
    assert link_speed_class(gbps) == pytest.approx(gbs)


def test_link_speed_class_never_decreases():
    speeds = [link_speed_class(g) for g in range(0, 450, 5)]
    assert speeds == sorted(speeds)


def test_groups_are_ordered_by_smallest_node_name():
    """
    zeta (alone)     alpha:p0 ── mid:p0     sw-0 (alone)     beta (alone)
    """
    groups = analyse(
        lab(
            crs804("sw-0"),
            spark("zeta"),
            spark("mid"),
            spark("beta"),
            spark("alpha"),
            cable("c", "mid:p0", "alpha:p0"),
        )
    )
    assert [g.key for g in groups] == [("alpha", "mid"), ("beta",), ("zeta",), ("sw-0",)]


def test_findings_come_errors_first():
    """
    spark-a:p0 ──qsfp28 (generic)── rtx-b:p0
    """
    g = one(
        analyse(
            lab(
                spark("spark-a"),
                spark("rtx-b", connectx=False),
                cable("c", "spark-a:p0", "rtx-b:p0", "qsfp28-dac", "generic"),
            )
        )
    )
    ranks = [{"error": 0, "warning": 1, "info": 2}[f.severity] for f in g.findings]
    assert ranks == sorted(ranks) and ranks[0] == 0
