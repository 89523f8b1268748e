""" "Could I book this?" without booking: the same checks as
``services.booking_create`` (window, nodes, clashes, health, the person's
limit), collected instead of raised. The booking form asks it on every
change (htmx) and scripts ask it through the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from core.health import UNHEALTHY

from . import conf, selectors
from .errors import BookingError
from .rules import ClashGroup, group_clashes, window_errors

if TYPE_CHECKING:
    from core.types import Visitor


@dataclass
class Availability:
    target: selectors.Target | None = None
    errors: list[tuple[str, str]] = field(default_factory=list)
    clashes: list[ClashGroup] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # unhealthy nodes: booking needs a confirmation
    limit: str = ""

    @property
    def free(self) -> bool:
        return self.target is not None and not (self.errors or self.clashes or self.limit)


def availability_check(
    *,
    user: Visitor | None,
    group: Any = None,
    nodes: Any = None,
    start: datetime | None,
    end: datetime | None,
    exclude: int | None = None,
    now: datetime | None = None,
) -> Availability:
    now = now or timezone.now()
    out = Availability()
    try:
        out.target = selectors.target_resolve(group=group, nodes=nodes)
    except BookingError as exc:
        out.errors += exc.errors
    out.errors += window_errors(
        start, end, now=now, max_hours=conf.max_hours(), max_ahead_days=conf.max_ahead_days(), grace=conf.START_GRACE
    )
    if out.target is None:
        return out
    health = selectors.node_health(out.target.ids)
    out.warnings = [f"{name} is {health[pk]}" for pk, name in out.target.sparks if health.get(pk) in UNHEALTHY]
    if start is not None and end is not None and start.tzinfo is not None and end.tzinfo is not None and end > start:
        found = selectors.clashes(spark_ids=out.target.ids, start=start, end=end, exclude=exclude)
        out.clashes = group_clashes(found, start, end)
    if exclude is None and user is not None and user.pk:
        held, limit = selectors.active_count(user=user, now=now), conf.max_active_per_user()
        if held >= limit:
            out.limit = f"you already hold {held} upcoming or running bookings (the limit is {limit})"
    return out
