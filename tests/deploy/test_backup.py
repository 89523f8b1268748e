"""Backups and upgrades, run for real in processes of their own, on SQLite and
on PostgreSQL whatever database the suite itself uses:

- ``manage.py backup`` then ``manage.py restore --yes`` of a populated lab
  (inventory, users and tokens, bookings, maintenance, benchmarks, fabric
  verifications, alerts and deliveries: tests/deploy/populate.py) gives back
  every row, after the lab was changed in between; ``dumpdata`` of the
  whole database is the comparison;
- a restore that cannot be done (a truncated backup, another engine's file,
  no --yes) says why and changes nothing;
- an upgrade: a database migrated and populated by the previous release's
  own code (``git archive`` of PREVIOUS_RELEASE) is migrated by this code with
  nothing lost (every row and field the previous release wrote is still there).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent.parent
POPULATE = Path(__file__).resolve().parent / "populate.py"
# The commit before this production work began: its migrations are the previous release's schema.
PREVIOUS_RELEASE = "054c77b4d982f6dbcdd0be063e1b5b2480a5de6f"
DB = settings.DATABASES["default"]
PG_SERVER = DB["ENGINE"] == "django.db.backends.postgresql"
ENGINES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", DB["HOST"], "-p", str(DB["PORT"] or 5432), "-U", DB["USER"] or "postgres", "-d", "postgres",
         "-v", "ON_ERROR_STOP=1", "-q", "-c", sql],
        check=True, capture_output=True, env={**os.environ, "PGPASSWORD": DB.get("PASSWORD") or ""},
    )  # fmt: skip


@pytest.fixture(params=ENGINES)
def database(request, tmp_path) -> Iterator[str]:
    """A DATABASE_URL of a fresh, empty database of each engine."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fleet.sqlite3'}"
        return
    if not PG_SERVER:
        pytest.skip("the suite runs without PostgreSQL (DATABASE_URL)")
    name = f"backup_{uuid.uuid4().hex[:10]}"
    psql(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgres://{DB['USER'] or 'postgres'}@{DB['HOST']}:{DB['PORT'] or 5432}/{name}"
    finally:
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(
    url: str, tmp_path: Path, *args: str, code: Path = ROOT, check: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_SETTINGS"))}
    env.pop("CELERY_BROKER_URL", None)  # a broker of its own under its var folder: nothing queued leaves the test
    env.update(
        DATABASE_URL=url,
        FLEET_VAR_DIR=str(tmp_path / "var"),
        SECRET_KEY="backup-test-key-0123456789abcdefghijklmnopqrstuvwxyz",
        PYTHONPATH=str(code),
    )
    run = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=code, env=env, capture_output=True, text=True, timeout=300
    )
    if check:
        assert run.returncode == 0, f"manage.py {' '.join(args)}:\n{run.stdout}\n{run.stderr}"
    return run


def everything(url: str, tmp_path: Path, code: Path = ROOT) -> dict[tuple[str, object], dict]:
    """Every row of every table the apps own, by (model, primary key)."""
    out = tmp_path / f"dump-{uuid.uuid4().hex[:6]}.json"
    manage(url, tmp_path, "dumpdata", "--output", str(out), code=code)
    return {(row["model"], row["pk"]): row["fields"] for row in json.loads(out.read_text())}


def populated(url: str, tmp_path: Path, code: Path = ROOT) -> None:
    manage(url, tmp_path, "migrate", "--noinput", code=code)
    manage(url, tmp_path, "shell", "-c", f"exec(open({str(POPULATE)!r}).read())", code=code)


def kinds(rows: dict[tuple[str, object], dict]) -> set[str]:
    return {model for model, _ in rows}


POPULATED = {
    "inventory.spark", "inventory.cable", "inventory.change", "auth.user", "accounts.apitoken", "bookings.booking",
    "bookings.allocation", "bookings.maintenancewindow", "benchmarks.benchmarkrun", "fabric.fabricrun",
    "telemetry.alert", "notifications.delivery", "notifications.subscription",
}  # fmt: skip
# Models that moved to another app since the previous release, on the same table and rows.
MOVED = {"placement.benchmarkrun": "benchmarks.benchmarkrun"}


def as_now(rows: dict[tuple[str, object], dict]) -> dict[tuple[str, object], dict]:
    """The previous release's rows under today's model names (a moved model's
    content type moves with it, so its permissions and log entries follow)."""
    now = {}
    for (model, pk), fields in rows.items():
        label = f"{fields.get('app_label')}.{fields.get('model')}"
        if model == "contenttypes.contenttype" and label in MOVED:
            fields = {**fields, "app_label": MOVED[label].split(".")[0]}
        now[(MOVED.get(model, model), pk)] = fields
    return now


def test_a_populated_lab_comes_back_whole_and_a_bad_restore_changes_nothing(database, tmp_path):
    populated(database, tmp_path)
    before = everything(database, tmp_path)
    assert POPULATED <= kinds(before)
    backup = tmp_path / "fleet.backup"
    said = manage(database, tmp_path, "backup", str(backup)).stdout
    assert said.startswith(f"Backed up the {database.split(':')[0].replace('postgres', 'postgresql')} database")
    # The lab changes after the backup: a Spark retired, a token revoked, a new user.
    change = (
        "from inventory.models import Spark; from accounts.models import ApiToken; "
        "from django.contrib.auth.models import User; Spark.objects.filter(name='spark-16').delete(); "
        "ApiToken.objects.all().delete(); User.objects.create_user('latecomer', password='x' * 12)"
    )
    manage(database, tmp_path, "shell", "-c", change)
    changed = everything(database, tmp_path)
    assert changed != before

    # Restores that cannot be done say why and change nothing.
    refused = manage(database, tmp_path, "restore", str(backup), check=False)
    assert refused.returncode == 1 and "add --yes to replace everything in the database" in refused.stderr
    truncated = tmp_path / "truncated.backup"
    truncated.write_bytes(backup.read_bytes()[: backup.stat().st_size // 2])
    broken = manage(database, tmp_path, "restore", str(truncated), "--yes", check=False)
    assert broken.returncode == 1 and "nothing was changed" in broken.stderr, broken.stderr
    other = tmp_path / "other.backup"
    other.write_bytes(b"PGDMP" if database.startswith("sqlite") else b"SQLite format 3\x00" + b"\x00" * 100)
    wrong = manage(database, tmp_path, "restore", str(other), "--yes", check=False)
    assert wrong.returncode == 1 and "backup; this database is" in wrong.stderr
    assert everything(database, tmp_path) == changed

    restored = manage(database, tmp_path, "restore", str(backup), "--yes").stdout
    assert restored.endswith("Done: the database is the backup's, at the current schema.\n")
    assert everything(database, tmp_path) == before


@pytest.fixture(scope="module")
def previous_release(tmp_path_factory) -> Path:
    """The previous release's code, from git (the migrations and models as they were)."""
    known = subprocess.run(["git", "cat-file", "-e", f"{PREVIOUS_RELEASE}^{{commit}}"], cwd=ROOT, capture_output=True)
    assert known.returncode == 0, f"the repository's history lacks {PREVIOUS_RELEASE}: clone it whole, not shallow"
    archive = subprocess.run(["git", "archive", PREVIOUS_RELEASE], cwd=ROOT, capture_output=True, check=True).stdout
    folder = tmp_path_factory.mktemp("previous-release")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def test_an_upgrade_from_the_previous_release_keeps_every_row(database, tmp_path, previous_release):
    populated(database, tmp_path, code=previous_release)
    old = as_now(everything(database, tmp_path, code=previous_release))
    assert POPULATED <= kinds(old)
    manage(database, tmp_path, "migrate", "--noinput")
    manage(database, tmp_path, "migrate", "--check")  # nothing left to apply
    new = everything(database, tmp_path)
    lost = [key for key in old if key not in new]
    assert not lost, f"rows gone after the upgrade: {lost[:10]}"
    # beat's change stamp moves whenever an upgrade adds a schedule (it tells beat to reload): by design
    stamp = {(("django_celery_beat.periodictasks", 1), "last_update")}
    changed = [
        (key, name)
        for key, fields in old.items()
        for name, value in fields.items()
        if name in new[key] and new[key][name] != value and (key, name) not in stamp
        and not seed_correction(key, name, value, new[key])
    ]  # fmt: skip
    assert not changed, f"fields changed by the upgrade: {changed[:10]}"
    # and the seed corrections did happen (a migration that silently did nothing would pass above)
    corrected = {
        (key[0], str(new[key].get("slug") or new[key].get("quantization")), str(new[key][name]))
        for key, fields in old.items()
        for name, value in fields.items()
        if key[0].startswith("placement.") and name in new[key] and seed_correction(key, name, value, new[key])
    }
    assert corrected == SEED_CORRECTIONS
    refreshed = {
        new[key]["published_key"]
        for key, fields in old.items()
        for name, value in fields.items()
        if key[0] == "benchmarks.benchmarkrun"
        and new[key][name] != value
        and seed_correction(key, name, value, new[key])
    }
    assert refreshed == REFRESHED_PUBLISHED, refreshed


# What the migrations since the previous release correct on purpose, row by row.
SEED_CORRECTIONS = {
    ("placement.llmmodel", "llama-3.3-70b", "nvidia/Llama-3.3-70B-Instruct-NVFP4"),
    ("placement.llmvariant", "nvfp4", "nvidia/Llama-3.1-8B-Instruct-NVFP4"),
    ("placement.llmmodel", "glm-5.3", "nvidia/GLM-5.3-NVFP4"),
    ("placement.llmmodel", "minicpm5-2b", "openbmb/MiniCPM5-2B"),
    ("placement.llmmodel", "qwen3.5-397b-a17b", "Intel/Qwen3.5-397B-A17B-int4-AutoRound"),
    ("placement.llmmodel", "qwen3.8-27b", "nvidia/Qwen3.8-27B-NVFP4"),
    ("placement.llmmodel", "qwen3.6-35b-a3b", "RedHatAI/Qwen3.6-35B-A3B-NVFP4"),
    ("placement.llmmodel", "qwen3-32b", "Qwen3-32B"),
    ("placement.llmmodel", "qwen3-30b-a3b", "Qwen3-30B-A3B"),
}


# Published figures stored by the previous release whose reference or notes benchmarks 0003 and 0006
# bring up to the seed's words of today (roles, sources, builds and speculative decoding reworded since;
# the check above compares each word).
REFRESHED_PUBLISHED = {
    "gpt-oss-120b-1-kubis", "gpt-oss-120b-2x1-kubis-c16", "gpt-oss-120b-2x1-kubis-c32",
    "gpt-oss-120b-2x1-kubis-c64", "qwen3.6-a3b-1-vllm", "gpt-oss-20b-1-llamacpp", "qwen2.5-coder-7b-1-llamacpp",
}  # fmt: skip


def seed_correction(key: tuple[str, int], name: str, old: object, row: dict[str, object]) -> bool:
    """A change the migrations since the previous release make on purpose: seed models' and
    variants' Hugging Face references renamed to NVIDIA's names (placement 0009) or given
    where a flagship seed had none (placement 0010), and Qwen3.6-35B-A3B's own NVFP4 form
    given its repository (placement 0013); two seed models' names without the format
    (placement 0014); a published figure's reference and notes
    brought up to date with the seed's own words (benchmarks 0003 and 0006), and a llama-bench
    figure's prompt length (benchmarks 0019); an admin's own references
    and measured runs never change."""
    import importlib

    if key[0] == "benchmarks.benchmarkrun" and name in ("reference", "notes", "input_len") and row.get("published_key"):
        from benchmarks.seed import published_notes, published_reference
        from placement.published import PUBLISHED_POINTS

        point = next((p for p in PUBLISHED_POINTS if p.key == row["published_key"]), None)
        if name == "input_len":  # benchmarks 0019: a llama-bench row's prompt length, its figure's
            return point is not None and point.engine == "llama.cpp" and row[name] == point.prompt
        words = {"reference": published_reference, "notes": published_notes}[name]
        return point is not None and row[name] == words(point)
    if name == "name" and key[0] == "placement.llmmodel":
        renamed_seed = importlib.import_module("placement.migrations.0014_seed_names_without_format").RENAMED
        return renamed_seed.get(str(row.get("slug"))) == (old, row[name])
    if name != "hf_repo" or key[0] not in ("placement.llmmodel", "placement.llmvariant"):
        return False
    renamed = importlib.import_module("placement.migrations.0009_nvfp4_references").RENAMED
    given = importlib.import_module("placement.migrations.0010_flagship_references").REFERENCES
    qwen36 = importlib.import_module("placement.migrations.0013_qwen36_nvfp4_repo")
    given = {**given, qwen36.SLUG: qwen36.REPO}
    if renamed.get(old) == row[name]:
        return True
    return key[0] == "placement.llmmodel" and old == "" and given.get(row.get("slug")) == row[name]
