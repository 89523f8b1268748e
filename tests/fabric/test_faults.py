"""A verification never stays half-started: a broker that cannot take its
task fails the run at once with the reason (and the API answers 503); a run
whose worker died is started again by its redelivered task, or failed once
it has been silent for HEARTBEAT_STALE_S, so the group is free again.
(With a real worker killed and a real Redis stopped: tests/faults/.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import TestCase
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerDown

from core.runs import MAX_ATTEMPTS
from fabric import services
from fabric.models import FabricRun
from tests.fabric.test_django_verify import fast, group_of, pair
from tests.telemetry import django_sim
from tests.telemetry.django_sim import sim_lab

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_broker_that_is_down_fails_the_run_with_the_reason(api_admin, fleet_key, tmp_path, settings, monkeypatch):
    from fabric import tasks

    def refuse(run_id):
        raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.verify_fabric, "delay", refuse)
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        group = group_of("fab-a")
        with TestCase.captureOnCommitCallbacks(execute=True):
            r = api_admin.post(f"/api/groups/{group.pk}/verify")
        assert r.status_code == 503 and r["Retry-After"] == "10"
        assert r.json()["errors"] == [{"path": "broker", "message": r.json()["errors"][0]["message"]}]
        assert "could not be queued" in r.json()["message"]
        run = FabricRun.objects.get(group=group)
        assert run.status == "failed" and run.verdict == "failed" and run.finished_at is not None
        assert run.error.startswith("not started: the task queue (broker) is unavailable")
        monkeypatch.setattr(tasks.verify_fabric, "delay", lambda run_id: None)
        again = api_admin.post(f"/api/groups/{group.pk}/verify")  # nothing is left blocking the group
        assert again.status_code == 202


def _running(group, task_id: str, *, attempts: int = 1, silent_s: float = 0) -> FabricRun:
    """A run as a worker left it when it died: taken, with its task's id."""
    from core.actor import Actor

    run = services.verification_start(actor=Actor(source="command"), group_id=group.pk, queue=False)
    at = timezone.now() - timedelta(seconds=silent_s)
    FabricRun.objects.filter(pk=run.pk).update(
        status="running", task_id=task_id, attempts=attempts, started_at=at, heartbeat_at=at
    )
    run.refresh_from_db()
    return run


def test_the_redelivered_task_of_a_dead_worker_runs_it_again(fleet_key, tmp_path, settings):
    with sim_lab(pair(), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        group = group_of("fab-a")
        run = _running(group, "task-1")
        assert services.verification_execute(run_id=run.pk, task_id="task-2") is None  # someone else's: skipped
        assert fleet.stats("fab-a").execs == 0
        done = services.verification_execute(run_id=run.pk, task_id="task-1")  # its own message, back
        assert done is not None and done.status == "done" and done.attempts == 2
        assert fleet.stats("fab-a").execs == 1


def test_a_run_whose_worker_died_twice_is_failed(fleet_key, tmp_path, settings):
    with sim_lab(pair(), fleet_key, tmp_path, settings) as fleet:
        group = group_of("fab-a")
        run = _running(group, "task-1", attempts=MAX_ATTEMPTS)
        assert services.verification_execute(run_id=run.pk, task_id="task-1") is None
        run.refresh_from_db()
        assert run.status == "failed" and "stopped 2 times" in run.error
        assert fleet.stats("fab-a").execs == 0


def test_a_silent_run_is_failed_and_frees_its_group(api_viewer, fleet_key, tmp_path, settings):
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        group = group_of("fab-a")
        alive = _running(group, "t", silent_s=services.HEARTBEAT_STALE_S - 20)
        assert services.runs_abandon_stale() == 0
        FabricRun.objects.filter(pk=alive.pk).update(
            heartbeat_at=timezone.now() - timedelta(seconds=services.HEARTBEAT_STALE_S + 1)
        )
        from fabric.tasks import reap_fabric_runs

        assert reap_fabric_runs.apply().get() == 1  # the once-a-minute beat task
        alive.refresh_from_db()
        assert alive.status == "failed" and alive.error.startswith("abandoned: the worker running it stopped")
        shown = api_viewer.get(f"/api/verifications/{alive.pk}").json()
        assert shown["status"] == "failed" and "no sign of life for 90 s" in shown["error"]


def test_the_reaper_is_scheduled():
    from django_celery_beat.models import PeriodicTask

    from fabric.apps import REAP_SCHEDULE

    task = PeriodicTask.objects.get(name=REAP_SCHEDULE)
    assert task.task == "fabric.reap" and task.interval.every == 1 and task.interval.period == "minutes"
