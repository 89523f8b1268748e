from django.urls import path

from . import views

app_name = "design"
urlpatterns = [
    path("design/", views.design_page, name="design"),
    path("design/document/", views.design_document, name="document"),
    path("design/netplan/", views.design_netplan, name="netplan"),
]
