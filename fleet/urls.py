"""URL map. Feature apps add their pages here.

Every page needs a signed-in user (Django's ``LoginRequiredMiddleware``),
except the views marked ``login_not_required``: sign-in, /health/, /metrics,
the calendar feeds, and the admin and the API, which say who may in, and
answer, on their own (the API with 401 in JSON).
"""

from typing import Any

from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.urls import URLPattern, URLResolver, include, path

from bookings.urls import feed_urlpatterns

from . import views
from .api import api
from .health import health


def answering_for_themselves(urls: Any) -> Any:
    """``urls`` (a list of patterns, or ``include``'s tuple) with each view marked
    ``login_not_required``: the admin and the API refuse strangers on their own."""
    patterns = urls[0] if isinstance(urls, tuple) else urls
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            answering_for_themselves(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            view = pattern.callback
            # A bound method (the API's operations, some admin views) takes the mark on its function.
            login_not_required(getattr(view, "__func__", view))
    return urls


urlpatterns = [
    path("", views.home, name="home"),
    path("health/", health, name="health"),
    path("admin/", answering_for_themselves(admin.site.urls)),
    path("api/", answering_for_themselves(api.urls)),
    path("accounts/", include("accounts.urls")),
    path("notifications/", include("notifications.urls")),
    path("", include("inventory.urls")),
    path("bookings/", include("bookings.urls")),
    path("feeds/", include(feed_urlpatterns)),
    path("", include("placement.urls")),
    path("", include("benchmarks.urls")),
    path("", include("telemetry.urls")),
    path("", include("topology.urls")),
    path("", include("fabric.urls")),
    path("", include("design.urls")),
]

# Django's own error answers: JSON on the API, and 503 with Retry-After while
# the database or the broker is down (core.outage).
handler400 = "core.outage.bad_request"
handler500 = "core.outage.server_error"
