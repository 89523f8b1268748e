"""Growing a registered lab: the designer starts from the lab's Sparks,
switches and cables (a real database, loaded from labs/*.yaml through the
import service), and every candidate's lab document imports onto that
inventory as the kind and link speeds promised, keeping every registered
Spark as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

from core.actor import Actor
from design import services
from inventory.labio import lab_export, lab_import
from inventory.models import Cable, Spark
from topology.engine import analyse
from topology.services import lab_read

pytestmark = pytest.mark.django_db
LABS = Path(__file__).resolve().parents[2] / "labs"


def _load(admin_user: Any, name: str) -> Actor:
    actor = Actor(user=admin_user, source="import")
    lab_import(actor=actor, data=yaml.safe_load((LABS / name).read_text()))
    return actor


def _registered() -> dict[str, tuple[str, int, str, str, str]]:
    return {
        s.name: (s.ssh_host, s.ssh_port, s.ssh_user, s.hardware.slug, s.status)
        for s in Spark.objects.select_related("hardware")
    }


CASES = [
    ("ring4.yaml", [{"hardware": "dgx-spark-128", "planned": 4}], 8),
    ("pair.yaml", [{"hardware": "asus-ascent-gx10-128", "planned": 2}], 4),
    ("lab8-crs804.yaml", [], 8),
]


@pytest.mark.parametrize(("lab", "lines", "total"), CASES, ids=[c[0] for c in CASES])
def test_every_growth_design_imports_onto_the_lab_as_promised(
    admin_user: Any, lab: str, lines: list[Any], total: int
) -> None:
    actor = _load(admin_user, lab)
    # a retired Spark the design must leave exactly as registered
    lab_import(
        actor=actor,
        data={
            "sparks": [
                {
                    "name": "old-1",
                    "hardware": "dgx-spark-64",
                    "status": "retired",
                    "ssh": {"host": "10.9.9.9", "port": 2222, "user": "ops"},
                }
            ]
        },
    )
    before = _registered()
    snapshot = lab_export()
    answer = services.design_request(from_inventory=True, sparks=lines)
    assert answer.designs
    for out in answer.designs:
        design = out["_design"]
        assert set(before) - {"old-1"} <= set(design.group.nodes) and len(design.group.nodes) == total
        # back to the registered lab before each candidate, then import it as the page does: preview, then apply
        back = lab_import(actor=actor, data=snapshot, prune=True, dry_run=True).devices_removed
        lab_import(actor=actor, data=snapshot, prune=True, confirm_remove=back)  # the planned Sparks go again
        preview = lab_import(actor=actor, data=design.document, prune=True, dry_run=True)
        assert preview.deleted["spark"] == preview.deleted["switch"] == 0
        assert preview.deleted["cable"] == len(design.unplug)
        report = lab_import(actor=actor, data=design.document, prune=True)
        assert report.updated["spark"] == 0  # no registered Spark is changed
        after = _registered()
        assert {n: after[n] for n in before} == before  # SSH settings, hardware and status as they were
        groups = [
            g
            for g in analyse(lab_read().lab, os_reserve_gb=settings.FLEET_OS_RESERVE_GB)
            if set(g.nodes) & set(design.group.nodes)
        ]
        assert len(groups) == 1, out["key"]
        built = groups[0]
        assert set(built.nodes) == set(design.group.nodes)
        assert built.kind == design.kind
        assert sorted({link.gbps for link in built.links}) == design.link_gbps
        assert sorted({f.code for f in built.findings}) == design.finding_codes
        assert Cable.objects.count() == len(design.document["cables"])


def test_growth_names_new_sparks_after_the_lab_and_reuses_its_cables(admin_user: Any) -> None:
    _load(admin_user, "ring4.yaml")
    answer = services.answer_out(
        services.design_request(from_inventory=True, sparks=[{"hardware": "dgx-spark-128", "planned": 3}])
    )
    ring = next(d for d in answer["designs"] if d["key"] == "ring")
    names = [s["name"] for s in ring["document"]["sparks"]]
    assert names == [f"ring-{i}" for i in range(1, 8)]
    hosts = {s["name"]: s["ssh"]["host"] for s in ring["document"]["sparks"]}
    assert hosts["ring-1"] == "10.20.2.11" and hosts["ring-5"].startswith("192.0.2.")
    sparks = next(p for p in ring["bill_of_materials"]["parts"] if p["kind"] == "spark")
    assert (sparks["count"], sparks["owned"], sparks["to_buy"]) == (7, 4, 3)
    # the ring keeps its two nvidia-coded QSFP112 cables in place; the QSFP56 and the generic one are unplugged
    dac = next(p for p in ring["bill_of_materials"]["parts"] if p["type"] == "qsfp112-dac")
    assert (dac["count"], dac["owned"], dac["to_buy"]) == (7, 2, 5)
    assert len(ring["recabling"]["unplug"]) == 2 and ring["recabling"]["kept"] == 2
    assert ring["recabling"]["prune"] is True
    assert any("Re-cabling: unplug 2" in n for n in ring["notes"])
    assert answer["request"]["from_inventory"] is True


def test_growth_on_the_lab_switch_keeps_it_and_its_breakouts(admin_user: Any) -> None:
    _load(admin_user, "lab8-crs804.yaml")
    data = services.answer_out(services.design_request(from_inventory=True))
    crs = next(d for d in data["designs"] if d["key"] == "switched-mikrotik-crs804-ddq")
    assert crs["document"]["switches"] == [{"name": "sw-804", "hardware": "mikrotik-crs804-ddq"}]
    parts = {p["type"]: p for p in crs["bill_of_materials"]["parts"]}
    assert parts["mikrotik-crs804-ddq"]["to_buy"] == 0 and parts["qsfp-dd-2x-qsfp56-breakout"]["to_buy"] == 0
    assert crs["recabling"] == {"unplug": [], "kept": 4, "prune": False}


GROW_ONE = {"sparks": [{"hardware": "dgx-spark-128", "planned": 1}], "from_inventory": True, "models": []}
TOO_MANY = (
    "{total} Sparks in all ({have} of them the lab's): a design needs 2 to 32 Sparks (the catalogue's largest "
    "switch, 32 QSFP112 ports, cables 32, one a port: a QSFP-DD breakout does not fit its cages; designs over "
    "several switches are not made)"
)


def _refused(body: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(services.BadInput) as refused:
        services.design_request(**body)
    return list(refused.value.errors)


def _lab_of(admin_user: Any, active: int, retired: int = 0) -> None:
    sparks = [
        {"name": f"s-{i:02d}", "hardware": "dgx-spark-128", "ssh": {"host": f"10.9.0.{i + 1}"}} for i in range(active)
    ]
    sparks += [
        {"name": f"old-{i}", "hardware": "dgx-spark-64", "status": "retired", "ssh": {"host": f"10.9.1.{i + 1}"}}
        for i in range(retired)
    ]
    lab_import(actor=Actor(user=admin_user, source="import"), data={"sparks": sparks})


def test_a_lab_past_any_design_is_refused_from_a_count_without_reading_it(admin_user: Any, monkeypatch) -> None:
    """Growing a lab that already has more Sparks than a design can cable is
    refused as the designer refuses any such total, from a count of the lab's
    Sparks: its whole document (0.7 s at 5,120 Sparks) is not read. A bad
    line is still named first, and the other fields' errors come with it."""
    _lab_of(admin_user, active=33, retired=2)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the lab document was read")

    monkeypatch.setattr(services, "lab_export", never)
    assert _refused(GROW_ONE) == [("sparks", TOO_MANY.format(total=34, have=33))]
    owned = {**GROW_ONE, "sparks": [{"hardware": "dgx-spark-128", "owned": 1}], "budget": "-5"}
    assert [path for path, _ in _refused(owned)] == ["budget", "sparks[0].owned"]


def test_a_lab_at_the_limit_is_read_and_refused_in_the_same_words(admin_user: Any) -> None:
    """32 growable Sparks (and two retired, which do not count) pass the count:
    the lab is read, and one more planned Spark is refused by the designer's
    own check, in the words the count gives past it."""
    _lab_of(admin_user, active=32, retired=2)
    assert _refused(GROW_ONE) == [("sparks", TOO_MANY.format(total=33, have=32))]
