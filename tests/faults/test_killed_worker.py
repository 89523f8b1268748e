"""A worker killed with ``kill -9`` in the middle of a fabric verification:
the run is not left "running" with its group blocked. Its message was never
acknowledged (late acks), so it comes back, and the run starts again:

- only the pool process killed (an OOM kill): the worker gives the message
  back at once (``reject_on_worker_lost``);
- the whole worker killed (a lost machine): another worker takes the message
  once it has been unacknowledged for the visibility timeout (45 s here,
  FLEET_BROKER_VISIBILITY_S; an hour by default, longer than any run).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from tests.faults.stack import wait_for
from tests.faults.test_outages import group_id, run_row

pytestmark = pytest.mark.faults


def pool_children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def start_run(stack) -> int:
    r = stack.post(f"/api/groups/{group_id(stack)}/verify", stack.tokens["admin"])
    assert r.status_code == 202, r.text[:300]
    run_id = r.json()["id"]
    wait_for("the verification to run", lambda: run_row(stack, run_id)["status"] == "running", 60)
    time.sleep(2)  # a row or two in
    return run_id


def test_a_killed_pool_process_gives_its_run_back(servers_up):
    stack = servers_up
    stack.start_sim(nccl_row_s=2)
    worker = stack.start_worker(concurrency=1)
    run_id = start_run(stack)
    (child,) = pool_children(worker.pid)
    os.kill(child, signal.SIGKILL)
    done = wait_for("the run to be done", lambda: run_row(stack, run_id)["status"] in ("done", "failed"), 90)
    assert done
    row = run_row(stack, run_id)
    assert row["status"] == "done" and row["attempts"] == 2, row
    assert "WorkerLostError" in stack.log("worker") and stack.alive("worker")


def test_a_killed_worker_leaves_its_run_to_another(servers_up):
    stack = servers_up
    stack.start_sim(nccl_row_s=2)
    stack.start_worker(concurrency=1)
    run_id = start_run(stack)
    stack.stop("worker", signal.SIGKILL)  # the whole worker, at once: nothing is acknowledged or given back
    assert run_row(stack, run_id)["status"] == "running"
    stack.start_worker("worker2", concurrency=1)
    done = wait_for("another worker to finish the run", lambda: run_row(stack, run_id)["status"] == "done", 150)
    assert done and run_row(stack, run_id)["attempts"] == 2
    again = stack.post(f"/api/groups/{group_id(stack)}/verify", stack.tokens["admin"])
    assert again.status_code == 202, again.text[:300]  # the group is free
    wait_for("the next run", lambda: run_row(stack, again.json()["id"])["status"] == "done", 90)
