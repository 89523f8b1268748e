"""The production shape, run for real without Docker: docker-compose.yml's own
commands (the migrate job, gunicorn, a Celery worker, beat) and healthchecks,
read from the file itself, run as processes with the image's environment
(the Dockerfile's ENV) and compose's (its defaults), DEBUG off, against
PostgreSQL (a fresh database on the suite's server) and Redis (its own
redis-server), with the secrets deploy/make-secrets.sh writes, from a copy of
the app folder the app cannot write to (as root, each process runs in its own
mount namespace where the folder is a read-only bind mount; otherwise the
folder loses its write bits).

It checks that every healthcheck passes, /health/ answers 200, pages and a
static file are served, the README's first-admin command works and its
sign-in reaches the home page, beat's schedule reaches the worker (its task
runs show up in /metrics through the shared multiprocess folder), and that
nothing was written in the app folder. If the compose file drifts (a
command, a variable, a secret), this runs what it now says.
"""

from __future__ import annotations

import html
import http.cookiejar
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dj_database_url
import pytest
import yaml
from django.conf import settings

from tests.tools import free_port

ROOT = Path(__file__).resolve().parent.parent.parent
VENV_BIN = Path(sys.executable).parent
IS_ROOT = os.geteuid() == 0
DB = settings.DATABASES["default"]

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(DB["ENGINE"] != "django.db.backends.postgresql", reason="compose runs PostgreSQL"),
]


def interpolate(value: str, given: dict[str, str]) -> str:
    """Compose's ``${VAR:-default}`` and ``${VAR}`` with what the lab set (``given``), and ``$$``."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(3) or ""
        return given.get(name, default)

    return re.sub(r"\$\{([A-Z_]+)(:?-([^}]*))?\}", one, value).replace("$$", "$")


def image_env() -> dict[str, str]:
    """The Dockerfile's ENV lines."""
    env: dict[str, str] = {}
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("ENV "):
            for pair in shlex.split(line[4:]):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


class Stack:
    """The host side of the compose stack: folders standing in for the image and its mounts."""

    def __init__(self, base: Path, compose: dict[str, Any]) -> None:
        self.base = base
        self.compose = compose
        self.app = base / "app"
        self.home = base / "home"
        self.logs = base / "logs"
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.port = free_port()
        self.redis_port = free_port()
        self.db_name = f"smoke_{uuid.uuid4().hex[:10]}"
        self.redis: subprocess.Popen[bytes] | None = None

    # -- the image and its mounts
    def build(self) -> None:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True,
        ).stdout.decode()  # fmt: skip
        for name in filter(None, listed.split("\0")):
            source = ROOT / name
            if source.is_file() and not name.startswith(("secrets/", "var")):
                target = self.app / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        # the host's secrets, made by the documented command, then "mounted" (compose bind-mounts each file)
        host = self.base / "host"
        (host / "deploy").mkdir(parents=True)
        shutil.copy(ROOT / "deploy" / "make-secrets.sh", host / "deploy")
        subprocess.run(["bash", str(host / "deploy" / "make-secrets.sh")], check=True, capture_output=True)
        mounted = self.base / "run" / "secrets"
        mounted.mkdir(parents=True)
        for secret in (host / "secrets").iterdir():
            shutil.copy(secret, mounted / secret.name)
        for folder in (self.home, self.base / "run" / "fleet-metrics", self.base / "tmp", self.logs):
            folder.mkdir(parents=True, exist_ok=True)
        if not IS_ROOT:  # root writes anywhere: it gets a read-only mount instead (argv)
            for path in [self.app, *self.app.rglob("*")]:
                path.chmod(path.stat().st_mode & ~0o222)

    def path(self, inside: str) -> str:
        """A path inside the container, on this host."""
        for prefix, here in (
            ("/run/secrets/", self.base / "run" / "secrets"),
            ("/run/fleet-metrics", self.base / "run" / "fleet-metrics"),
            ("/home/fleet", self.home),
            ("/app", self.app),
        ):
            if inside.startswith(prefix):
                return str(here) + inside[len(prefix.rstrip("/")) :]
        return inside

    def env(self, service: str) -> dict[str, str]:
        env = {"PATH": f"{VENV_BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"}
        env.update(image_env())
        for key, value in self.compose["services"][service].get("environment", {}).items():
            env[key] = interpolate(str(value), {})
        env = {key: self.path(value) for key, value in env.items()}
        # The lab's servers where compose names its services' hosts.
        url = dj_database_url.parse(env["DATABASE_URL"])
        assert url["HOST"] == "postgres" and env["CELERY_BROKER_URL"] == "redis://redis:6379/0"
        env["DATABASE_URL"] = f"postgres://{DB['USER'] or 'postgres'}@{DB['HOST']}:{DB['PORT'] or 5432}/{self.db_name}"
        env["CELERY_BROKER_URL"] = f"redis://127.0.0.1:{self.redis_port}/0"
        env.update(HOME=str(self.home), TMPDIR=str(self.base / "tmp"), HOSTNAME=socket.gethostname())
        env["FLEET_HEALTH_PORT"] = str(self.port)  # the web healthcheck's port (8000 in the container)
        return env

    def argv(self, command: str | list[str]) -> list[str]:
        words = shlex.split(command) if isinstance(command, str) else list(command)
        if words and words[0] in {"python", "gunicorn", "celery"}:
            words[0] = str(VENV_BIN / words[0])
        words = [w.replace("0.0.0.0:8000", f"127.0.0.1:{self.port}") for w in words]
        if IS_ROOT:  # the app folder read-only for this process and its children, as in the image
            app = str(self.app)
            mount = 'mount --bind -o ro "$0" "$0" && exec "$@"'
            words = ["unshare", "--mount", "--propagation", "private", "sh", "-c", mount, app, *words]
        return words

    def run(self, service: str, command: str | list[str], **extra_env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(command), cwd=self.app, env={**self.env(service), **extra_env},
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    def start(self, service: str) -> None:
        log = (self.logs / f"{service}.log").open("wb")
        self.procs[service] = subprocess.Popen(
            self.argv(self.compose["services"][service]["command"]), cwd=self.app, env=self.env(service),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def healthcheck(self, service: str) -> subprocess.CompletedProcess[str]:
        test = self.compose["services"][service]["healthcheck"]["test"]
        if test[0] == "CMD-SHELL":
            return self.run(service, ["sh", "-c", interpolate(test[1], {})])
        assert test[0] == "CMD"
        return self.run(service, test[1:])

    def log(self, service: str) -> str:
        return (self.logs / f"{service}.log").read_text(errors="replace")[-3000:]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    # -- the servers
    def servers_up(self) -> None:
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        psql(f'CREATE DATABASE "{self.db_name}"')

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc in self.procs.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait(10)
        psql(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')


def psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", DB["HOST"], "-p", str(DB["PORT"] or 5432), "-U", DB["USER"] or "postgres", "-d", "postgres",
         "-v", "ON_ERROR_STOP=1", "-q", "-c", sql],
        check=True, capture_output=True, env={**os.environ, "PGPASSWORD": DB.get("PASSWORD") or ""},
    )  # fmt: skip


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def wait_healthy(stack: Stack, service: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        proc = stack.procs[service]
        assert proc.poll() is None, f"{service} exited ({proc.returncode}):\n{stack.log(service)}"
        check = stack.healthcheck(service)
        if check.returncode == 0:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{service}'s healthcheck still fails: {check.stderr}\n{stack.log(service)}")
        time.sleep(1)


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    base = Path(tempfile.mkdtemp(prefix="fleet-smoke-"))
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    stack = Stack(base, compose)
    try:
        stack.build()
        stack.servers_up()
        before = snapshot(stack.app)
        migrated = stack.run("migrate", compose["services"]["migrate"]["command"])
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        for service in ("web", "worker", "beat"):
            stack.start(service)
        for service in ("web", "worker", "beat"):
            wait_healthy(stack, service)
        stack.app_before = before  # type: ignore[attr-defined]
        yield stack
    finally:
        stack.stop()
        shutil.rmtree(base, ignore_errors=True)


def fetch(url: str, opener: urllib.request.OpenerDirector | None = None, **kwargs: Any) -> tuple[int, dict, str]:
    request = urllib.request.Request(url, **kwargs)
    try:
        with (opener or urllib.request.build_opener()).open(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def test_every_service_is_healthy_and_health_answers_for_database_and_broker(stack):
    for service in ("web", "worker", "beat"):
        assert stack.healthcheck(service).returncode == 0, service
    status, _, body = fetch(stack.url("/health/"))
    assert status == 200
    checks = json.loads(body)["checks"]
    assert {name: c["status"] for name, c in checks.items()} == {"database": "ok", "broker": "ok"}


def test_pages_and_static_files_are_served_with_debug_off(stack):
    status, _, page = fetch(stack.url("/accounts/login/"))
    assert status == 200 and 'name="username"' in page
    styles = re.findall(r'href="(/static/[^"]+\.css)"', page)
    assert styles
    status, headers, css = fetch(stack.url(styles[0]))
    assert status == 200 and headers["Content-Type"].startswith("text/css") and css
    status, _, page = fetch(stack.url("/no-such-page/"))  # followed to the sign-in page
    assert status == 200 and 'name="username"' in page and "/no-such-page/" in page


def test_the_first_admin_signs_in_and_reaches_the_home_page(stack):
    made = stack.run(
        "web",
        ["python", "manage.py", "createsuperuser", "--noinput", "--username", "labadmin", "--email", "lab@example.org"],
        DJANGO_SUPERUSER_PASSWORD="a-long-first-password-2026",
    )
    assert made.returncode == 0, made.stderr
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    _, _, form = fetch(stack.url("/accounts/login/"), opener)
    token = html.unescape(re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1))
    data = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token, "username": "labadmin", "password": "a-long-first-password-2026"}
    ).encode()
    status, _, home = fetch(stack.url("/accounts/login/"), opener, data=data, method="POST")
    assert status == 200 and "labadmin" in home, home[:500]
    status, _, missing = fetch(stack.url("/no-such-page/"), opener)
    assert status == 404 and "Traceback" not in missing and "DEBUG = True" not in missing


def test_beats_schedule_reaches_the_worker_and_its_runs_reach_metrics(stack):
    token = (stack.base / "run" / "secrets" / "fleet_metrics_token").read_text().strip()
    assert fetch(stack.url("/metrics"))[0] == 401
    wanted = re.compile(r'fleet_task_runs_total\{outcome="success",task="telemetry\.poll_fleet"\} [1-9]')
    deadline = time.monotonic() + 90
    while True:
        status, _, text = fetch(stack.url("/metrics"), headers={"Authorization": f"Bearer {token}"})
        assert status == 200
        if wanted.search(text):
            break
        assert time.monotonic() < deadline, f"no poll_fleet run counted\n{stack.log('beat')}\n{stack.log('worker')}"
        time.sleep(2)


def test_a_backup_is_made_with_the_images_environment(stack):
    """deploy/backup.sh's command (manage.py backup) with the stack's settings and secrets."""
    target = stack.home / "fleet.backup"
    made = stack.run("migrate", ["python", "manage.py", "backup", str(target)])
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("Backed up the postgresql database") and target.read_bytes()[:5] == b"PGDMP"
    script = (ROOT / "deploy" / "backup.sh").read_text()
    assert "migrate python manage.py backup" in script and "migrate" in stack.compose["services"]


def test_nothing_was_written_in_the_app_folder(stack):
    assert snapshot(stack.app) == stack.app_before
