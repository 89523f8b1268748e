from django.urls import path

from . import prometheus, views

app_name = "serving"
urlpatterns = [
    path("serving/", views.serving_list, name="list"),
    path("serving/start/", views.serving_start, name="start"),
    path("serving/<int:pk>/", views.serving_detail, name="detail"),
    path("serving/<int:pk>/stop/", views.serving_stop, name="stop"),
    path("serving/<int:pk>/measure/", views.serving_measure, name="measure"),
    path("metrics/serving-targets", prometheus.scrape_targets, name="scrape-targets"),
]
