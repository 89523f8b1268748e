"""Topology pages: /topology/, /groups/<id>/ (and its admin forms), /memory/."""

from django.urls import path

from . import views

app_name = "topology"
urlpatterns = [
    path("topology/", views.topology, name="topology"),
    path("groups/<int:group_id>/", views.group_page, name="group"),
    path("groups/<int:group_id>/subgroups/", views.subgroup_create, name="subgroup_create"),
    path("groups/<int:group_id>/rename/", views.group_rename, name="group_rename"),
    path("groups/<int:group_id>/delete/", views.group_delete, name="group_delete"),
    path("memory/", views.memory, name="memory"),
]
