"""Panels a higher app adds to a lower app's page, without the lower app (or
its templates) naming it: the Spark page shows telemetry's health box, a
group's page shows who booked it.

A page offers a slot (``{% load core_panels %}{% panels "spark" spark %}``);
an app registers a renderer for it in its ``AppConfig.ready``. A renderer
takes the page's context (a dict) and the object and returns HTML built from
an autoescaped template.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

Panel = Callable[[Mapping[str, Any], Any], str]

_SLOTS: dict[str, list[tuple[int, Panel]]] = defaultdict(list)


def register(slot: str, panel: Panel, order: int = 50) -> None:
    """Add ``panel`` to ``slot``; lower ``order`` comes first on the page."""
    if all(p is not panel for _, p in _SLOTS[slot]):
        _SLOTS[slot].append((order, panel))
        _SLOTS[slot].sort(key=lambda item: item[0])


def render(slot: str, context: Mapping[str, Any], obj: Any) -> str:
    return "".join(panel(context, obj) for _, panel in _SLOTS[slot])
