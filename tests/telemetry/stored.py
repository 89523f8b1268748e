"""Stored poll rounds without SSH: the simulator's own rendering of what a
Spark prints, parsed by the product's parser and stored by the product's
store service. For tests about what happens after a poll (metrics, alerts,
notifications), where the SSH leg is covered elsewhere."""

from __future__ import annotations

from datetime import UTC, datetime

from core.actor import Actor
from inventory.labio import lab_import
from simfleet.simulator import SimEndpoint, SimNode, render_poll_output
from telemetry.expectations import expectations_for
from telemetry.parsers import parse_poll_output
from telemetry.sample import PollResult
from telemetry.services import StoreReport, results_store
from tests.support.catalogue import seed_catalogue
from tests.telemetry.django_sim import ids, lab_for


def register(nodes: list[SimNode]) -> None:
    seed_catalogue()
    endpoints = {n.name: SimEndpoint(n.name, "127.0.0.1", 22, "") for n in nodes}
    lab_import(actor=Actor(source="import"), data=lab_for(nodes, endpoints))


def store_round(nodes: list[SimNode], *, down: set[str] = frozenset(), now: datetime | None = None) -> StoreReport:  # type: ignore[assignment]
    """One poll round: every node answers as the simulator would, except those in ``down``."""
    at = now or datetime.now(UTC)
    results = []
    for node in nodes:
        if node.name in down:
            results.append(PollResult(node.name, at, False, None, "connection refused", None, "ok", 1.0))
        else:
            sample = parse_poll_output(render_poll_output(nodes, node.name))
            results.append(PollResult(node.name, at, True, sample, "", None, "ok", 5.0))
    spark_ids = ids(*(n.name for n in nodes))
    return results_store(results=results, now=now, expectations=expectations_for(spark_ids))
