"""core.config, the one reader of the project's configuration."""

import ast
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from core.config import as_bool, as_list, at_start_readers, env, number, setting, whole


def test_env_reads_the_environment_and_a_blank_value_is_unset(monkeypatch):
    monkeypatch.setenv("FLEET_TEST_NUMBER", "42")
    monkeypatch.setenv("FLEET_TEST_BLANK", "  ")
    monkeypatch.delenv("FLEET_TEST_UNSET", raising=False)
    assert env("FLEET_TEST_NUMBER", 1, int) == 42
    assert env("FLEET_TEST_BLANK", 7, int) == 7 and env("FLEET_TEST_UNSET", 7, int) == 7


def test_a_value_of_the_wrong_type_names_the_variable(monkeypatch):
    monkeypatch.setenv("FLEET_TEST_NUMBER", "forty")
    with pytest.raises(ImproperlyConfigured, match="FLEET_TEST_NUMBER='forty'"):
        env("FLEET_TEST_NUMBER", 1, int)
    monkeypatch.setenv("FLEET_TEST_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLEET_TEST_FLAG='maybe'"):
        env("FLEET_TEST_FLAG", False, as_bool)


def test_django_settings_win_over_the_environment_then_the_default(monkeypatch, settings):
    monkeypatch.setenv("FLEET_TEST_INTERVAL", "60")
    assert setting("FLEET_TEST_INTERVAL", 30, int) == 60
    settings.FLEET_TEST_INTERVAL = 15
    assert setting("FLEET_TEST_INTERVAL", 30, int) == 15
    settings.FLEET_TEST_INTERVAL = ""
    monkeypatch.delenv("FLEET_TEST_INTERVAL")
    assert setting("FLEET_TEST_INTERVAL", 30, int) == 30


def test_booleans_and_lists():
    assert [as_bool(v) for v in ("1", "TRUE", " yes ", "on", "0", "False", "no", "OFF", True)] == [True] * 4 + [
        False
    ] * 4 + [True]
    assert as_list(" a, ,b ,c") == ["a", "b", "c"] and as_list(["x"]) == ["x"]


def test_whole_numbers_and_numbers_within_their_bounds():
    at_least_one, port = whole(1), whole(1, 65535)
    assert [at_least_one(v) for v in ("3", " 12 ", 7, 4.0)] == [3, 12, 7, 4]
    for bad in ("0", "3.5", "three", "", True, 2.5):
        with pytest.raises(ValueError, match="^expected a whole number of at least 1$"):
            at_least_one(bad)
    with pytest.raises(ValueError, match="^expected a whole number from 1 to 65535$"):
        port("65536")
    positive = number(0, above=True)
    assert [positive(v) for v in ("1.5", 2, " 0.25 ")] == [1.5, 2.0, 0.25]
    for bad in ("0", "-1", "nan", "inf", "soon", False):
        with pytest.raises(ValueError, match="^expected a number greater than 0$"):
            positive(bad)
    assert number(0)("0") == 0.0


# (setting, a mistyped value, what start-up says): every kind of reader the apps mark read_at_start
MISTYPED = [
    (
        "FLEET_BOOKING_MAX_HOURS",
        "two weeks",
        "FLEET_BOOKING_MAX_HOURS='two weeks' cannot be read: expected a whole number of at least 1",
    ),
    (
        "FLEET_BOOKING_MAX_ACTIVE_PER_USER",
        "0",
        "FLEET_BOOKING_MAX_ACTIVE_PER_USER='0' cannot be read: expected a whole number of at least 1",
    ),
    (
        "FLEET_POLL_INTERVAL_S",
        "30s",
        "FLEET_POLL_INTERVAL_S='30s' cannot be read: expected a whole number of at least 1",
    ),
    ("FLEET_RAW_RETENTION_H", "-1", "FLEET_RAW_RETENTION_H='-1' cannot be read: expected a number greater than 0"),
    (
        "FLEET_SSH_POOL",
        "maybe",
        "FLEET_SSH_POOL='maybe' cannot be read: expected one of 1, true, yes, on, 0, false, no, off",
    ),
    ("FLEET_ALERT_QUIET_S", "15m", "FLEET_ALERT_QUIET_S='15m' cannot be read: expected a number of at least 0"),
    ("FLEET_ALERT_WEBHOOKS", '[{"name": "ops"}]', "FLEET_ALERT_WEBHOOKS[0].url: an http(s) URL is required"),
    ("FLEET_MONITORING_EMAIL", "ops@lab.example, oncall", "FLEET_MONITORING_EMAIL: 'oncall' is not an email address"),
    (
        "FLEET_SITE_URL",
        "fleet.lab.example",
        "FLEET_SITE_URL='fleet.lab.example' cannot be read: expected an http(s) address such as https://fleet.lab.example.org",
    ),
    ("FLEET_SERVE_PORT", "70000", "FLEET_SERVE_PORT='70000' cannot be read: expected a whole number from 1 to 65535"),
    ("FLEET_SERVE_READY_S", "nan", "FLEET_SERVE_READY_S='nan' cannot be read: expected a number greater than 0"),
    ("FLEET_BENCH_TIMEOUT_S", "0", "FLEET_BENCH_TIMEOUT_S='0' cannot be read: expected a number greater than 0"),
    (
        "FLEET_TOKEN_ADDRESS_LIMIT",
        "many",
        "FLEET_TOKEN_ADDRESS_LIMIT='many' cannot be read: expected a whole number of at least 1",
    ),
    (
        "FLEET_VERIFY_TIMEOUT_S",
        "0",
        "FLEET_VERIFY_TIMEOUT_S='0' cannot be read: expected a whole number from 1 to 86400",
    ),
    ("FLEET_MGMT_IFACE", "enP7s7 ", None),  # blanks around a name are trimmed: no error
    ("FLEET_MGMT_IFACE", "enP7s7;reboot", None),  # printable, no space, slash or colon: Linux would take it too
    (
        "FLEET_MGMT_IFACE",
        "en P7s7",
        "FLEET_MGMT_IFACE='en P7s7' cannot be read: "
        "expected an interface name such as enP7s7 (1 to 15 characters, no space, / or :)",
    ),
    (
        "FLEET_VLLM_IMAGE",
        "vllm;reboot",
        "FLEET_VLLM_IMAGE='vllm;reboot' cannot be read: "
        "not a Docker image reference such as nvcr.io/nvidia/vllm:26.05-py3",
    ),
]


@pytest.mark.parametrize(("name", "value", "said"), MISTYPED)
def test_a_mistyped_setting_stops_start_up_with_its_name(settings, name, value, said):
    """`manage.py check` (and migrate and runserver) read every marked setting:
    a lab reads what is wrong at start-up, not on the first page or task that
    reads it (a booking page answering 500, an alert never announced)."""
    setattr(settings, name, value)
    if said is None:
        call_command("check")
        return
    with pytest.raises(SystemCheckError) as stopped:
        call_command("check")
    assert f"(core.E001) {said}" in str(stopped.value)
    assert str(stopped.value).count("(core.E001)") == 1


def test_an_unreadable_metrics_token_file_stops_start_up(settings, tmp_path):
    settings.FLEET_METRICS_TOKEN = ""
    settings.FLEET_METRICS_TOKEN_FILE = str(tmp_path / "missing")
    with pytest.raises(SystemCheckError) as stopped:
        call_command("check")
    assert (
        "(core.E001) FLEET_METRICS_TOKEN_FILE cannot be read (No such file or directory): "
        "/metrics would refuse every scrape" in str(stopped.value)
    )


def _setting_readers() -> set[tuple[str, str]]:
    """(module, function) of every product function that reads a FLEET_ setting
    through core.config.setting (or notifications' _get), found in the source."""
    root = Path(__file__).resolve().parents[2]
    found = set()
    for path in sorted(root.glob("*/**/*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] in {"tests", "bench", "simfleet", ".venv", "fleet"} or "migrations" in relative.parts:
            continue
        module = ".".join(relative.with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and getattr(call.func, "id", getattr(call.func, "attr", "")) in {"setting", "_get"}
                    and call.args
                    and isinstance(call.args[0], ast.Constant)
                    and str(call.args[0].value).startswith("FLEET_")
                ):
                    found.add((module, node.name))
    return found


def test_every_setting_the_apps_read_is_read_at_start_up():
    """A new setting read anywhere but in a reader start-up calls fails here."""
    readers = _setting_readers()
    assert ("bookings.conf", "max_hours") in readers and ("serving.conf", "base_port") in readers
    marked = {(reader.__module__, reader.__name__) for reader in at_start_readers()}
    # read at start-up through telemetry.conf.metrics_token_readable, which says what an unreadable file means
    marked.add(("telemetry.conf", "metrics_token"))
    assert ("telemetry.conf", "metrics_token_readable") in marked
    assert readers - marked == set()
