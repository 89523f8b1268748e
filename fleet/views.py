"""The home page: what the fleet holds, how it is grouped, what changed."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from inventory import selectors
from inventory.models import Change
from topology.live import live_state


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    live = live_state()
    return render(
        request,
        "home.html",
        {
            "counts": selectors.counts(),
            "groups": [(view, live.group(view)) for view in live.overview.groups],
            "changes": Change.objects.all()[:8],
        },
    )
