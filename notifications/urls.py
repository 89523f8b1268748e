from django.urls import path

from . import views

app_name = "notifications"
urlpatterns = [
    path("subscriptions/", views.subscription_add, name="subscription_add"),
    path("subscriptions/<int:subscription_id>/delete/", views.subscription_delete, name="subscription_delete"),
]
