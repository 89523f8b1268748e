from django.urls import path

from . import views

app_name = "inventory"
urlpatterns = [
    path("sparks/", views.spark_list, name="spark_list"),
    path("sparks/new/", views.spark_create, name="spark_create"),
    path("sparks/<str:name>/", views.spark_detail, name="spark_detail"),
    path("sparks/<str:name>/edit/", views.spark_edit, name="spark_edit"),
    path("sparks/<str:name>/delete/", views.spark_delete, name="spark_delete"),
    path("switches/", views.switch_list, name="switch_list"),
    path("switches/new/", views.switch_create, name="switch_create"),
    path("switches/<str:name>/", views.switch_detail, name="switch_detail"),
    path("switches/<str:name>/edit/", views.switch_edit, name="switch_edit"),
    path("switches/<str:name>/delete/", views.switch_delete, name="switch_delete"),
    path("cables/", views.cable_list, name="cable_list"),
    path("cables/new/", views.cable_create, name="cable_create"),
    path("cables/<int:cable_id>/", views.cable_detail, name="cable_detail"),
    path("cables/<int:cable_id>/edit/", views.cable_edit, name="cable_edit"),
    path("cables/<int:cable_id>/delete/", views.cable_delete, name="cable_delete"),
    path("catalogue/", views.catalogue_list, name="catalogue_list"),
    path("catalogue/new/", views.catalogue_create, name="catalogue_create"),
    path("lab/import/", views.lab_import, name="lab_import"),
    path("lab/export/", views.lab_export, name="lab_export"),
    path("changes/", views.change_list, name="change_list"),
]
