"""Hypothesis properties of the topology engine.

Two generators: ``tidy_labs`` (every cable end names a real device and one of
its ports, but anything may be cabled to anything: loops, switch-to-switch,
conflicts, breakouts in odd places) and ``wild_labs`` (also unknown devices
and ports, any number of ends, any speed). Plain pytest, no database.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.topology.test_engine import BREAKOUT, SPEED
from topology.engine import (
    CableIn,
    EndIn,
    Group,
    LabIn,
    NodeIn,
    SwitchIn,
    SwitchPortIn,
    analyse,
    finding_catalogue,
    link_speed_class,
)
from topology.state import expected_usable_gb

PROPS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CABLE_TYPES = sorted(SPEED)
KINDS = {"single", "direct", "ring", "chain", "switched", "irregular"}


@st.composite
def tidy_labs(draw: st.DrawFn, *, max_nodes: int = 7, max_cables: int = 10) -> LabIn:
    nodes = tuple(
        NodeIn(
            f"n{i}",
            draw(st.sampled_from([64, 128])),
            draw(st.sampled_from([True, True, True, False])),
        )
        for i in range(draw(st.integers(0, max_nodes)))
    )
    switches = tuple(
        SwitchIn(
            f"s{i}",
            tuple(
                SwitchPortIn(p, draw(st.sampled_from([100, 200, 400])), draw(st.booleans()))
                for p in range(1, draw(st.integers(1, 4)) + 1)
            ),
        )
        for i in range(draw(st.integers(0, 3)))
    )
    ends = [EndIn(n.name, p) for n in nodes for p in n.ports]
    ends += [EndIn(s.name, str(p.number)) for s in switches for p in s.ports]
    cables: list[CableIn] = []
    if ends:
        for i in range(draw(st.integers(0, max_cables))):
            type = draw(st.sampled_from(CABLE_TYPES))
            is_breakout = type == BREAKOUT
            count = draw(st.integers(2, 3)) if is_breakout else 2
            chosen = tuple(draw(st.sampled_from(ends)) for _ in range(count))
            coded = draw(st.sampled_from(["nvidia", "generic"]))
            cables.append(CableIn(f"c{i}", type, SPEED[type], is_breakout, coded, chosen))
    return LabIn(nodes, switches, tuple(cables))


@st.composite
def wild_labs(draw: st.DrawFn) -> LabIn:
    tidy = draw(tidy_labs())
    names = [n.name for n in tidy.nodes] + [s.name for s in tidy.switches] + ["ghost", ""]
    ports = ["p0", "p1", "p9", "1", "2", "04", "x", ""]
    wild = st.builds(
        CableIn,
        key=st.sampled_from(["w0", "w1", "c0", ""]),  # keys may collide with tidy ones
        type=st.sampled_from([*CABLE_TYPES, "mystery"]),
        speed_gbps=st.sampled_from([0, 10, 40, 100, 200, 400, 800, -1]),
        breakout=st.booleans(),
        coded_for=st.sampled_from(["nvidia", "generic", "NVIDIA", ""]),
        ends=st.lists(st.builds(EndIn, st.sampled_from(names), st.sampled_from(ports)), max_size=4).map(tuple),
    )
    extra = draw(st.lists(wild, max_size=4))
    dup_nodes = draw(st.lists(st.builds(NodeIn, st.sampled_from(names), st.sampled_from([0, 64, 128])), max_size=2))
    return LabIn(tidy.nodes + tuple(dup_nodes), tidy.switches, tidy.cables + tuple(extra))


# --- never raises, always well-formed --------------------------------------------------------------


@PROPS
@given(wild_labs())
def test_analyse_never_raises_and_answers_in_vocabulary(lab):
    groups = analyse(lab)
    for g in groups:
        assert g.kind in KINDS
        assert list(g.nodes) == sorted(g.nodes) and list(g.switches) == sorted(g.switches)
        assert g.key == (g.nodes or g.switches)
        assert 0.0 <= g.collective_gbs <= link_speed_class(200)
        for f in g.findings:
            assert finding_catalogue()[f.code][0] == f.severity
            assert f.message.endswith(".") and f.objects
    assert analyse(lab) == groups  # deterministic


@PROPS
@given(wild_labs())
def test_every_node_in_exactly_one_group(lab):
    seen = [n for g in analyse(lab) for n in g.nodes]
    assert sorted(seen) == sorted({n.name for n in lab.nodes})


@PROPS
@given(wild_labs())
def test_groups_are_ordered_by_smallest_node_then_switch_only(lab):
    groups = analyse(lab)
    rank = [(0 if g.nodes else 1 if g.switches else 2, g.key) for g in groups]
    assert rank == sorted(rank)


# --- the numbers -----------------------------------------------------------------------------------


@PROPS
@given(tidy_labs(), st.sampled_from([0.0, 3.0, 4.0, 100.0]))
def test_pooled_is_the_sum_of_usable_memory(lab, reserve):
    memory = {n.name: n.memory_gb for n in lab.nodes}
    for g in analyse(lab, os_reserve_gb=reserve):
        usable = [expected_usable_gb(memory[n], reserve) for n in g.nodes]  # the one state's rule
        assert g.memory.pooled_gb == pytest.approx(sum(usable), abs=0.05)
        assert g.memory.local_gb == max(usable, default=0.0)
        assert g.memory.symmetric_gb == pytest.approx(len(usable) * min(usable, default=0.0), abs=0.05)
        assert g.memory.symmetric_gb <= g.memory.pooled_gb
        assert g.memory.bandwidth_gbs == 273.0 * len(g.nodes)


def _parts(lab: LabIn, cable_key: str, ends: tuple[str, str]) -> list[int]:
    """Speeds of the parts of one link, read from the input (not from the engine)."""
    cable = next(c for c in lab.cables if c.key == cable_key)
    nodes = {n.name: n for n in lab.nodes}
    ports = {(s.name, str(p.number)): p for s in lab.switches for p in s.ports}
    trunk = cable.ends[0]
    parts = [cable.speed_gbps]
    for end in ends:
        device, _, port = end.rpartition(":")
        if device in nodes:
            parts.append(200 if nodes[device].has_connectx else 10)
        elif (device, port) in ports:
            speed = ports[(device, port)].speed_gbps
            is_trunk = cable.breakout and (trunk.device, trunk.port) == (device, port)
            parts.append(speed // 2 if is_trunk else speed)
    return parts


@PROPS
@given(tidy_labs())
def test_no_link_faster_than_any_of_its_parts(lab):
    for g in analyse(lab):
        for link in g.links:
            parts = _parts(lab, link.cable, (link.a, link.b))
            if link.a.rpartition(":")[0] in g.nodes:
                assert link.gbps <= 200  # a Spark port; switch-to-switch links may run faster
            assert all(link.gbps <= p for p in parts), (link, parts)
            assert link.gbps == min(parts)  # and no slower than the slowest part either
            assert (link.limited_by == "") == (link.gbps >= 200)


@PROPS
@given(tidy_labs())
def test_collective_follows_the_slowest_link(lab):
    for g in analyse(lab):
        if len(g.nodes) < 2 or not g.links:
            assert g.collective_gbs == 0.0
            continue
        full = link_speed_class(min(x.gbps for x in g.links))
        assert g.collective_gbs in (full, full / 2)
        if g.kind in ("ring", "chain"):
            assert g.collective_gbs == full / 2
        if g.kind in ("direct", "switched"):
            assert g.collective_gbs == full


@PROPS
@given(tidy_labs())
def test_kinds_match_their_links(lab):
    for g in analyse(lab):
        switch_ends = [(x.a.rpartition(":")[0] in g.switches, x.b.rpartition(":")[0] in g.switches) for x in g.links]
        if g.kind in ("single", "direct", "ring", "chain"):
            assert g.switches == () and all(e == (False, False) for e in switch_ends)
        if g.kind == "switched":
            assert all(e == (False, True) for e in switch_ends)  # node end first, switch second
        if g.kind == "ring":
            assert len({(x.a, x.b) for x in g.links}) >= len(g.nodes) >= 3
        if g.kind == "chain":
            assert "open-chain" in [f.code for f in g.findings]
        if g.kind == "direct":
            assert len(g.nodes) == 2
        for x in g.links:
            for end in (x.a, x.b):
                assert end.rpartition(":")[0] in g.nodes + g.switches


# --- renaming ------------------------------------------------------------------------------------


@st.composite
def renamed(draw: st.DrawFn, lab: LabIn) -> tuple[LabIn, dict[str, str]]:
    """The same lab with every name, port assignment and list order changed; and the mapping."""
    m: dict[str, str] = {}
    node_names = draw(st.permutations([f"m{i}" for i in range(len(lab.nodes))]))
    switch_names = draw(st.permutations([f"t{i}" for i in range(len(lab.switches))]))
    nodes: list[NodeIn] = []
    node_port: dict[tuple[str, str], str] = {}
    for node, new in zip(lab.nodes, node_names, strict=True):
        m[node.name] = new
        order = draw(st.permutations(node.ports))
        for old, p in zip(node.ports, order, strict=True):
            node_port[(node.name, old)] = p
            m[f"{node.name}:{old}"] = f"{new}:{p}"
        nodes.append(NodeIn(new, node.memory_gb, node.has_connectx, node.ports))
    switches: list[SwitchIn] = []
    switch_port: dict[tuple[str, str], str] = {}
    for sw, new in zip(lab.switches, switch_names, strict=True):
        m[sw.name] = new
        numbers = draw(st.permutations([p.number for p in sw.ports]))
        ports = []
        for port, number in zip(sw.ports, numbers, strict=True):
            switch_port[(sw.name, str(port.number))] = str(number)
            m[f"{sw.name}:{port.number}"] = f"{new}:{number}"
            ports.append(SwitchPortIn(number, port.speed_gbps, port.breakout))
        switches.append(SwitchIn(new, tuple(draw(st.permutations(ports)))))
    keys = draw(st.permutations([f"k{i}" for i in range(len(lab.cables))]))
    cables: list[CableIn] = []
    for cable, key in zip(lab.cables, keys, strict=True):
        m[cable.key] = key
        ends = tuple(
            EndIn(m[e.device], node_port.get((e.device, e.port)) or switch_port[(e.device, e.port)]) for e in cable.ends
        )
        cables.append(CableIn(key, cable.type, cable.speed_gbps, cable.breakout, cable.coded_for, ends))
    shuffle: Callable[[list], tuple] = lambda xs: tuple(draw(st.permutations(xs)))  # noqa: E731
    return LabIn(shuffle(nodes), shuffle(switches), shuffle(cables)), m


_LIMIT = re.compile(r"^(cable|node port|switch port|node) (\S+)( \(no ConnectX-7\)| \(breakout leg\))?$")


def canon(groups: list[Group], m: Callable[[str], str]) -> frozenset:
    """The groups with names mapped, orders forgotten and messages (prose) left out."""

    def limit(text: str) -> tuple:
        out = []
        for part in filter(None, text.split(" and ")):
            what, name, tail = _LIMIT.match(part).groups()
            out.append((what, name if what == "cable" else m(name), tail))
        return tuple(sorted(out))

    return frozenset(
        (
            frozenset(map(m, g.nodes)),
            frozenset(map(m, g.switches)),
            g.kind,
            tuple(sorted((tuple(sorted((m(x.a), m(x.b)))), m(x.cable), x.gbps, limit(x.limited_by)) for x in g.links)),
            g.memory,
            g.collective_gbs,
            tuple(sorted((f.code, f.severity, tuple(sorted(map(m, f.objects)))) for f in g.findings)),
        )
        for g in groups
    )


@PROPS
@given(st.data())
def test_result_does_not_depend_on_names_ports_or_order(data):
    lab = data.draw(tidy_labs())
    other, mapping = data.draw(renamed(lab))
    before, after = analyse(lab), analyse(other)
    assert canon(before, lambda s: mapping.get(s, f"UNMAPPED {s}")) == canon(after, lambda s: s)
    # Orientation rule survives renaming: the node end first, or the smaller of two like ends.
    for g in after:
        for x in g.links:
            a_switch, b_switch = (e.rpartition(":")[0] in g.switches for e in (x.a, x.b))
            assert (a_switch, x.a) <= (b_switch, x.b)
