"""Bad input gets a 4xx naming the spot, and the database is unchanged."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from tests.conftest import db_state, lab_data

pytestmark = pytest.mark.django_db


def base_doc() -> dict:
    doc = copy.deepcopy(lab_data("pair.yaml"))
    doc["switches"] = [
        {"name": "sw-1", "hardware": "mikrotik-crs504-4xq-in"},
        {"name": "sw-2", "hardware": "mikrotik-crs804-ddq"},
    ]
    doc["sparks"].append({"name": "spark-03", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.3"}})
    doc["sparks"].append({"name": "spark-04", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.4"}})
    return doc


def with_change(mutate) -> dict:
    doc = base_doc()
    mutate(doc)
    return doc


BAD_DOCUMENTS = {
    "unknown catalogue slug": (
        lambda d: d["sparks"][0].update(hardware="dgx-spark-256"),
        "sparks[0].hardware",
        "unknown spark type",
    ),
    "a spark port that does not exist": (
        lambda d: d["cables"].append({"type": "qsfp112-dac", "ends": ["spark-03:p2", "spark-04:p0"]}),
        "cables[1].ends[0]",
        "has no port 'p2'",
    ),
    "a switch port beyond a 4-port switch": (
        lambda d: d["cables"].append({"type": "qsfp28-dac", "ends": ["sw-1:5", "spark-03:p0"]}),
        "cables[1].ends[0]",
        "ports 1 to 4",
    ),
    "port number -1": (
        lambda d: d["cables"].append({"type": "qsfp28-dac", "ends": ["sw-1:-1", "spark-03:p0"]}),
        "cables[1].ends[0]",
        "has no port '-1'",
    ),
    "port number 99999": (
        lambda d: d["cables"].append({"type": "qsfp28-dac", "ends": ["sw-1:99999", "spark-03:p0"]}),
        "cables[1].ends[0]",
        "has no port '99999'",
    ),
    "a port used twice in the document": (
        lambda d: d["cables"].append({"type": "qsfp112-dac", "ends": ["pair-a:p0", "spark-03:p0"]}),
        "cables[1].ends[0]",
        "used twice",
    ),
    "a breakout trunk on a spark port": (
        lambda d: d["cables"].append(
            {"type": "qsfp-dd-2x-qsfp56-breakout", "ends": ["spark-03:p0", "spark-04:p0", "pair-a:p1"]}
        ),
        "cables[1].ends[0]",
        "Spark port",
    ),
    "a breakout trunk on a switch port that cannot break out": (
        lambda d: d["cables"].append(
            {"type": "qsfp-dd-2x-qsfp56-breakout", "ends": ["sw-1:1", "spark-03:p0", "spark-04:p0"]}
        ),
        "cables[1].ends[0]",
        "cannot break out",
    ),
    "a cable from a Spark to itself": (
        lambda d: d["cables"].append({"type": "qsfp112-dac", "ends": ["spark-03:p0", "spark-03:p1"]}),
        "cables[1].ends[1]",
        "spark-03:p0 and spark-03:p1 are ports of one Spark: a cable joins two Sparks, or a Spark and a switch",
    ),
    "a cable with one end": (
        lambda d: d["cables"].append({"type": "qsfp112-dac", "ends": ["spark-03:p0"]}),
        "cables[1].ends",
        "at least two ends",
    ),
    "duplicate names": (
        lambda d: d["sparks"].append({"name": "pair-a", "hardware": "dgx-spark-64", "ssh": {"host": "10.0.0.9"}}),
        "sparks[4].name",
        "also used at sparks[0].name",
    ),
    "a name with a space": (lambda d: d["sparks"][2].update(name="spark 03"), "sparks[2].name", "not a valid name"),
    "a name with a quote": (lambda d: d["sparks"][2].update(name="spark'03"), "sparks[2].name", "not a valid name"),
    "a host with ;": (
        lambda d: d["sparks"][2]["ssh"].update(host="10.0.0.3;reboot"),
        "sparks[2].ssh.host",
        "not a valid host",
    ),
    "a host with $()": (
        lambda d: d["sparks"][2]["ssh"].update(host="$(reboot)"),
        "sparks[2].ssh.host",
        "not a valid host",
    ),
    "a host with a newline": (
        lambda d: d["sparks"][2]["ssh"].update(host="10.0.0.3\nreboot"),
        "sparks[2].ssh.host",
        "control character",
    ),
    "a host with a space": (
        lambda d: d["sparks"][2]["ssh"].update(host="my host"),
        "sparks[2].ssh.host",
        "not a valid host",
    ),
    "an ssh port of 99999": (lambda d: d["sparks"][2]["ssh"].update(port=99999), "sparks[2].ssh.port", "1 to 65535"),
    "an ssh port of -1": (lambda d: d["sparks"][2]["ssh"].update(port=-1), "sparks[2].ssh.port", "1 to 65535"),
}


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_bad_document_is_refused_naming_the_spot_and_nothing_changes(case, api_admin, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    mutate, path, words = BAD_DOCUMENTS[case]
    response = api_admin.post("/api/import", with_change(mutate))
    assert response.status_code == 400, response.content
    body = response.json()
    assert any(e["path"] == path and words in e["message"] for e in body["errors"]), body
    assert db_state() == before


def test_a_port_already_used_in_the_database_is_refused(api_admin, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    doc = {
        "sparks": [{"name": "new-1", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.50"}}],
        "cables": [{"type": "qsfp112-dac", "ends": ["ring-1:p0", "new-1:p0"]}],
    }
    response = api_admin.post("/api/import", doc)
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["path"] == "cables[0].ends[0]"
    assert "already holds cable" in error["message"] and "prune" in error["message"]
    assert db_state() == before


def test_invalid_yaml_is_refused_with_the_line(api_admin, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    text = "sparks:\n  - name: a\n    hardware: [unclosed\n"
    response = api_admin.post("/api/import", text, content_type="application/yaml")
    assert response.status_code == 400
    assert "invalid YAML" in response.json()["message"]
    assert response.json()["errors"][0]["path"].startswith("line ")
    assert db_state() == before


def test_a_yaml_bomb_is_refused_without_expanding(api_admin, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    lines.append("sparks: *a11")
    response = api_admin.post("/api/import", "\n".join(lines), content_type="application/yaml")
    assert response.status_code == 400
    assert "aliases" in response.json()["message"]
    assert db_state() == before


def test_a_20_mb_document_is_refused(api_admin, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    body = "# " + "x" * (20 * 1024 * 1024) + "\nsparks: []\n"
    response = api_admin.post("/api/import", body, content_type="application/yaml")
    assert response.status_code == 413
    assert "limit" in response.json()["message"]
    assert db_state() == before


def test_json_body_with_wrong_types_names_the_field(api_admin):
    before = db_state()
    doc = {"sparks": [{"name": "ok-1", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.1", "port": "22"}}]}
    response = api_admin.post("/api/import", json.dumps(doc), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "sparks[0].ssh.port"
    assert db_state() == before


def test_unknown_keys_are_named(api_admin):
    before = db_state()
    response = api_admin.post("/api/import", {"sparks": [], "nodes": []})
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "nodes"
    assert db_state() == before


# ------------------------------------------------------------ single objects through the API


BAD_SPARKS = [
    ({"name": "Spark 1", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.1"}}, "name"),
    ({"name": "s1", "hardware": "no-such", "ssh": {"host": "10.0.0.1"}}, "hardware"),
    ({"name": "s1", "hardware": "dgx-spark-128", "ssh": {"host": "a b"}}, "ssh_host"),
    ({"name": "s1", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.1", "port": 0}}, "ssh.port"),
    ({"name": "s1", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.1", "user": "root;id"}}, "ssh_user"),
    ({"name": "ring-1", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.1"}}, "name"),
]


@pytest.mark.parametrize(("payload", "field"), BAD_SPARKS)
def test_bad_spark_through_the_api(payload, field, api_admin, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    response = api_admin.post("/api/sparks", payload)
    # The schema's own bounds answer 422 (a port outside 1..65535); the service's rules 400.
    assert response.status_code == (422 if "." in field else 400)
    assert [e["path"] for e in response.json()["errors"]] == [field]
    assert db_state() == before


def test_a_cable_into_a_taken_port_through_the_api(api_admin, import_lab):
    import_lab("ring4.yaml", "pair.yaml")
    before = db_state()
    response = api_admin.post("/api/cables", {"type": "qsfp112-dac", "ends": ["ring-1:p0", "pair-a:p1"]})
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "ends[0]"
    assert "already holds" in response.json()["errors"][0]["message"]
    assert db_state() == before


def test_a_cable_from_a_spark_to_itself_is_refused_through_the_api(api_admin):
    """It was once taken: the Spark then listed itself as its own peer and its
    netplan said it had no cabled port."""
    made = api_admin.post("/api/sparks", {"name": "solo", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.9"}})
    assert made.status_code == 201
    before = db_state()
    response = api_admin.post("/api/cables", {"type": "qsfp112-dac", "ends": ["solo:p1", "solo:p0"]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "path": "ends[1]",
            "message": "solo:p1 and solo:p0 are ports of one Spark: a cable joins two Sparks, "
            "or a Spark and a switch (a loop back carries no traffic the fleet can use)",
        }
    ]
    assert db_state() == before


def test_the_database_refuses_a_second_end_in_one_port(import_lab):
    """The rule holds even for code that bypasses the services."""
    from django.db import IntegrityError, transaction

    from inventory.models import Cable, CableEnd, CatalogueEntry, Port

    import_lab("pair.yaml")
    port = Port.objects.get(spark__name="pair-a", name="p0")
    cable = Cable.objects.create(type=CatalogueEntry.objects.get(slug="qsfp112-dac"))
    with pytest.raises(IntegrityError), transaction.atomic():
        CableEnd.objects.create(cable=cable, position=0, port=port)


def test_bad_spark_in_the_form_shows_errors_inline(admin_client, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    response = admin_client.post(
        "/sparks/new/",
        {
            "name": "ring-1",
            "hardware": "dgx-spark-128",
            "ssh_host": "$(reboot)",
            "ssh_port": 22,
            "ssh_user": "fleet",
            "status": "active",
        },
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="field-name"' in html and "already taken" in html
    assert "not a valid host name" in html
    assert db_state() == before


def test_bad_import_upload_on_the_page_lists_errors(admin_client, import_lab):
    from django.core.files.uploadedfile import SimpleUploadedFile

    import_lab("ring4.yaml")
    before = db_state()
    doc = with_change(BAD_DOCUMENTS["a switch port beyond a 4-port switch"][0])
    upload = SimpleUploadedFile("lab.yaml", yaml.safe_dump(doc).encode(), content_type="application/yaml")
    response = admin_client.post("/lab/import/", {"document": upload})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was imported" in html and "cables[1].ends[0]" in html
    assert db_state() == before


def test_catalogue_figures_of_an_entry_in_use_cannot_change(api_admin, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    response = api_admin.patch("/api/catalogue/dgx-spark-128", {"memory_gb": 256})
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "memory_gb"
    assert db_state() == before
    ok = api_admin.patch("/api/catalogue/dgx-spark-128", {"name": "DGX Spark (128 GB)"})
    assert ok.status_code == 200 and ok.json()["name"] == "DGX Spark (128 GB)"
    response = api_admin.delete("/api/catalogue/dgx-spark-128")
    assert response.status_code == 400 and "used by 2" in response.json()["message"]


def test_new_catalogue_entry_is_usable_at_once(api_admin):
    response = api_admin.post(
        "/api/catalogue",
        {"kind": "switch", "slug": "lab-switch-8", "name": "Lab switch", "port_count": 8, "speed_gbps": 200},
    )
    assert response.status_code == 201
    created = api_admin.post("/api/switches", {"name": "sw-lab", "hardware": "lab-switch-8"})
    assert created.status_code == 201
    assert [p["name"] for p in created.json()["ports"]] == [str(n) for n in range(1, 9)]
    bad = api_admin.post(
        "/api/catalogue", {"kind": "switch", "slug": "bad-switch", "name": "x", "port_count": 0, "speed_gbps": 200}
    )
    assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "port_count"  # the schema's minimum


def test_api_docs_are_served_from_local_static_files(client):
    html = client.get("/api/docs").content.decode()
    assert "cdn.jsdelivr.net" not in html and "/static/ninja/" in html
    schema = client.get("/api/openapi.json").json()
    assert "/api/import" in schema["paths"] and "/api/sparks/{name}" in schema["paths"]


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/api/sparks/pair-a", {"serail": "SN-9"}, "serail"),
        ("/api/sparks/pair-a", {"ssh": {"hots": "10.0.0.9"}}, "ssh.hots"),
        ("/api/switches/sw-9", {"hw": "mikrotik-crs804-ddq"}, "hw"),
        ("/api/catalogue/dgx-spark-128", {"memory": 256}, "memory"),
    ],
)
def test_a_change_naming_an_unknown_field_is_refused_not_ignored(api_admin, import_lab, path, body, where):
    """A misspelt field once changed nothing and answered 200: the admin believed it had."""
    import_lab("pair.yaml")
    api_admin.post("/api/switches", {"name": "sw-9", "hardware": "mikrotik-crs504-4xq-in"})
    before = db_state()
    response = api_admin.patch(path, body)
    assert response.status_code == 422
    assert response.json()["errors"] == [{"path": where, "message": "Extra inputs are not permitted"}]
    assert db_state() == before


@pytest.mark.parametrize("body", ["null", "[]", '"SN-9"', "1"])
def test_a_change_whose_body_is_no_object_is_refused(api_admin, import_lab, body):
    import_lab("pair.yaml")
    before = db_state()
    response = api_admin.patch("/api/sparks/pair-a", body, content_type="application/json")
    assert response.status_code == 400
    kind = {"null": "null", "[]": "an array", '"SN-9"': "a string", "1": "a number"}[body]
    assert response.json()["errors"] == [
        {"path": "body", "message": f"the body must be a JSON object ({{...}}), not {kind}"}
    ]
    assert db_state() == before


def test_a_change_to_null_empties_what_may_be_empty_and_refuses_the_rest(api_admin, import_lab):
    """JSON merge-patch reads null as "remove": a serial, a vendor or a label
    become empty, a cable's length unknown; a name, a host or a type cannot be
    emptied and say so (they once said "None is not a valid name")."""
    import_lab("pair.yaml")
    before = db_state()
    for body, path in (({"name": None}, "name"), ({"ssh": {"host": None}}, "ssh.host"), ({"ssh": None}, "ssh")):
        r = api_admin.patch("/api/sparks/pair-a", body)
        assert r.status_code == 400, (body, r.content)
        assert r.json()["errors"] == [
            {"path": path, "message": "cannot be emptied: leave the field out to keep its value"}
        ]
    assert db_state() == before
    r = api_admin.patch("/api/sparks/pair-a", {"serial": None})
    assert r.status_code == 200 and r.json()["serial"] == ""
    cable = api_admin.get("/api/cables").json()["items"][0]
    r = api_admin.patch(f"/api/cables/{cable['id']}", {"label": None, "length_m": None})
    assert r.status_code == 200 and (r.json()["label"], r.json()["length_m"]) == ("", None)


def test_a_lab_admin_prices_the_catalogue_through_the_api_and_the_page(api_admin, api_member, admin_user):
    """A price posted with a new entry was dropped with a 201 (only the Django
    admin, closed to lab admins without staff status, could set one); a PATCH
    with price answered 422; vendor null leaked the database's NOT NULL."""
    from django.test import Client

    from tests.support.catalogue import seed_catalogue

    seed_catalogue()
    body = {"kind": "spark", "slug": "x-sp", "name": "X", "memory_gb": 128, "price": 100, "currency": "eur"}
    made = api_admin.post("/api/catalogue", body)
    assert made.status_code == 201, made.content
    assert (made.json()["price"], made.json()["currency"]) == ("100.00", "EUR")
    assert api_admin.post("/api/catalogue", {**body, "slug": "x-sp2", "prise": 1}).status_code == 422  # misspelt
    priced = api_admin.patch("/api/catalogue/dgx-spark-128", {"price": "3999.00", "currency": "USD"})
    assert priced.status_code == 200 and (priced.json()["price"], priced.json()["currency"]) == ("3999.00", "USD")
    assert api_member.patch("/api/catalogue/dgx-spark-128", {"price": 1}).status_code == 403
    lone = api_admin.patch("/api/catalogue/x-sp", {"currency": "E1R"})
    assert lone.status_code == 400
    assert lone.json()["errors"] == [
        {"path": "currency", "message": "a price needs its currency, a three-letter ISO 4217 code like EUR or USD"}
    ]
    assert api_admin.patch("/api/catalogue/x-sp", {"price": -1}).status_code == 422
    cleared = api_admin.patch("/api/catalogue/x-sp", {"price": None, "vendor": None})
    assert cleared.status_code == 200
    assert (cleared.json()["price"], cleared.json()["currency"], cleared.json()["vendor"]) == (None, "", "")
    page = Client()
    page.force_login(admin_user)
    added = page.post(
        "/catalogue/new/",
        {"kind": "cable", "slug": "x-dac", "name": "X DAC", "speed_gbps": 200, "price": "95.50", "currency": "EUR"},
    )
    assert added.status_code == 302
    listed = page.get("/catalogue/").content.decode()
    assert '<td data-label="Price">95.50 EUR</td>' in listed and '<td data-label="Price">3999.00 USD</td>' in listed


def test_the_change_log_names_a_catalogue_entry_by_its_slug(api_admin):
    """Two entries named "X" were both logged as "X": ?object_name=x-sp found neither."""
    for slug in ("x-one", "x-two"):
        assert (
            api_admin.post("/api/catalogue", {"kind": "spark", "slug": slug, "name": "X", "memory_gb": 64}).status_code
            == 201
        )
    found = api_admin.get("/api/changes?object_name=x-two").json()
    assert [(c["action"], c["object_type"], c["object_name"]) for c in found["items"]] == [
        ("create", "catalogue", "x-two")
    ]
