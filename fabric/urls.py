"""Fabric pages: verification from the group page, run pages, netplan downloads."""

from django.urls import path

from . import views

app_name = "fabric"
urlpatterns = [
    path("groups/<int:group_id>/verify/", views.verify, name="verify"),
    path("groups/<int:group_id>/fabric/", views.panel, name="panel"),
    path("groups/<int:group_id>/netplan.zip", views.group_netplan, name="group_netplan"),
    path("sparks/<str:name>/netplan.yaml", views.spark_netplan, name="spark_netplan"),
    path("fabric/runs/<int:run_id>/", views.run_page, name="run"),
]
