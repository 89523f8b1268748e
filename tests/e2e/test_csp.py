"""Every main page works in Chromium under the Content-Security-Policy: no
violation and no script error in the console, htmx still swaps parts of a
page, the confirm and copy buttons still work (their code moved out of
inline handlers into static/js/fleet.js), and the API docs still render."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bookings import services
from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import CatalogueEntry, NodeGroup
from placement.models import LlmModel
from tests.conftest import lab_data, make_user
from tests.e2e.conftest import sign_in
from tests.support.catalogue import seed_catalogue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Runs before any page script and outside the page's policy: records every violation.
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + (e.sourceFile || ""));
});
"""


class Console:
    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        page.add_init_script(WATCH)
        page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))

    def visit(self, url: str) -> None:
        r = self.page.goto(url)
        assert r is not None and r.status == 200, url
        assert (
            "Content-Security-Policy" in {k.title(): v for k, v in r.headers.items()}
            or "content-security-policy" in r.headers
        ), url
        self.page.wait_for_load_state("networkidle")
        self.check(url)

    def check(self, where: str) -> None:
        violations = self.page.evaluate("window.__violations || []")
        assert violations == [], f"{where}: {violations}"
        assert self.errors == [], f"{where}: {self.errors}"


@pytest.fixture
def lab() -> dict[str, Any]:
    seed_catalogue()
    assert CatalogueEntry.objects.exists() and LlmModel.objects.exists()
    admin = make_user("admin", "lab-admin")
    member = make_user("member", "member")
    lab_import(actor=Actor(user=admin, source="import"), data=lab_data("demo.yaml"))
    group = NodeGroup.objects.filter(retired_at__isnull=True, members__spark__name="spark-03").first()
    assert group is not None
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=2)
    booking = services.booking_create(
        actor=Actor(user=member), group=group.pk, start=start, end=start + timedelta(hours=3), purpose="decode sweep"
    )
    return {"group": group.pk, "booking": booking.pk}


def test_every_main_page_runs_under_the_policy(live_server, page, shot, lab):
    base = live_server.url
    console = Console(page)
    console.visit(f"{base}/accounts/login/")
    sign_in(page, base, "admin", "admin-pass-123")
    console.check("sign in")
    pages = [
        "/",
        "/telemetry/",
        "/telemetry/alerts/",
        "/sparks/spark-01/telemetry/",
        "/sparks/",
        "/sparks/spark-01/",
        "/switches/",
        "/cables/",
        "/topology/",
        "/memory/",
        "/plans/",
        "/models/",
        "/benchmarks/",
        f"/benchmarks/groups/{lab['group']}/",
        "/bookings/",
        "/bookings/?view=month",
        "/bookings/new/",
        "/bookings/mine/",
        "/bookings/maintenance/",
        f"/bookings/{lab['booking']}/",
        f"/bookings/groups/{lab['group']}/",
        "/catalogue/",
        "/lab/import/",
        "/changes/",
        "/accounts/profile/",
        "/admin/",
        "/admin/inventory/spark/",
    ]
    for path in pages:
        console.visit(base + path)

    # htmx: the plans follow the form without a page load.
    console.visit(f"{base}/plans/")
    before = page.locator("#results").inner_text()
    page.fill("#id_context_tokens", "65536")
    page.wait_for_function("t => document.querySelector('#results').innerText !== t", arg=before)
    console.check("plans after htmx")

    # A copy button (fleet.js): the new API token.
    console.visit(f"{base}/accounts/profile/")
    page.fill("input[name=name]", "laptop")
    page.locator("form:has(input[name=name]) button[type=submit], form:has(input[name=name]) button").first.click()
    page.wait_for_selector("#new-token-value")
    copy = page.locator("#new-token [data-copy]")
    copy.click()
    page.wait_for_function("b => b.hasAttribute('data-copied')", arg=copy.element_handle())
    console.check("copy")

    # A confirm question (fleet.js): dismissed, nothing is removed.
    console.visit(f"{base}/models/")
    rows = page.locator("table tbody tr").count()
    page.once("dialog", lambda d: d.dismiss())
    page.locator("button[data-confirm]").first.click()
    page.wait_for_timeout(300)
    assert page.url == f"{base}/models/" and page.locator("table tbody tr").count() == rows
    console.check("confirm")

    # The booking form checks availability through htmx as the group changes.
    console.visit(f"{base}/bookings/new/")
    page.select_option("#id_group", str(lab["group"]))
    page.wait_for_selector("#nodes .bk-node")
    console.check("booking form")
    shot("csp-booking-form")

    # The API docs (Swagger UI from the app's own static files).
    console.visit(f"{base}/api/docs")
    page.wait_for_selector("#swagger-ui .opblock", timeout=20_000)
    console.check("api docs")
    shot("csp-api-docs")


def test_wrong_passwords_pause_sign_in_in_the_browser(live_server, page, shot, settings):
    settings.AXES_FAILURE_LIMIT = 3
    make_user("member", "member")
    console = Console(page)
    base = live_server.url
    for _ in range(3):
        page.goto(f"{base}/accounts/login/")
        page.fill("#id_username", "member")
        page.fill("#id_password", "not-my-password")
        page.click("button[type=submit]")
    assert "Too many attempts" in page.locator("main").inner_text()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "member")
    page.fill("#id_password", "member-pass-123")
    page.click("button[type=submit]")
    assert "Too many attempts" in page.locator("main").inner_text()  # the right password waits too
    console.errors = [e for e in console.errors if "429" not in e]  # the refusal itself is logged by Chromium
    console.check("locked")
    shot("sign-in-paused")
