"""The app as it runs in production, on servers of its own, for the fault
suite: a PostgreSQL cluster (``pg_createcluster`` on a free port, dropped
afterwards), a Redis server (``redis-server --port N``), gunicorn serving
``fleet.wsgi`` with the repository's ``gunicorn.conf.py``, a Celery worker
and Celery beat as separate processes, and the simulated Sparks. Never the
machine's shared servers: each fault stops and starts its own.

Every process logs to a file under the stack's folder; a failing test
prints the tails (``Stack.tails``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
PG_VERSION = sorted(os.listdir("/usr/lib/postgresql"))[-1] if os.path.isdir("/usr/lib/postgresql") else "15"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, check: Callable[[], Any], timeout: float = 60.0, every: float = 0.3) -> Any:
    """Poll ``check`` until it returns something truthy; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except Exception as exc:  # noqa: BLE001 - a server still starting answers with anything
            last = exc
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), 0.3):
            return True
    except OSError:
        return False


class PgCluster:
    """A PostgreSQL cluster of its own: trust authentication on 127.0.0.1 only."""

    def __init__(self, name: str, port: int) -> None:
        self.name, self.port = name, port

    def create(self) -> None:
        subprocess.run(
            ["pg_createcluster", PG_VERSION, self.name, "-p", str(self.port),
             "-o", "fsync=off", "-o", "max_connections=60", "--", "--auth=trust"],
            check=True, capture_output=True,
        )  # fmt: skip
        self.start()

    def _ctl(self, action: str) -> None:
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", PG_VERSION, self.name, action, "-m", "fast"]
            if action == "stop"
            else ["pg_ctlcluster", "--skip-systemctl-redirect", PG_VERSION, self.name, action],
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        self._ctl("start")
        wait_for("PostgreSQL to accept connections", lambda: self.ready(), timeout=60)

    def stop(self) -> None:
        self._ctl("stop")
        wait_for("PostgreSQL to stop", lambda: not port_open(self.port), timeout=30)

    def ready(self) -> bool:
        return subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)]).returncode == 0

    def drop(self) -> None:
        subprocess.run(["pg_dropcluster", "--stop", PG_VERSION, self.name], capture_output=True)

    def url(self, db: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{db}"


class RedisServer:
    def __init__(self, port: int, folder: Path) -> None:
        self.port, self.folder = port, folder
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.folder / "redis.log", "ab")  # noqa: SIM115 - the process keeps it
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_for("Redis to listen", lambda: port_open(self.port), timeout=20)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
            self.proc = None
        wait_for("Redis to stop", lambda: not port_open(self.port), timeout=10)


class RabbitServer:
    """A RabbitMQ node of its own (name, ports and folders), as the rabbitmq user."""

    def __init__(self, folder: Path) -> None:
        # its own folder, outside the stack's (which only root may enter): the node runs as rabbitmq
        import tempfile

        self.folder = Path(tempfile.mkdtemp(prefix="sf-faults-rabbitmq-"))
        self.log_path = folder / "rabbitmq.log"
        self.port, self.dist_port = free_port(), free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    def start(self) -> None:
        for sub in ("mnesia", "log"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        (self.folder / "enabled_plugins").write_text("[].\n")
        (self.folder / "rabbitmq.conf").write_text("")
        subprocess.run(["chown", "-R", "rabbitmq:rabbitmq", str(self.folder)], check=False)
        env = {
            **os.environ,
            "RABBITMQ_NODENAME": f"sf-faults-{os.getpid()}@localhost",
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_MNESIA_BASE": str(self.folder / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.folder / "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.folder / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(self.folder / "pid"),
            "RABBITMQ_CONFIG_FILE": str(self.folder / "rabbitmq.conf"),
        }
        log = open(self.log_path, "ab")  # noqa: SIM115 - the process keeps it
        self.proc = subprocess.Popen(
            ["rabbitmq-server"], cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        wait_for("RabbitMQ to listen", lambda: port_open(self.port), timeout=90, every=0.5)

    def stop(self) -> None:
        # the Erlang VM runs as rabbitmq, outside the wrapper's process group: stop it by its pid file
        pid_file = self.folder / "pid"
        if pid_file.exists() and pid_file.read_text().strip().isdigit():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            self.proc = None
        wait_for("RabbitMQ to stop", lambda: not port_open(self.port), timeout=60)

    def remove(self) -> None:
        if self.proc is not None:
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Stack:
    folder: Path
    pg: PgCluster
    redis: RedisServer
    web_port: int
    env: dict[str, str] = field(default_factory=dict)
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)

    # -- processes -------------------------------------------------------------------------

    def run(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run(
            [str(VENV_BIN / "python"), "manage.py", *args],
            cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            raise AssertionError(f"manage.py {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
        return done.stdout

    def shell(self, code: str) -> Any:
        """Run Python in a Django shell of the stack; it prints one JSON value last."""
        out = self.run("shell", "-c", code)
        return json.loads(out.strip().splitlines()[-1])

    def spawn(self, name: str, argv: list[str], extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        log = open(self.folder / f"{name}.log", "ab")  # noqa: SIM115 - the process keeps it
        proc = subprocess.Popen(
            argv, cwd=ROOT, env={**self.env, **(extra_env or {})}, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        self.procs[name] = proc
        return proc

    def start_web(self) -> None:
        # gunicorn.conf.py (read from the working directory) sets the rest, as in production
        self.spawn("web", [str(VENV_BIN / "gunicorn"), "fleet.wsgi:application", "--bind",
                           f"127.0.0.1:{self.web_port}", "--workers", "2"])  # fmt: skip
        wait_for("gunicorn to answer", lambda: self.get("/accounts/login/").status_code == 200, timeout=90)

    def start_worker(
        self, name: str = "worker", concurrency: int = 2, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        argv = [str(VENV_BIN / "celery"), "-A", "fleet", "worker", "-n", f"{name}@%h", "-c", str(concurrency),
                "--loglevel=INFO"]  # fmt: skip
        proc = self.spawn(name, argv, env)
        wait_for(f"{name} to be ready", lambda: "ready." in self.log(name), timeout=90)
        return proc

    def start_beat(self, env: dict[str, str] | None = None) -> None:
        self.spawn("beat", [str(VENV_BIN / "celery"), "-A", "fleet", "beat", "--loglevel=INFO",
                            "-s", str(self.folder / "beat-schedule")], env)  # fmt: skip
        wait_for("beat to start", lambda: "beat: Starting" in self.log("beat"), timeout=60)

    def start_sim(self, *, nccl_row_s: float = 1.0) -> None:
        self.spawn(
            "sim",
            [str(VENV_BIN / "python"), "manage.py", "simulate", "--scenario", "labs/demo-scenario.yaml",
             "--base-port", "0", "--trust", "--nccl-row-s", str(nccl_row_s)],
        )  # fmt: skip
        wait_for("the simulated Sparks", lambda: "accepted" in self.log("sim").lower(), timeout=90)

    def stop(self, name: str, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def alive(self, name: str) -> bool:
        proc = self.procs.get(name)
        return proc is not None and proc.poll() is None

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def tails(self, lines: int = 40) -> str:
        out = []
        for path in sorted(self.folder.glob("*.log")):
            text = path.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {path.name}\n" + "\n".join(text))
        return "\n".join(out)

    # -- HTTP ----------------------------------------------------------------------------

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web_port}{path}"

    def get(self, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(kw.pop("headers", {}))
        return requests.get(self.url(path), headers=headers, timeout=kw.pop("timeout", 30), **kw)

    def post(self, path: str, token: str | None = None, **kw: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(kw.pop("headers", {}))
        return requests.post(self.url(path), headers=headers, timeout=kw.pop("timeout", 60), **kw)

    # -- the database, read directly ------------------------------------------------------

    def sql(self, query: str, *args: Any) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.env["DATABASE_URL"].replace("postgres://", "postgresql://"), autocommit=True) as c:
            cursor = c.execute(query, args)
            return list(cursor.fetchall()) if cursor.description is not None else []

    def close(self) -> None:
        for name in list(self.procs):
            self.stop(name, signal.SIGKILL if name.startswith("worker") else signal.SIGTERM, timeout=15)
        if self.redis.proc is not None:
            self.redis.stop()
        self.pg.drop()


def build(folder: Path) -> Stack:
    """Servers, schema, the demo lab and users, a token per role; no process yet."""
    folder.mkdir(parents=True, exist_ok=True)
    pg = PgCluster(f"sf-faults-{os.getpid()}", free_port())
    redis = RedisServer(free_port(), folder)
    stack = Stack(folder=folder, pg=pg, redis=redis, web_port=free_port())
    try:
        pg.create()
        redis.start()
        _prepare(stack, folder)
    except BaseException:
        stack.close()
        raise
    return stack


def _prepare(stack: Stack, folder: Path) -> None:
    pg, redis = stack.pg, stack.redis
    subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(pg.port), "-U", "postgres", "-qc", "CREATE DATABASE fleet"],
                   check=True, capture_output=True)  # fmt: skip
    var = folder / "var"
    if var.exists():
        shutil.rmtree(var)
    var.mkdir()
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_", "CELERY_", "FLEET_"))}
    stack.env = {
        **keep,
        "DJANGO_SETTINGS_MODULE": "fleet.settings",
        "PYTHONUNBUFFERED": "1",
        "DATABASE_URL": pg.url("fleet"),
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis.port}/0",
        "FLEET_VAR_DIR": str(var),
        "SECRET_KEY": "fault-suite-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "DEBUG": "false",
        "FLEET_POLL_INTERVAL_S": "5",
        # a killed worker's message goes to another after 45 s (longer than any run in these tests)
        "FLEET_BROKER_VISIBILITY_S": "45",
        "GUNICORN_BIND": f"127.0.0.1:{stack.web_port}",
        "GUNICORN_WORKERS": "2",
        "PYTHONWARNINGS": "ignore:You're running the worker with superuser privileges",
    }
    stack.run("migrate", "--noinput")
    stack.run("demo")
    stack.tokens = stack.shell(
        "import json\n"
        "from django.contrib.auth.models import User\n"
        "from accounts.tokens import token_create\n"
        "print(json.dumps({u: token_create(user=User.objects.get(username=u), name='faults')[1]"
        " for u in ('admin', 'member', 'viewer')}))"
    )
