"""How the API knows who calls: a script sends only its personal token and
may write without any cookie or CSRF token; a browser session must send
Django's CSRF token with every write; nobody signed in gets 401. Every client
here enforces CSRF, as a real browser's server does."""

from __future__ import annotations

from pathlib import Path

import pytest

from inventory.models import Spark
from tests.conftest import ApiClient, db_state

pytestmark = pytest.mark.django_db

RING4 = (Path(__file__).resolve().parent.parent / "labs" / "ring4.yaml").read_text()


def test_a_script_with_only_a_token_imports_a_lab(admin_user):
    script = ApiClient(admin_user)  # Authorization: Bearer sfk_..., no cookie at all
    assert not script.client.cookies
    response = script.post("/api/import", RING4, content_type="application/yaml")
    assert response.status_code == 200, response.content
    assert Spark.objects.count() == 4
    assert script.patch("/api/sparks/ring-1", {"serial": "SN-NEW"}).status_code == 200
    assert script.delete("/api/sparks/ring-4").status_code == 200
    assert Spark.objects.get(name="ring-1").serial == "SN-NEW" and Spark.objects.count() == 3


def test_a_session_write_needs_the_csrf_token(admin_user, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    forged = ApiClient(admin_user, session=True, csrf=False)  # a cross-site form rides on the cookie
    response = forged.post("/api/import", RING4, content_type="application/yaml")
    assert response.status_code == 403 and "CSRF" in response.json()["message"]
    assert forged.patch("/api/sparks/pair-a", {"serial": "X"}).status_code == 403
    assert db_state() == before
    assert forged.get("/api/sparks/pair-a").status_code == 200  # reads need no token
    browser = ApiClient(admin_user, session=True)
    assert browser.post("/api/import", RING4, content_type="application/yaml").status_code == 200
    assert Spark.objects.filter(name__startswith="ring-").count() == 4


def test_anonymous_writes_and_reads_get_401_and_change_nothing(import_lab):
    import_lab("pair.yaml")
    before = db_state()
    nobody = ApiClient(None)
    for response in (
        nobody.post("/api/import", RING4, content_type="application/yaml"),
        nobody.delete("/api/sparks/pair-a"),
        nobody.get("/api/sparks"),
    ):
        assert response.status_code == 401
        assert "Authorization: Bearer" in response.json()["message"]
    assert db_state() == before


def test_a_wrong_token_is_401_and_a_role_is_checked_whatever_the_door(member_user, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    bad = ApiClient(None)
    bad.headers["Authorization"] = "Bearer sfk_not-a-token"
    assert bad.post("/api/import", RING4, content_type="application/yaml").status_code == 401
    for member in (ApiClient(member_user), ApiClient(member_user, session=True)):
        response = member.post("/api/import", RING4, content_type="application/yaml")
        assert response.status_code == 403 and "lab admin" in response.json()["message"]
    assert db_state() == before


def test_the_schema_names_both_ways_in(api_viewer):
    schema = api_viewer.get("/api/openapi.json").json()
    schemes = schema["components"]["securitySchemes"]
    assert {s["type"] for s in schemes.values()} >= {"http", "apiKey"}
    assert schema["paths"]["/api/import"]["post"]["security"]
