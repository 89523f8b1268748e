from django.urls import path

from . import views

app_name = "placement"
urlpatterns = [
    path("plans/", views.plan_page, name="plans"),
    path("plans/launch/", views.plan_launch, name="plan_launch"),
    path("plans/book/", views.plan_book, name="plan_book"),
    path("plans/saved/<int:pk>/", views.saved_plan, name="saved_plan"),
    path("models/", views.model_list, name="model_list"),
    path("models/new/", views.model_create, name="model_create"),
    path("models/upload/", views.model_upload, name="model_upload"),
    path("models/<str:slug>/delete/", views.model_delete, name="model_delete"),
    path("models/<str:slug>/variants/new/", views.variant_create, name="variant_create"),
    path("models/<str:slug>/variants/<str:quantization>/delete/", views.variant_delete, name="variant_delete"),
]
