"""Old addresses that moved: a permanent redirect to the URL's new name
(301 for reads; 308 for writes, so a form or script keeps its method and body)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.urls import reverse


def moved(pattern_name: str) -> Callable[..., HttpResponse]:
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        url = reverse(pattern_name, kwargs=kwargs)
        if request.META.get("QUERY_STRING"):
            url += "?" + request.META["QUERY_STRING"]
        if request.method in ("GET", "HEAD"):
            return HttpResponsePermanentRedirect(url)
        return HttpResponse(status=308, headers={"Location": url})

    return view
