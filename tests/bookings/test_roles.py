"""The permission matrix for reservations, in the API and in the pages:
viewers read but never book; members book and change only their own
bookings; lab admins change anyone's and plan maintenance; strangers get
nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from bookings import services
from core.roles import ADMIN, MEMBER, VIEWER
from tests.bookings.conftest import actor, hours, iso
from tests.bookings.test_services import state
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db

# who: admin, member (the owner), other (another member), viewer, anonymous
WHO = ["admin", "owner", "other", "viewer", None]


@pytest.fixture
def people(users, member2):
    return {"admin": users[ADMIN], "owner": users[MEMBER], "other": member2, "viewer": users[VIEWER]}


@pytest.fixture
def theirs(lab, people):
    return services.booking_create(
        actor=actor(people["owner"]), group=lab["ring"].pk, start=hours(5), end=hours(7), purpose="owner's run"
    )


def new_booking(lab):
    return {"group": lab["direct"].pk, "start": iso(hours(1)), "end": iso(hours(2)), "purpose": "p"}


# (name, method, path, body, who may) — "read" means every signed-in role
API = [
    ("list", "get", "/api/bookings", None, "read"),
    ("read", "get", "/api/bookings/{id}", None, "read"),
    ("availability", "get", "/api/bookings/availability?start={s}&end={e}&group={g}", None, "read"),
    ("book", "post", "/api/bookings", "new", {"admin", "owner", "other"}),
    ("extend", "patch", "/api/bookings/{id}", {"end": "{e2}"}, {"admin", "owner"}),
    ("cancel", "delete", "/api/bookings/{id}", None, {"admin", "owner"}),
    (
        "plan maintenance",
        "post",
        "/api/maintenance-windows",
        {"nodes": ["ring-1"], "start": "{s}", "end": "{e}", "reason": "r"},
        {"admin"},
    ),
    ("list maintenance", "get", "/api/maintenance-windows", None, "read"),
]


def fill(value, lab, booking):
    subs = {
        "{id}": str(booking.pk),
        "{s}": iso(hours(1)),
        "{e}": iso(hours(2)),
        "{e2}": iso(hours(8)),
        "{g}": str(lab["ring"].pk),
    }
    if isinstance(value, str):
        for key, sub in subs.items():
            value = value.replace(key, sub)
        return value
    if isinstance(value, dict):
        return {k: fill(v, lab, booking) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, lab, booking) for v in value]
    return value


@pytest.mark.parametrize("who", WHO, ids=lambda w: w or "anonymous")
@pytest.mark.parametrize("action", API, ids=lambda a: a[0])
def test_api_matrix(who, action, lab, people, theirs):
    name, method, path, body, may = action
    client = ApiClient(people[who] if who else None)
    data = new_booking(lab) if body == "new" else fill(body, lab, theirs)
    before = state()
    r = getattr(client, method)(fill(path, lab, theirs), *([data] if data is not None else []))
    if who is None:
        assert r.status_code == 401
    elif may == "read" or who in may:
        assert r.status_code == (201 if name in ("book", "plan maintenance") else 200), (r.status_code, r.content)
    else:
        assert r.status_code == 403, (r.status_code, r.content)
        assert state() == before
    if r.status_code >= 400:
        assert state() == before


PAGES = [
    ("timeline", "get", "/bookings/", None, "read"),
    ("month", "get", "/bookings/?view=month", None, "read"),
    ("mine", "get", "/bookings/mine/", None, "read"),
    ("booking page", "get", "/bookings/{id}/", None, "read"),
    ("group page", "get", "/bookings/groups/{g}/", None, "read"),
    ("maintenance list", "get", "/bookings/maintenance/", None, "read"),
    ("booking form", "get", "/bookings/new/", None, {"admin", "owner", "other"}),
    ("book", "post", "/bookings/new/", "form", {"admin", "owner", "other"}),
    ("cancel", "post", "/bookings/{id}/cancel/", {}, {"admin", "owner"}),
    ("extend", "post", "/bookings/{id}/resize/", {"minutes": "60"}, {"admin", "owner"}),
    ("plan maintenance", "post", "/bookings/maintenance/", "maint", {"admin"}),
]


@pytest.mark.parametrize("who", WHO, ids=lambda w: w or "anonymous")
@pytest.mark.parametrize("action", PAGES, ids=lambda a: a[0])
def test_page_matrix(who, action, lab, people, theirs):
    name, method, path, body, may = action
    client = Client()
    if who:
        client.force_login(people[who])
    start = timezone.localtime(hours(1)).strftime("%Y-%m-%dT%H:%M")  # as the form shows it: the site zone
    end = timezone.localtime(hours(2)).strftime("%Y-%m-%dT%H:%M")
    if body == "form":
        body = {
            "group": lab["direct"].pk,
            "shown_group": lab["direct"].pk,
            "start": start,
            "end": end,
            "purpose": "page booking",
        }
    elif body == "maint":
        body = {"group": lab["ring"].pk, "start": start, "end": end, "reason": "cable"}
    before = state()
    r = (
        getattr(client, method)(fill(path, lab, theirs), body)
        if body is not None
        else client.get(fill(path, lab, theirs))
    )
    if who is None:
        assert r.status_code == 302 and "/accounts/login/" in r["Location"]
        assert state() == before
    elif may == "read" or who in may:
        assert r.status_code == (302 if method == "post" else 200), (r.status_code, r.content[:500])
        if method == "post":
            assert state() != before
    else:
        assert r.status_code == 403
        assert state() == before
