"""The SVG drawings, without a database: valid XML for every kind and every
size from 2 to 64 Sparks, no two boxes on top of each other, every name
escaped, a title and focusable details on every Spark and cable, links drawn
by their observed state; the memory chart labels expected memory as such."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.topology import test_engine as t
from topology import diagram, memory_chart
from topology.engine import Finding, Group, Link, Memory, analyse
from topology.state import LinkState

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def nodes_of(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{NS}g") if g.get("class") == "node"]


def links_of(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{NS}g") if (g.get("class") or "").split()[:1] == ["link"]]


def only_group(lab_in) -> Group:
    groups = [g for g in analyse(lab_in) if g.nodes]
    assert len(groups) == 1
    return groups[0]


def switched(n: int) -> Group:
    """n Sparks on a 32-port 400G switch, two per port by breakout."""
    return only_group(t.switched(n, t.switch("sw-1", 32, 400, True)))


def ring(n: int, slow: int | None = None) -> Group:
    """A ring; with ``slow``, the cable after that Spark is a 100G QSFP28."""
    base = t.ring(n)
    if slow is None:
        return only_group(base)
    cables = tuple(
        t.cable(
            c.key,
            f"{c.ends[0].device}:{c.ends[0].port}",
            f"{c.ends[1].device}:{c.ends[1].port}",
            "qsfp28-dac" if i == slow else c.type,
        )
        for i, c in enumerate(base.cables)
    )
    return only_group(type(base)(base.nodes, base.switches, cables))


def chain(n: int) -> Group:
    return only_group(t.chain(n))


def boxes(root: ET.Element) -> list[tuple[float, float, float, float]]:
    out = []
    for g in nodes_of(root):
        r = g.find(f"{NS}rect")
        assert r is not None
        out.append((float(r.get("x")), float(r.get("y")), float(r.get("width")), float(r.get("height"))))
    return out


def assert_legible(group: Group, columns: int | None = None) -> None:
    svg = diagram.render(group, columns=columns)
    root = parse(svg)
    width, height = float(root.get("width")), float(root.get("height"))
    found = boxes(root)
    assert len(found) == len(group.nodes)
    for x, y, w, h in found:
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height
    for i, (x, y, w, h) in enumerate(found):
        for x2, y2, w2, h2 in found[i + 1 :]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y, "two boxes overlap"
    # Every Spark and every cable has a hover title naming it.
    assert sorted(g.find(f"{NS}title").text.split("\n")[0] for g in nodes_of(root)) == sorted(group.nodes)
    titles = [g.find(f"{NS}title").text for g in links_of(root)]
    assert len(titles) == len(group.links)
    assert all(link.cable in t for link, t in zip(group.links, titles, strict=True))
    # ... and the same details on click or keyboard focus: links focusable, Sparks are links to their page.
    assert all(g.get("tabindex") == "0" and g.get("data-detail") for g in links_of(root))
    anchors = [a for a in root.iter(f"{NS}a") if a.get("data-detail")]
    assert len(anchors) == len(group.nodes)
    # Legible at the page's width: the drawing is at most ~1,300 px wide and its text at least 10 px.
    assert width <= 1300
    assert min(float(t.get("font-size")) for t in root.iter(f"{NS}text")) >= 10


@pytest.mark.parametrize("n", range(1, 65))
def test_switched_groups_from_1_to_64_stay_legible(n):
    assert_legible(switched(n))


@pytest.mark.parametrize("n", range(1, 65))
def test_a_switched_group_too_wide_for_a_phone_is_drawn_again_to_fit_it(n):
    group = switched(n)
    both = diagram.responsive(group)
    drawings = [parse(svg) for svg in both.replace("</svg><svg", "</svg>\n<svg").split("\n")]
    if diagram.legible_width(group) <= diagram.PHONE_PX:
        assert [d.get("class") for d in drawings] == ["topo"]  # fits already: one drawing
        return
    assert [d.get("class") for d in drawings] == ["topo topo-wide", "topo topo-narrow"]
    assert_legible(group, columns=diagram.PHONE_COLUMNS)
    wide, narrow = drawings
    # the phone's drawing fits the card at a legible size; the same Sparks and cables in both
    assert int(narrow.get("style").removeprefix("min-width: ").removesuffix("px")) <= diagram.PHONE_PX
    assert sorted(g.get("data-detail") for g in links_of(narrow)) == sorted(
        g.get("data-detail") for g in links_of(wide)
    )
    assert len(nodes_of(narrow)) == len(nodes_of(wide)) == n


def test_a_direct_pair_fits_a_phone_at_a_legible_size():
    pair = only_group(t.direct_pair())
    assert diagram.legible_width(pair) <= diagram.PHONE_PX
    assert diagram.responsive(pair) == diagram.render(pair)


@pytest.mark.parametrize("n", [3, 4, 5, 8, 12, 13, 16, 31, 64])
def test_rings_and_chains_stay_legible(n):
    assert_legible(ring(n))
    assert_legible(chain(n))


def test_every_kind_renders():
    pair = only_group(t.direct_pair())
    single = only_group(t.lab(t.spark("solo")))
    irregular = only_group(
        t.lab(
            *(t.spark(x) for x in "abcd"),
            t.crs804(),
            t.cable("c1", "a:p0", "b:p0"),
            t.cable("c2", "b:p1", "c:p0"),
            t.cable("c3", "c:p1", "sw-1:1"),
            t.cable("c4", "d:p0", "sw-1:2"),
        )
    )
    two_switches = only_group(
        t.lab(
            t.spark("a"),
            t.spark("b"),
            t.crs804("sw-1"),
            t.crs804("sw-2"),
            t.cable("c1", "a:p0", "sw-1:1"),
            t.cable("c2", "b:p0", "sw-1:2"),
            t.cable("c3", "a:p1", "sw-2:1"),
            t.cable("c4", "b:p1", "sw-2:2"),
        )
    )
    every = (pair, single, irregular, two_switches, ring(4), chain(3), switched(8))
    assert {g.kind for g in every} == {"direct", "single", "irregular", "switched", "ring", "chain"}
    for g in every:
        assert_legible(g)
        drawn = [s for s in parse(diagram.render(g)).iter(f"{NS}g") if s.get("class") == "switch"]
        assert len(drawn) == len(g.switches)


def test_names_are_escaped_even_though_validation_forbids_them():
    evil = '<script>alert("x")</script>&'
    g = Group(
        (evil, "b"),
        "direct",
        (evil, "b"),
        (),
        (Link(f"{evil}:p0", "b:p0", "c&<1", 200, ""),),
        Memory(124, 248, 248, 546),
        24.0,
        (Finding("slow-cable", "warning", "m", (evil,)),),
    )
    svg = diagram.render(g, notes={evil: "<b>128 GB</b>"})
    assert "<script>" not in svg and "<b>" not in svg
    root = parse(svg)  # still well-formed XML
    assert any(evil in (t.text or "") for t in root.iter(f"{NS}title"))
    assert 'href="/sparks/&lt;script&gt;' in svg


def _state(link: Link, observed: int | None, state: str, why: str = "") -> LinkState:
    return LinkState(link.a, link.b, link.cable, link.gbps, observed, state, why)  # type: ignore[arg-type]


def test_links_are_drawn_as_observed_half_dashed_amber_down_red_unobserved_grey():
    g = ring(4, slow=2)  # the third cable is a 100G QSFP28: slower as cabled, not a fault
    a, b, c, d = g.links
    states = {
        (a.a, a.b): _state(a, 200, "ok"),
        (b.a, b.b): _state(b, 100, "half", "x:p0 carries traffic on one twin"),
        (c.a, c.b): _state(c, 100, "ok"),
        (d.a, d.b): _state(d, 0, "down", "spark-04 is down"),
    }
    root = parse(diagram.render(g, states=states))
    drawn = {}
    for link_el, link in zip(links_of(root), g.links, strict=True):
        visible = link_el.findall(f"{NS}path")[-1]
        label = " ".join(t.text or "" for t in link_el.findall(f"{NS}text"))
        drawn[link.cable] = (visible.get("stroke"), visible.get("stroke-dasharray"), label, link_el.get("data-state"))
    assert drawn[a.cable] == (diagram.GREEN, None, "200G", "ok")
    assert drawn[b.cable] == (diagram.AMBER, diagram.DASH["half"], "100G (one twin)", "half")
    assert drawn[c.cable] == (diagram.AMBER, None, "100G", "ok")
    assert drawn[d.cable] == (diagram.RED, diagram.DASH["down"], "down", "down")
    assert "one twin" in links_of(root)[1].get("data-detail")
    # nothing observed: grey, the cabling's speed labelled "expected"
    unobserved = links_of(parse(diagram.render(g)))[0]
    assert unobserved.findall(f"{NS}path")[-1].get("stroke") == diagram.GREY
    assert " ".join(t.text for t in unobserved.findall(f"{NS}text")) == "200G expected"


def test_sparks_are_outlined_by_health_and_say_why():
    g = ring(4)
    health = {"spark-01": ("down", "spark-01 did not answer its last poll."), "spark-02": ("new", "accept its key")}
    root = parse(diagram.render(g, health=health))
    by_name = {a.get("href").split("/")[2]: a for a in root.iter(f"{NS}a")}
    down = by_name["spark-01"].find(f"{NS}g/{NS}rect")
    assert down.get("stroke") == diagram.RED
    assert "did not answer" in by_name["spark-01"].get("data-detail")
    assert by_name["spark-02"].find(f"{NS}g/{NS}rect").get("stroke") == diagram.BLUE
    legend = diagram.legend()
    for words in ("100G (one twin)", "down", "expected", "Spark new"):
        assert words in legend


def test_odd_groups_never_crash_the_drawing():
    lone = Group(("x",), "ring", ("x",), (), (), Memory(0, 0, 0, 0), 0.0, ())
    nothing = Group((), "irregular", (), (), (), Memory(0, 0, 0, 0), 0.0, ())
    dangling = Group(
        ("a", "b"), "chain", ("a", "b"), (), (Link("a:p0", "ghost:p0", "c1", 200, ""),), Memory(0, 0, 0, 0), 0.0, ()
    )
    for g in (lone, nothing, dangling):
        parse(diagram.render(g))


# ---------------------------------------------------------------- memory chart


def test_memory_chart_labels_expected_memory_and_the_pool_as_distributed():
    bars = [memory_chart.Bar("a", 130.7, 126.7, False), memory_chart.Bar("b", 65.3, 40.0, True)]
    svg = memory_chart.render(bars, pooled_gb=166.7, local_gb=126.7, uid="7")
    root = parse(svg)
    titles = [t.text for t in root.iter(f"{NS}title")]
    assert "a: 126.7 GB usable, expected (no fresh sample): capacity 130.7 GB minus 4 GB OS reserve" in titles
    assert "b: 40 GB usable now (measured: MemAvailable) · 25.3 GB in use, OS included · capacity 65.3 GB" in titles
    assert "pooled: 166.7 GB usable across 2 machines — not one machine's memory" in titles
    assert 'fill="url(#hatch-7)"' in svg and memory_chart.USED in svg
    assert "126.7 exp." in svg  # the expected figure is labelled on the bar itself
    assert all(g.get("tabindex") == "0" for g in root.iter(f"{NS}g") if g.get("class") == "mem-node")


@pytest.mark.parametrize("n", [1, 2, 8, 9, 32, 64])
def test_memory_chart_is_valid_at_any_size(n):
    bars = [memory_chart.Bar(f"node-{i:02d}", 130.7, 126.7, False) for i in range(n)]
    root = parse(memory_chart.render(bars, pooled_gb=126.7 * n, local_gb=126.7))
    assert len([g for g in root.iter(f"{NS}g") if g.get("class") == "mem-node"]) == n
