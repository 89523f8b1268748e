"""The state selector on a real polled scenario lab (see ``scenario``)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.telemetry import django_sim
from tests.topology.scenario import scenario
from topology.live import live_state, spark_states

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db(transaction=True)


def test_scenario_state_tells_every_fault_apart(fleet_key, tmp_path, settings):
    with scenario(fleet_key, tmp_path, settings):
        pass
    live = live_state()
    health = {n: s.health for n, s in live.fleet.sparks.items()}
    assert health == {
        "spark-a": "ok",
        "spark-b": "ok",
        "spark-c": "ok",
        "spark-d": "degraded",
        "spark-e": "degraded",
        "spark-f": "ok",
        "spark-g": "down",
        "spark-h": "new",
        "spark-i": "down",
        "spark-j": "ok",
    }
    assert "accept" in live.spark("spark-h").why
    links = {(link.a, link.b): link for link in live.fleet.links}
    cd = links[("spark-c:p0", "spark-d:p0")]
    assert (cd.expected_gbps, cd.observed_gbps, cd.state, cd.label) == (200, 100, "half", "100G (one twin)")
    e = links[("spark-e:p0", "sw-1:1")]
    assert (e.observed_gbps, e.state, e.label) == (100, "half", "100G (negotiated)")
    assert links[("spark-g:p0", "sw-1:2")].state == "down"
    assert links[("spark-h:p0", "sw-1:2")].state == "unobserved"
    assert links[("spark-a:p0", "spark-b:p0")].state == "ok"
    a, b = live.spark("spark-a"), live.spark("spark-b")
    assert a.usable_source == b.usable_source == "measured"
    assert b.usable_gb < a.usable_gb < a.capacity_gb
    g = live.spark("spark-g")
    assert (g.usable_source, g.usable_gb, g.healthy_gb) == ("unavailable", 0.0, 126.7)  # down: nothing runs there
    pair = next(s for v in live.overview.groups if "spark-a" in v.result.nodes for s in [live.group(v)])
    assert pair.memory.usable_gb_per_node == {"spark-a": a.usable_gb, "spark-b": b.usable_gb}
    assert pair.memory.local_gb == a.usable_gb and pair.memory.symmetric_gb == round(2 * b.usable_gb, 1)
    switched = next(live.group(v) for v in live.overview.groups if "spark-e" in v.result.nodes)
    assert switched.health == "degraded" and switched.slowest_gbps == 100
    assert set(switched.unhealthy) == {"spark-e", "spark-g"}
    assert switched.memory.left_out == ("spark-g",)


def test_state_costs_a_fixed_number_of_queries(fleet_key, tmp_path, settings):
    with scenario(fleet_key, tmp_path, settings):
        pass
    with CaptureQueriesContext(connection) as few:
        spark_states(["spark-a"])
    with CaptureQueriesContext(connection) as every:
        spark_states()
    assert len(few) == len(every) == 3


def test_a_groups_state_read_from_its_own_sparks_is_the_fleets(fleet_key, tmp_path, settings):
    """One group's page and a page of /api/groups read only their groups'
    Sparks (``live_state(views=...)``), the folded /topology/ and /memory/
    every Spark but only the drawn groups' links and states: every group's
    state, every Spark and link state it holds, is exactly what the whole
    fleet's reading says."""
    with scenario(fleet_key, tmp_path, settings):
        pass
    from django.utils import timezone

    at = timezone.now()  # one clock for both readings
    whole = live_state(now=at)
    views = whole.overview.all()
    assert len(views) >= 3
    for view in views:
        alone = live_state(overview=whole.overview, views=[view, *view.subgroups], now=at)
        assert alone.group(view) == whole.group(view), view.row.name
        assert set(alone.fleet.sparks) == set(view.result.nodes)
        assert {name: whole.spark(name) for name in view.result.nodes} == alone.fleet.sparks
    page = live_state(overview=whole.overview, views=views[1:3], now=at)
    assert [page.group(v) for v in views[1:3]] == [whole.group(v) for v in views[1:3]]
    with pytest.raises(KeyError):
        page.group(views[0])
    # the drawings a folded page shows, with every Spark's state for the fleet's counts
    drawn = live_state(overview=whole.overview, views=views[1:3], every_spark=True, now=at)
    assert drawn.fleet.sparks == whole.fleet.sparks and drawn.fleet.counts() == whole.fleet.counts()
    assert [drawn.group(v) for v in views[1:3]] == [whole.group(v) for v in views[1:3]]
    assert len(drawn.fleet.links) < len(whole.fleet.links)  # only the drawn groups' links
