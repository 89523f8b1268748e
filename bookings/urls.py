"""Booking pages under /bookings/ and calendar feeds under /feeds/
(the feeds authenticate by the token in their URL, not by a session)."""

from django.urls import path

from . import feeds, views

app_name = "bookings"
urlpatterns = [
    path("", views.timeline, name="timeline"),
    path("mine/", views.mine, name="mine"),
    path("new/", views.new, name="new"),
    path("check/", views.check, name="check"),
    path("<int:booking_id>/", views.detail, name="detail"),
    path("<int:booking_id>/cancel/", views.cancel, name="cancel"),
    path("<int:booking_id>/resize/", views.resize, name="resize"),
    path("groups/<int:group_id>/", views.group_page, name="group"),
    path("maintenance/", views.maintenance, name="maintenance"),
    path("maintenance/<int:window_id>/delete/", views.maintenance_delete, name="maintenance_delete"),
    path("feed-token/", views.feed_token, name="feed_token"),
    path("time-zone/", views.time_zone, name="time_zone"),
]

feed_urlpatterns = (
    [
        path("bookings/<str:token>/mine.ics", feeds.mine, name="mine"),
        path("bookings/<str:token>/groups/<int:group_id>.ics", feeds.group, name="group"),
    ],
    "feeds",
)
