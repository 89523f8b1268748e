"""The lab document and the API lists on a 1,024-Spark lab, on either
database: an admin's script exports the whole lab with a token, imports it
back (nothing changes), pages through the cables 1,000 at a time, and a
member's growth design of that lab is refused for its size with a clear
reason. On SQLite, prefetching a forward relation of this many rows used to
fail ("Expression tree is too large")."""

from __future__ import annotations

from typing import Any

import pytest

from core.actor import Actor
from design.generate import MAX_SPARKS
from inventory.labio import lab_import
from inventory.models import Cable, Spark
from simfleet.labgen import lab_document
from tests.conftest import ApiClient, db_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def big_lab() -> dict[str, Any]:
    data = lab_document(switched=80, rings=70, pairs=50, singles=4, prefix="spark")
    lab_import(actor=Actor(source="import"), data=data)
    assert Spark.objects.count() == 1024
    return data


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
