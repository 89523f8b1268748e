"""The bookings API (and its deprecated alias /api/reservations): book, list, change, cancel, check, maintenance;
every refusal is a 4xx with the reason and changes nothing."""

from __future__ import annotations

import pytest

from bookings.models import Booking
from tests.bookings.conftest import hours, iso
from tests.bookings.test_services import state
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db


def body(group=None, nodes=None, start=1, end=3, purpose="decode sweep", **kw):
    data = {"start": iso(hours(start)), "end": iso(hours(end)), "purpose": purpose, **kw}
    if group is not None:
        data["group"] = group
    if nodes is not None:
        data["nodes"] = nodes
    return data


def test_book_read_list_and_release(lab, api_member):
    r = api_member.post("/api/bookings", body(lab["switched"].name, plan="plan-17 tp=4"))
    assert r.status_code == 201, r.content
    out = r.json()
    assert out["nodes"] == [f"node-0{i}" for i in range(1, 9)] and out["plan"] == "plan-17 tp=4"
    assert out["start"].endswith("Z") and out["status"] == "booked" and out["owner"] == "member1"
    assert api_member.get(f"/api/bookings/{out['id']}").json()["id"] == out["id"]
    listed = api_member.get(f"/api/bookings?from={iso(hours(0))}&to={iso(hours(10))}&node=node-03").json()
    assert [b["id"] for b in listed["items"]] == [out["id"]]
    assert api_member.get("/api/bookings?node=ring-1").json()["count"] == 0
    assert api_member.get(f"/api/bookings?group={lab['switched'].pk}&owner=member1").json()["count"] == 1
    r = api_member.delete(f"/api/bookings/{out['id']}")
    assert r.status_code == 200 and r.json()["status"] == "cancelled"


def test_a_clash_is_a_409_naming_booking_owner_and_overlap(lab, api_member, member2):
    other = ApiClient(member2)
    first = other.post("/api/bookings", body(nodes=["node-01", "node-02"], start=2, end=4, purpose="fine-tune"))
    assert first.status_code == 201
    before = state()
    r = api_member.post("/api/bookings", body(lab["switched"].pk, start=3, end=6))
    assert r.status_code == 409
    err = r.json()
    assert "node-01, node-02 are held by member2" in err["message"]
    (e,) = err["errors"]
    assert e["booking"] == first.json()["id"] and e["owner"] == "member2"
    assert e["overlap"] == {"start": iso(hours(3)), "end": iso(hours(4))}
    assert state() == before


@pytest.mark.parametrize(
    "payload, status, message",
    [
        (dict(start=3, end=1), 400, "is before the start"),
        (dict(start=1, end=1), 400, "the window is empty"),
        (dict(start=1, end=1 + 24 * 365), 400, "longest booking is 336 h"),
        (dict(start=-5, end=-2), 400, "ended in the past"),
        (dict(nodes=["ring-1", "ring-2"]), 400, "is a ring"),
        (dict(nodes=["node-01", "pair-a"]), 400, "different groups"),
        (dict(purpose=""), 400, "say what the booking is for"),
    ],
    ids=["end-before-start", "zero-length", "year-long", "past", "part-of-ring", "two-groups", "no-purpose"],
)
def test_bad_input(lab, api_member, payload, status, message):
    data = body(lab["ring"].pk if "nodes" not in payload else None, **payload)
    before = state()
    r = api_member.post("/api/bookings", data)
    assert r.status_code == status, r.content
    assert message in r.json()["message"]
    assert state() == before


def test_times_without_a_zone_are_refused(lab, api_member):
    data = body(lab["ring"].pk)
    data["start"] = data["start"].rstrip("Z")
    r = api_member.post("/api/bookings", data)
    assert r.status_code == 400 and "has no time zone" in r.json()["message"]
    assert Booking.objects.count() == 0


def test_someone_elses_booking_and_a_second_cancel(lab, api_member, member2, api_admin):
    theirs = ApiClient(member2).post("/api/bookings", body(lab["ring"].pk)).json()["id"]
    before = state()
    assert api_member.delete(f"/api/bookings/{theirs}").status_code == 403
    r = api_member.patch(f"/api/bookings/{theirs}", {"end": iso(hours(2))})
    assert r.status_code == 403 and "belongs to member2" in r.json()["message"]
    assert state() == before
    assert api_admin.delete(f"/api/bookings/{theirs}").status_code == 200
    before = state()
    r = ApiClient(member2).delete(f"/api/bookings/{theirs}")
    assert r.status_code == 409 and "already cancelled" in r.json()["message"]
    assert state() == before
    assert api_member.get("/api/bookings/424242").status_code == 404


def test_patch_moves_the_end(lab, api_member):
    made = api_member.post("/api/bookings", body(lab["ring"].pk)).json()
    r = api_member.patch(f"/api/bookings/{made['id']}", {"end": iso(hours(5)), "purpose": "longer"})
    assert r.status_code == 200 and r.json()["end"] == iso(hours(5)) and r.json()["purpose"] == "longer"
    assert api_member.patch(f"/api/bookings/{made['id']}", {}).status_code == 400


def test_availability(lab, api_member, member2):
    ApiClient(member2).post("/api/bookings", body(nodes=["node-05"], start=1, end=2))
    q = f"/api/bookings/availability?start={iso(hours(1))}&end={iso(hours(3))}"
    free = api_member.get(q + "&nodes=node-01,node-02").json()
    assert free["free"] and free["nodes"] == ["node-01", "node-02"]
    busy = api_member.get(q + f"&group={lab['switched'].pk}").json()
    assert not busy["free"] and busy["conflicts"][0]["owner"] == "member2"


def test_maintenance_marks_bookings_and_emails_owners(
    lab, api_member, api_admin, member_user, mailoutbox, django_capture_on_commit_callbacks
):
    member_user.email = "m1@example.org"
    member_user.save()
    made = api_member.post("/api/bookings", body(lab["ring"].pk, start=1, end=4)).json()
    with django_capture_on_commit_callbacks(execute=True):
        r = api_admin.post(
            "/api/maintenance-windows",
            {"nodes": ["ring-3"], "start": iso(hours(2)), "end": iso(hours(3)), "reason": "reseat QSFP, cage p1"},
        )
    assert r.status_code == 201, r.content
    assert r.json()["bookings"] == [{"id": made["id"], "owner": "member1"}]
    assert api_member.get(f"/api/bookings/{made['id']}").json()["maintenance"][0]["reason"].startswith("reseat")
    assert len(mailoutbox) == 1 and "ring-3" in mailoutbox[0].body and mailoutbox[0].to == ["m1@example.org"]
    # The maintained Spark is not bookable in that window.
    r = api_member.post("/api/bookings", body(lab["ring"].pk, start=2.5, end=5))
    assert r.status_code == 409
    assert (
        api_member.post(
            "/api/maintenance-windows",
            {"nodes": ["ring-3"], "start": iso(hours(2)), "end": iso(hours(3)), "reason": "x"},
        ).status_code
        == 403
    )
    window = r = api_admin.get("/api/maintenance-windows").json()[0]["id"]
    assert api_admin.delete(f"/api/maintenance-windows/{window}").status_code == 200


def test_null_clears_a_bookings_plan_and_cannot_empty_its_times(lab, api_member):
    """PATCH {"plan": null} once answered 200 and kept the plan."""
    made = api_member.post("/api/bookings", body(lab["ring"].pk, plan="plan-17 tp=4")).json()
    before = state()
    for key in ("start", "end", "purpose"):
        r = api_member.patch(f"/api/bookings/{made['id']}", {key: None})
        assert r.status_code == 400
        assert r.json()["errors"] == [
            {"path": key, "message": "cannot be emptied: leave the field out to keep its value"}
        ]
    assert state() == before
    cleared = api_member.patch(f"/api/bookings/{made['id']}", {"plan": None})
    assert cleared.status_code == 200 and cleared.json()["plan"] is None
    assert api_member.get(f"/api/bookings/{made['id']}").json()["plan"] is None


def test_an_unencoded_plus_in_a_time_says_to_send_it_as_2b(lab, api_member):
    """2027-01-04T09:00:00+01:00 in a query arrives as "...09:00:00 01:00": the answer says why."""
    r = api_member.get(
        "/api/bookings/availability?start=2027-01-04T09:00:00+01:00&end=2027-01-04T10:00:00%2B01:00&nodes=node-01"
    )
    assert r.status_code == 422
    assert r.json()["errors"] == [
        {
            "path": "start",
            "message": "Input should be a valid datetime or date, unexpected extra characters at the end of the "
            "input; a '+' in a query string reads as a space: send it as %2B",
        }
    ]


def test_a_maintenance_window_naming_a_group_takes_only_its_sparks(lab, api_admin):
    """A group with a Spark of another group was once saved ("group-ring-1: node-01")."""
    from bookings.models import MaintenanceWindow

    window = {"start": iso(hours(2)), "end": iso(hours(3)), "reason": "reseat QSFP"}
    r = api_admin.post("/api/maintenance-windows", {**window, "group": lab["ring"].pk, "nodes": ["ring-2", "node-01"]})
    assert r.status_code == 400
    assert r.json()["errors"] == [{"path": "nodes[1]", "message": f"node-01 is not a Spark of {lab['ring'].name}"}]
    assert not MaintenanceWindow.objects.exists()
    r = api_admin.post("/api/maintenance-windows", {**window, "group": lab["ring"].pk, "nodes": ["ring-2"]})
    assert r.status_code == 201 and r.json()["nodes"] == ["ring-2"]
    # the same window again (a second click, a script run twice) would email the owners twice
    again = api_admin.post("/api/maintenance-windows", {**window, "group": lab["ring"].pk, "nodes": ["ring-2"]})
    assert again.status_code == 409
    assert (
        again.json()["errors"][0]["message"]
        == f"maintenance {r.json()['id']} already holds these Sparks at these times"
    )
    assert MaintenanceWindow.objects.count() == 1


def test_reservations_is_a_deprecated_alias_of_the_same_operations(lab, api_member, client):
    made = api_member.post("/api/reservations", body(lab["ring"].pk)).json()
    one = f"{made['id']}"
    assert api_member.get("/api/bookings/" + one).json() == api_member.get("/api/reservations/" + one).json()
    assert api_member.get("/api/reservations").json()["count"] == api_member.get("/api/bookings").json()["count"] == 1
    assert api_member.delete(f"/api/reservations/{made['id']}").json()["status"] == "cancelled"
    paths = api_member.get("/api/openapi.json").json()["paths"]
    assert "deprecated" not in paths["/api/bookings"]["post"]
    assert paths["/api/reservations"]["post"]["deprecated"] is True
    assert paths["/api/reservations/{booking_id}"]["delete"]["deprecated"] is True


def test_a_spark_a_booking_holds_is_not_deleted_from_under_it(lab, api_member, api_admin, admin_client):
    """Deleting it once answered 200 and took it from the booking silently (the
    allocation went with it). Now the API, the page and a pruning import refuse
    it, naming the booking; once the booking is cancelled the Spark goes."""
    from inventory.models import Spark

    made = api_member.post("/api/bookings", body(nodes=["node-01", "node-02"], start=2, end=4, purpose="fine-tune"))
    assert made.status_code == 201, made.content
    booking = made.json()
    before = state()
    held = (
        f"booking {booking['id']} of member1 ({booking['start'][:10]} {booking['start'][11:16]} to "
        f"{booking['end'][:10]} {booking['end'][11:16]} UTC)"
    )
    said = (
        f"node-01 is held by {held}: cancel the booking or move it to other Sparks first "
        "(deleting the Spark would take it from the booking without a word to its owner)"
    )
    r = api_admin.delete("/api/sparks/node-01")
    assert r.status_code == 409
    assert r.json()["errors"] == [{"path": "name", "message": said}]
    page = admin_client.get("/sparks/node-01/delete/")
    assert page.status_code == 200 and held in page.content.decode() and b'type="submit">Delete' not in page.content
    assert admin_client.post("/sparks/node-01/delete/").status_code == 409
    retire = api_admin.patch("/api/sparks/node-01", {"status": "retired"})
    assert retire.status_code == 409
    assert retire.json()["errors"] == [
        {"path": "status", "message": said.replace("(deleting the Spark", "(retiring the Spark")}
    ]
    assert state() == before and Spark.objects.get(name="node-01").status == "active"
    assert api_member.delete(f"/api/bookings/{booking['id']}").status_code == 200
    gone = api_admin.delete("/api/sparks/node-01")
    assert gone.status_code == 200 and gone.json()["deleted"] == "node-01"


def test_a_one_value_query_parameter_given_twice_is_refused(lab, api_member):
    """nodes=a&nodes=b once checked b alone and said it was free; a list
    parameter (status) still takes each value."""
    query = f"start={iso(hours(1))}&end={iso(hours(2))}".replace("+", "%2B")
    r = api_member.get(f"/api/bookings/availability?{query}&nodes=node-01&nodes=node-02")
    assert r.status_code == 400
    assert r.json()["errors"] == [{"path": "nodes", "message": "nodes is given 2 times; give it once"}]
    same = api_member.get(f"/api/bookings/availability?{query}&nodes=node-01,node-02&nodes=node-01,node-02")
    assert same.status_code == 200 and same.json()["nodes"] == ["node-01", "node-02"]
    listed = api_member.get("/api/bookings?status=booked&status=active")
    assert listed.status_code == 200 and listed.json()["count"] == 0
