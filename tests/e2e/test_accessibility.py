"""Every page, for every role, in a real browser at phone width (390 px):
axe-core finds no serious or critical violation, and nothing scrolls the
page sideways (wide tables and drawings scroll inside their cards). A lab
admin's pages are also checked at 1440 px. One browser, one live server,
one sign-in per role."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from bookings import services as booking_services
from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import Cable, NodeGroup
from tests.conftest import lab_data, make_user
from tests.e2e.conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]},
}
# /api/docs embeds Swagger UI, a third-party widget: its own markup is left out, the page around it is checked.
THIRD_PARTY = {"/api/docs": {"exclude": [["#swagger-ui"]]}}
PHONE, DESKTOP = 390, 1440


def pages(group: int, cable: int, booking: int) -> list[str]:
    return [
        "/",
        "/telemetry/",
        "/telemetry/alerts/",
        "/sparks/spark-04/telemetry/",
        "/sparks/",
        "/sparks/spark-01/",
        "/sparks/new/",
        "/switches/",
        "/switches/sw-804/",
        "/cables/",
        f"/cables/{cable}/",
        "/cables/new/",
        "/topology/",
        f"/groups/{group}/",
        "/memory/",
        "/plans/",
        "/models/",
        "/models/new/",
        "/benchmarks/",
        f"/benchmarks/groups/{group}/",
        "/benchmarks/new/",
        "/bookings/",
        "/bookings/?view=month",
        "/bookings/mine/",
        "/bookings/new/",
        f"/bookings/{booking}/",
        "/bookings/maintenance/",
        "/serving/",
        "/catalogue/",
        "/lab/import/",
        "/changes/",
        "/accounts/profile/",
        "/api/docs",
    ]


@pytest.fixture
def lab() -> dict[str, int]:
    lab_import(actor=Actor(source="import"), data=lab_data("demo.yaml"))
    member = make_user("member", "member")
    make_user("admin", "lab-admin")
    make_user("viewer", "viewer")
    group = NodeGroup.objects.filter(retired_at__isnull=True).get(members__spark__name="spark-07").pk
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    booking = booking_services.booking_create(
        actor=Actor(user=member), group=group, start=start, end=start + timedelta(hours=3), purpose="TP=8 decode sweep"
    )
    return {"group": group, "cable": Cable.objects.order_by("pk").first().pk, "booking": booking.pk}


def check(page: Any, axe: Axe, url: str, path: str, width: int) -> list[str]:
    """Problems on one page: axe's serious and critical violations, and sideways scrolling."""
    response = page.goto(url + path)
    assert response is not None and response.status in (200, 403), f"{path}: HTTP {response and response.status}"
    problems = []
    results = axe.run(page, context=THIRD_PARTY.get(path.split("?")[0]), options=AXE_OPTIONS).response
    for v in results["violations"]:
        if v["impact"] in ("serious", "critical"):
            targets = ", ".join(str(n["target"][0]) for n in v["nodes"][:3])
            problems.append(f"{path} at {width} px: {v['id']} ({v['impact']}) on {targets}")
    scroll, client = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if scroll > client:
        problems.append(f"{path} at {width} px: the page is {scroll} px wide, the screen {client} px")
    return problems


def test_every_page_for_every_role_passes_axe_and_fits_a_phone(live_server, browser, lab):
    axe = Axe()
    problems: list[str] = []
    paths = pages(lab["group"], lab["cable"], lab["booking"])
    for role, width in (("admin", PHONE), ("member", PHONE), ("viewer", PHONE), ("admin", DESKTOP)):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.set_default_timeout(15_000)
        sign_in(page, live_server.url, role, f"{role}-pass-123")
        if width == PHONE:  # the compact menu, opened, is checked too
            page.click("details.navmenu summary")
            results = axe.run(page, context="details.navmenu", options=AXE_OPTIONS).response
            problems += [
                f"menu for {role}: {v['id']}" for v in results["violations"] if v["impact"] in ("serious", "critical")
            ]
        for path in paths:
            problems += check(page, axe, live_server.url, path, width)
        if width == DESKTOP:  # the widths between, where the bar turns into the menu
            for between in (768, 1024, 1280, 1366, 1439, 1440, 1536):
                page.set_viewport_size({"width": between, "height": 900})
                page.goto(f"{live_server.url}/")
                scroll, client = page.evaluate(
                    "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
                )
                if scroll > client:
                    problems.append(f"/ at {between} px: the page is {scroll} px wide")
        context.close()
    assert not problems, "\n".join(problems)


def test_the_menu_follows_the_role(live_server, browser, lab):
    context = browser.new_context(viewport={"width": PHONE, "height": 900})
    page = context.new_page()
    for role, import_link, my_bookings in (("admin", 1, 1), ("member", 0, 1), ("viewer", 0, 0)):
        sign_in(page, live_server.url, role, f"{role}-pass-123")
        page.click("details.navmenu summary")
        menu = page.locator("details.navmenu nav")
        assert menu.get_by_role("link", name="Import").count() == import_link
        page.goto(f"{live_server.url}/bookings/")
        assert page.get_by_role("link", name="My bookings").count() == my_bookings
        page.context.clear_cookies()
    context.close()
