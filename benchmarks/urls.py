from django.urls import path

from . import views

app_name = "benchmarks"
urlpatterns = [
    path("benchmarks/", views.leaderboard, name="leaderboard"),
    path("benchmarks/new/", views.benchmark_create, name="benchmark_create"),
    path("benchmarks/upload/", views.benchmark_upload, name="benchmark_upload"),
    path("benchmarks/groups/<int:group_id>/", views.group_benchmarks, name="group_benchmarks"),
    path("benchmarks/groups/<int:group_id>/run/", views.run_start, name="run_start"),
]
