"""The one htmx helper of the pages, through django-htmx.

``HtmxMiddleware`` (in settings) gives every request ``request.htmx``
(``HtmxDetails``: truthy when htmx sent it, with ``target``, ``trigger``...);
``HtmxHttpRequest`` says so to the type checker, and ``htmx_of`` reads it from
any request. A view renders the whole page, or only the partial htmx swaps
(django-template-partials: ``template#name``), by asking ``partial``:

    return render(request, partial(request, "inventory/spark_list.html", "rows", target="rows"), context)
"""

from __future__ import annotations

from typing import cast

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def htmx_of(request: HttpRequest) -> HtmxDetails:
    """django-htmx's details of a request (the middleware sets them on every one)."""
    return cast(HtmxHttpRequest, request).htmx


def htmx_asks(request: HttpRequest, target: str | None = None) -> bool:
    """True when htmx sent the request (and aimed it at the element ``target``, when given)."""
    details = htmx_of(request)
    return bool(details) and (target is None or details.target == target)


def partial(request: HttpRequest, template: str, name: str, *, target: str | None = None) -> str:
    """``template#name`` when htmx asks for it (for element ``target``, when given), else ``template``."""
    return f"{template}#{name}" if htmx_asks(request, target) else template
