"""GET /health/ asks the database and the broker for real: 200 with each
check when both answer; 503 with Retry-After and the API's error shape naming
the one that is down (a broker on a closed port, a database that cannot be
reached); no session needed; no password in the answer. The container
healthchecks (python -m fleet.healthcheck) read it and beat's heartbeat."""

from __future__ import annotations

import os
import time

import pytest
from django.db import connection
from django.test import Client

from fleet import health, healthcheck
from fleet.celery import app
from tests.tools import free_port

pytestmark = pytest.mark.django_db


def test_healthy_answers_200_with_each_check():
    response = Client().get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and set(body["checks"]) == {"database", "broker"}
    assert all(check["status"] == "ok" for check in body["checks"].values())
    assert response["Cache-Control"].startswith("max-age=0")


def test_a_broker_that_is_down_is_a_503_naming_it(monkeypatch):
    port = free_port()
    # Nothing listens there. Only the check's own connection is pointed at it: the app's
    # producer pool (which later tests send real tasks through) never sees this URL.
    monkeypatch.setattr(health, "broker_url", lambda: f"redis://fleet:s3cret-password@127.0.0.1:{port}/0")
    response = Client().get("/health/")
    assert response.status_code == 503 and response["Retry-After"] == "10"
    body = response.json()
    assert body["checks"]["database"]["status"] == "ok"
    assert body["checks"]["broker"]["status"] == "down"
    assert [e["path"] for e in body["errors"]] == ["broker"]
    assert body["message"] == "the task queue (broker) is unavailable. Try again in 10 seconds"
    assert "s3cret-password" not in response.content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_database_that_cannot_be_reached_is_a_503_naming_it():
    key, value = ("NAME", "/nonexistent-folder/fleet.sqlite3") if connection.vendor == "sqlite" else ("PORT", "")
    before = connection.settings_dict[key]
    connection.close()
    connection.settings_dict[key] = value or str(free_port())
    try:
        response = Client().get("/health/")
    finally:
        connection.close()
        connection.settings_dict[key] = before
    assert response.status_code == 503 and response["Retry-After"] == "10"
    body = response.json()
    assert body["checks"]["database"]["status"] == "down" and body["checks"]["broker"]["status"] == "ok", body
    assert [e["path"] for e in body["errors"]] == ["database"]
    assert body["errors"][0]["message"].startswith("the database is unavailable: OperationalError: ")


def test_post_is_refused():
    assert Client().post("/health/").status_code == 405


def test_beat_healthcheck_reads_the_heartbeat_age(tmp_path, monkeypatch):
    beat_file = tmp_path / "beat.heartbeat"
    monkeypatch.setenv("FLEET_BEAT_HEARTBEAT", str(beat_file))
    assert healthcheck.beat(90) == f"beat has not ticked yet ({beat_file} missing)"
    beat_file.touch()
    assert healthcheck.beat(90) is None
    old = time.time() - 300
    os.utime(beat_file, (old, old))
    assert healthcheck.beat(90) == f"beat's last tick was 300 s ago ({beat_file})"
    assert healthcheck.main(["beat"]) == 1


def test_beat_scheduler_touches_the_heartbeat_on_every_tick(tmp_path, monkeypatch):
    """With nothing due (an empty schedule), so the tick sends no task anywhere; the real beat's
    ticks are checked by tests/deploy/test_compose_smoke.py through its healthcheck."""
    from fleet.beat import HeartbeatScheduler

    class NothingDue(HeartbeatScheduler):
        @property
        def schedule(self):
            return {}

    beat_file = tmp_path / "beat.heartbeat"
    monkeypatch.setenv("FLEET_BEAT_HEARTBEAT", str(beat_file))
    scheduler = NothingDue(app=app, lazy=True)
    assert scheduler.tick() > 0  # seconds until it looks again
    assert beat_file.is_file()


def test_metrics_token_from_a_file_and_an_unreadable_file_refuses_everyone(settings, tmp_path):
    settings.FLEET_METRICS_TOKEN = ""
    token_file = tmp_path / "token"
    token_file.write_text("sfm_0123456789abcdef\n")
    settings.FLEET_METRICS_TOKEN_FILE = str(token_file)
    assert Client().get("/metrics").status_code == 401
    ok = Client().get("/metrics", headers={"Authorization": "Bearer sfm_0123456789abcdef"})
    assert ok.status_code == 200
    token_file.write_text("")  # an empty secret: the token is optional
    assert Client().get("/metrics").status_code == 200
    settings.FLEET_METRICS_TOKEN_FILE = str(tmp_path / "missing")
    refused = Client().get("/metrics", headers={"Authorization": "Bearer sfm_0123456789abcdef"})
    assert refused.status_code == 503
    assert refused.content.decode().startswith("FLEET_METRICS_TOKEN_FILE cannot be read (No such file or directory)")
