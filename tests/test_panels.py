"""Pages of a lower app show what higher apps register for them (core.panels):
the Spark page shows telemetry's health box, a group's page who booked it,
the profile page the alert emails. The lower app's templates name none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import panels

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def test_each_slot_is_filled_by_the_app_that_owns_the_panel(admin_client, import_lab):
    import_lab("pair.yaml")
    spark = admin_client.get("/sparks/pair-a/").content.decode()
    assert 'id="spark-telemetry"' in spark and "<h3>Health" in spark
    from inventory.models import NodeGroup

    group = NodeGroup.objects.get(name="group-pair-a")
    page = admin_client.get(f"/groups/{group.pk}/").content.decode()
    assert 'id="group-bookings"' in page and "free now" in page
    assert "Book this group" in page  # the page's own can_book reaches the panel
    profile = admin_client.get("/accounts/profile/").content.decode()
    assert "<h2>Alert emails</h2>" in profile


def test_lower_templates_load_no_tags_of_higher_apps():
    offenders = []
    for floor, higher in (
        ("inventory", ("telemetry_tags", "bookings_tags", "alert_emails")),
        ("topology", ("bookings_tags", "alert_emails", "fabric_tags")),
        ("accounts", ("alert_emails", "telemetry_tags", "bookings_tags")),
    ):
        for path in (TEMPLATES / floor).glob("*.html"):
            text = path.read_text()
            offenders += [f"{path.name}: {tag}" for tag in higher if f"load {tag}" in text or f" {tag} " in text]
    assert offenders == []


def test_a_slot_without_panels_renders_nothing():
    assert panels.render("nobody-registered-this", {}, object()) == ""
