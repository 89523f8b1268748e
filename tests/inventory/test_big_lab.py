"""The lab document and the API lists on a 1,024-Spark lab, on either
database: an admin's script exports the whole lab with a token, imports it
back (nothing changes), pages through the cables 1,000 at a time, and a
member's growth design of that lab is refused for its size with a clear
reason. On SQLite, prefetching a forward relation of this many rows used to
fail ("Expression tree is too large")."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import Max

from core.actor import Actor
from design.generate import MAX_SPARKS
from inventory.labio import lab_import
from inventory.models import Cable, Spark
from simfleet.labgen import lab_document
from tests.conftest import ApiClient, db_state

pytestmark = pytest.mark.django_db


def _rows() -> dict[str, tuple[int, Any]]:
    """Every table's (row count, highest id)."""
    from django.apps import apps

    return {
        m._meta.label: (m._base_manager.count(), m._base_manager.aggregate(top=Max("pk"))["top"])
        for m in apps.get_models()
    }


def _remove_rows_after(before: dict[str, tuple[int, Any]]) -> None:
    """Delete every row added since ``before`` (ids above each table's highest
    then), cascades and protections in whatever order they allow."""
    from django.apps import apps
    from django.db import transaction
    from django.db.models import ProtectedError, RestrictedError

    with transaction.atomic():
        for _ in range(6):
            left = 0
            for model in apps.get_models():
                n, top = before[model._meta.label]
                if model._base_manager.count() == n:
                    continue
                added = model._base_manager.all() if top is None else model._base_manager.filter(pk__gt=top)
                try:
                    with transaction.atomic():
                        added.delete()
                except (ProtectedError, RestrictedError):
                    left += 1
            if not left:
                return


@pytest.fixture(scope="module")
def big_lab(django_db_setup: Any, django_db_blocker: Any) -> Any:
    """The 1,024-Spark lab, imported once for this module's tests (about 15 s
    on PostgreSQL): they only read it (the re-import changes nothing, the
    refused design stores nothing), and each runs in its own transaction as
    usual. Removed after them; every table must be back to its rows before."""
    with django_db_blocker.unblock():
        before = _rows()
        data = lab_document(switched=80, rings=70, pairs=50, singles=4, prefix="spark")
        lab_import(actor=Actor(source="import"), data=data)
        assert Spark.objects.count() == 1024
    yield data
    with django_db_blocker.unblock():
        _remove_rows_after(before)
        assert {k: v[0] for k, v in _rows().items()} == {k: v[0] for k, v in before.items()}


def test_a_script_exports_the_1024_spark_lab_and_imports_it_back_unchanged(big_lab: Any, api_admin: ApiClient) -> None:
    exported = api_admin.get("/api/export?format=json")
    assert exported.status_code == 200, exported.content[:300]
    doc = exported.json()
    assert len(doc["sparks"]) == 1024 and len(doc["cables"]) == Cable.objects.count() == len(big_lab["cables"])
    assert {tuple(c["ends"]) for c in doc["cables"]} == {tuple(c["ends"]) for c in big_lab["cables"]}
    before = db_state()
    again = api_admin.post("/api/import?prune=true", doc)
    assert again.status_code == 200, again.content[:300]
    assert again.json()["message"] == "nothing to change"
    assert db_state() == before


def test_the_cable_and_spark_lists_page_a_thousand_at_a_time(big_lab: Any, api_member: ApiClient) -> None:
    cables = api_member.get("/api/cables?limit=1000")
    assert cables.status_code == 200, cables.content[:300]
    assert len(cables.json()["items"]) == Cable.objects.count() == 650
    assert all(len(c["ends"]) in (2, 3) for c in cables.json()["items"])
    sparks = api_member.get("/api/sparks?limit=1000&offset=24")
    assert sparks.status_code == 200 and len(sparks.json()["items"]) == 1000


def test_growing_a_lab_past_the_largest_design_is_refused_for_its_size(big_lab: Any, api_member: ApiClient) -> None:
    before = db_state()
    r = api_member.post(
        "/api/designs", {"from_inventory": True, "sparks": [{"hardware": "dgx-spark-128", "planned": 2}]}
    )
    assert r.status_code == 400, r.content[:300]
    body = r.content.decode()
    assert f"1026 Sparks in all (1024 of them the lab's): a design needs 2 to {MAX_SPARKS} Sparks" in body
    assert db_state() == before
