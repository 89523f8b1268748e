"""The plan page's "Book this group for this plan": the chosen plan is kept,
the booking form points at it, and the booking links the plan (a real
reference); when nothing fits, the page names the groups where it would."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import Booking
from placement.models import SavedPlan

pytestmark = pytest.mark.django_db

QUERY = {"model": "llama-3.3-70b", "context_tokens": "8192", "concurrency": "1", "goal": "latency", "engine": "vllm"}


def local(dt):
    return timezone.localtime(dt).strftime("%Y-%m-%dT%H:%M")


def test_a_member_books_a_group_for_a_plan(client, member_user, demo):
    client.force_login(member_user)
    group = demo["switched"]
    page = client.get("/plans/", {**QUERY, "group": group.pk}).content.decode()
    assert "Book this group for this plan" in page
    response = client.post("/plans/book/", {**QUERY, "group": group.pk, "plan": "0"})
    saved = SavedPlan.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/bookings/new/?group={group.pk}&saved_plan={saved.pk}"
    assert saved.group == group and saved.model.slug == "llama-3.3-70b" and saved.nodes
    assert saved.decode_tps and "predicted" in saved.prediction_source
    form = client.get(response["Location"]).content.decode()
    assert f"Plan {saved.pk}: {saved.label}" in form and f'name="saved_plan" value="{saved.pk}"' in form
    start = timezone.now() + timedelta(days=1)
    booked = client.post(
        "/bookings/new/",
        {
            "group": group.name,
            "shown_group": group.name,
            "start": local(start),
            "end": local(start + timedelta(hours=2)),
            "purpose": "decode sweep",
            "saved_plan": str(saved.pk),
        },
    )
    assert booked.status_code == 302, booked.content.decode()[:2000]
    booking = Booking.objects.get()
    assert booking.saved_plan == saved
    detail = client.get(f"/bookings/{booking.pk}/").content.decode()
    assert f"/plans/saved/{saved.pk}/" in detail and saved.label in detail
    kept = client.get(f"/plans/saved/{saved.pk}/").content.decode()
    assert saved.label in kept and "predicted" in kept


def test_a_plan_that_does_not_fit_is_not_kept_and_viewers_cannot_book(client, member_user, viewer_user, demo):
    client.force_login(member_user)
    response = client.post("/plans/book/", {**QUERY, "model": "glm-5.3", "group": demo["single"].pk, "plan": "0"})
    assert response.status_code == 302 and response["Location"].startswith("/plans/?")
    assert not SavedPlan.objects.exists()
    client.force_login(viewer_user)
    assert (
        "Book this group for this plan"
        not in client.get("/plans/", {**QUERY, "group": demo["switched"].pk}).content.decode()
    )
    assert client.post("/plans/book/", {**QUERY, "group": demo["switched"].pk, "plan": "0"}).status_code == 403
    assert not SavedPlan.objects.exists()
    assert client.get("/plans/saved/999/").status_code == 404


def test_a_booking_must_hold_the_plans_nodes(client, member_user, demo):
    client.force_login(member_user)
    group = demo["switched"]
    client.post("/plans/book/", {**QUERY, "group": group.pk, "plan": "0"})
    saved = SavedPlan.objects.get()
    start = timezone.now() + timedelta(days=1)
    outside = [n for n in ("spark-07", "spark-08", "spark-09", "spark-10") if n not in saved.nodes] or ["spark-14"]
    refused = client.post(
        "/bookings/new/",
        {
            "group": group.name,
            "shown_group": group.name,
            "pick_nodes": "on",
            "nodes": outside[:1],
            "start": local(start),
            "end": local(start + timedelta(hours=1)),
            "purpose": "x",
            "saved_plan": str(saved.pk),
        },
    )
    assert refused.status_code == 400 and "which this booking does not hold" in refused.content.decode()
    bad = client.post(
        "/bookings/new/",
        {
            "group": group.name,
            "shown_group": group.name,
            "start": local(start),
            "end": local(start + timedelta(hours=1)),
            "purpose": "x",
            "saved_plan": "4242",
        },
    )
    assert bad.status_code == 400 and "no saved plan" in bad.content.decode()
    assert not Booking.objects.exists()


def test_when_nothing_fits_the_page_names_the_groups_where_it_would(client, viewer_user, demo):
    client.force_login(viewer_user)
    page = client.get(
        "/plans/", {**QUERY, "model": "qwen3.5-397b-a17b", "group": demo["direct"].pk, "context_tokens": "32768"}
    ).content.decode()
    assert "nothing fits" in page and 'id="elsewhere"' in page
    where = page.split('id="elsewhere"')[1].split("</ul>")[0]
    assert demo["switched"].name in where and "tok/s (" in where and ") one stream" in where
    assert demo["single"].name not in where


def test_a_script_books_with_a_saved_plan_by_its_id(client, api_member, member_user, demo):
    client.force_login(member_user)
    group = demo["switched"]
    client.post("/plans/book/", {**QUERY, "group": group.pk, "plan": "0"})
    saved = SavedPlan.objects.get()
    start = timezone.now() + timedelta(days=2)
    body = {
        "group": group.pk,
        "start": start.isoformat(),
        "end": (start + timedelta(hours=1)).isoformat(),
        "purpose": "sweep",
    }
    bad = api_member.post("/api/bookings", {**body, "saved_plan": 4242})
    assert bad.status_code == 400 and bad.json()["errors"][0]["path"] == "saved_plan"
    assert not Booking.objects.exists()
    ok = api_member.post("/api/bookings", {**body, "saved_plan": saved.pk})
    assert ok.status_code == 201, ok.content
    assert ok.json()["saved_plan"] == saved.pk and Booking.objects.get().saved_plan == saved
