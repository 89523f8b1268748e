"""Trusting the simulated fleet's host keys (demo and tests only)."""

from __future__ import annotations

from django.db import transaction

from core.actor import Actor
from inventory.models import Spark
from telemetry import services
from telemetry.models import NodeState
from telemetry.poller import normalize_key


def host_keys_trust(*, actor: Actor, keys: dict[str, str]) -> list[str]:
    """Record the simulated Sparks' host keys as accepted, name -> key (the
    simulator knows its own keys, so the demo and the tests skip the admin's
    review a real Spark gets). Each is accepted through telemetry's own
    service, with its change-log entry. Returns the names recorded."""
    done = []
    for spark in Spark.objects.filter(name__in=list(keys)):
        with transaction.atomic():
            state, _ = NodeState.objects.select_for_update().get_or_create(spark=spark)
            if normalize_key(state.host_key) == normalize_key(keys[spark.name]):
                continue
            state.presented_key = normalize_key(keys[spark.name]) or ""
            state.save(update_fields=["presented_key"])
        services.host_key_accept(actor=actor, spark=spark)
        done.append(spark.name)
    return done
