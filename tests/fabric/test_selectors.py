"""Which stored verification each group's reads take, among a long history:
the latest finished one with a measurement for the measured exchange (a newer
failed or running one measured nothing), the latest finished one for the
findings, each group its own, in the same number of queries however many runs
are kept."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.actor import Actor
from fabric.models import FabricRun
from fabric.selectors import fabric_findings, latest_exchange, measured_exchanges
from inventory.labio import lab_import
from inventory.models import NodeGroup
from simfleet.labgen import lab_document

pytestmark = pytest.mark.django_db


def _groups() -> list[NodeGroup]:
    lab_import(actor=Actor(source="import"), data=lab_document(pairs=3, prefix="sel"))
    return list(NodeGroup.objects.filter(auto=True, retired_at__isnull=True).order_by("name"))


def _run(group: NodeGroup, minutes_ago: int, status: str, busbw: float | None = None, **fields) -> FabricRun:
    names = list(group.members.values_list("spark__name", flat=True))
    at = timezone.now() - timedelta(minutes=minutes_ago)
    run = FabricRun.objects.create(
        group=group,
        group_name=group.name,
        kind=group.kind,
        link_gbps=200,
        status=status,
        avg_busbw=busbw,
        finished_at=None if status == FabricRun.Status.RUNNING else at,
        nodes=[{"name": n, "host": n, "rdma": []} for n in names],
        result=fields.pop("result", {"rows": [], "networks": dict.fromkeys(names, "IB")}),
        **fields,
    )
    FabricRun.objects.filter(pk=run.pk).update(created_at=at)
    return run


def _finding(code: str) -> list[dict[str, str]]:
    return [{"code": code, "severity": "warning", "message": f"{code} seen.", "fix": "Check it."}]


def test_each_group_reads_its_latest_measurement_whatever_came_after_it():
    a, b, c = _groups()
    names_a = list(a.members.values_list("spark__name", flat=True))
    for minutes in range(40, 20, -1):  # twenty older measurements of a
        _run(a, minutes, FabricRun.Status.DONE, 10.0 + minutes)
    kept = _run(
        a, 10, FabricRun.Status.DONE, 21.5, result={"rows": [], "networks": {names_a[0]: "IB", names_a[1]: "Socket"}}
    )
    _run(a, 5, FabricRun.Status.FAILED, None, error="mpirun exited with status 1")
    _run(a, 0, FabricRun.Status.RUNNING)
    _run(b, 30, FabricRun.Status.DONE, 23.0)
    _run(b, 3, FabricRun.Status.DONE, 22.0)  # b's own latest, newer than a's
    _run(c, 1, FabricRun.Status.FAILED, None, error="refused")  # c measured nothing

    with CaptureQueriesContext(connection) as queries:
        got = measured_exchanges([a.pk, b.pk, c.pk])
    assert len(queries) == 1
    assert set(got) == {a.pk, b.pk}
    assert (got[a.pk].gbs, got[a.pk].run, got[a.pk].socket_hosts) == (21.5, kept.pk, (names_a[1],))
    assert (got[b.pk].gbs, got[b.pk].socket_hosts) == (22.0, ())
    # one group's read (the planner's) picks the same run as the fleet's
    assert latest_exchange(a.pk) == got[a.pk]
    assert measured_exchanges([c.pk]) == {}


def test_findings_come_from_each_groups_latest_finished_run_only():
    a, b, _ = _groups()
    names_a = sorted(a.members.values_list("spark__name", flat=True))
    names_b = sorted(b.members.values_list("spark__name", flat=True))
    _run(a, 20, FabricRun.Status.DONE, 20.0, findings=_finding("old-a"))
    _run(a, 10, FabricRun.Status.FAILED, None, findings=_finding("latest-a"))
    _run(b, 15, FabricRun.Status.DONE, 9.0, findings=_finding("latest-b"))
    _run(b, 30, FabricRun.Status.DONE, 20.0, findings=_finding("old-b"))

    def named(nodes: list[str]) -> dict[str, tuple[str, ...]]:
        return {f.code: tuple(sorted(f.objects)) for f in fabric_findings(None, nodes)}

    assert named([*names_a, *names_b]) == {"latest-a": tuple(names_a), "latest-b": tuple(names_b)}
    assert named(names_a) == {"latest-a": tuple(names_a), "latest-b": ()}  # b's names none of these
    # a newer run that found nothing clears what the earlier one found
    _run(b, 1, FabricRun.Status.DONE, 22.0)
    assert named(names_b) == {"latest-a": ()}
    # a run under way is no verdict yet: the latest finished one's findings stay until it ends
    _run(a, 0, FabricRun.Status.RUNNING)
    assert named(names_a) == {"latest-a": tuple(names_a)}


def test_the_number_of_queries_does_not_grow_with_the_history():
    groups = _groups()
    for group in groups:
        _run(group, 100, FabricRun.Status.DONE, 20.0)
    with CaptureQueriesContext(connection) as one:
        assert len(measured_exchanges([g.pk for g in groups])) == 3
        fabric_findings(groups[0], [])
    for group in groups:
        for minutes in range(99, 69, -1):
            _run(group, minutes, FabricRun.Status.DONE, 20.0)
    with CaptureQueriesContext(connection) as many:
        assert len(measured_exchanges([g.pk for g in groups])) == 3
        fabric_findings(groups[0], [])
    assert len(many) == len(one) == 2


@pytest.mark.parametrize(
    "stored",
    [None, "not an object", [1, 2], {"networks": ["IB"]}, {"networks": {"sel-0001": 7}}, {"rows": []}],
)
def test_a_malformed_stored_result_reads_as_no_network_seen(stored):
    """Reads survive whatever is stored: an older run kept no networks, a hand-edited one is malformed."""
    a, _, _ = _groups()
    kept = _run(a, 5, FabricRun.Status.DONE, 21.0, result=stored)
    got = measured_exchanges([a.pk])
    assert (got[a.pk].gbs, got[a.pk].run, got[a.pk].socket_hosts) == (21.0, kept.pk, ())
    assert latest_exchange(a.pk) == got[a.pk]
