"""Typed pages of API lists: ``Page[SparkOut]`` says in /api/openapi.json
what every item is, and ``page()`` cuts one page with bounded ``limit`` and
``offset`` (the query types ``Limit`` and ``Offset`` refuse anything beyond)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from ninja import Schema

from .validation import Limit, Offset

T = TypeVar("T")

__all__ = ["Limit", "Offset", "Page", "page"]


class Page(Schema, Generic[T]):
    count: int
    items: list[T]


def page(rows: Any, out: Callable[[Any], Any], limit: int, offset: int) -> dict[str, Any]:
    """One page of a queryset (or list): ``count`` of all rows, ``items`` converted by ``out``."""
    count = rows.count() if hasattr(rows, "count") and not isinstance(rows, list) else len(rows)
    chosen: Iterable[Any] = rows[offset : offset + limit]
    return {"count": count, "items": [out(item) for item in chosen]}
