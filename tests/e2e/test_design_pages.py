"""The lab designer in a real browser: a member designs for 4 and for 8
Sparks with two target models, compares the candidates with their drawings
and the best per goal, and downloads a candidate's lab document; a lab admin
imports that very file on the import page (preview, then apply) and the
topology page shows the group the design promised. Then the lab's growth,
and a budget every priced design is over."""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import CatalogueEntry, NodeGroup
from placement.models import LlmModel
from tests.conftest import lab_data, make_user
from tests.e2e.conftest import no_sideways_scroll, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CRS804 = "switched-mikrotik-crs804-ddq"


@pytest.fixture
def catalogues() -> None:
    # the catalogues come back after each transactional flush (post_migrate seeding)
    assert CatalogueEntry.objects.exists() and LlmModel.objects.exists()


def design(
    page,
    base: str,
    *,
    planned: int = 0,
    owned: int = 0,
    hardware: str = "dgx-spark-128",
    grow: bool = False,
    budget: str = "",
    two_models: bool = True,
) -> None:
    page.goto(f"{base}/design/")
    page.select_option("#id_hardware_1", hardware)
    page.fill("#id_owned_1", str(owned) if owned else "")
    page.fill("#id_planned_1", str(planned) if planned else "")
    if grow:
        page.check("#id_from_inventory")
    if budget:
        page.fill("#id_budget", budget)
        page.fill("#id_currency", "EUR")
    if two_models:
        page.select_option("#id_model_1", "llama-3.3-70b")
        page.select_option("#id_model_2", "gpt-oss-120b")
        page.fill("#id_context_2", "32768")
        page.fill("#id_concurrency_2", "8")
    page.click("#design-form button[type=submit]")
    page.wait_for_load_state()


def columns(page) -> list[str]:
    return page.locator("#comparison thead th[data-design]").evaluate_all("els => els.map(e => e.dataset.design)")


def test_member_designs_and_admin_imports_the_document(live_server, page, shot, browser, catalogues, tmp_path):
    make_user("member", "member")
    make_user("labadmin", "lab-admin")
    base = live_server.url
    sign_in(page, base, "member", "member-pass-123")

    design(page, base, planned=4)
    assert columns(page) == [
        "ring",
        "switched-mikrotik-crs504-4xq-in",
        "switched-mikrotik-crs812-ddq",
        CRS804,
        "switched-generic-qsfp112-switch-32",
    ]
    assert page.locator("#comparison td.drawing svg").count() == 5
    best = page.locator("#best").inner_text()
    assert "fastest one stream of llama-3.3-70b" in best and "most decode of gpt-oss-120b at 8 streams" in best
    # the CRS812 and the CRS804 give each Spark 200 Gb/s alike: the tie goes to the smaller switch
    assert "widest exchange bandwidth: Switched on MikroTik CRS812 DDQ" in best
    table = page.locator("#comparison").inner_text()
    assert "slow-switch-port" in table and "predicted" in table
    # each designed plan shows its prefill beside its decode, with the range, as the plan page does
    prefills = page.locator("#comparison .num-line.prefill").all_inner_texts()
    assert len(prefills) == 10 and all(" to " in p and p.endswith("prefill") for p in prefills), prefills
    # the comparison scrolls inside its card, never the page sideways
    no_sideways_scroll(page)
    shot("design-4-sparks-two-models")
    size = page.viewport_size
    page.set_viewport_size({"width": 390, "height": 900})
    no_sideways_scroll(page)  # the comparison scrolls in its card
    shot("design-4-sparks-two-models-390")
    page.set_viewport_size(size)

    design(page, base, planned=8)
    # no ring of eight: the engine's own finding says eight need a switch
    assert columns(page) == [CRS804, "switched-generic-qsfp112-switch-32"]
    assert page.locator("#comparison td.drawing svg").count() == 2
    assert page.locator("#comparison tbody tr th", has_text="gpt-oss-120b").count() == 1
    shot("design-8-sparks-two-models")
    with page.expect_download() as download:
        page.click(f"#comparison a[href*='/design/document/'][href*='design={CRS804}']")
    saved = tmp_path / "lab-crs804.yaml"
    download.value.save_as(saved)
    document = yaml.safe_load(saved.read_text())
    assert len(document["sparks"]) == 8 and document["switches"][0]["hardware"] == "mikrotik-crs804-ddq"
    # a member has no import button
    assert page.locator("a[href='/lab/import/']").count() == 0

    admin = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    sign_in(admin, base, "labadmin", "labadmin-pass-123")
    admin.goto(f"{base}/lab/import/")
    admin.set_input_files("#id_document", str(saved))
    admin.click("button[value=preview]")
    assert "dry run" in admin.locator("#import-result").inner_text()
    assert NodeGroup.objects.filter(retired_at__isnull=True).count() == 0  # the preview changed nothing
    admin.click("button[value=apply]")
    assert "Imported" in admin.locator("#import-result").inner_text()
    admin.goto(f"{base}/topology/")
    assert admin.locator("svg.topo:visible").count() == 1
    assert admin.locator("svg.topo:visible g.node").count() == 8
    group = NodeGroup.objects.get(retired_at__isnull=True)
    assert group.kind == "switched" and group.members.count() == 8
    assert "switched" in admin.locator("main").inner_text()
    assert (
        admin.locator("svg.topo:visible g.link[data-gbps='200']").count()
        == admin.locator("svg.topo:visible g.link").count()
    )
    admin.context.close()


def test_member_designs_the_labs_growth_and_over_a_budget(live_server, page, shot, catalogues):
    lab_import(actor=Actor(source="import"), data=lab_data("ring4.yaml"))
    make_user("member", "member")
    base = live_server.url
    sign_in(page, base, "member", "member-pass-123")

    design(page, base, planned=3, grow=True)  # seven in all: a ring still fits (eight would need a switch)
    assert columns(page) == ["ring", CRS804, "switched-generic-qsfp112-switch-32"]
    table = page.locator("#comparison").inner_text().lower()  # row headings are shown in capitals
    assert "re-cabling" in table and "unplug 2" in table and "import with prune" in table
    assert "4 owned" in table and "3 to buy" in table
    shot("design-growth-ring4-plus-3")

    for slug, price in (
        ("dgx-spark-128", "3999"),
        ("mikrotik-crs804-ddq", "1295.50"),
        ("qsfp-dd-2x-qsfp56-breakout", "120"),
        ("qsfp112-dac", "95"),
        ("mikrotik-crs504-4xq-in", "650"),
        ("qsfp28-dac", "40"),
        ("mikrotik-crs812-ddq", "1295"),
    ):
        CatalogueEntry.objects.filter(slug=slug).update(price=Decimal(price), currency="EUR")
    design(page, base, owned=4, budget="500")
    assert page.locator("#over-budget summary").inner_text() == "3 designs over the budget"
    # the CRS504, CRS812 and CRS804 cost more
    assert columns(page) == ["ring", "switched-generic-qsfp112-switch-32"]
    assert "cannot be checked" in page.locator("#comparison").inner_text()  # the 32-port switch has no price
    page.click("#over-budget summary")
    assert page.locator("#over-budget tr[data-design]").count() == 3
    shot("design-over-budget")

    CatalogueEntry.objects.filter(slug="generic-qsfp112-switch-32").update(price=Decimal("9000"), currency="EUR")
    design(page, base, owned=8, budget="100")
    assert "No design fits the budget" in page.locator("#all-over-budget").inner_text()
    assert page.locator("#comparison").count() == 0 and page.locator("#over-budget[open]").count() == 1
    shot("design-all-over-budget")


def test_the_page_shows_bad_lines_by_their_field(live_server, page, catalogues):
    make_user("member", "member")
    base = live_server.url
    sign_in(page, base, "member", "member-pass-123")
    page.goto(f"{base}/design/?hardware_1=dgx-spark-128&planned_1=40&hardware_2=dgx-spark-64&planned_2=40")
    errors = page.locator("#design-errors").inner_text()
    assert "sparks" in errors and "80 Sparks in all" in errors


def test_the_designer_passes_axe_and_fits_a_phone(live_server, browser, catalogues):
    from axe_playwright_python.sync_playwright import Axe

    from tests.e2e.test_accessibility import check

    lab_import(actor=Actor(source="import"), data=lab_data("ring4.yaml"))
    make_user("member", "member")
    CatalogueEntry.objects.filter(slug="qsfp112-dac").update(price=Decimal("95"), currency="EUR")
    paths = [
        "/design/",
        "/design/?hardware_1=dgx-spark-128&planned_1=4&model_1=llama-3.3-70b&model_2=gpt-oss-120b",
        "/design/?hardware_1=asus-ascent-gx10-128&planned_1=4&from_inventory=on&budget=300&currency=EUR",
    ]
    problems: list[str] = []
    for width in (390, 1440):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        sign_in(page, live_server.url, "member", "member-pass-123")
        for path in paths:
            problems += check(page, Axe(), live_server.url, path, width)
        context.close()
    assert not problems, "\n".join(problems)
