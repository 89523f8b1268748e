"""Outages, with the real servers stopped and started under the running app:

- PostgreSQL stopped: the API answers JSON 503 with Retry-After naming the
  database, pages a short HTML page saying so; once it is back the same
  requests work, with no restart of anything.
- Redis stopped: starting a verification answers 503 naming the broker and
  fails the run with the reason (nothing left queued to block the group);
  once Redis is back the next start is accepted and a worker runs it.
- RabbitMQ (a node of its own) stopped for 15 s under a worker and beat:
  polls are stored again once it is back.
- Redis stopped for 18 s while a worker polls and runs a verification: the
  worker and beat resume by themselves (Celery 5.7.0's worker died there for
  good: "Unrecoverable error: AttributeError: 'NoneType' object has no
  attribute 'hostname'"), polls are stored again, the verification ends.
"""

from __future__ import annotations

import os
import shutil
import time
from datetime import UTC, datetime

import pytest

from tests.faults.stack import RabbitServer, Stack, wait_for
from tests.faults.test_http_edges import sign_in

pytestmark = pytest.mark.faults


def group_id(stack: Stack, name: str = "group-spark-01") -> int:
    groups = stack.get("/api/groups", stack.tokens["viewer"]).json()["items"]
    return next(g["id"] for g in groups if g["name"] == name)


def run_row(stack: Stack, run_id: int) -> dict:
    """The run's row as stored, every column by name."""
    ((row,),) = stack.sql("SELECT to_jsonb(r) FROM fabric_fabricrun r WHERE id = %s", run_id)
    return row


def test_the_database_stopped_and_started(servers_up):
    stack = servers_up
    session = sign_in(stack, "viewer", "viewer-demo-pass")
    token = stack.tokens["viewer"]
    assert stack.get("/api/sparks?limit=1", token).status_code == 200
    stack.pg.stop()
    try:
        for _ in range(5):
            r = stack.get("/api/sparks?limit=1", token)
            assert r.status_code == 503, r.text[:300]
            assert r.headers["Content-Type"].startswith("application/json") and r.headers["Retry-After"] == "10"
            assert r.json()["errors"] == [{"path": "database", "message": "the database is unavailable"}]
        write = stack.post("/api/import?dry_run=true", stack.tokens["admin"], data=b"sparks: []\n",
                           headers={"Content-Type": "application/yaml"})  # fmt: skip
        assert write.status_code == 503 and write.json()["errors"][0]["path"] == "database"
        page = session.get(stack.url("/sparks/"), timeout=30)
        assert page.status_code == 503 and page.headers["Content-Type"].startswith("text/html")
        assert "The database is unavailable" in page.text and page.headers["Retry-After"] == "10"
    finally:
        stack.pg.start()
    back = wait_for("the API to answer again", lambda: stack.get("/api/sparks?limit=1", token).status_code == 200,
                    timeout=30)  # fmt: skip
    assert back
    assert session.get(stack.url("/sparks/"), timeout=30).status_code == 200  # the same session, no restart
    assert stack.alive("web")


def test_the_broker_stopped_fails_the_run_clearly_and_blocks_nothing(servers_up):
    stack = servers_up
    stack.start_sim(nccl_row_s=0.3)
    group = group_id(stack)
    admin = stack.tokens["admin"]
    stack.redis.stop()
    try:
        r = stack.post(f"/api/groups/{group}/verify", admin)
        assert r.status_code == 503, r.text[:300]
        assert r.headers["Content-Type"].startswith("application/json") and r.headers["Retry-After"] == "10"
        assert r.json()["errors"][0]["path"] == "broker"
        (run_id,) = stack.sql("SELECT max(id) FROM fabric_fabricrun WHERE group_id = %s", group)[0]
        row = run_row(stack, run_id)
        assert row["status"] == "failed" and row["error"].startswith("not started: the task queue (broker)")
    finally:
        stack.redis.start()
    again = stack.post(f"/api/groups/{group}/verify", admin)
    assert again.status_code == 202, again.text[:300]  # not "already under way"
    stack.start_worker()
    done = wait_for("the verification to finish", lambda: run_row(stack, again.json()["id"])["status"] == "done",
                    timeout=120)  # fmt: skip
    assert done


def test_worker_and_beat_resume_after_redis_restarts_mid_run(servers_up):
    stack = servers_up
    stack.start_sim(nccl_row_s=8)  # a verification of four sizes takes about 32 s
    stack.start_worker(concurrency=2)
    stack.start_beat()
    wait_for("polls to be stored", lambda: stack.sql("SELECT count(*) FROM telemetry_nodesample")[0][0] > 0, 90)
    r = stack.post(f"/api/groups/{group_id(stack)}/verify", stack.tokens["admin"])
    assert r.status_code == 202, r.text[:300]
    run_id = r.json()["id"]
    wait_for("the verification to run", lambda: run_row(stack, run_id)["status"] == "running", 60)
    time.sleep(3)
    stack.redis.stop()
    time.sleep(18)
    stack.redis.start()
    restarted = datetime.now(UTC)
    wait_for(
        "polls stored after the restart",
        lambda: stack.sql("SELECT count(*) FROM telemetry_nodesample WHERE at > %s", restarted)[0][0] > 0,
        timeout=90,
    )
    final = wait_for("the verification to end", lambda: run_row(stack, run_id)["status"] in ("done", "failed"), 150)
    assert final
    assert run_row(stack, run_id)["status"] == "done", run_row(stack, run_id)
    assert stack.alive("worker") and stack.alive("beat")
    assert "Unrecoverable error" not in stack.log("worker")
    # and the worker still takes new work: a second verification runs to its end
    r = stack.post(f"/api/groups/{group_id(stack)}/verify", stack.tokens["admin"])
    assert r.status_code == 202, r.text[:300]
    second = wait_for("a second verification", lambda: run_row(stack, r.json()["id"])["status"] == "done", 150)
    assert second


def test_worker_and_beat_resume_after_rabbitmq_restarts(servers_up):
    """The same with RabbitMQ as the broker: a node of its own, stopped for 15 s."""
    if not shutil.which("rabbitmq-server") and not os.path.exists("/usr/sbin/rabbitmq-server"):
        pytest.fail("this test needs rabbitmq-server (./run test installs it)")
    stack = servers_up
    rabbit = RabbitServer(stack.folder)
    rabbit.start()
    try:
        amqp = {"CELERY_BROKER_URL": rabbit.url}
        stack.start_sim()
        stack.start_worker(env=amqp)
        stack.start_beat(env=amqp)
        since = datetime.now(UTC)
        stored = "SELECT count(*) FROM telemetry_nodesample WHERE at > %s"
        wait_for("polls through RabbitMQ", lambda: stack.sql(stored, since)[0][0] > 0, 90)
        rabbit.stop()
        time.sleep(15)
        rabbit.start()
        restarted = datetime.now(UTC)
        wait_for("polls stored after the restart", lambda: stack.sql(stored, restarted)[0][0] > 0, 120)
        assert stack.alive("worker") and stack.alive("beat")
        assert "Unrecoverable error" not in stack.log("worker")
    finally:
        for name in ("beat", "worker"):
            stack.stop(name)
        rabbit.remove()
