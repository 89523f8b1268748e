"""Every refused body on the API answers in one JSON shape (size, syntax),
outages answer 503 with Retry-After, booleans are booleans, and made-up HTTP
methods add no series to /metrics. (Through gunicorn, with a chunked body
and real outages: tests/faults/.)"""

from __future__ import annotations

import json

import pytest
from django.db import OperationalError
from django.test import Client

from tests.conftest import db_state

pytestmark = pytest.mark.django_db


def _json_error(r, status: int) -> dict:
    assert r.status_code == status, r.content[:300]
    assert r["Content-Type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"message", "errors"} and body["message"]
    return body


def test_a_body_over_the_limit_is_a_json_413_on_any_operation(api_admin, settings):
    before = db_state()
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    big = json.dumps({"kind": "switch", "slug": "x", "name": "x" * (limit + 10)})
    body = _json_error(api_admin.post("/api/catalogue", big), 413)
    assert body["errors"][0]["path"] == "body" and f"the limit is {limit:,} bytes" in body["message"]
    assert db_state() == before


def test_a_malformed_json_body_is_a_json_error(api_admin):
    before = db_state()
    for text in ('{"kind": ', "\xff\xfe not utf-8", "[1, 2"):
        r = api_admin.post("/api/catalogue", text.encode("latin-1"))
        assert r.status_code == 400, r.content  # no JSON to check against a schema
        assert r["Content-Type"].startswith("application/json") and r.json()["message"]
    assert db_state() == before


@pytest.mark.parametrize("value", [0, 1, "false", "no", None])
def test_catalogue_booleans_are_true_or_false(api_admin, value):
    before = db_state()
    entry = {"kind": "spark", "slug": "odd-spark", "name": "Odd", "memory_gb": 128, "has_connectx": value}
    body = _json_error(api_admin.post("/api/catalogue", entry), 422)
    assert body["errors"][0]["path"] == "has_connectx"
    assert db_state() == before


def test_a_database_outage_is_a_503_with_retry_after(admin_user, monkeypatch):
    """The error reaches Django's handler500 from wherever it is raised; the
    real outage (PostgreSQL stopped under gunicorn) is tests/faults/test_database.py."""
    from accounts.tokens import token_create
    from inventory import selectors

    def down(*args, **kwargs):
        raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')

    _, token = token_create(user=admin_user, name="t")
    monkeypatch.setattr(selectors, "sparks_for_api", down)
    c = Client(raise_request_exception=False)
    r = c.get("/api/sparks", headers={"Authorization": f"Bearer {token}"})
    body = _json_error(r, 503)
    assert body["errors"] == [{"path": "database", "message": "the database is unavailable"}]
    assert r["Retry-After"] == "10"
    monkeypatch.setattr(selectors, "sparks_page", down, raising=False)
    c.force_login(admin_user)
    monkeypatch.setattr("inventory.views.selectors", selectors)
    other = c.get("/api/sparks/none/netplan", headers={"Authorization": f"Bearer {token}"})
    assert other.status_code == 404 and other["Content-Type"].startswith("application/json")  # other errors keep theirs


def test_made_up_methods_share_one_label(settings):
    from telemetry.metrics import HTTP_REQUESTS, method_label

    assert [method_label(m) for m in ("GET", "post", "FOO", "PROPFIND", "", None)] == [
        "GET",
        "POST",
        "other",
        "other",
        "GET",
        "GET",
    ]
    c = Client()
    for i in range(20):
        c.generic(f"X{i}", "/api/sparks")
    methods = {s.labels["method"] for m in HTTP_REQUESTS.collect() for s in m.samples}
    assert methods <= {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"} and "other" in methods


def test_every_query_the_schema_allows_fits_the_servers_request_line():
    """gunicorn.conf.py allows 8190-byte request lines (gunicorn's largest): the
    longest query of every operation, each character percent-encoded, fits."""
    from fleet.api import api

    schema = api.get_openapi_schema()
    worst = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            line = len(method) + len(path) + 30  # "GET /api/...?" and " HTTP/1.1", a 63-character path name
            for p in operation.get("parameters", []):
                if p["in"] != "query":
                    continue
                s = p["schema"]
                longest = max([s.get("maxLength", 0)] + [a.get("maxLength", 0) for a in s.get("anyOf", [])])
                line += len(p["name"]) + 2 + 3 * (longest or 25)  # "&name=" and the value, %XX each
            worst[f"{method.upper()} {path}"] = line
    too_long = {op: n for op, n in worst.items() if n > 8190}
    assert not too_long, too_long
    assert max(worst.values()) > 4094  # so gunicorn's default (4094) would refuse some: the setting matters
