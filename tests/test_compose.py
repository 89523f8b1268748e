"""docker-compose.yml is checked where Docker is not: parsed, and every
reference in it resolved (services, volumes, secrets, files it mounts, the
environment variables it sets are ones the app reads, the modules its
commands start). Where ``docker compose`` exists, its own ``config`` check runs too."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
APP_DIRS = [p for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
READ = re.compile(r"""(?:environ(?:\.get)?|getenv|env_\w+|setting|_get)\(\s*["']([A-Z][A-Z0-9_]+)["']""")
READ_INDEX = re.compile(r"""environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]""")
# Read by libraries, not by our code.
LIBRARY_READS = {"PROMETHEUS_MULTIPROC_DIR"}


def app_reads() -> set[str]:
    names = set(LIBRARY_READS)
    for folder in APP_DIRS:
        for path in folder.rglob("*.py"):
            text = path.read_text()
            names |= set(READ.findall(text)) | set(READ_INDEX.findall(text))
    return names


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def app_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in compose["services"].items() if "build" in s}


def test_every_service_runs_something_and_depends_on_services_that_exist(compose):
    services = compose["services"]
    assert {"postgres", "redis", "web", "worker", "beat"} <= set(services)
    for name, service in services.items():
        assert "image" in service or "build" in service, name
        if "build" in service:
            assert (ROOT / service["build"] / "Dockerfile").is_file(), name
        for dependency in service.get("depends_on", {}):
            assert dependency in services, f"{name} depends on unknown service {dependency}"


def test_volumes_secrets_and_mounted_files_resolve(compose):
    declared_volumes, declared_secrets = set(compose.get("volumes") or {}), set(compose.get("secrets") or {})
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith((".", "/")):
                assert (ROOT / source).exists(), f"{name} mounts missing file {source}"
            else:
                assert source in declared_volumes, f"{name} uses undeclared volume {source}"
        for secret in service.get("secrets", []):
            assert secret in declared_secrets, f"{name} uses undeclared secret {secret}"


def test_the_app_reads_every_variable_compose_sets_for_it(compose):
    reads = app_reads()
    assert {"DATABASE_URL", "CELERY_BROKER_URL", "FLEET_POLL_CHUNK"} <= reads  # the scanner sees settings and conf
    for name, service in app_services(compose).items():
        unknown = sorted(set(service.get("environment", {})) - reads)
        assert not unknown, f"{name} sets variables the app never reads: {unknown}"


def test_commands_start_modules_that_exist(compose):
    for name, service in app_services(compose).items():
        words = shlex.split(service["command"].replace("&&", " && "))
        if "celery" in words:
            app = words[words.index("-A") + 1]
            assert (ROOT / app / "celery.py").is_file(), name
            if "--scheduler" in words:
                module, _, attr = words[words.index("--scheduler") + 1].partition(":")
                assert importlib.util.find_spec(module) is not None, name
        if "gunicorn" in words:
            module = words[words.index("gunicorn") + 1].split(":")[0]
            assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), name
        if "manage.py" in words:
            assert words[words.index("manage.py") + 1] in {"migrate", "collectstatic"}, name


def test_docker_compose_config_accepts_it():
    docker = shutil.which("docker")
    if docker is None or subprocess.run([docker, "compose", "version"], capture_output=True).returncode != 0:  # noqa: S603
        pytest.skip("docker compose is not installed here; the checks above stand in for it")
    env = {**os.environ, "SECRET_KEY": "x" * 40}
    result = subprocess.run(  # noqa: S603
        [docker, "compose", "-f", str(COMPOSE), "--profile", "monitoring", "config", "--quiet"],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
