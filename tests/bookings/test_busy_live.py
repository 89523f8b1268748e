"""Busy without a booking, end to end: a simulated Spark runs a GPU compute
process, a real poll stores it, and the group's findings say who is (or is
not) entitled to it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.rules import BUSY_OTHER_USER, BUSY_UNBOOKED
from bookings.services import booking_create
from core.actor import Actor
from core.roles import MEMBER
from inventory.models import NodeGroup
from simfleet.simulator import SimNode
from telemetry.models import NodeSample
from telemetry.poll_round import poll_and_store
from telemetry.selectors import latest_processes
from tests.conftest import make_user
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab
from topology.selectors import groups_overview

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db


def pair() -> list[SimNode]:
    return [
        SimNode("gpu-a", cabled_ports={"p0": ("gpu-b", "p0")}, faults={"gpu-busy"}),
        SimNode("gpu-b", cabled_ports={"p0": ("gpu-a", "p0")}, faults={"gpu-idle"}),
    ]


def busy_codes() -> dict[str, list[tuple[str, ...]]]:
    found: dict[str, list[tuple[str, ...]]] = {}
    for view in groups_overview().groups:
        for f in view.findings:
            if f.code.startswith("busy-"):
                found.setdefault(f.code, []).append(f.objects)
    return found


def test_gpu_work_on_an_unbooked_spark_is_a_group_finding(fleet_key, tmp_path, settings):
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("gpu-a", "gpu-b"))
    procs = latest_processes(["gpu-a", "gpu-b"])
    assert [p.user for p in procs["gpu-a"]] == ["member1"] and procs["gpu-b"] == []
    assert NodeSample.objects.get(spark__name="gpu-a").processes[0][2] == "/usr/bin/python3"
    assert busy_codes() == {BUSY_UNBOOKED: [("gpu-a",)]}


@pytest.mark.parametrize(("booker", "expected"), [("member1", {}), ("member2", {BUSY_OTHER_USER: [("gpu-a",)]})])
def test_work_of_the_holder_is_fine_and_of_someone_else_is_a_finding(booker, expected, fleet_key, tmp_path, settings):
    """The simulated process runs as member1."""
    user = make_user(booker, MEMBER)
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("gpu-a", "gpu-b"))
    group = NodeGroup.objects.get(retired_at__isnull=True, auto=True)
    now = timezone.now()
    booking_create(
        actor=Actor(user=user, source="api"),
        group=group.pk,
        start=now - timedelta(minutes=1),
        end=now + timedelta(hours=2),
        purpose="decode sweep",
        now=now - timedelta(minutes=2),
    )
    assert busy_codes() == expected
