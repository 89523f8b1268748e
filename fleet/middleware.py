"""Every page needs a signed-in user, except sign-in itself, static files,
the API (which answers 401 in JSON on its own), the metrics endpoint and
/health/ (load balancers and container healthchecks carry no session)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

OPEN_PREFIXES = ("/accounts/login/", "/static/", "/api/", "/metrics", "/health/", "/admin/", "/feeds/")


class LoginRequiredMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.user.is_authenticated and not request.path.startswith(OPEN_PREFIXES):
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)
