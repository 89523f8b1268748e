"""Pages of API lists through django-ninja's pagination: an operation
declared with ``response=list[SparkOut]`` and ``@paginated()`` (ninja's
``@paginate`` with ``FleetPage``) answers ``{"count": ..., "items": [...]}`` with bounded ``limit`` and
``offset`` query parameters (``core.validation``'s ``Limit`` and ``Offset``:
the schema states the bounds and anything beyond is refused with 422).

A view returns the rows (a queryset or a list); when each answer needs more
than the row (a Spark's health from the one state), it returns
``Rows(queryset, convert)`` and ``convert`` turns the rows of the page only,
all at once (so it reads their state in one query, whatever the count).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.http import HttpRequest
from ninja import Schema
from ninja.pagination import LimitOffsetPagination, paginate
from pydantic import create_model

from .validation import Limit, Offset

__all__ = ["FleetPage", "Rows", "paginated"]


@dataclass(frozen=True)
class Rows:
    """The rows of a list and how the rows of one page become its items."""

    rows: Any  # a QuerySet or a Sequence
    convert: Callable[[list[Any]], Sequence[Any]]

    @classmethod
    def each(cls, rows: Any, out: Callable[[Any], Any]) -> Rows:
        """Each row of the page through ``out``."""
        return cls(rows, lambda page: [out(row) for row in page])


class FleetPage(LimitOffsetPagination):
    """``limit`` (1 to 1,000, default ``default_limit``) and ``offset`` (0 to
    10,000,000); the answer keeps the API's shape: ``count`` then ``items``."""

    class Output(Schema):
        count: int
        items: list[Any]

    def __init__(self, default_limit: int = 100, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        fields: dict[str, Any] = {"limit": (Limit, default_limit), "offset": (Offset, 0)}
        self.Input = create_model("PageQuery", __base__=Schema, **fields)  # type: ignore[arg-type]

    def paginate_queryset(self, queryset: Any, pagination: Any, request: HttpRequest, **params: Any) -> Any:
        rows, convert = (queryset.rows, queryset.convert) if isinstance(queryset, Rows) else (queryset, list)
        offset, limit = pagination.offset, pagination.limit
        return {"count": self._items_count(rows), "items": convert(list(rows[offset : offset + limit]))}


F = TypeVar("F", bound=Callable[..., Any])


def paginated(*, default_limit: int = 100) -> Callable[[F], F]:
    """``@paginate(FleetPage, default_limit=...)``, for views in modules with
    ``from __future__ import annotations``: their annotations are resolved in
    their own module first (ninja's wrapper would read them in its own)."""

    def decorate(func: F) -> F:
        func.__annotations__ = typing.get_type_hints(func, include_extras=True)
        return typing.cast(F, paginate(FleetPage, default_limit=default_limit)(func))

    return decorate
