"""Topology pages: what each page shows, the sub-group form (htmx with inline
errors, plain POST with a 4xx), roles on the forms, usable memory labelled
expected until telemetry measures it, and query counts that do not grow with
the fleet."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import NodeGroup
from simfleet.labgen import lab_document
from telemetry.models import NodeSample, NodeState
from tests.conftest import db_state
from topology import services as svc

pytestmark = pytest.mark.django_db


def group_of(node: str) -> NodeGroup:
    return NodeGroup.objects.get(members__spark__name=node, auto=True, retired_at__isnull=True)


def test_topology_page_draws_every_group(admin_client, import_lab):
    import_lab("demo.yaml")
    html = admin_client.get("/topology/").content.decode()
    svg = '<svg xmlns="http://www.w3.org/2000/svg" class="topo'
    assert html.count(f'{svg}"') + html.count(f'{svg} topo-wide"') == 5
    # the switched group of eight, too wide for a phone's card, is drawn a second time for phones
    assert html.count(f'{svg} topo-narrow"') == html.count(f'{svg} topo-wide"') == 1
    for name in ("group-spark-01", "group-spark-03", "group-spark-07", "group-spark-15", "group-spark-17"):
        assert name in html
    assert "100G (one twin)" in html and "Spark new" in html and "not observed" in html  # the legend
    # never polled: the cabling's speeds, labelled expected; every Spark new, none down
    assert '<g class="link state-unobserved" data-gbps="100"' in html  # the slow ring cable
    assert "100G expected" in html and "17 new" in html and "health h-down" not in html


def test_group_page_shows_the_four_quantities_apart(admin_client, import_lab):
    import_lab("demo.yaml")
    ring = group_of("spark-03")
    html = admin_client.get(f"/groups/{ring.pk}/").content.decode()
    for row in ("q-local", "q-pooled", "q-exchange", "q-placement"):
        assert f'id="{row}"' in html
    # nothing measured yet: 130.7 GB MemTotal of a 128 GB Spark minus the 4 GB reserve, "expected"
    assert "126.7 GB" in html and "506.8 GB" in html and "not one machine" in html and "expected" in html
    assert "chosen per model" in html and f'href="/plans/?group={ring.pk}"' in html
    assert 'id="group-bookings"' in html and "free now" in html
    assert "Cable ring-3 (qsfp28-dac) carries only 100 Gb/s" in html
    assert "is a ring" in html  # why it cannot be split, instead of the form
    assert 'name="nodes"' not in html


def test_memory_page_counts_what_is_measured(admin_client, import_lab):
    import_lab("demo.yaml")
    html = admin_client.get("/memory/").content.decode()
    assert "17</span><span>Sparks not measured" in html
    assert "pooled: 1,013.6 GB usable across 8 machines — not one machine&#x27;s memory" in html

    now = timezone.now()
    from inventory.models import Spark

    s07 = Spark.objects.get(name="spark-07")
    sample = NodeSample.objects.create(
        spark=s07,
        at=now,
        reachable=True,
        status="ok",
        mem_total_bytes=130_663_165_952,
        mem_available_bytes=100_000_000_000,
        mem_used_bytes=30_663_165_952,
        twins=[],
    )
    NodeState.objects.create(
        spark=s07, status="ok", latest=sample, last_poll_at=now, last_sample_at=now, key_status="ok"
    )
    html = admin_client.get("/memory/").content.decode()
    assert (
        "spark-07: 100 GB usable now (measured: MemAvailable) · 30.7 GB in use, OS included · capacity 130.7 GB"
    ) in html
    assert "spark-08: 126.7 GB usable, expected (no fresh sample)" in html
    assert "100 GB</span><span>usable now on the 1 measured Spark" in html
    assert "16</span><span>Sparks not measured" in html


def test_split_form_answers_htmx_with_inline_errors_then_creates(admin_client, import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    htmx = {"HX-Request": "true", "HX-Target": "subgroups"}
    before = db_state()
    bad = admin_client.post(f"/groups/{parent.pk}/subgroups/", {"name": "exp a", "nodes": ["node-01"]}, headers=htmx)
    html = bad.content.decode()
    assert bad.status_code == 200 and "<html" not in html  # htmx swaps only 2xx
    assert "is not a valid name" in html and 'value="node-01" checked' in html
    assert db_state() == before and NodeGroup.objects.count() == 1

    ok = admin_client.post(
        f"/groups/{parent.pk}/subgroups/", {"name": "exp-a", "nodes": ["node-01", "node-02"]}, headers=htmx
    )
    html = ok.content.decode()
    assert "Sub-group exp-a created." in html and 'value="node-01"' not in html  # taken nodes leave the form
    assert NodeGroup.objects.get(name="exp-a").parent_id == parent.pk


def test_split_form_without_htmx_gets_a_4xx(admin_client, import_lab):
    import_lab("lab8-crs804.yaml", "ring4.yaml")
    switched, ring = group_of("node-01"), group_of("ring-1")
    before = (db_state(), NodeGroup.objects.count())
    assert admin_client.post(f"/groups/{switched.pk}/subgroups/", {"name": "", "nodes": ["node-01"]}).status_code == 400
    refused = admin_client.post(f"/groups/{ring.pk}/subgroups/", {"name": "exp-r", "nodes": ["ring-1"]})
    assert refused.status_code == 409 and "is a ring" in refused.content.decode()
    assert (db_state(), NodeGroup.objects.count()) == before
    done = admin_client.post(f"/groups/{switched.pk}/subgroups/", {"name": "exp-a", "nodes": ["node-03"]})
    assert done.status_code == 302


def test_rename_and_delete_pages(admin_client, import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    sub = svc.subgroup_create(actor=Actor(), parent=parent, name="exp-a", nodes=["node-01"])
    assert admin_client.post(f"/groups/{sub.pk}/rename/", {"name": "exp b"}).status_code == 400
    assert admin_client.post(f"/groups/{sub.pk}/rename/", {"name": "exp-b"}).status_code == 302
    response = admin_client.post(f"/groups/{parent.pk}/delete/", follow=True)
    assert "follows the cabling" in response.content.decode()
    assert admin_client.post(f"/groups/{sub.pk}/delete/").status_code == 302
    sub.refresh_from_db()
    assert sub.name == "exp-b" and sub.retired_at is not None
    assert admin_client.get(f"/groups/{sub.pk}/").status_code == 404


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_only_admins_get_the_forms(role, users, import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    client = Client()
    client.force_login(users[role])
    html = client.get(f"/groups/{parent.pk}/").content.decode()
    assert 'name="nodes"' not in html and "Rename" not in html
    before = (db_state(), NodeGroup.objects.count())
    for path, body in (
        (f"/groups/{parent.pk}/subgroups/", {"name": "exp-a", "nodes": ["node-01"]}),
        (f"/groups/{parent.pk}/rename/", {"name": "exp-b"}),
        (f"/groups/{parent.pk}/delete/", {}),
    ):
        assert client.post(path, body).status_code == 403
    assert (db_state(), NodeGroup.objects.count()) == before


def test_anonymous_visitors_are_sent_to_sign_in(import_lab):
    import_lab("pair.yaml")
    for path in ("/topology/", f"/groups/{group_of('pair-a').pk}/", "/memory/"):
        assert Client().get(path).status_code == 302


# ---------------------------------------------------------------- query counts


def test_page_and_api_queries_do_not_grow_with_the_fleet(admin_client, import_lab, api_admin):
    import_lab("demo.yaml")
    switched = group_of("spark-07").pk
    paths = ["/topology/", f"/groups/{switched}/", "/memory/", "/api/groups", f"/api/groups/{switched}"]

    def count(path: str) -> int:
        client = api_admin if path.startswith("/api/") else admin_client
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(path)
        assert response.status_code == 200, path
        return len(ctx)

    small = {p: count(p) for p in paths}
    # 16 switched groups of 8, 15 rings, 10 pairs, 2 lone Sparks and one group of 32: 242 more Sparks.
    lab_import(actor=Actor(source="import"), data=lab_document(switched=16, rings=15, pairs=10, singles=2, big=32))
    assert NodeGroup.objects.filter(retired_at__isnull=True).count() == 5 + 16 + 15 + 10 + 2 + 1
    large = {p: count(p) for p in paths}
    assert all(large[p] <= small[p] for p in paths), (small, large)
    # 18: fabric verification findings join the providers (one query), its latest measurements the state (one)
    assert max(large.values()) <= 18, large
