"""A group's plan reads the lab around the group, not the whole lab: the
Sparks it names and the switches their cables reach. Restricted to the
group, the engine must find exactly what it finds on the whole lab
restricted to it, for every group of labs with breakouts, switches joined
by an inter-switch cable, sub-groups and a stale group; and the reads must
not grow with the lab."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import Cable, NodeGroup
from placement.errors import PlacementError
from placement.selectors import _analyse, _restrict, groupspec_for
from simfleet.labgen import lab_document
from topology import services as svc
from topology.services import lab_read, lab_read_around

pytestmark = pytest.mark.django_db

IMPORT = Actor(source="import")


def _spark(name: str) -> dict:
    return {"name": name, "hardware": "dgx-spark-128", "ssh": {"host": "10.9.9.9"}}


# Two 32-port switches joined by one QSFP112 cable (sw-a:32 to sw-b:32), four
# Sparks on sw-a and two on sw-b: one switched group of six across the two.
# A third switch with two Sparks is cabled to neither; a direct pair beside.
TWO_TIER = {
    "sparks": [_spark(f"t-{i:02d}") for i in range(1, 11)],
    "switches": [
        {"name": "sw-a", "hardware": "generic-qsfp112-switch-32"},
        {"name": "sw-b", "hardware": "generic-qsfp112-switch-32"},
        {"name": "sw-c", "hardware": "generic-qsfp112-switch-32"},
    ],
    "cables": [
        *({"type": "qsfp112-dac", "ends": [f"sw-a:{i}", f"t-{i:02d}:p0"]} for i in range(1, 5)),
        {"type": "qsfp112-dac", "ends": ["sw-b:1", "t-05:p0"]},
        {"type": "qsfp112-dac", "ends": ["sw-b:2", "t-06:p0"]},
        {"type": "qsfp112-dac", "ends": ["sw-a:32", "sw-b:32"], "label": "isl"},
        {"type": "qsfp112-dac", "ends": ["sw-c:1", "t-07:p0"]},
        {"type": "qsfp112-dac", "ends": ["sw-c:2", "t-08:p0"]},
        {"type": "qsfp56-dac", "ends": ["t-09:p0", "t-10:p0"]},
        {"type": "qsfp56-dac", "ends": ["t-09:p1", "t-10:p1"]},
    ],
}


def _found(snapshot, names: set[str]) -> list:
    return _analyse(_restrict(snapshot.lab, names))


def _every_live_group() -> list[tuple[str, set[str]]]:
    return [
        (g.name, set(g.members.values_list("spark__name", flat=True)))
        for g in NodeGroup.objects.filter(retired_at__isnull=True).order_by("id")
    ]


@pytest.mark.parametrize("lab, count", [("demo.yaml", 7), ("lab8-crs804.yaml", 3), ("two-tier", 5)])
def test_every_group_is_found_around_it_exactly_as_on_the_whole_lab(import_lab, lab, count):
    if lab == "two-tier":
        lab_import(actor=IMPORT, data=TWO_TIER)
    else:
        import_lab(lab)
    first = NodeGroup.objects.filter(kind="switched", retired_at__isnull=True).order_by("id").first()
    assert first is not None
    parent_nodes = sorted(first.members.values_list("spark__name", flat=True))
    half = len(parent_nodes) // 2
    svc.subgroup_create(actor=IMPORT, parent=first, name="half", nodes=parent_nodes[:half])
    # in the two-tier lab, one Spark on each switch
    svc.subgroup_create(actor=IMPORT, parent=first, name="across", nodes=parent_nodes[half : half + 2])
    whole = lab_read()
    groups = _every_live_group()
    assert len(groups) == count  # the auto groups and the two sub-groups
    for name, names in groups:
        around = lab_read_around(names)
        assert _found(around, names) == _found(whole, names), name
        assert {n: around.spark_ids[n] for n in names} == {n: whole.spark_ids[n] for n in names}
        assert groupspec_for(NodeGroup.objects.get(name=name)).spec == groupspec_for_whole(name, whole).spec


def groupspec_for_whole(name: str, whole) -> object:
    """groupspec_for as it was before it read around the group: on the whole lab."""
    from unittest import mock

    with mock.patch("placement.selectors.lab_read_around", lambda names: whole):
        return groupspec_for(NodeGroup.objects.get(name=name))


def test_the_two_tier_group_crosses_the_inter_switch_cable_and_reads_no_other_switch():
    lab_import(actor=IMPORT, data=TWO_TIER)
    names = {f"t-{i:02d}" for i in range(1, 7)}
    around = lab_read_around(names)
    assert sorted(s.name for s in around.lab.switches) == ["sw-a", "sw-b"]
    assert sorted(n.name for n in around.lab.nodes) == sorted(names)
    (group,) = _found(around, names)
    assert sorted(group.nodes) == sorted(names)
    assert group == _found(lab_read(), names)[0]  # the engine's kind for two switches, links and findings
    assert "isl" in {c.key for c in around.lab.cables}


def test_a_group_whose_cabling_changed_is_still_caught(import_lab):
    import_lab("lab8-crs804.yaml")
    group = NodeGroup.objects.get(members__spark__name="node-01", auto=True, retired_at__isnull=True)
    sub = svc.subgroup_create(actor=IMPORT, parent=group, name="exp", nodes=["node-01", "node-03"])
    # Unplugged behind the sync's back (the service path would retire the
    # sub-group, test_groups): the row still names both Sparks.
    Cable.objects.filter(label="bo-1").delete()
    with pytest.raises(PlacementError, match=r"no longer form one connected group \(2 pieces\)"):
        groupspec_for(sub)


def _queries(names: set[str]) -> int:
    with CaptureQueriesContext(connection) as ctx:
        lab_read_around(names)
    return len(ctx)


def _reads() -> dict[str, tuple[int, int]]:
    """The queries and the cables read around the first lab's first switched
    group and its first ring."""
    return {
        kind: (_queries(names), len(lab_read_around(names).lab.cables))
        for kind, names in (
            ("switched", {f"a-{i:04d}" for i in range(1, 9)}),
            ("ring", {f"a-{i:04d}" for i in range(17, 21)}),
        )
    }


def test_the_reads_around_a_group_do_not_grow_with_the_lab():
    lab_import(actor=IMPORT, data=lab_document(switched=2, rings=2, pairs=2, singles=1, prefix="a"))
    small = _reads()
    lab_import(actor=IMPORT, data=lab_document(switched=40, rings=40, pairs=40, singles=4, prefix="b"))
    assert _reads() == small
    # a ring: its Sparks, their cables' ends, ports, ends, cables; a switch adds
    # one hop and the switch row
    assert small == {"switched": (7, 4), "ring": (5, 4)}


def test_sparks_named_by_hand_are_read_around_their_groups_not_the_whole_lab(import_lab):
    """POST /api/plans with "nodes": the named Sparks' cabled components are
    their live auto groups, read around. The whole switched group by name is
    its group's plan; two of its Sparks plan as themselves; two Sparks of a
    ring are refused; and the reads do not grow with the lab."""
    from dataclasses import replace

    from placement.selectors import groupspec_for_nodes

    import_lab("demo.yaml")
    switched = NodeGroup.objects.get(members__spark__name="spark-07", auto=True, retired_at__isnull=True)
    names = [f"spark-{i:02d}" for i in range(7, 15)]
    assert replace(groupspec_for_nodes(names).spec, id="") == replace(groupspec_for(switched).spec, id="")
    part = groupspec_for_nodes(["spark-09", "spark-07"])
    assert (part.spec.kind, [n.name for n in part.spec.nodes]) == ("switched", ["spark-07", "spark-09"])
    with pytest.raises(PlacementError, match="part of a ring group of 4 .* that cannot be split"):
        groupspec_for_nodes(["spark-03", "spark-04"])
    with pytest.raises(PlacementError, match="not cabled together: they fall into 2 groups"):
        groupspec_for_nodes(["spark-01", "spark-17"])

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            groupspec_for_nodes(names)
        return len(ctx)

    small = queries()
    lab_import(actor=IMPORT, data=lab_document(switched=20, rings=20, pairs=20, singles=4, prefix="b"))
    assert queries() == small
