"""What serving adds to the floors below it (``core.hooks``): nodes serving
through this app are not busy without a booking, no fabric verification
starts beside a live engine (``fabric.services.BUSY_SPARKS``), a booking's end reminder
says what it serves and that it stops at the end, and /metrics counts each
live serving's ranks whose NCCL fell back to TCP sockets."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric

from bookings.findings import SERVED_NODES
from bookings.models import Booking
from bookings.notify import ENDING_EXTRAS
from fabric.services import BUSY_SPARKS
from telemetry.metrics import METRIC_PROVIDERS

from .models import LIVE, Serving
from .selectors import served_nodes
from .services import busy_serving


def ending_lines(booking: Booking) -> list[str]:
    rows = Serving.objects.filter(booking=booking, status__in=LIVE).select_related("model")
    return [
        f"Spark Fleet serves {s.model.slug} ({s.quantization}) there for {s.owner_name} (serving {s.pk}"
        f"{', ' + s.url if s.url else ''}): it is stopped when the booking ends."
        for s in rows
    ]


def socket_ranks() -> Iterator[Metric]:
    """fleet_serving_nccl_socket_ranks: per serving that serves now and whose
    engines' NCCL was read, how many ranks chose TCP sockets (0: all on RoCE)."""
    family = GaugeMetricFamily(
        "fleet_serving_nccl_socket_ranks",
        "Per live multi-node serving, how many ranks' NCCL chose TCP sockets instead of RoCE, as the engines' "
        "own logs said once they answered; ServingOnTcpSockets fires above 0.",
        labels=["serving", "group", "model"],
    )
    rows = Serving.objects.filter(status=Serving.Status.SERVING).select_related("model").order_by("pk")
    for s in rows.only("pk", "group_name", "steps", "model__slug"):
        if s.engine_networks:
            family.add_metric([str(s.pk), s.group_name, s.model.slug], len(s.engine_socket_hosts))
    yield family


def register() -> None:
    SERVED_NODES.add(served_nodes)
    BUSY_SPARKS.add(busy_serving)  # no fabric verification beside a live engine
    ENDING_EXTRAS.add(ending_lines)
    METRIC_PROVIDERS.add(socket_ranks)
