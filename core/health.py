"""The one vocabulary of health, for every floor: what a Spark's (or a
group's) health can be, in the order pages list them.

- ``ok``: polled recently, no warning or critical alert;
- ``degraded``: a warning or critical alert (still usable, with care);
- ``down``: its last poll did not reach it, or it presented another host key;
- ``unknown``: no current sample (stale for 3 poll intervals, or its host key
  is not accepted yet);
- ``new``: never polled, or its host key awaits acceptance: not down.

A poll judges the first four (``SAMPLED``, what a stored sample holds);
``new`` comes from the inventory. Plain Python: pure modules, models, pages,
schemas and /metrics all read it from here.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class HealthStatus(StrEnum):
    OK = "ok"
    DEGRADED = "degraded"
    DOWN = "down"
    UNKNOWN = "unknown"
    NEW = "new"

    @property
    def label(self) -> str:
        return "OK" if self is HealthStatus.OK else self.value.capitalize()

    @property
    def unhealthy(self) -> bool:
        """Degraded or down: plans and bookings warn about it."""
        return self in UNHEALTHY


HEALTH_STATUSES: tuple[HealthStatus, ...] = tuple(HealthStatus)
SAMPLED: tuple[HealthStatus, ...] = (HealthStatus.OK, HealthStatus.DEGRADED, HealthStatus.DOWN, HealthStatus.UNKNOWN)
UNHEALTHY = frozenset({HealthStatus.DEGRADED, HealthStatus.DOWN})
# The choices of a stored sample's status (telemetry.NodeSample, NodeState).
SAMPLED_CHOICES = [(h.value, h.label) for h in SAMPLED]

# The same values as a type for schemas (``/api/openapi.json`` lists them as
# an enum of strings) and typed fields; tests/core checks it against the enum.
HealthValue = Literal["ok", "degraded", "down", "unknown", "new"]
