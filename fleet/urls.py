"""URL map. Feature apps add their pages here."""

from django.contrib import admin
from django.urls import include, path

from bookings.urls import feed_urlpatterns

from . import views
from .api import api
from .health import health

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/", api.urls),
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
    path("", include("serving.urls")),
]

# Django's own error answers: JSON on the API, and 503 with Retry-After while
# the database or the broker is down (core.outage).
handler400 = "core.outage.bad_request"
handler500 = "core.outage.server_error"
