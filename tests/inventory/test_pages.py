"""Pages: constant query counts with 1,000 Sparks, htmx partials, the cable
form offering only ports that fit, delete naming the cables it frees."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.models import Cable, CatalogueEntry, Port, Spark, Switch

pytestmark = pytest.mark.django_db


def bulk_sparks(n: int) -> None:
    hw = CatalogueEntry.objects.get(slug="dgx-spark-128")
    Spark.objects.bulk_create(
        Spark(name=f"bulk-{i:04d}", hardware=hw, ssh_host=f"10.1.{i // 250}.{i % 250 + 1}") for i in range(n)
    )
    bulk = Spark.objects.filter(name__startswith="bulk-")
    ports = [Port(spark=s, name=p, number=k, speed_gbps=200) for s in bulk for k, p in enumerate(("p0", "p1"))]
    Port.objects.bulk_create(ports)


def queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path)
    assert response.status_code == 200
    return len(ctx)


@pytest.mark.parametrize(
    "path", ["/sparks/", "/sparks/?page=3", "/switches/", "/cables/", "/changes/", "/api/sparks?limit=200"]
)
def test_list_queries_do_not_grow_with_the_fleet(admin_client, import_lab, path):
    import_lab("pair.yaml", "lab8-crs804.yaml")
    small = queries(admin_client, path)
    bulk_sparks(1000)
    large = queries(admin_client, path)
    assert large <= small + 1, (small, large)
    # the Sparks list also reads every finding about a Spark from its groups (core.live.spark_findings:
    # the overview's providers, one reading each for the whole fleet)
    assert large <= (20 if path.startswith("/sparks/") else 14), large


def test_spark_list_paginates(admin_client):
    bulk_sparks(120)
    html = admin_client.get("/sparks/?page=2").content.decode()
    assert "Page 2 of 3" in html and "bulk-0050" in html and "bulk-0049" not in html


def test_spark_list_search_answers_the_htmx_partial(admin_client, import_lab):
    import_lab("pair.yaml", "ring4.yaml")
    response = admin_client.get("/sparks/?q=ring-", headers={"HX-Request": "true", "HX-Target": "rows"})
    html = response.content.decode()
    assert "<html" not in html and "ring-3" in html and "pair-a" not in html


def test_cable_form_offers_only_free_ports_and_breakout_trunks_on_breakout_switch_ports(admin_client, import_lab):
    import_lab("pair.yaml", "lab8-crs804.yaml")
    from core.actor import Actor
    from inventory.services import switch_create

    switch_create(actor=Actor(), name="sw-100g", hardware="mikrotik-crs504-4xq-in")
    response = admin_client.get("/cables/new/?type=qsfp-dd-2x-qsfp56-breakout", headers={"HX-Request": "true"})
    html = response.content.decode()
    trunk_select = html.split('name="end_0"')[1].split("</select>")[0]
    assert "sw-804" not in trunk_select  # all four 400G ports already hold trunks
    assert "sw-100g" not in trunk_select  # CRS504 ports cannot break out
    assert "pair-a:p1" not in trunk_select  # a Spark port never takes a trunk
    legs = html.split('name="end_1"')[1].split("</select>")[0]
    assert "pair-a:p1" in legs and "pair-a:p0" not in legs  # p0 is taken by the pair cable

    straight = admin_client.get("/cables/new/?type=qsfp112-dac").content.decode()
    assert 'name="end_2"' not in straight and "sw-100g:1" in straight


def test_delete_confirmation_names_the_cables_it_frees(admin_client, import_lab):
    import_lab("pair.yaml")
    html = admin_client.get("/sparks/pair-a/delete/").content.decode()
    assert "pair-ab (qsfp112-dac: pair-a:p0 – pair-b:p0)" in html
    response = admin_client.post("/sparks/pair-a/delete/", follow=True)
    assert "Deleted Spark pair-a and 1 cable(s)" in response.content.decode()
    assert not Cable.objects.exists()
    assert Port.objects.filter(spark__name="pair-b").count() == 2


def test_spark_page_shows_twins_and_the_peer(admin_client, import_lab):
    import_lab("pair.yaml")
    html = admin_client.get("/sparks/pair-a/").content.decode()
    assert "enP2p1s0f0np0" in html and "roceP2p1s0f0" in html and "pair-b:p0" in html


def test_switch_page_lists_breakout_legs(admin_client, import_lab):
    import_lab("lab8-crs804.yaml")
    html = admin_client.get("/switches/sw-804/").content.decode()
    assert "node-01:p0" in html and "node-02:p0" in html
    assert Switch.objects.get().ports.count() == 4


def test_a_bad_spark_name_is_named_on_the_first_submit_with_the_other_errors(admin_client):
    r = admin_client.post("/sparks/new/", {"name": "Spark 18", "hardware": "dgx-spark-128", "ssh_port": "22"})
    assert r.status_code == 400
    html = r.content.decode()
    assert "&#x27;Spark 18&#x27; is not a valid name" in html or "'Spark 18' is not a valid name" in html
    assert 'id="field-ssh_host"' in html and "This field is required" in html  # reported together
    assert not Spark.objects.exists()


def test_plug_in_a_cable_from_a_spark_page_starts_at_its_free_port(admin_client, import_lab):
    import_lab("pair.yaml")
    page = admin_client.get("/sparks/pair-a/").content.decode()
    assert 'href="/cables/new/?spark=pair-a"' in page
    form = admin_client.get("/cables/new/?spark=pair-a").content.decode()
    free = [p.label for p in Port.objects.filter(spark__name="pair-a", cable_end__isnull=True).order_by("name")]
    assert free, "pair.yaml leaves a port of pair-a free"
    assert f'<option value="{free[0]}" selected>' in form
