"""Fixtures for reservations: a lab with a switched group of eight, a ring of
four and a direct pair; members; and a clock helper (whole minutes from now)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.actor import Actor
from core.roles import MEMBER
from inventory.models import NodeGroup
from tests.conftest import make_user
from tests.support.catalogue import seed_catalogue

# The minute a bookings test started: every ``hours`` of one test counts from it,
# so two bookings meant to touch end to end cannot straddle a minute's turn.
_START: list[datetime] = []


@pytest.fixture(autouse=True)
def _one_minute_per_test() -> Any:
    _START[:] = [datetime.now(UTC).replace(second=0, microsecond=0)]
    yield
    _START.clear()


def hours(h: float) -> datetime:
    """Now plus ``h`` hours, on a whole minute, in UTC (within a bookings test,
    "now" is the minute it started)."""
    now = _START[0] if _START else datetime.now(UTC).replace(second=0, microsecond=0)
    return now + timedelta(hours=h)


def iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


@pytest.fixture
def lab(import_lab: Any) -> dict[str, NodeGroup]:
    seed_catalogue()
    import_lab("lab8-crs804.yaml", "ring4.yaml", "pair.yaml")
    groups = {g.kind: g for g in NodeGroup.objects.filter(auto=True, retired_at=None)}
    assert set(groups) >= {"switched", "ring", "direct"}, groups
    return groups


@pytest.fixture
def member2(db: Any) -> Any:
    return make_user("member2", MEMBER)


def actor(user: Any) -> Actor:
    return Actor(user=user, source="test")
