"""Cages and plugs: a switch's ports carry the cage of their catalogue entry
(several kinds on the CRS812 DDQ), and a cable whose plug does not fit the
switch cage it is put in is refused, through the import as through the API,
naming the cable and the cage, with nothing written."""

from __future__ import annotations

import copy

import pytest

from inventory.hardware_catalogue import plug_fits
from inventory.models import Cable, CatalogueEntry, Change, Port, Spark, Switch
from tests.conftest import lab_data


def test_a_qsfp_dd_plug_fits_a_qsfp_dd_cage_and_no_qsfp_cage():
    assert plug_fits("QSFP-DD", "QSFP56-DD")
    assert plug_fits("QSFP56", "QSFP56-DD")  # a QSFP-DD cage takes QSFP plugs
    assert not plug_fits("QSFP-DD", "QSFP112")
    assert not plug_fits("QSFP-DD", "QSFP56")
    assert plug_fits("QSFP112", "QSFP112")
    assert not plug_fits("QSFP56", "SFP56")
    assert plug_fits("QSFP-DD", "")  # unknown: no objection


@pytest.mark.django_db
def test_the_crs812_ddq_has_its_published_ports(api_admin):
    """2 x 400G QSFP56-DD (breakout), 2 x 200G QSFP56, 8 x 50G SFP56, 2 x 10G RJ45."""
    crs812 = api_admin.get("/api/catalogue/mikrotik-crs812-ddq").json()
    assert (crs812["port_count"], crs812["speed_gbps"], crs812["breakout"], crs812["cage"]) == (
        14,
        400,
        True,
        "QSFP56-DD",
    )
    r = api_admin.post("/api/switches", {"name": "sw-812", "hardware": "mikrotik-crs812-ddq"})
    assert r.status_code == 201, r.content
    ports = api_admin.get("/api/switches/sw-812").json()["ports"]
    got = [(p["name"], p["speed_gbps"], p["breakout"], p["cage"]) for p in ports]
    assert got == (
        [(str(n), 400, True, "QSFP56-DD") for n in (1, 2)]
        + [(str(n), 200, False, "QSFP56") for n in (3, 4)]
        + [(str(n), 50, False, "SFP56") for n in range(5, 13)]
        + [(str(n), 10, False, "RJ45") for n in (13, 14)]
    )


def _breakout_on_the_qsfp112_switch():
    doc = copy.deepcopy(lab_data("lab8-crs804.yaml"))
    doc["switches"] = [{"name": "sw-32", "hardware": "generic-qsfp112-switch-32"}]
    for cable in doc["cables"]:
        cable["ends"][0] = cable["ends"][0].replace("sw-804", "sw-32")
    return doc


@pytest.mark.django_db
def test_an_import_with_a_qsfp_dd_breakout_on_a_qsfp112_switch_is_refused_and_writes_nothing(api_admin):
    changes = Change.objects.count()
    r = api_admin.post("/api/import", _breakout_on_the_qsfp112_switch())
    assert r.status_code == 400, r.content
    errors = r.json()["errors"]
    assert len(errors) == 4
    first = errors[0]
    assert first["path"] == "cables[0].ends[0]"
    assert first["message"].startswith("cable bo-1: the QSFP-DD plug of qsfp-dd-2x-qsfp56-breakout (its trunk)")
    assert "does not fit the QSFP112 cage of switch port sw-32:1" in first["message"]
    assert "fits QSFP-DD, QSFP56-DD cages" in first["message"]
    assert (Spark.objects.count(), Switch.objects.count(), Cable.objects.count()) == (0, 0, 0)
    assert Change.objects.count() == changes


@pytest.mark.django_db
def test_the_same_breakouts_on_the_crs804_and_the_crs812_import(api_admin):
    """The CRS804's QSFP56-DD cages take the breakouts; so do the CRS812's two
    QSFP56-DD ports, and its QSFP56 ports take a QSFP56 cable one Spark each."""
    assert api_admin.post("/api/import", lab_data("lab8-crs804.yaml")).status_code == 200
    doc = copy.deepcopy(lab_data("lab8-crs804.yaml"))
    for spark in doc["sparks"]:
        spark["name"] = spark["name"].replace("node", "n812")
        spark["ssh"]["host"] = spark["ssh"]["host"].replace("10.20.3.", "10.20.4.")
        spark["serial"] = spark["serial"] + "-812"
    doc["switches"] = [{"name": "sw-812", "hardware": "mikrotik-crs812-ddq"}]
    doc["cables"] = [
        {"type": "qsfp-dd-2x-qsfp56-breakout", "ends": ["sw-812:1", "n812-01:p0", "n812-02:p0"], "label": "b812-1"},
        {"type": "qsfp-dd-2x-qsfp56-breakout", "ends": ["sw-812:2", "n812-03:p0", "n812-04:p0"], "label": "b812-2"},
        {"type": "qsfp56-dac", "ends": ["sw-812:3", "n812-05:p0"], "label": "l812-3"},
        {"type": "qsfp56-dac", "ends": ["sw-812:4", "n812-06:p0"], "label": "l812-4"},
    ]
    r = api_admin.post("/api/import", doc)
    assert r.status_code == 200, r.content
    assert Cable.objects.filter(label__startswith="b812").count() == 2
    # a breakout into the CRS812's 200G QSFP56 port: its ports cannot break out, and its plug does not fit
    doc["cables"] = [{"type": "qsfp-dd-2x-qsfp56-breakout", "ends": ["sw-812:3", "n812-07:p0", "n812-08:p0"]}]
    r = api_admin.post("/api/import", doc)
    assert r.status_code == 400
    messages = [e["message"] for e in r.json()["errors"]]
    assert any("switch port sw-812:3 cannot break out" in m for m in messages), messages
    assert any("the QSFP56 cage of switch port sw-812:3" in m for m in messages), messages


@pytest.mark.django_db
def test_a_cable_into_an_sfp56_port_is_refused_by_the_api(api_admin):
    api_admin.post("/api/import", lab_data("pair.yaml"))
    sw = api_admin.post("/api/switches", {"name": "sw-812", "hardware": "mikrotik-crs812-ddq"}).json()
    assert Port.objects.get(switch_id=sw["id"], name="5").cage == "SFP56"
    spark = Spark.objects.order_by("name").first()
    r = api_admin.post("/api/cables", {"type": "qsfp56-dac", "ends": ["sw-812:5", f"{spark.name}:p1"]})
    assert r.status_code == 400, r.content
    assert r.json()["errors"][0]["path"] == "ends[0]"
    assert (
        "QSFP56 plug of qsfp56-dac (its end) does not fit the SFP56 cage of switch port sw-812:5"
        in (r.json()["errors"][0]["message"])
    )


@pytest.mark.django_db
def test_catalogue_port_groups_must_add_up(api_admin):
    body = {
        "kind": "switch",
        "slug": "two-kinds",
        "name": "Two kinds",
        "port_count": 6,
        "speed_gbps": 400,
        "cage": "QSFP-DD",
        "port_groups": [[2, 400, "QSFP-DD", True], [2, 100, "QSFP28", False]],
    }
    r = api_admin.post("/api/catalogue", body)
    assert r.status_code == 400
    assert r.json()["errors"] == [{"path": "port_groups", "message": "the groups hold 4 ports, not port_count's"}]
    assert not CatalogueEntry.objects.filter(slug="two-kinds").exists()
    body["port_count"] = 4
    assert api_admin.post("/api/catalogue", body).status_code == 201
    sw = api_admin.post("/api/switches", {"name": "sw-2k", "hardware": "two-kinds"}).json()
    assert list(Port.objects.filter(switch_id=sw["id"]).values_list("speed_gbps", "cage")) == [
        (400, "QSFP-DD"),
        (400, "QSFP-DD"),
        (100, "QSFP28"),
        (100, "QSFP28"),
    ]
    r = api_admin.post("/api/catalogue", {**body, "slug": "bad-cage", "cage": "OSFP"})
    assert r.status_code == 422


@pytest.mark.django_db
def test_an_admin_adds_a_switch_with_its_cage_on_the_page_and_its_ports_get_it(admin_client):
    body = {"kind": "switch", "slug": "qsfp28-8", "name": "Eight QSFP28", "port_count": "8", "speed_gbps": "100"}
    r = admin_client.post("/catalogue/new/", {**body, "cage": "OSFP"})
    assert r.status_code == 400 and not CatalogueEntry.objects.filter(slug="qsfp28-8").exists()
    r = admin_client.post("/catalogue/new/", {**body, "cage": "QSFP28"})
    assert r.status_code == 302
    assert CatalogueEntry.objects.get(slug="qsfp28-8").cage == "QSFP28"
    r = admin_client.post("/switches/new/", {"name": "sw-28", "hardware": "qsfp28-8"})
    assert r.status_code == 302, r.content
    assert set(Port.objects.filter(switch__name="sw-28").values_list("cage", flat=True)) == {"QSFP28"}
