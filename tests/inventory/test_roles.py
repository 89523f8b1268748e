"""The role matrix: every role against every inventory action, in pages and
in the API. Lab admins edit; members and viewers read; strangers get nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from core.roles import ADMIN, MEMBER, VIEWER
from inventory.models import Cable, Spark
from tests.conftest import ApiClient, db_state

pytestmark = pytest.mark.django_db

ROLES = [ADMIN, MEMBER, VIEWER, None]

# (name, method, path, body, is_write)
API_ACTIONS = [
    ("list sparks", "get", "/api/sparks", None, False),
    ("read spark", "get", "/api/sparks/pair-a", None, False),
    (
        "create spark",
        "post",
        "/api/sparks",
        {"name": "new-1", "hardware": "dgx-spark-64", "ssh": {"host": "10.9.9.9"}},
        True,
    ),
    ("update spark", "patch", "/api/sparks/pair-a", {"serial": "NEW-SERIAL"}, True),
    ("delete spark", "delete", "/api/sparks/pair-b", None, True),
    ("list switches", "get", "/api/switches", None, False),
    ("create switch", "post", "/api/switches", {"name": "sw-9", "hardware": "mikrotik-crs804-ddq"}, True),
    ("list cables", "get", "/api/cables", None, False),
    ("create cable", "post", "/api/cables", {"type": "qsfp56-dac", "ends": ["pair-a:p1", "pair-b:p1"]}, True),
    ("delete cable", "delete", "/api/cables/{cable}", None, True),
    ("list catalogue", "get", "/api/catalogue", None, False),
    (
        "add catalogue entry",
        "post",
        "/api/catalogue",
        {"kind": "cable", "slug": "osfp-aoc", "name": "OSFP AOC", "speed_gbps": 400},
        True,
    ),
    (
        "import",
        "post",
        "/api/import",
        {"sparks": [{"name": "imp-1", "hardware": "dgx-spark-128", "ssh": {"host": "10.9.9.8"}}]},
        True,
    ),
    ("export", "get", "/api/export", None, False),
    ("change log", "get", "/api/changes", None, False),
]


@pytest.mark.parametrize("door", ["token", "session"])
@pytest.mark.parametrize("role", ROLES, ids=lambda r: r or "anonymous")
@pytest.mark.parametrize("action", API_ACTIONS, ids=lambda a: a[0])
def test_api_role_matrix(role, action, door, users, import_lab):
    import_lab("pair.yaml")
    name, method, path, body, is_write = action
    path = path.replace("{cable}", str(Cable.objects.get().pk))
    client = ApiClient(users[role] if role else None, session=door == "session")
    before = db_state()
    response = getattr(client, method)(path, body) if body is not None else getattr(client, method)(path)
    if role is None:
        assert response.status_code == 401
        assert db_state() == before
    elif is_write and role != ADMIN:
        assert response.status_code == 403, response.content
        assert "lab admin" in response.json()["message"]
        assert db_state() == before
    else:
        # a new row is 201 Created; an import, a change or a deletion 200
        assert response.status_code == (201 if method == "post" and path != "/api/import" else 200), response.content
        if is_write:
            assert db_state() != before


PAGE_ACTIONS = [
    ("spark list", "get", "/sparks/", None, False),
    ("spark page", "get", "/sparks/pair-a/", None, False),
    ("new spark form", "get", "/sparks/new/", None, True),
    (
        "create spark",
        "post",
        "/sparks/new/",
        {
            "name": "new-1",
            "hardware": "dgx-spark-64",
            "ssh_host": "10.9.9.9",
            "ssh_port": 22,
            "ssh_user": "fleet",
            "status": "active",
        },
        True,
    ),
    (
        "edit spark",
        "post",
        "/sparks/pair-a/edit/",
        {
            "name": "pair-a",
            "hardware": "dgx-spark-128",
            "ssh_host": "10.1.1.1",
            "ssh_port": 22,
            "ssh_user": "fleet",
            "status": "maintenance",
        },
        True,
    ),
    ("delete spark", "post", "/sparks/pair-b/delete/", {}, True),
    ("switch list", "get", "/switches/", None, False),
    ("create switch", "post", "/switches/new/", {"name": "sw-9", "hardware": "mikrotik-crs804-ddq"}, True),
    ("cable list", "get", "/cables/", None, False),
    (
        "create cable",
        "post",
        "/cables/new/",
        {"type": "qsfp56-dac", "end_0": "pair-a:p1", "end_1": "pair-b:p1", "coded_for": "nvidia"},
        True,
    ),
    ("delete cable", "post", "/cables/{cable}/delete/", {}, True),
    ("catalogue", "get", "/catalogue/", None, False),
    ("import page", "get", "/lab/import/", None, True),
    ("export", "get", "/lab/export/", None, False),
    ("change log", "get", "/changes/", None, False),
]


@pytest.mark.parametrize("role", ROLES, ids=lambda r: r or "anonymous")
@pytest.mark.parametrize("action", PAGE_ACTIONS, ids=lambda a: a[0])
def test_page_role_matrix(role, action, users, import_lab):
    import_lab("pair.yaml")
    name, method, path, body, is_write = action
    path = path.replace("{cable}", str(Cable.objects.get().pk))
    client = Client()
    if role:
        client.force_login(users[role])
    before = db_state()
    response = client.get(path) if method == "get" else client.post(path, body)
    if role is None:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        assert db_state() == before
    elif is_write and role != ADMIN:
        assert response.status_code == 403
        assert b"lab admin" in response.content
        assert db_state() == before
    else:
        assert response.status_code == (302 if method == "post" else 200), response.content[:2000]  # a form redirects
        if method == "post":
            assert db_state() != before


def test_edit_buttons_only_for_admins(users, import_lab):
    import_lab("pair.yaml")
    for role, visible in ((ADMIN, True), (MEMBER, False), (VIEWER, False)):
        client = Client()
        client.force_login(users[role])
        html = client.get("/sparks/pair-a/").content.decode()
        assert ("/sparks/pair-a/edit/" in html) is visible


def test_session_api_writes_need_the_csrf_token(admin_user, import_lab):
    import_lab("pair.yaml")
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    response = client.patch("/api/sparks/pair-a", '{"serial": "X1"}', content_type="application/json")
    assert response.status_code == 403  # signed in, so not 401: refused for the missing token
    assert Spark.objects.get(name="pair-a").serial == "SN-PA"


def test_tokens_are_stored_only_as_a_hash(admin_user):
    from accounts.models import ApiToken

    client = Client()
    client.force_login(admin_user)
    response = client.post("/accounts/profile/", {"name": "ci"})
    token = response.context["new_token"]
    assert token.startswith("sfk_")
    row = ApiToken.objects.get(user=admin_user)
    assert token not in (row.digest, row.prefix) and row.prefix == token[:10]
    assert token not in client.get("/accounts/profile/").content.decode()
    api = Client()
    assert api.get("/api/sparks", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert api.get("/api/sparks", headers={"Authorization": f"Bearer {token}x"}).status_code == 401
