"""The minute task and its beat schedule; busy-without-booking findings fed
from telemetry's latest processes, on the node's group."""

from __future__ import annotations

import pytest

from bookings import findings, services, tasks
from bookings.apps import SCHEDULE_NAME
from tests.bookings.conftest import actor, hours
from topology.services import GROUP_FINDING_PROVIDERS

pytestmark = pytest.mark.django_db


def test_beat_runs_the_clock_every_minute():
    from django_celery_beat.models import PeriodicTask

    task = PeriodicTask.objects.get(name=SCHEDULE_NAME)
    assert task.task == "bookings.tick" and task.enabled
    assert (task.interval.every, task.interval.period) == (1, "minutes")


def test_the_task_calls_the_clock(lab, member_user):
    services.booking_create(
        actor=actor(member_user), group=lab["ring"].pk, start=hours(-1), end=hours(2), purpose="x", now=hours(-1)
    )
    services.booking_create(
        actor=actor(member_user), group=lab["direct"].pk, start=hours(-2), end=hours(-1), purpose="x", now=hours(-2)
    )
    assert tasks.tick() == {"started": 0, "finished": 1, "reminded": 0}


def store_processes(seen: dict[str, list[list]]) -> None:
    """Each node's latest sample lists these GPU processes ([pid, used MiB, name, user]), as a poll stores them."""
    from django.utils import timezone

    from inventory.models import Spark
    from telemetry.models import NodeSample, NodeState

    for name, rows in seen.items():
        spark = Spark.objects.get(name=name)
        sample = NodeSample.objects.create(spark=spark, at=timezone.now(), reachable=True, processes=rows)
        NodeState.objects.update_or_create(spark=spark, defaults={"latest": sample})


def test_busy_sparks_become_findings_on_their_group(lab, member_user):
    store_processes(
        {
            "ring-1": [[11, 900, "python3", "member1"]],
            "ring-2": [[12, 900, "vllm", "intruder"]],
            "node-05": [[13, 900, "llama-server", None]],
            "ring-3": [],  # polled, nothing on its GPU
        }
    )
    services.booking_create(
        actor=actor(member_user), group=lab["ring"].pk, start=hours(-1), end=hours(2), purpose="x", now=hours(-1)
    )
    assert findings.busy_provider in GROUP_FINDING_PROVIDERS
    found = findings.busy_provider(None, ["ring-1", "ring-2", "ring-3", "ring-4", "node-05"])
    assert [(f.code, f.objects) for f in found] == [
        ("busy-without-booking", ("node-05",)),
        ("busy-by-other-user", ("ring-2",)),
    ]
    assert "booked by member1" in found[1].message and "intruder" in found[1].message


def test_without_telemetry_processes_there_are_no_findings(lab):
    assert findings.busy_provider(None, ["ring-1"]) == []
