"""Telemetry pages: the fleet dashboard and alerts under /telemetry/, and each
Spark's telemetry as a tab of its page, /sparks/<name>/telemetry/. The old
/telemetry/nodes/<name>/ addresses redirect permanently."""

from django.urls import path

from core.redirects import moved

from . import discovery, metrics, views

app_name = "telemetry"
urlpatterns = [
    path("telemetry/", views.dashboard, name="dashboard"),
    path("sparks/<str:name>/telemetry/", views.node, name="node"),
    path("sparks/<str:name>/telemetry/hostkey/accept/", views.hostkey_accept, name="hostkey_accept"),
    path("telemetry/alerts/", views.alerts, name="alerts"),
    path("telemetry/alerts/<int:alert_id>/ack/", views.alert_ack, name="alert_ack"),
    path("software/", views.software, name="software"),
    path("software/expected/", views.software_expected, name="software_expected"),
    path("metrics", metrics.metrics, name="metrics"),
    path("metrics/spark-targets", discovery.scrape_sparks, name="spark-targets"),
    # moved
    path("telemetry/nodes/<str:name>/", moved("telemetry:node")),
    path("telemetry/nodes/<str:name>/hostkey/accept/", moved("telemetry:hostkey_accept")),
]
