"""Role checks for pages: the same rules as the API (core.roles)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.roles import can_book, can_edit_inventory


def _guard(check: Callable[[Any], bool], need: str) -> Callable[..., Any]:
    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not check(request.user):
                return render(request, "403.html", {"need": need}, status=403)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


admin_required = _guard(can_edit_inventory, "the lab admin role")
booker_required = _guard(can_book, "the member or lab admin role")
