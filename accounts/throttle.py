"""Sign-in throttling with django-axes.

The login page and the admin sign in through ``authenticate(request, ...)``,
which this backend checks first: a username and address cooling off are
refused even with the right password. Code that authenticates without a
request (a shell, Django's test client ``login()``) has no address to count
and is left to the next backend.
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend


class ThrottledSignIn(AxesStandaloneBackend):
    def authenticate(
        self, request: Any, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def lockout_response(request: Any, original_response: Any = None, credentials: Any = None) -> Any:
    """What a paused sign-in gets: the API answers in its JSON error shape, pages with a page."""
    from django.conf import settings
    from django.http import HttpResponse, JsonResponse
    from django.shortcuts import render

    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {
                "message": f"too many failed sign-ins from this address; try again in {minutes} minutes",
                "errors": [],
            },
            status=429,
        )
    else:
        response = render(request, "accounts/locked.html", {"minutes": minutes}, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response
