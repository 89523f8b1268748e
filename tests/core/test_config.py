"""core.config, the one reader of the project's configuration."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from core.config import as_bool, as_list, env, setting


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
