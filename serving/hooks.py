"""What serving adds to the floors below it (``core.hooks``): nodes serving
through this app are not busy without a booking, and a booking's end
reminder says what it serves and that it stops at the end."""

from __future__ import annotations

from bookings.findings import SERVED_NODES
from bookings.models import Booking
from bookings.notify import ENDING_EXTRAS

from .models import LIVE, Serving
from .selectors import served_nodes


def ending_lines(booking: Booking) -> list[str]:
    rows = Serving.objects.filter(booking=booking, status__in=LIVE).select_related("model")
    return [
        f"Spark Fleet serves {s.model.slug} ({s.quantization}) there for {s.owner_name} (serving {s.pk}"
        f"{', ' + s.url if s.url else ''}): it is stopped when the booking ends."
        for s in rows
    ]


def register() -> None:
    SERVED_NODES.add(served_nodes)
    ENDING_EXTRAS.add(ending_lines)
