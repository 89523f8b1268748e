"""The home page: what the fleet holds, how it is grouped, what changed."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from inventory import selectors
from inventory.models import Change
from topology.selectors import groups_overview


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    overview = groups_overview()
    return render(request, "home.html", {
        "counts": selectors.counts(),
        "groups": overview.groups,
        "changes": Change.objects.all()[:8],
    })
