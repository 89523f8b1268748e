"""The minute task and its beat schedule; busy-without-booking findings fed
from telemetry's latest processes, on the node's group."""

from __future__ import annotations

from types import SimpleNamespace

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


def proc(pid, name, user):
    return SimpleNamespace(pid=pid, name=name, user=user, used_mib=900)


def test_busy_sparks_become_findings_on_their_group(lab, member_user, monkeypatch):
    import telemetry.selectors

    seen = {
        "ring-1": [proc(11, "python3", "member1")],
        "ring-2": [proc(12, "vllm", "intruder")],
        "node-05": [proc(13, "llama-server", None)],
    }
    monkeypatch.setattr(
        telemetry.selectors,
        "latest_processes",
        lambda nodes: {n: p for n, p in seen.items() if n in nodes},
        raising=False,
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
