"""The one vocabulary of health (core.health): the enum, the type the API
schemas use, and the choices a stored sample holds agree."""

from typing import get_args

from core.health import HEALTH_STATUSES, SAMPLED_CHOICES, UNHEALTHY, HealthStatus, HealthValue


def test_the_schema_type_lists_exactly_the_enum_in_its_order():
    assert get_args(HealthValue) == tuple(h.value for h in HealthStatus) == HEALTH_STATUSES


def test_a_sample_holds_every_status_but_new_and_unhealthy_means_degraded_or_down():
    assert SAMPLED_CHOICES == [("ok", "OK"), ("degraded", "Degraded"), ("down", "Down"), ("unknown", "Unknown")]
    assert {h for h in HealthStatus if h.unhealthy} == UNHEALTHY == {"degraded", "down"}


def test_a_status_is_its_text_wherever_it_goes():
    assert f"{HealthStatus.DOWN}" == "down" and "degraded" in UNHEALTHY and HealthStatus("new") is HealthStatus.NEW
