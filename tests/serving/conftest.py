"""Fixtures for serving: the direct pair of labs/pair.yaml booked for the
member for two hours, and helpers that book and serve."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import TestCase

from bookings.services import booking_create
from core.actor import Actor
from inventory.models import NodeGroup
from tests.support.catalogue import seed_catalogue

SMALL = "llama-3.1-8b"  # fits one Spark: a one-node plan


def book(user: Any, group: NodeGroup, hours: float = 2.0) -> Any:
    start = datetime.now(UTC).replace(microsecond=0)
    return booking_create(
        actor=Actor(user=user, source="test"),
        group=group.pk,
        start=start,
        end=start + timedelta(hours=hours),
        purpose="serving tests",
    )


def committed(call: Any) -> Any:
    """Run ``call`` and then its on_commit hooks (the worker's task), as a real commit would."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return call()


@pytest.fixture
def pair(import_lab: Any) -> NodeGroup:
    seed_catalogue()
    import_lab("pair.yaml")
    return NodeGroup.objects.get(auto=True, retired_at=None, kind="direct")


@pytest.fixture
def booked_pair(pair: NodeGroup, member_user: Any) -> NodeGroup:
    book(member_user, pair)
    return pair


@pytest.fixture
def member2_client(db: Any) -> Any:
    from core.roles import MEMBER
    from tests.conftest import ApiClient, make_user

    return ApiClient(make_user("member2", MEMBER))
