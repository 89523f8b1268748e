"""Import and export of whole labs: round trips, idempotence, updates, prune."""

from __future__ import annotations

import copy

import pytest

from core.actor import Actor
from inventory.labio import lab_export, lab_import
from inventory.models import Cable, CableEnd, Change, Spark, Twin
from tests.conftest import lab_data

LABS = ("ring4.yaml", "pair.yaml", "lab8-crs804.yaml")


@pytest.mark.django_db
def test_three_labs_round_trip_through_an_empty_database(import_lab, django_db_blocker):
    """A 4-node ring, a direct pair and an 8-node CRS804 lab with breakout
    cables: export, wipe, import the export, export again: equal."""
    import_lab(*LABS)
    first = lab_export()
    assert len(first["sparks"]) == 14
    assert len(first["switches"]) == 1
    assert len(first["cables"]) == 4 + 1 + 4
    breakouts = [c for c in first["cables"] if c["type"] == "qsfp-dd-2x-qsfp56-breakout"]
    assert breakouts[0]["ends"] == ["sw-804:1", "node-01:p0", "node-02:p0"]

    Cable.objects.all().delete()
    Spark.objects.all().delete()
    from inventory.models import Switch

    Switch.objects.all().delete()
    assert lab_export() == {"sparks": [], "switches": [], "cables": []}

    lab_import(actor=Actor(source="import"), data=first)
    assert lab_export() == first


@pytest.mark.django_db
def test_importing_the_same_document_twice_changes_nothing(import_lab):
    import_lab("lab8-crs804.yaml")
    changes = Change.objects.count()
    report = lab_import(actor=Actor(source="import"), data=lab_data("lab8-crs804.yaml"))
    assert not report.changed
    assert report.unchanged == 8 + 1 + 4
    assert Change.objects.count() == changes


@pytest.mark.django_db
def test_a_changed_document_updates_only_what_differs(import_lab):
    import_lab("ring4.yaml")
    doc = copy.deepcopy(lab_data("ring4.yaml"))
    doc["sparks"][1]["ssh"]["host"] = "10.20.2.99"
    doc["cables"][3]["coded_for"] = "nvidia"
    report = lab_import(actor=Actor(source="import"), data=doc)
    assert report.updated == {"spark": 1, "switch": 0, "cable": 1}
    assert Spark.objects.get(name="ring-2").ssh_host == "10.20.2.99"
    change = Change.objects.filter(object_name="ring-2", action="update").get()
    assert change.diff == {"ssh_host": ["10.20.2.12", "10.20.2.99"]}
    assert change.source == "import"


@pytest.mark.django_db
def test_objects_the_document_does_not_name_stay_unless_pruned(import_lab):
    import_lab("ring4.yaml", "pair.yaml")
    doc = lab_data("pair.yaml")
    lab_import(actor=Actor(source="import"), data=doc)
    assert Spark.objects.count() == 6
    report = lab_import(actor=Actor(source="import"), data=doc, prune=True, confirm_remove=4)
    assert report.deleted == {"spark": 4, "switch": 0, "cable": 4}
    assert sorted(Spark.objects.values_list("name", flat=True)) == ["pair-a", "pair-b"]
    assert Cable.objects.count() == 1


@pytest.mark.django_db
def test_a_spark_gets_two_ports_with_their_twins(import_lab):
    import_lab("pair.yaml")
    spark = Spark.objects.get(name="pair-a")
    twins = {(t.port.name, t.name, t.rdma) for t in Twin.objects.filter(port__spark=spark).select_related("port")}
    assert twins == {
        ("p0", "enp1s0f0np0", "rocep1s0f0"),
        ("p0", "enP2p1s0f0np0", "roceP2p1s0f0"),
        ("p1", "enp1s0f1np1", "rocep1s0f1"),
        ("p1", "enP2p1s0f1np1", "roceP2p1s0f1"),
    }
    assert CableEnd.objects.filter(port__spark=spark).count() == 1


@pytest.mark.django_db
def test_import_records_each_object_in_the_change_log(import_lab, admin_user):
    import_lab("pair.yaml")
    log = list(Change.objects.order_by("id").values_list("action", "object_type", "object_name", "username"))
    assert log == [
        ("create", "spark", "pair-a", "admin1"),
        ("create", "spark", "pair-b", "admin1"),
        ("create", "cable", "pair-ab", "admin1"),
    ]
