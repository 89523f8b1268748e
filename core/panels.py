"""Panels a higher app adds to a lower app's page, without the lower app (or
its templates) naming it: the Spark page shows telemetry's health box, a
group's page shows who booked it.

A page offers a slot (``{% load core_panels %}{% panels "spark" spark %}``);
an app adds a renderer to it in its ``AppConfig.ready``
(``panels.slot("spark").add(spark_panel, order=10)``, a ``core.hooks.Hook``).
A renderer takes the page's context (a dict) and the object and returns HTML
built from an autoescaped template.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .hooks import Hook

Panel = Callable[[Mapping[str, Any], Any], str]

_SLOTS: dict[str, Hook[Panel]] = {}


def slot(name: str) -> Hook[Panel]:
    """The hook of the page slot ``name`` (lower ``order`` comes first on the page)."""
    if name not in _SLOTS:
        _SLOTS[name] = Hook(f"panels.{name}")
    return _SLOTS[name]


def render(name: str, context: Mapping[str, Any], obj: Any) -> str:
    return "".join(panel(context, obj) for panel in slot(name))
