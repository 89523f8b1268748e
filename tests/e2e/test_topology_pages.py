"""A member and a lab admin look at the lab's topology in a real browser: the
demo lab plus a 32-Spark switched group. They rely on a diagram per group
with a hover title on every Spark, the four quantities shown apart, the slow
ring cable named with its fix, memory that never passes the pool off as one
machine's, and (admin) splitting a switched group with inline errors."""

from __future__ import annotations

import pytest

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import NodeGroup
from simfleet.labgen import lab_document
from tests.conftest import lab_data, make_user
from tests.e2e.conftest import sign_in
from tests.support.catalogue import seed_catalogue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def lab() -> dict[str, int]:
    seed_catalogue()
    lab_import(actor=Actor(source="import"), data=lab_data("demo.yaml"))
    lab_import(actor=Actor(source="import"), data=lab_document(big=32, prefix="big"))
    live = NodeGroup.objects.filter(retired_at__isnull=True, auto=True)
    return {
        "crs804": live.get(members__spark__name="spark-07").pk,
        "ring": live.get(members__spark__name="spark-03").pk,
        "big": live.get(members__spark__name="big-0001").pk,
    }


def test_member_reads_topology_group_and_memory_pages(live_server, page, shot, lab):
    make_user("reader", "member")
    base = live_server.url
    sign_in(page, base, "reader", "reader-pass-123")

    page.goto(f"{base}/topology/")
    assert page.locator("svg.topo:visible").count() == 6
    # A hover title on every Spark: 17 demo Sparks and 32 on the big switch.
    assert page.locator("svg.topo:visible g.node > title").count() == 17 + 32
    assert page.locator("svg.topo:visible g.link > title").count() == page.locator("svg.topo:visible g.link").count()
    ring_card = page.locator(f"#group-{lab['ring']}")
    assert ring_card.locator("g.link[data-gbps='100']").count() == 1
    assert "1 warning" in ring_card.inner_text()
    shot("topology")
    # Details without hovering: keyboard focus, then a click, writes the item's details under its drawing.
    ring_card.locator("g.link[data-gbps='100']").focus()
    detail = ring_card.locator(".detail-line")
    detail.wait_for()
    assert "ring-3" in detail.inner_text() and "100G expected" in detail.inner_text()
    ring_card.locator("g.link").first.click()
    assert "cable ring-" in detail.inner_text()
    page.keyboard.press("Tab")  # on to the next item: its details follow the focus
    page.wait_for_function("() => document.activeElement && document.activeElement.dataset.detail !== undefined")

    page.goto(f"{base}/groups/{lab['crs804']}/")
    quantities = {
        row: page.locator(f"#{row} td.num").inner_text() for row in ("q-local", "q-pooled", "q-exchange", "q-placement")
    }
    assert quantities["q-local"] == "126.7 GB"
    assert quantities["q-pooled"].startswith("1,013.6 GB") and "across 8 machines" in quantities["q-pooled"]
    assert quantities["q-exchange"].startswith("8 links") and "slowest 200 Gb/s" in quantities["q-exchange"]
    assert quantities["q-placement"] == "chosen per model"
    assert "not one machine's memory" in page.locator("#q-pooled").inner_text()
    assert page.locator("#diagram svg.topo:visible g.node > title").count() == 8
    assert page.locator("#links tbody tr").count() == 8
    assert page.locator("form.split").count() == 0  # members read; only lab admins split
    shot("group-crs804")

    page.goto(f"{base}/groups/{lab['ring']}/")
    finding = page.locator("#findings li", has_text="ring-3")
    assert "carries only 100 Gb/s" in finding.inner_text()
    assert "replace it with a QSFP112 or QSFP56 DAC" in finding.inner_text()
    assert "is a ring" in page.locator("#subgroups").inner_text()
    shot("group-ring")

    page.goto(f"{base}/groups/{lab['big']}/")
    assert page.locator("#diagram svg.topo:visible g.node").count() == 32
    box = page.locator("#diagram svg.topo:visible").bounding_box()
    drawn = page.locator("#diagram svg.topo:visible").evaluate("svg => svg.viewBox.baseVal.width")
    assert box is not None and box["width"] >= drawn >= 900  # drawn at its own legible size, not squeezed
    shot("group-32")

    page.goto(f"{base}/memory/")
    text = page.locator("main").inner_text()
    assert "not measured" in text
    assert (
        page.locator(f"#mem-{lab['crs804']} g.pool > title").text_content()
        == "pooled: 1,013.6 GB usable across 8 machines — not one machine's memory"
    )
    assert page.locator(f"#mem-{lab['crs804']} g.mem-node").count() == 8
    shot("memory")


def test_admin_splits_a_switched_group_with_inline_errors(live_server, page, shot, lab):
    make_user("labadmin", "lab-admin")
    base = live_server.url
    sign_in(page, base, "labadmin", "labadmin-pass-123")
    page.goto(f"{base}/groups/{lab['crs804']}/")
    form = page.locator("form.split")
    form.locator("#subgroup-name").fill("Exp A")
    form.locator("input[value='spark-07']").check()
    form.locator("input[value='spark-08']").check()
    form.locator("button[type=submit]").click()
    errors = page.locator("#subgroups .errors")
    errors.wait_for()
    assert "is not a valid name" in errors.inner_text()
    assert page.locator("#subgroups input[value='spark-07']").is_checked()  # the choice survives the error
    assert page.url.endswith(f"/groups/{lab['crs804']}/")  # swapped in place, no reload
    shot("subgroup-error")

    page.locator("#subgroup-name").fill("exp-a")
    page.locator("form.split button[type=submit]").click()
    page.locator("#subgroups .msg.success").wait_for()
    assert "exp-a" in page.locator("#subgroups table").inner_text()
    assert page.locator("#subgroups input[value='spark-07']").count() == 0
    # The drawing above is swapped too: the new sub-group's Sparks are tinted.
    assert "sub-group exp-a" in page.locator("#diagram g.node > title").first.text_content()
    shot("subgroup-created")
    page.goto(f"{base}/topology/")
    assert page.locator(f"#group-{lab['crs804']} .subgroup-chips").inner_text() == "Sub-groups: exp-a · 2"
    shot("topology-subgroup")

    sub = NodeGroup.objects.get(name="exp-a")
    page.goto(f"{base}/groups/{sub.pk}/")
    assert page.locator("#q-pooled td.num").inner_text().startswith("253.4 GB")
    assert page.locator("#diagram svg.topo:visible g.node").count() == 2
