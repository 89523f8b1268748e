from django.urls import path

from . import metrics, views

app_name = "telemetry"
urlpatterns = [
    path("telemetry/", views.dashboard, name="dashboard"),
    path("telemetry/nodes/<str:name>/", views.node, name="node"),
    path("telemetry/nodes/<str:name>/hostkey/accept/", views.hostkey_accept, name="hostkey_accept"),
    path("telemetry/alerts/", views.alerts, name="alerts"),
    path("telemetry/alerts/<int:alert_id>/ack/", views.alert_ack, name="alert_ack"),
    path("metrics", metrics.metrics, name="metrics"),
]
