"""A lab admin signs in, registers two Sparks and a QSFP112 cable between
them in a real browser, and sees the cable on both Sparks' pages."""

from __future__ import annotations

import re

import pytest

from tests.conftest import make_user
from tests.e2e.conftest import no_sideways_scroll, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def register_spark(page, base: str, name: str, host: str) -> None:
    page.goto(f"{base}/sparks/new/")
    page.fill("#id_name", name)
    page.select_option("#id_hardware", "dgx-spark-128")
    page.fill("#id_ssh_host", host)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/sparks/{name}/")


def test_admin_registers_two_sparks_and_a_cable(live_server, page, shot):
    make_user("labadmin", "lab-admin")
    base = live_server.url
    sign_in(page, base, "labadmin", "labadmin-pass-123")

    register_spark(page, base, "spark-01", "10.20.0.11")
    assert "enP2p1s0f0np0" in page.content()
    register_spark(page, base, "spark-02", "10.20.0.12")

    # A bad name is refused inline, next to the field, and nothing is created.
    page.goto(f"{base}/sparks/new/")
    page.fill("#id_name", "spark 03; reboot")
    page.fill("#id_ssh_host", "$(reboot)")
    page.click("button[type=submit]")
    assert page.locator("#field-name .fielderror").inner_text().startswith("'spark 03; reboot' is not a valid name")
    assert "not a valid host" in page.locator("#field-ssh_host .fielderror").inner_text()
    shot("spark-form-errors")

    page.goto(f"{base}/cables/new/")
    assert page.locator("#id_type").input_value() == "qsfp112-dac"
    page.select_option("#id_end_0", "spark-01:p0")
    page.select_option("#id_end_1", "spark-02:p0")
    page.fill("#id_label", "rack-a-01")
    shot("cable-form")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/cables/\d+/$"))
    assert "spark-01:p0" in page.content() and "spark-02:p0" in page.content()

    for name, peer in (("spark-01", "spark-02:p0"), ("spark-02", "spark-01:p0")):
        page.goto(f"{base}/sparks/{name}/")
        ports = page.locator("#ports")
        assert "rack-a-01" in ports.inner_text()
        assert peer in ports.inner_text()
    shot("spark-detail")

    # The taken ports are no longer offered for the next cable.
    page.goto(f"{base}/cables/new/")
    options = page.locator("#id_end_0 option").all_inner_texts()
    assert not any(o.startswith("spark-01:p0") for o in options)
    assert any(o.startswith("spark-01:p1") for o in options)

    # Switching the type to a breakout re-renders the ends through htmx: a trunk field appears.
    page.select_option("#id_type", "qsfp-dd-2x-qsfp56-breakout")
    page.wait_for_selector("#id_end_2")
    assert "Trunk" in page.locator("#ends").inner_text()

    page.goto(f"{base}/changes/")
    log = page.locator("#rows").inner_text()
    assert "spark-01" in log and "rack-a-01" in log and "labadmin" in log
    shot("change-log")


def test_the_crs812s_mixed_ports_and_their_cages_at_desk_and_phone_width(live_server, page, shot):
    """The catalogue and a CRS812 DDQ's page say its ports group by group, and
    each port its cage; at 390 px nothing pushes the page sideways."""
    from core.actor import Actor
    from inventory import services
    from inventory.models import CatalogueEntry

    make_user("viewer", "viewer")
    services.switch_create(actor=Actor(source="command"), name="sw-812", hardware="mikrotik-crs812-ddq")
    base = live_server.url
    sign_in(page, base, "viewer", "viewer-pass-123")
    want = "2 x 400G QSFP56-DD (each 1 x 400G or 2 x 200G) + 2 x 200G QSFP56 + 8 x 50G SFP56 + 2 x 10G RJ45"
    assert CatalogueEntry.objects.get(slug="mikrotik-crs812-ddq").ports_text == want
    services.catalogue_update(  # a lab admin's price (the API's PATCH): the list shows it
        actor=Actor(source="command"),
        entry=CatalogueEntry.objects.get(slug="mikrotik-crs812-ddq"),
        price="1199.00",
        currency="USD",
    )
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/catalogue/")
        assert want in " ".join(page.locator("main").inner_text().split())
        assert "1199.00 USD" in page.locator("#catalogue").inner_text()
        no_sideways_scroll(page)
        # every column shows without scrolling the table: at 390 px each entry is a block of labelled figures
        assert page.evaluate(
            "document.querySelector('#catalogue').scrollWidth <= document.querySelector('.tablewrap').clientWidth"
        )
        shot(f"catalogue-crs812-{width}")
        page.goto(f"{base}/switches/sw-812/")
        assert want in page.locator("dl.facts").inner_text()
        cages = page.locator("#ports tbody tr td:nth-child(3)").all_inner_texts()
        assert cages == ["QSFP56-DD"] * 2 + ["QSFP56"] * 2 + ["SFP56"] * 8 + ["RJ45"] * 2
        no_sideways_scroll(page)
        shot(f"switch-crs812-{width}")


def test_an_admin_names_a_new_entrys_cage_at_desk_and_phone_width(live_server, page, shot):
    make_user("labadmin", "lab-admin")
    base = live_server.url
    sign_in(page, base, "labadmin", "labadmin-pass-123")
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/catalogue/new/")
        options = page.locator("#id_cage option").all_inner_texts()
        assert options[:3] == ["unknown", "QSFP-DD", "QSFP56-DD"] and "RJ45" in options
        no_sideways_scroll(page)
        shot(f"catalogue-new-{width}")
