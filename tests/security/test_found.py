"""Each thing a probe of the running app found, as a test that fails if it
comes back: a clear answer (4xx, or a page clamped to a sane window) and
nothing changed."""

from __future__ import annotations

import os  # noqa: F401 - read by a skipif condition

import pytest
from django.test import Client

from tests.bookings.conftest import lab  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def member_client(member_user):
    c = Client()
    c.force_login(member_user)
    return c


@pytest.mark.parametrize(
    ("view", "day", "next_window"),
    [
        ("week", "0001-01-01", "2000-01-10"),
        ("month", "0001-01-01", "2000-02-01"),
        ("week", "9999-12-31", "2100-01-04"),
        ("month", "9999-12-31", "2100-01-01"),
    ],
)
def test_a_timeline_date_far_out_is_clamped_not_a_crash(member_client, view, day, next_window):
    r = member_client.get(f"/bookings/?view={view}&date={day}")
    assert r.status_code == 200
    assert f"date={next_window}" in r.content.decode()  # the window shown is the nearest sane one


# ------------------------------------------------------------------ API: one edge for every input

HOURS = 3600


def _at(hours: float, offset: str = "Z") -> str:
    from datetime import UTC, datetime, timedelta

    at = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=hours)
    return at.strftime("%Y-%m-%dT%H:%M:%S") + offset


def refused(client, method: str, path: str, body=None, *, status: int = 422) -> dict:
    """The request is answered with this one status (422: the schema refused a field; 400: the edge refused
    the request before any schema), a clear message naming the place, and nothing changed."""
    from tests.security.state import snapshot

    before = snapshot()
    r = getattr(client, method)(path, body) if body is not None else getattr(client, method)(path)
    assert r.status_code == status, (path, r.status_code, r.content[:300])
    data = r.json()
    assert data["message"] and isinstance(data["errors"], list)
    assert snapshot() == before, f"{method.upper()} {path} was refused but changed the database"
    return data


def paths_named(data: dict) -> str:
    return " ".join(e["path"] for e in data["errors"]) + " " + data["message"]


@pytest.fixture
def booked_lab(lab, member_user):  # noqa: F811 - the fixture imported above
    return lab


@pytest.mark.parametrize("value", ["a\x00b", "a\x0bb", "a\u2028b", "x" * 70])
def test_a_catalogue_vendor_too_long_or_with_control_characters_is_refused(api_admin, value):
    body = {
        "kind": "switch",
        "slug": "sw-test",
        "name": "Test switch",
        "vendor": value,
        "port_count": 4,
        "speed_gbps": 200,
    }
    data = refused(api_admin, "post", "/api/catalogue", body)
    assert "vendor" in paths_named(data)


@pytest.mark.parametrize(("field", "value"), [("port_count", 2**40), ("speed_gbps", 2**40), ("memory_gb", -1)])
def test_catalogue_numbers_beyond_their_column_are_refused(api_admin, field, value):
    body = {
        "kind": "switch",
        "slug": "sw-test",
        "name": "Test switch",
        "port_count": 4,
        "speed_gbps": 200,
        field: value,
    }
    assert field in paths_named(refused(api_admin, "post", "/api/catalogue", body))


@pytest.mark.parametrize("field", ["hardware", "name", "serial", "vendor"])
def test_a_nul_in_a_spark_field_is_refused(api_admin, booked_lab, field):
    body = {"name": "spark-new", "hardware": "dgx-spark-128", "ssh": {"host": "10.0.0.9"}, field: "a\x00b"}
    assert field in paths_named(refused(api_admin, "post", "/api/sparks", body))


def test_a_nul_in_switch_and_cable_fields_is_refused(api_admin, booked_lab):
    assert "hardware" in paths_named(refused(api_admin, "post", "/api/switches", {"name": "sw-9", "hardware": "a\x00"}))
    data = refused(api_admin, "post", "/api/cables", {"type": "qsfp\x00", "ends": ["node-01:p0", "node-02:p0"]})
    assert "type" in paths_named(data)
    data = refused(api_admin, "post", "/api/cables", {"type": "qsfp112-dac", "ends": ["node-01:p0\x00", "x:p0"]})
    assert "ends" in paths_named(data)


@pytest.mark.parametrize(
    "path",
    [
        "/api/sparks?q=a%00b",
        "/api/catalogue?kind=%00",
        "/api/changes?object_name=a%00",
        "/api/sparks/spark%0001",
        "/api/sparks/spark-01%0b",
        "/api/bookings?owner=a%00",
        "/api/alerts?code=%00",
    ],
)
def test_a_nul_or_control_character_in_a_query_or_path_is_a_400(api_viewer, booked_lab, path):
    refused(api_viewer, "get", path, status=400)


@pytest.mark.parametrize("path", ["/sparks/?q=a%00b", "/bookings/?group=%00", "/sparks/spark%0001/"])
def test_a_nul_in_a_page_address_is_a_400(member_user, booked_lab, path):
    c = Client()
    c.force_login(member_user)
    assert c.get(path).status_code == 400


@pytest.mark.parametrize(
    "path", ["/api/sparks", "/api/switches", "/api/cables", "/api/changes", "/api/bookings", "/api/alerts"]
)
@pytest.mark.parametrize("offset", ["99999999999999999999", "-1", "1e9"])
def test_an_offset_out_of_range_is_refused_on_every_list(api_viewer, booked_lab, path, offset):
    data = refused(api_viewer, "get", f"{path}?offset={offset}")
    assert "offset" in paths_named(data)


@pytest.mark.parametrize("path", ["/api/sparks", "/api/bookings", "/api/changes"])
def test_a_limit_out_of_range_is_refused(api_viewer, booked_lab, path):
    assert "limit" in paths_named(refused(api_viewer, "get", f"{path}?limit=100000000000"))


def test_lists_say_what_their_items_are_in_the_schema(api_viewer):
    schema = api_viewer.get("/api/openapi.json").json()
    lists = []
    for path, ops in schema["paths"].items():
        get = ops.get("get")
        if not get or "{" in path:
            continue
        content = get["responses"]["200"].get("content", {}).get("application/json", {})
        ref = content.get("schema", {})
        lists.append((path, ref))
    for path, ref in lists:
        resolved = ref
        if "$ref" in ref:
            resolved = schema["components"]["schemas"][ref["$ref"].split("/")[-1]]
        items = resolved.get("properties", {}).get("items", resolved.get("items"))
        if items is None:
            continue
        assert items.get("$ref") or items.get("items", {}).get("$ref") or items.get("type") not in (None, "object"), (
            f"{path}: list items are untyped ({items})"
        )


@pytest.mark.parametrize("offset", ["+16:00", "+23:59", "-15:00"])
def test_utc_offsets_beyond_14_hours_are_refused(api_member, booked_lab, offset):
    ring = booked_lab["ring"].pk
    body = {"group": ring, "start": _at(2, offset), "end": _at(4, offset), "purpose": "sweep"}
    assert "start" in paths_named(refused(api_member, "post", "/api/bookings", body))
    quoted = _at(2, offset).replace("+", "%2B")
    assert "from" in paths_named(refused(api_member, "get", f"/api/bookings?from={quoted}"))
    data = refused(api_member, "get", f"/api/bookings/availability?group={ring}&start={quoted}&end={quoted}")
    assert "start" in paths_named(data)


def test_maintenance_with_a_bad_offset_or_a_nul_is_refused(api_admin, booked_lab):
    ring = booked_lab["ring"].pk
    body = {"group": ring, "start": _at(2, "+16:00"), "end": _at(4), "reason": "firmware"}
    assert "start" in paths_named(refused(api_admin, "post", "/api/maintenance-windows", body))
    body = {"group": ring, "start": _at(2), "end": _at(4), "reason": "firm\x00ware"}
    assert "reason" in paths_named(refused(api_admin, "post", "/api/maintenance-windows", body))


@pytest.mark.parametrize("purpose", ["a\x00b", "tab\x0bbed", "line\u2028sep", "x" * 5000])
def test_a_booking_purpose_with_control_characters_or_too_long_is_refused(api_member, booked_lab, purpose):
    body = {"group": booked_lab["ring"].pk, "start": _at(2), "end": _at(4), "purpose": purpose}
    assert "purpose" in paths_named(refused(api_member, "post", "/api/bookings", body))


@pytest.mark.parametrize(
    "when", ["0001-01-01T00:00:00+14:00", "1999-12-31T23:00:00Z", "2101-01-01T00:00:00Z", "9999-12-31T23:59:59-14:00"]
)
def test_dates_outside_2000_to_2100_are_refused(api_member, booked_lab, when):
    body = {"group": booked_lab["ring"].pk, "start": when, "end": _at(4), "purpose": "sweep"}
    assert "start" in paths_named(refused(api_member, "post", "/api/bookings", body))


MODEL = {
    "slug": "test-model",
    "name": "Test model",
    "params_b": 8.0,
    "layers": 32,
    "hidden_size": 4096,
    "heads": 32,
    "kv_heads": 8,
    "head_dim": 128,
    "quantization": "fp8",
    "max_context": 32768,
}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("layers", 2**40),
        ("params_b", 1e308),
        ("hidden_size", 2**40),
        ("max_context", 2**40),
        ("heads", 0),
        ("notes", "a\x00b"),
        ("name", "a\x0bb"),
        ("slug", "x" * 200),
    ],
)
def test_absurd_model_figures_are_refused(api_admin, field, value):
    assert field in paths_named(refused(api_admin, "post", "/api/models", {**MODEL, field: value}))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("measured_at", "0001-01-01T00:00:00+14:00"),
        ("decode_tps", 1e308),
        ("concurrency", 2**40),
        ("notes", "a\x00b"),
        ("engine_version", "v\x0b1"),
    ],
)
def test_absurd_benchmark_figures_are_refused(api_member, booked_lab, field, value):
    from placement.models import LlmModel

    model = LlmModel.objects.order_by("slug").first()
    body = {"model": model.slug, "group": booked_lab["ring"].pk, "decode_tps": 12.5, field: value}
    assert field in paths_named(refused(api_member, "post", "/api/benchmarks", body))


def test_a_json_lab_document_nested_too_deep_is_refused(api_admin):
    deep = '{"sparks": ' + "[" * 50_000 + "]" * 50_000 + "}"
    data = refused(api_admin, "post", "/api/import", deep, status=400)
    assert "deep" in data["message"] or "nested" in data["message"]


def test_any_json_body_nested_too_deep_is_refused(api_member, booked_lab):
    deep = '{"group": 1, "plan": ' + "[" * 5000 + "]" * 5000 + "}"
    data = refused(api_member, "post", "/api/bookings", deep, status=400)
    assert data["message"] == "the body is not JSON the API takes: nested deeper than 64 levels; nothing was changed"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_in_a_json_body_are_refused_with_why(api_member, booked_lab, constant):
    """Python's json reads them, no JSON column takes them: a booking's plan
    holding one once answered 500 (the database's JSON check refused the row)."""
    body = (
        f'{{"group": {booked_lab["ring"].pk}, "start": "2027-01-04T09:00:00Z", "end": "2027-01-04T10:00:00Z", '
        f'"purpose": "a run", "plan": {{"tok_s": {constant}}}}}'
    )
    data = refused(api_member, "post", "/api/bookings", body, status=400)
    why = f"{constant} is not a JSON number (JSON has no NaN or Infinity)"
    assert data["message"] == f"the body is not JSON the API takes: {why}; nothing was changed"
    assert data["errors"] == [{"path": "body", "message": why}]


def test_a_body_that_is_not_json_says_where_it_stops(api_member, booked_lab):
    data = refused(api_member, "post", "/api/bookings", '{"group": 1,', status=400)
    assert data["message"] == (
        "the body is not JSON the API takes: Expecting property name enclosed in double quotes: "
        "line 1 column 13 (char 12); nothing was changed"
    )


@pytest.mark.postgres
@pytest.mark.skipif(
    "os.environ.get('DATABASE_URL', '').split(':')[0] not in ('postgres', 'postgresql')",
    reason="SQLite cannot store such a date",
)
def test_a_stored_year_1_benchmark_does_not_break_the_lists(api_member, api_viewer, member_user, booked_lab):
    """A row stored before the edge refused it (PostgreSQL keeps year 1 at +14:00 as 1 BC)."""
    from django.db import connection

    from placement.models import LlmModel

    model = LlmModel.objects.order_by("slug").first()
    created = api_member.post(
        "/api/benchmarks", {"model": model.slug, "group": booked_lab["ring"].pk, "decode_tps": 12.5}
    )
    assert created.status_code == 201, created.content
    run_id = created.json()["id"]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE placement_benchmarkrun SET measured_at = %s::timestamptz WHERE id = %s",
            ["0001-01-01T00:00:00+14:00", run_id],
        )
    r = api_viewer.get("/api/benchmarks")
    assert r.status_code == 200
    assert any(item["id"] == run_id for item in r.json())
    c = Client()
    c.force_login(member_user)
    assert c.get("/benchmarks/").status_code == 200
    assert c.get(f"/benchmarks/groups/{booked_lab['ring'].pk}/").status_code == 200


# ------------------------------------------------------------------ page forms: the same edge


@pytest.mark.parametrize(("field", "value"), [("vendor", "a\x0bb"), ("serial", "SN\u20281"), ("name", "a\x00b")])
def test_a_page_form_refuses_control_characters_and_changes_nothing(admin_client, booked_lab, field, value):
    """The form again, with the error next to the field; a NUL, which the
    database cannot store, is refused at the edge (core.middleware), naming the field."""
    from tests.security.state import snapshot

    before = snapshot()
    data = {
        "name": "spark-new",
        "hardware": "dgx-spark-128",
        "ssh_host": "10.0.0.9",
        "ssh_port": 22,
        "ssh_user": "fleet",
        "status": "active",
        field: value,
    }
    r = admin_client.post("/sparks/new/", data)
    assert r.status_code == 400
    if "\x00" in value:
        assert r.content.decode() == f"Refused: form.{field}: contains a NUL byte; remove it.\n"
    else:
        assert "character" in r.content.decode() and r["Content-Type"].startswith("text/html")
    assert snapshot() == before


@pytest.mark.parametrize(
    ("field", "value"), [("purpose", "sweep\x0b"), ("purpose", "a\x00b"), ("start", "2026-12-01T10:00+16:00")]
)
def test_the_booking_page_refuses_bad_text_and_offsets(member_user, booked_lab, field, value):
    from tests.security.state import snapshot

    c = Client()
    c.force_login(member_user)
    before = snapshot()
    data = {
        "group": booked_lab["ring"].pk,
        "shown_group": booked_lab["ring"].pk,
        "start": _at(2)[:16],
        "end": _at(4)[:16],
        "purpose": "sweep",
        field: value,
    }
    r = c.post("/bookings/new/", data)
    assert r.status_code == 400
    assert snapshot() == before


def test_a_deep_json_file_in_an_upload_or_a_config_is_refused_not_a_500(api_member, api_admin, booked_lab):
    """A result file or a config.json nested 50,000 deep made json.loads raise
    RecursionError: 500. They are refused like a deep request body."""
    from placement.models import LlmModel

    deep = "[" * 50_000 + "]" * 50_000
    model = LlmModel.objects.order_by("slug").first()
    upload = {"model": model.slug, "group": booked_lab["ring"].pk, "concurrency": 1, "content": deep}
    for fmt, said in (
        ("auto", "line 1: nested deeper than 64 levels"),
        ("sglang-jsonl", "line 1 is nested deeper than 64 levels"),
    ):
        data = refused(api_member, "post", "/api/benchmarks/upload", {**upload, "format": fmt}, status=400)
        assert said in paths_named(data), (fmt, data)
    body = {"slug": "deep", "quantization": "fp8", "config": deep}
    data = refused(api_admin, "post", "/api/models/config", body, status=400)
    assert "not a model config: nested deeper than 64 levels" in paths_named(data)


@pytest.mark.parametrize("path", ["/api/designs", "/api/plans", "/api/serving", "/api/sparks", "/api/alerts/1/ack"])
@pytest.mark.parametrize("content_type", ["multipart/form-data; boundary=x", "application/x-www-form-urlencoded"])
def test_a_form_body_sent_to_the_api_is_a_415_naming_json(api_admin, booked_lab, path, content_type):
    """A multipart body read as a form by the NUL check could not be read again as JSON: 500."""
    from tests.security.state import snapshot

    part = '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'
    body = part if "multipart" in content_type else "a=1"
    before = snapshot()
    r = api_admin.post(path, body, content_type=content_type)
    assert r.status_code == 415, r.content[:300]
    kind = content_type.split(";")[0]
    assert r.json()["errors"] == [
        {"path": "body", "message": f"the API reads JSON, not {kind}: send Content-Type: application/json"}
    ]
    assert snapshot() == before


def test_a_form_content_type_with_no_body_is_no_body(api_admin, booked_lab):
    """curl -X POST -d '' sends an empty form: an action that takes no body still runs."""
    r = api_admin.post("/api/groups/999/verify", "", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 404


@pytest.mark.parametrize(
    ("method", "path", "missing_is"),
    [
        ("get", "/api/groups/{}/verifications", "no group with id 99999"),  # a retired group's runs are listed
        ("post", "/api/groups/{}/verify", "no live group with id 99999"),
        ("get", "/api/groups/{}/netplan", "no live group with id 99999"),
    ],
)
def test_a_group_id_in_a_fabric_path_that_names_no_group_is_a_404_and_a_huge_one_a_422(
    api_admin, booked_lab, method, path, missing_is
):
    """A 30-digit id answered 500 (SQLite's integer overflow); an id naming no group 400 or 200 []."""
    missing = getattr(api_admin, method)(path.format(99999))
    assert missing.status_code == 404
    assert missing.json()["errors"] == [{"path": "group_id", "message": missing_is}]
    for huge in ("9" * 30, "-" + "9" * 26):
        assert getattr(api_admin, method)(path.format(huge)).status_code == 422, huge


@pytest.mark.parametrize("path", ["/api/designs", "/api/plans", "/api/bookings", "/api/sparks"])
@pytest.mark.parametrize(("body", "kind"), [("[]", "an array"), ("null", "null"), ('[{"sparks_128": 2}]', "an array")])
def test_a_body_that_is_no_json_object_is_refused_as_such(api_admin, booked_lab, path, body, kind):
    """A POST's [] or null was read as {}: a design answered "0 Sparks in all", a plan "model: Field required"."""
    data = refused(api_admin, "post", path, body, status=400)
    assert data["errors"] == [{"path": "body", "message": f"the body must be a JSON object ({{...}}), not {kind}"}]


def test_a_method_an_api_address_does_not_take_answers_in_json_and_head_is_taken_where_get_is(
    api_admin, api_viewer, booked_lab
):
    """PUT /api/plans answered text/html "Method not allowed"; HEAD /api/alerts answered 405."""
    wrong = api_admin._send("put", "/api/plans", {"model": "x"})
    assert wrong.status_code == 405 and wrong["Allow"] == "POST"
    assert wrong.json()["errors"] == [{"path": "method", "message": "PUT is not taken here; POST is"}]
    assert api_viewer.get("/api/designs").json()["errors"][0]["message"] == "GET is not taken here; POST is"
    head = api_viewer._send("head", "/api/alerts")
    got = api_viewer.get("/api/alerts")
    assert head.status_code == 200 and head.content == b"" and head["Content-Type"] == got["Content-Type"]
    assert api_viewer._send("head", "/api/plans").status_code == 405


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/api/plans", {"model": "llama-3.1-8b", "group": 1, "contxt_tokens": 65536}, "contxt_tokens"),
        (
            "/api/designs",
            {"sparks_128": 4, "models": [{"model": "llama-3.3-70b", "contxt_tokens": 1}]},
            "models.0.contxt_tokens",
        ),
        ("/api/designs", {"sparks_128": 4, "bugdet": 100}, "bugdet"),
        ("/api/serving", {"group": 1, "model": "llama-3.1-8b", "concurency": 8}, "concurency"),
        ("/api/models/config", {"slug": "x", "quantization": "bf16", "config": "{}", "hf_rep": "a/b"}, "hf_rep"),
        ("/api/models/llama-3.1-8b/variants", {"quantization": "fp8", "gguf": "x"}, "gguf"),
    ],
)
def test_a_misspelt_field_in_a_post_is_named_not_ignored(api_admin, booked_lab, path, body, where):
    """A plan with "contxt_tokens" planned the default 8,192 tokens and answered 200."""
    data = refused(api_admin, "post", path, body, status=422)
    assert data["errors"] == [{"path": where, "message": "Extra inputs are not permitted"}]
