"""The one state: inventory (should be) meets telemetry (is), pure rules.

Figures: a 128 GB Spark reports MemTotal 127,600,748 kB (130.7 GB); each
twin of a port rides its own PCIe x4 link (about 100 Gb/s), and a healthy
twin reports 200000 Mb/s (NVIDIA DGX Spark user guide, ConnectX-7 notes).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from topology.state import (
    AlertSeen,
    LinkExpected,
    SparkExpected,
    SparkSeen,
    TwinSeen,
    expected_usable_gb,
    fleet_state,
    group_state,
    usable_headline,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
INTERVAL = 30.0
RESERVE = 4.0


def twins(
    port: str = "p0",
    *,
    up: tuple[bool, bool] = (True, True),
    speed: int = 200_000,
    addressed: tuple[bool, bool] = (True, True),
) -> tuple[TwinSeen, ...]:
    return (
        TwinSeen(port, "enp1s0f0np0", up[0], speed if up[0] else None, addressed[0]),
        TwinSeen(port, "enP2p1s0f0np0", up[1], speed if up[1] else None, addressed[1]),
    )


def seen(
    *,
    key: str = "ok",
    verdict: str = "ok",
    age_s: float = 10,
    reachable: bool | None = True,
    available: int | None = 120_000_000_000,
    tw: tuple[TwinSeen, ...] | None = None,
    alerts: tuple[AlertSeen, ...] = (),
) -> SparkSeen:
    at = NOW - timedelta(seconds=age_s)
    return SparkSeen(
        key,
        verdict,
        at,
        at if reachable else at - timedelta(hours=1),
        reachable,  # type: ignore[arg-type]
        available,
        tw if tw is not None else twins(),
        alerts,
    )


def state(sparks: list[SparkExpected], links: list[LinkExpected], observed: dict[str, SparkSeen]):  # type: ignore[no-untyped-def]
    return fleet_state(sparks, links, observed, now=NOW, interval_s=INTERVAL, os_reserve_gb=RESERVE)


PAIR = [SparkExpected("a", 128), SparkExpected("b", 128)]
CABLE = [LinkExpected("a:p0", "b:p0", "c1", 200)]


def test_usable_memory_is_measured_from_a_fresh_sample_and_expected_otherwise() -> None:
    fs = state(
        [SparkExpected("a", 128), SparkExpected("b", 128), SparkExpected("c", 64)],
        [],
        {"a": seen(available=121_409_000_000), "b": seen(age_s=3600, available=121_409_000_000)},
    )
    a, b, c = fs.sparks["a"], fs.sparks["b"], fs.sparks["c"]
    assert (a.usable_gb, a.usable_source) == (121.4, "measured")
    # stale sample: back to the catalogue, labelled expected (130.7 GB MemTotal - 4 GB reserve)
    assert (b.usable_gb, b.usable_source) == (126.7, "expected")
    assert (c.usable_gb, c.usable_source) == (61.3, "expected")
    assert expected_usable_gb(128, 4) == 126.7


def test_new_spark_awaiting_its_key_is_new_with_the_action_not_down() -> None:
    fs = state(
        [SparkExpected("a", 128), SparkExpected("n", 128)],
        [],
        {"n": seen(key="unknown", verdict="unknown", reachable=True)},
    )
    assert fs.sparks["a"].health == "new"
    assert "never been polled" in fs.sparks["a"].why
    assert fs.sparks["n"].health == "new"
    assert "accept" in fs.sparks["n"].why
    assert fs.counts()["down"] == 0 and fs.counts()["new"] == 2


def test_unreachable_and_key_mismatch_are_down_stale_is_unknown() -> None:
    fs = state(
        [SparkExpected(n, 128) for n in "xyz"],
        [],
        {"x": seen(reachable=False, verdict="down"), "y": seen(key="mismatch", verdict="down"), "z": seen(age_s=600)},
    )
    assert fs.sparks["x"].health == "down" and fs.sparks["y"].health == "down"
    assert fs.sparks["z"].health == "unknown" and "10 min" in fs.sparks["z"].why


def test_warning_alert_degrades_and_codes_are_listed_once() -> None:
    alerts = (
        AlertSeen("single-half", "warning", ("a:p0",)),
        AlertSeen("single-half", "warning", ("a:p1",)),
        AlertSeen("parse-error", "info"),
    )
    fs = state(PAIR, CABLE, {"a": seen(verdict="degraded", alerts=alerts), "b": seen()})
    assert fs.sparks["a"].health == "degraded"
    assert fs.sparks["a"].alerts == ("parse-error", "single-half")
    assert fs.sparks["b"].health == "ok"


def test_half_speed_twin_is_half_at_100_with_its_reason() -> None:
    fs = state(PAIR, CABLE, {"a": seen(), "b": seen(tw=twins(up=(True, False)))})
    link = fs.links[0]
    assert (link.expected_gbps, link.observed_gbps, link.state) == (200, 100, "half")
    assert link.label == "100G (one twin)"
    assert "b:p0" in link.why


def test_a_twin_up_without_address_carries_nothing() -> None:
    fs = state(PAIR, CABLE, {"a": seen(), "b": seen(tw=twins(addressed=(True, False)))})
    assert fs.links[0].observed_gbps == 100


def test_a_twin_whose_roce_port_is_down_carries_no_rdma() -> None:
    tw = (
        TwinSeen("p0", "enp1s0f0np0", True, 200_000, True, rdma_active=False),
        TwinSeen("p0", "enP2p1s0f0np0", True, 200_000, True),
    )
    fs = state(PAIR, CABLE, {"a": seen(), "b": seen(tw=tw)})
    assert (fs.links[0].observed_gbps, fs.links[0].state) == (100, "half")


def test_negotiated_100g_is_half_and_says_negotiated() -> None:
    fs = state(PAIR, CABLE, {"a": seen(tw=twins(speed=100_000)), "b": seen(tw=twins(speed=100_000))})
    link = fs.links[0]
    assert (link.observed_gbps, link.state, link.label) == (100, "half", "100G (negotiated)")


def test_both_twins_up_at_200_is_ok_whatever_one_twins_pcie_limit() -> None:
    fs = state(PAIR, CABLE, {"a": seen(), "b": seen()})
    assert (fs.links[0].observed_gbps, fs.links[0].state, fs.links[0].label) == (200, "ok", "200G")


def test_link_to_a_down_spark_is_down_and_unpolled_link_is_unobserved() -> None:
    fs = state(PAIR, CABLE, {"a": seen(), "b": seen(reachable=False, verdict="down")})
    assert (fs.links[0].state, fs.links[0].observed_gbps, fs.links[0].label) == ("down", 0, "down")
    fs = state(PAIR, CABLE, {})
    assert (fs.links[0].state, fs.links[0].observed_gbps, fs.links[0].gbps) == ("unobserved", None, 200)
    assert fs.links[0].label == "200G expected"


def test_switch_link_is_read_from_its_spark_end() -> None:
    fs = state(
        [SparkExpected("a", 128)], [LinkExpected("a:p0", "sw:1", "c", 200)], {"a": seen(tw=twins(speed=100_000))}
    )
    assert (fs.links[0].observed_gbps, fs.links[0].state) == (100, "half")


def _speed_class(gbps: float) -> float:
    return {0: 0.0, 100: 12.0, 200: 24.0}.get(int(gbps), gbps / 200 * 24)


def test_group_uses_the_slowest_observed_link_and_each_sparks_memory() -> None:
    sparks = [SparkExpected("a", 128), SparkExpected("b", 64)]
    fs = state(
        sparks,
        CABLE,
        {"a": seen(available=120_000_000_000), "b": seen(available=60_000_000_000, tw=twins(up=(False, True)))},
    )
    g = group_state(["a", "b"], fs.links, fs.sparks, expected_exchange_gbs=24.0, speed_class=_speed_class)
    assert g.memory.usable_gb_per_node == {"a": 120.0, "b": 60.0}
    assert (g.memory.local_gb, g.memory.pooled_gb, g.memory.symmetric_gb) == (120.0, 180.0, 120.0)
    assert (g.slowest_gbps, g.expected_slowest_gbps, g.slowest_observed) == (100, 200, True)
    assert g.exchange_gbs == 12.0 and g.exchange_source == "predicted from observed links"
    assert g.health == "degraded" and "half" in g.why


def test_group_with_a_down_spark_names_it_and_plans_on_the_live_links() -> None:
    sparks = [SparkExpected(n, 128) for n in "abc"]
    links = [
        LinkExpected("a:p0", "sw:1", "c1", 200),
        LinkExpected("b:p0", "sw:2", "c2", 200),
        LinkExpected("c:p0", "sw:3", "c3", 200),
    ]
    fs = state(sparks, links, {"a": seen(), "b": seen(), "c": seen(reachable=False, verdict="down")})
    g = group_state("abc", fs.links, fs.sparks, expected_exchange_gbs=24.0, speed_class=_speed_class)
    assert g.health == "degraded" and g.unhealthy == ("c",)
    assert g.slowest_gbps == 200  # the down Spark's link is reported, not planned on


def test_group_of_new_sparks_is_new_not_down() -> None:
    fs = state(PAIR, CABLE, {})
    g = group_state(["a", "b"], fs.links, fs.sparks, expected_exchange_gbs=24.0, speed_class=_speed_class)
    assert g.health == "new"
    assert not g.slowest_observed and g.exchange_source == "predicted from the cabling"


def test_headline_sums_the_measured_and_counts_the_rest() -> None:
    fs = state(
        [SparkExpected(n, 128) for n in "abc"],
        [],
        {
            "a": seen(available=100_000_000_000),
            "b": seen(available=50_000_000_000),
            "c": seen(reachable=False, verdict="down"),
        },
    )
    h = usable_headline(fs.sparks.values())
    assert (h.measured_gb, h.measured, h.expected, h.unavailable) == (150.0, 2, 0, 1)  # c is down: no memory


@pytest.mark.parametrize("memory", [64, 128])
def test_expected_usable_is_below_capacity(memory: int) -> None:
    fs = state([SparkExpected("a", memory)], [], {})
    assert 0 < fs.sparks["a"].usable_gb < fs.sparks["a"].capacity_gb


twin_st = st.builds(
    TwinSeen,
    st.sampled_from(["p0"]),
    st.sampled_from(["t0", "t1"]),
    st.booleans(),
    st.sampled_from([None, 100_000, 200_000]),
    st.booleans(),
)


@given(a=st.lists(twin_st, max_size=2), b=st.lists(twin_st, max_size=2), expected=st.sampled_from([40, 100, 200]))
def test_observed_never_exceeds_expected_and_state_matches_speed(
    a: list[TwinSeen], b: list[TwinSeen], expected: int
) -> None:
    link = LinkExpected("a:p0", "b:p0", "c", expected)
    fs = state(PAIR, [link], {"a": seen(tw=tuple(a)), "b": seen(tw=tuple(b))})
    got = fs.links[0]
    assert got.observed_gbps is not None and 0 <= got.observed_gbps <= expected
    assert (got.state == "ok") == (got.observed_gbps == expected)
    assert (got.state == "down") == (got.observed_gbps == 0)
