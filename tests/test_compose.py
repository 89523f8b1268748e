"""docker-compose.yml is checked where Docker is not: against the compose-spec
JSON schema (check-jsonschema's vendored copy of compose-spec's own schema),
and every reference in it resolved (services, volumes, secrets, the files it
mounts, the secrets deploy/make-secrets.sh writes, the environment variables
it sets are ones the app reads, the modules its commands start). The image's
.dockerignore keeps local data and secrets out. Where ``docker compose``
exists, its own ``config`` check runs too. tests/deploy/test_compose_smoke.py
runs the services' commands as processes."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
APP_DIRS = [p for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
READ = re.compile(r"""(?:environ(?:\.get)?|getenv|\benv(?:_\w+)?|setting|_get)\(\s*["']([A-Z][A-Z0-9_]+)["']""")
READ_INDEX = re.compile(r"""environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]""")
# Read by libraries, not by our code.
LIBRARY_READS = {"PROMETHEUS_MULTIPROC_DIR"}
LONG_RUNNING = {"postgres", "redis", "web", "worker", "beat", "prometheus", "alertmanager", "grafana"}
ONE_OFF = {"migrate", "alertmanager-config"}


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


def check_schema(path: Path) -> subprocess.CompletedProcess[str]:
    checker = Path(sys.executable).parent / "check-jsonschema"
    return subprocess.run(  # noqa: S603
        [str(checker), "--builtin-schema", "vendor.compose-spec", str(path)], capture_output=True, text=True
    )


def test_the_compose_spec_schema_accepts_it():
    run = check_schema(COMPOSE)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_schema_check_refuses_a_broken_file(tmp_path):
    """The check is not blind: a dependency condition compose does not know."""
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace("service_completed_successfully", "service_finished", 1))
    run = check_schema(broken)
    assert run.returncode == 1 and "service_finished" in run.stdout + run.stderr


def test_every_service_runs_something_and_depends_on_services_that_exist(compose):
    services = compose["services"]
    assert LONG_RUNNING | ONE_OFF == set(services)
    for name, service in services.items():
        assert "image" in service or "build" in service, name
        if "build" in service:
            assert (ROOT / service["build"] / "Dockerfile").is_file(), name
        for dependency in service.get("depends_on", {}):
            assert dependency in services, f"{name} depends on unknown service {dependency}"


def test_long_running_services_restart_and_report_their_health_and_one_offs_run_once(compose):
    services = compose["services"]
    for name in LONG_RUNNING:
        assert services[name]["restart"] == "unless-stopped", name
        assert services[name]["healthcheck"]["test"], name
    for name in ONE_OFF:
        assert services[name]["restart"] == "no" and "healthcheck" not in services[name], name
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
        assert services[name]["depends_on"]["redis"] == {"condition": "service_healthy"}, name
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert "migrate" not in services["web"]["command"], "migrations run in the migrate job only"


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
            source = secret["source"] if isinstance(secret, dict) else secret
            assert source in declared_secrets, f"{name} uses undeclared secret {source}"


def test_make_secrets_writes_every_secret_compose_reads_and_never_overwrites_one(compose, tmp_path):
    (tmp_path / "deploy").mkdir()
    shutil.copy(ROOT / "deploy" / "make-secrets.sh", tmp_path / "deploy")
    script = str(tmp_path / "deploy" / "make-secrets.sh")
    first = subprocess.run(["bash", script], capture_output=True, text=True, check=True)  # noqa: S603, S607
    assert first.stdout.startswith("Made in secrets/: ")
    secrets = tmp_path / "secrets"
    assert (secrets.stat().st_mode & 0o777) == 0o700
    for name, spec in compose["secrets"].items():
        default = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", spec["file"])
        path = tmp_path / default
        assert path.is_file() and path.read_text().strip(), f"secret {name}: {default} not written"
    before = {p.name: p.read_bytes() for p in secrets.iterdir()}
    again = subprocess.run(["bash", script], capture_output=True, text=True, check=True)  # noqa: S603, S607
    assert again.stdout.startswith("Every secret already exists")
    assert {p.name: p.read_bytes() for p in secrets.iterdir()} == before
    assert len((secrets / "secret_key").read_text().strip()) >= 50
    assert (secrets / "fleet_ssh_key.pub").read_text().startswith("ssh-ed25519 ")


def test_the_app_reads_every_variable_compose_sets_for_it(compose):
    reads = app_reads()
    assert {"DATABASE_URL", "CELERY_BROKER_URL", "FLEET_POLL_CHUNK"} <= reads  # the scanner sees settings and conf
    for name, service in app_services(compose).items():
        unknown = sorted(set(service.get("environment", {})) - reads)
        assert not unknown, f"{name} sets variables the app never reads: {unknown}"


def test_prometheus_reaches_the_app_by_a_host_it_allows(compose):
    allowed = compose["services"]["web"]["environment"]["ALLOWED_HOSTS"]
    config = yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "spark-fleet"]
    (target,) = job["static_configs"][0]["targets"]
    host = target.split(":")[0]
    assert host in compose["services"], target
    assert host in re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", allowed).split(","), allowed
    # the served engines' list comes from the same address, with the same token
    (engines,) = [j for j in config["scrape_configs"] if j["job_name"] == "spark-fleet-engines"]
    (found,) = engines["http_sd_configs"]
    assert found["url"] == f"http://{target}/metrics/serving-targets"
    assert found["authorization"] == job["authorization"]


def test_commands_start_modules_that_exist(compose):
    for name, service in app_services(compose).items():
        words = shlex.split(service["command"].replace("&&", " && "))
        if "celery" in words:
            app = words[words.index("-A") + 1]
            assert (ROOT / app / "celery.py").is_file(), name
            if "--scheduler" in words:
                module, _, attr = words[words.index("--scheduler") + 1].partition(":")
                assert importlib.util.find_spec(module) is not None, name
                assert attr in (ROOT / (module.replace(".", "/") + ".py")).read_text(), name
        if "gunicorn" in words:
            module = words[words.index("gunicorn") + 1].split(":")[0]
            assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), name
        if "manage.py" in words:
            command = words[words.index("manage.py") + 1]
            found = list(ROOT.glob(f"*/management/commands/{command}.py"))
            assert command in {"migrate", "collectstatic"} or found, name


# Paths the image must never contain (the build context's local state), and
# paths it needs.
KEPT_OUT = [
    ".venv/bin/python",
    ".git/config",
    "var/fleet.sqlite3",
    "var/secret_key",
    "var/fleet_ssh_key",
    "var/demo-8100/fleet.sqlite3",
    "var-ci/gw0/secret_key",
    "secrets/fleet_ssh_key",
    "secrets/postgres_password",
    "staticfiles/css/fleet.css",
    "telemetry/__pycache__/metrics.cpython-311.pyc",
    "spark_fleet.egg-info/PKG-INFO",
    "fleet.sqlite3",
    "backups/fleet-20261201-020000.backup",
]
KEPT_IN = ["manage.py", "fleet/settings.py", "static/css/fleet.css", "labs/demo.yaml", "deploy/prometheus/alerts.yml"]


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it (Go's filepath.Match, plus ``**``
    for any number of folders, none included)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def ignored(path: str, patterns: list[str]) -> bool:
    """A path is left out when a pattern matches it or any folder above it."""
    parts = path.split("/")
    regexes = [pattern_regex(p.strip("/")) for p in patterns]
    return any(r.match("/".join(parts[:depth])) for r in regexes for depth in range(1, len(parts) + 1))


def test_the_image_leaves_out_local_data_and_secrets():
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert not [p for p in patterns if p.startswith("!")], "no exceptions: they are easy to get wrong"
    leaked = [path for path in KEPT_OUT if not ignored(path, patterns)]
    assert not leaked, f"the image would contain {leaked}"
    dropped = [path for path in KEPT_IN if ignored(path, patterns)]
    assert not dropped, f"the image would miss {dropped}"


def test_the_image_runs_as_its_own_user_on_a_folder_it_cannot_write():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "\nUSER fleet\n" in dockerfile
    assert "|| true" not in dockerfile, "no step may fail silently"
    assert "chown -R" not in dockerfile and "chown fleet /app" not in dockerfile, "/app stays root's"
    assert "/run/fleet-metrics" in dockerfile  # the metrics volume's mount point belongs to the app user


def test_docker_compose_config_accepts_it():
    docker = shutil.which("docker")
    if docker is None or subprocess.run([docker, "compose", "version"], capture_output=True).returncode != 0:  # noqa: S603
        pytest.skip("docker compose is not installed here; the checks above stand in for it")
    env = {**os.environ}
    result = subprocess.run(  # noqa: S603
        [docker, "compose", "-f", str(COMPOSE), "--profile", "monitoring", "config", "--quiet"],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
