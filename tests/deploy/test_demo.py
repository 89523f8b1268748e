"""The README's first command, run for real: ``./run demo`` on free ports with
its own var folder starts the simulated fleet, a worker with beat and the
web app; its /metrics then carries the worker's task runs and poll phases
(the demo shares PROMETHEUS_MULTIPROC_DIR between them, so every Grafana
panel has data), and Ctrl-C (SIGINT) stops everything it started."""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.tools import free_port_below_ephemeral

ROOT = Path(__file__).resolve().parent.parent.parent
WANTED = {
    "poll chunks counted by the worker": re.compile(
        r'fleet_task_runs_total\{outcome="success",task="telemetry\.poll_chunk"\} [1-9]'
    ),
    "poll phases timed by the worker": re.compile(r'fleet_poll_phase_seconds_count\{phase="ssh"\} [1-9]'),
    "pages counted by the web app": re.compile(
        r'fleet_http_requests_total\{method="GET",route="/metrics",status="2xx"\} [1-9]'
    ),
    "the fleet's state": re.compile(r'fleet_node_up\{node="spark-01"\} 1\.0'),
}

# How a user's shell starts ``./run demo``: SIGINT, SIGTERM and SIGHUP at their
# defaults and unblocked. A test process can hold either ignored or blocked
# (a pytest worker after some library's tests did), and bash can never trap a
# signal that was ignored when it started: Ctrl-C would then stop nothing.
AS_A_SHELL_STARTS_IT = (
    "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
    "[signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]; "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)


def stray(var: Path) -> list[int]:
    """Processes still running whose environment names this demo's var folder."""
    wanted = f"FLEET_VAR_DIR={var}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                if wanted in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def scrape(port: int) -> str:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:  # noqa: S310
            return response.read().decode()
    except (OSError, http.client.HTTPException):
        return ""


def start_demo(tmp_path: Path, wrapper: str, **settings: str) -> tuple[subprocess.Popen[bytes], int]:
    """``./run demo`` on free ports with its own var folder, started through
    ``wrapper`` (how its parent hands it its signals), its output in demo.log;
    and its web app's port."""
    # The simulated Sparks take ports the OS picks: the web app's must not be one it can pick.
    port = free_port_below_ephemeral()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY"}}
    env.update(PORT=str(port), FLEET_SIM_BASE_PORT="0", FLEET_VAR_DIR=str(tmp_path / "var"), **settings)
    env.pop("PYTEST_XDIST_WORKER", None)
    log = (tmp_path / "demo.log").open("wb")
    command = [sys.executable, "-c", wrapper, "./run", "demo"]
    demo = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip
    return demo, port


def left_running(demo: subprocess.Popen[bytes], tmp_path: Path) -> list[int]:
    """Kills whatever the demo left (its group if it still runs; then every
    process of its var folder), and says which were left."""
    if demo.poll() is None:
        os.killpg(demo.pid, signal.SIGKILL)
        demo.wait()
    left = stray(tmp_path / "var")
    for pid in left:  # only this demo's processes: their environment names this test's var folder
        os.kill(pid, signal.SIGKILL)
    return left


def until_migrating(demo: subprocess.Popen[bytes], tmp_path: Path) -> str:
    """The demo's output once it has started migrating its database."""
    log = tmp_path / "demo.log"
    deadline = time.monotonic() + 120
    while "Migrating the database" not in log.read_text():
        assert demo.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.2)
    return log.read_text()


def test_the_demo_counts_the_workers_tasks_and_polls_in_its_metrics(tmp_path):
    demo, port = start_demo(tmp_path, AS_A_SHELL_STARTS_IT, FLEET_POLL_INTERVAL_S="5")
    try:
        deadline = time.monotonic() + 300
        missing = list(WANTED)
        while missing:
            assert demo.poll() is None, f"the demo stopped:\n{(tmp_path / 'demo.log').read_text()[-3000:]}"
            text = scrape(port)
            missing = [what for what, pattern in WANTED.items() if not pattern.search(text)]
            if missing:
                assert time.monotonic() < deadline, f"missing {missing}:\n{(tmp_path / 'demo.log').read_text()[-3000:]}"
                time.sleep(3)
        assert (tmp_path / "var" / "metrics").is_dir() and list((tmp_path / "var" / "metrics").glob("*.db"))
    finally:
        os.killpg(demo.pid, signal.SIGINT)
        try:
            demo.wait(30)
        except subprocess.TimeoutExpired:
            pass
        left = left_running(demo, tmp_path)
    assert not left, f"./run demo left processes running: {left}"
    assert demo.returncode == 130
    assert "Stopped." in (tmp_path / "demo.log").read_text()


# How nohup, or a script's background job, starts it: SIGINT ignored, which bash can never trap.
WITH_SIGINT_IGNORED = (
    "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
    "signal.signal(signal.SIGINT, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_DFL); "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)


def test_a_demo_started_with_sigint_ignored_says_ctrl_c_cannot_stop_it_and_kill_does(tmp_path):
    """Started with SIGINT ignored, ``./run demo`` says at once that Ctrl-C
    cannot stop it and names the command that does (its own pid); that
    command stops it while it is still migrating, with nothing left running."""
    demo, _ = start_demo(tmp_path, WITH_SIGINT_IGNORED)
    try:
        lines = until_migrating(demo, tmp_path).splitlines()
        assert lines[:2] == [
            "Warning: this demo was started with SIGINT ignored (nohup, or a script's background job):",
            f"  Ctrl-C cannot stop it. Stop it with: kill {demo.pid}",
        ]
        os.kill(demo.pid, signal.SIGINT)  # ignored: it runs on
        time.sleep(1)
        assert demo.poll() is None
        os.kill(demo.pid, signal.SIGTERM)  # what the warning says
        demo.wait(90)
    finally:
        left = left_running(demo, tmp_path)
    assert demo.returncode == 143
    assert not left, f"./run demo left processes running: {left}"


def test_closing_the_terminal_stops_the_demo(tmp_path):
    """The terminal that started ``./run demo`` closes: SIGHUP stops it, and
    everything it started, as Ctrl-C does (exit 129), with no warning."""
    demo, _ = start_demo(tmp_path, AS_A_SHELL_STARTS_IT)
    try:
        assert not until_migrating(demo, tmp_path).startswith("Warning")
        os.kill(demo.pid, signal.SIGHUP)
        demo.wait(90)
    finally:
        left = left_running(demo, tmp_path)
    assert demo.returncode == 129
    assert not left, f"./run demo left processes running: {left}"
