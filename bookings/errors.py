"""What booking services raise when a request cannot be applied: 400, 403
and 409 on the ground floor's error base (the API root answers them; pages
show them inline). Nothing has been written when they are raised."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any

from core import errors

from .rules import ClashGroup


class BookingError(errors.BadInput):
    """Bad input: (field, message) pairs, answered with 400."""


class NotAllowed(errors.Forbidden):
    """The signed-in person may not do this (403)."""


class BookingConflict(errors.Conflict):
    """The request clashes with the state of things (409): other bookings or
    maintenance on the nodes, a limit reached, or a booking already over."""

    def __init__(self, message: str, clashes: list[ClashGroup] | None = None, *, path: str = "") -> None:
        super().__init__(message, path)
        self.head = message
        self.clashes = clashes or []

    def __str__(self) -> str:
        return self.message(UTC)

    def answer(self) -> tuple[int, dict[str, Any]]:
        return self.status, errors.envelope(self.prefix + self.message(UTC), self.details(UTC))

    def message(self, tz: tzinfo = UTC) -> str:
        if not self.clashes:
            return self.head
        return f"{self.head}: " + "; ".join(c.message(tz) for c in self.clashes)

    def details(self, tz: tzinfo = UTC) -> list[dict[str, Any]]:
        if not self.clashes:
            return [{"path": self.path, "message": self.head}]
        return [
            {
                "path": "nodes",
                "message": c.message(tz),
                "kind": c.kind,
                "booking" if c.kind == "booking" else "maintenance": c.ref,
                "owner" if c.kind == "booking" else "planned_by": c.who,
                "nodes": list(c.nodes),
                "start": _iso(c.start),
                "end": _iso(c.end),
                "overlap": {"start": _iso(c.overlap_start), "end": _iso(c.overlap_end)},
            }
            for c in self.clashes
        ]


class NeedsConfirmation(BookingConflict):
    """Some nodes are down or degraded: book again with ``confirm`` to go ahead."""

    def __init__(self, warnings: list[str]) -> None:
        super().__init__("confirm to book unhealthy nodes: " + "; ".join(warnings), path="confirm")
        self.warnings = warnings


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")
