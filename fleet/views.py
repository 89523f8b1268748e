"""The home page: what the fleet holds, at a glance."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from inventory import selectors


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"counts": selectors.counts()})
