"""A benchmark run is never left "running" by a worker that died: its
redelivered task (late acks, reject_on_worker_lost) starts it again once, a
second death fails it, and a run that gives no sign of life for
core.runs.HEARTBEAT_STALE_S is failed by the once-a-minute reaper, with the
reason on the API. (A real worker killed mid-run: tests/faults/ does it for
verifications, which share core.runs.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from benchmarks import runs
from benchmarks.models import BenchmarkRun
from core.runs import HEARTBEAT_STALE_S, MAX_ATTEMPTS
from tests.benchmarks import test_django_runs as base
from tests.benchmarks.test_django_runs import committed

fleet_key, server, head = base.fleet_key, base.server, base.head  # fixtures
pytestmark = pytest.mark.django_db


@pytest.fixture
def queued_only(monkeypatch):
    """Starting a run queues it and sends nothing (the worker is played by the test)."""
    from benchmarks import tasks

    monkeypatch.setattr(tasks.run_benchmark, "delay", lambda run_id: None)


def left_running(api_admin, group, task_id: str, *, attempts: int = 1, silent_s: float = 0) -> BenchmarkRun:
    """A run as a worker left it when it died: taken by ``task_id``, its last sign of life ``silent_s`` ago."""
    r = committed(lambda: api_admin.post("/api/benchmarks/runs", {"group": group.pk, "model": "llama-3.3-70b"}))
    assert r.status_code == 202, r.content
    at = timezone.now() - timedelta(seconds=silent_s)
    BenchmarkRun.objects.filter(pk=r.json()["id"]).update(
        status="running", task_id=task_id, attempts=attempts, started_at=at, heartbeat_at=at
    )
    return BenchmarkRun.objects.get(pk=r.json()["id"])


def test_a_run_records_its_worker_and_when_it_started(api_admin, head, server, queued_only):
    r = committed(lambda: api_admin.post("/api/benchmarks/runs", {"group": head.pk, "model": "llama-3.3-70b"}))
    done = runs.run_execute(run_id=r.json()["id"], task_id="task-1")
    assert done is not None and done.status == "done", done.error if done else None
    assert done.task_id == "task-1" and done.attempts == 1
    assert done.started_at is not None and done.heartbeat_at is not None and done.started_at <= done.measured_at


def test_the_redelivered_task_of_a_dead_worker_runs_it_again(api_admin, head, server, queued_only):
    run = left_running(api_admin, head, "task-1")
    assert runs.run_execute(run_id=run.pk, task_id="task-2") is None  # someone else's message: skipped
    assert server.commands == []
    again = runs.run_execute(run_id=run.pk, task_id="task-1")  # its own message, given back
    assert again is not None and again.status == "done" and again.attempts == 2
    assert len(server.commands) == 1


def test_a_run_whose_worker_died_twice_is_failed(api_admin, head, server, queued_only):
    run = left_running(api_admin, head, "task-1", attempts=MAX_ATTEMPTS)
    assert runs.run_execute(run_id=run.pk, task_id="task-1") is None
    run.refresh_from_db()
    assert run.status == "failed" and run.error == "abandoned: the worker running it stopped 2 times; start it again"
    assert server.commands == []


def test_a_silent_run_is_failed_by_the_reaper(api_admin, api_viewer, head, server, queued_only):
    alive = left_running(api_admin, head, "t", silent_s=HEARTBEAT_STALE_S - 20)
    assert runs.runs_abandon_stale() == 0
    BenchmarkRun.objects.filter(pk=alive.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=HEARTBEAT_STALE_S + 1)
    )
    from benchmarks.tasks import reap_benchmark_runs

    assert reap_benchmark_runs.apply().get() == 1  # the once-a-minute beat task
    alive.refresh_from_db()
    assert alive.status == "failed"
    listed = api_viewer.get(f"/api/benchmarks?group={head.pk}")
    assert listed.status_code == 200, listed.content
    (shown,) = [b for b in listed.json() if b["id"] == alive.pk]
    assert shown["status"] == "failed"
    assert shown["error"] == (
        "abandoned: the worker running it stopped (no sign of life for 90 s, killed or restarted); "
        "nothing will finish it, start it again"
    )


def test_the_reaper_and_the_throttle_clean_up_are_scheduled():
    from django_celery_beat.models import PeriodicTask

    from accounts.apps import FORGET_SCHEDULE
    from benchmarks.apps import REAP_SCHEDULE

    reap = PeriodicTask.objects.get(name=REAP_SCHEDULE)
    assert (reap.task, reap.interval.every, reap.interval.period) == ("benchmarks.reap", 1, "minutes")
    forget = PeriodicTask.objects.get(name=FORGET_SCHEDULE)
    assert (forget.task, forget.interval.every, forget.interval.period) == ("accounts.forget_refusals", 1, "days")


def test_the_daily_clean_up_forgets_day_old_refusals_only():
    from accounts.models import Refusal
    from accounts.tasks import forget_refusals

    now = timezone.now()
    old = Refusal.objects.create(
        kind="token", address="10.0.0.1", key="a", count=3, window_start=now - timedelta(days=2)
    )
    paused = Refusal.objects.create(
        kind="token",
        address="10.0.0.2",
        key="b",
        count=0,
        window_start=now - timedelta(days=2),
        paused_until=now + timedelta(minutes=5),
    )
    fresh = Refusal.objects.create(kind="token", address="10.0.0.3", key="c", count=1, window_start=now)
    assert forget_refusals.apply().get() == 1
    assert set(Refusal.objects.values_list("pk", flat=True)) == {paused.pk, fresh.pk}
    assert not Refusal.objects.filter(pk=old.pk).exists()
