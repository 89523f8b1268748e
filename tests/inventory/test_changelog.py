"""The change log: who, when and the field-level difference, whatever door a
change came through (page, API, import, admin)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from inventory.models import Change, Spark

pytestmark = pytest.mark.django_db


def test_api_update_records_the_field_difference(api_admin, import_lab):
    import_lab("pair.yaml")
    response = api_admin.patch("/api/sparks/pair-a", {"ssh": {"port": 2222}, "status": "maintenance"})
    assert response.status_code == 200
    change = Change.objects.filter(object_name="pair-a", action="update").get()
    assert change.source == "api" and change.username == "admin1"
    assert change.diff == {"ssh_port": [22, 2222], "status": ["active", "maintenance"]}


def test_an_update_that_changes_nothing_records_nothing(api_admin, import_lab):
    import_lab("pair.yaml")
    count = Change.objects.count()
    assert api_admin.patch("/api/sparks/pair-a", {"serial": "SN-PA"}).status_code == 200
    assert Change.objects.count() == count


def test_cable_replug_records_old_and_new_ends(api_admin, import_lab):
    import_lab("pair.yaml")
    cable_id = api_admin.get("/api/cables").json()["items"][0]["id"]
    response = api_admin.patch(f"/api/cables/{cable_id}", {"ends": ["pair-a:p1", "pair-b:p1"]})
    assert response.status_code == 200
    change = Change.objects.filter(object_type="cable", action="update").get()
    assert change.diff["ends"] == [["pair-a:p0", "pair-b:p0"], ["pair-a:p1", "pair-b:p1"]]


def test_the_django_admin_goes_through_the_services(import_lab):
    import_lab("pair.yaml")
    superuser = User.objects.create_superuser("root-admin", password="x-pass-123456")
    client = Client()
    client.force_login(superuser)
    spark = Spark.objects.get(name="pair-a")
    response = client.post(
        f"/admin/inventory/spark/{spark.pk}/change/",
        {
            "name": "pair-a",
            "hardware": spark.hardware_id,
            "vendor": "NVIDIA",
            "serial": "ADMIN-1",
            "ssh_host": "10.20.1.11",
            "ssh_port": 22,
            "ssh_user": "fleet",
            "status": "active",
        },
    )
    assert response.status_code == 302
    change = Change.objects.filter(object_name="pair-a", action="update").get()
    assert change.source == "admin" and change.diff == {"serial": ["SN-PA", "ADMIN-1"]}
    client.post(f"/admin/inventory/spark/{spark.pk}/delete/", {"post": "yes"})
    kinds = set(Change.objects.filter(action="delete").values_list("object_type", "object_name"))
    assert kinds == {("spark", "pair-a"), ("cable", "pair-ab")}


def test_change_log_page_filters_by_object_and_user(admin_client, api_admin, import_lab):
    import_lab("pair.yaml", "ring4.yaml")
    api_admin.patch("/api/sparks/ring-2", {"serial": "R2"})
    html = admin_client.get("/changes/?object_name=ring-2").content.decode()
    assert "ring-2" in html and "pair-a" not in html and "R2" in html
    html = admin_client.get("/changes/?user=nobody").content.decode()
    assert "No changes match" in html


def test_change_log_filtered_by_user_still_shows_who_is_signed_in(admin_client, import_lab):
    import_lab("pair.yaml")
    html = admin_client.get("/changes/?user=admin1").content.decode()
    assert 'href="/accounts/profile/"' in html and ">admin1</a>" in html and "Sign out" in html
