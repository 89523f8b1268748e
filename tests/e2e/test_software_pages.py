"""A lab admin reads the fleet's software in a real browser, on the demo lab
with one Spark (spark-10) a driver and an NCCL release behind the rest of its
switch: the Software page marks its values with what they should be, the
group filter narrows the table in place (htmx), the group page lists the
finding with its fix, and both read at phone and desktop widths."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import NodeGroup, Spark
from simfleet.software_answers import software_text
from telemetry.parsers import split_sections
from telemetry.services import software_drift_sync
from telemetry.software import parse_software
from telemetry.software_store import readings_store
from tests.conftest import lab_data, make_user
from tests.e2e.conftest import SHOTS, no_sideways_scroll, sign_in
from tests.support.catalogue import seed_catalogue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
VLLM = "nvcr.io/nvidia/vllm:26.05-py3"
BEHIND = {"driver": "580.82.09", "nccl": "2.27.7", "nccl_build": "v2.27.7-1"}


def test_admin_reads_the_fleets_software_and_a_group_with_drift(live_server, page, shot):
    seed_catalogue()
    lab_import(actor=Actor(source="import"), data=lab_data("demo.yaml"))
    ids = dict(Spark.objects.values_list("name", "pk"))
    now = timezone.now()
    readings = []
    for name, pk in ids.items():
        if name == "spark-17":
            continue  # down: never read
        faults = {"no-docker"} if name == "spark-16" else set()
        text = software_text(BEHIND if name == "spark-10" else {}, faults, [VLLM])
        readings.append((pk, now, 7200.0, parse_software(split_sections(text))))
    # spark-10 ran what the rest runs two hours ago; its driver and NCCL were replaced since
    earlier = now - timedelta(hours=2)
    before = parse_software(split_sections(software_text({}, set(), [VLLM])))
    readings_store([(ids["spark-10"], earlier, 7200.0, before)], now=earlier)
    readings_store(readings, now=now)
    software_drift_sync()
    switched = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="spark-10")
    make_user("labadmin", "lab-admin")
    base = live_server.url
    sign_in(page, base, "labadmin", "labadmin-pass-123")

    page.goto(f"{base}/")
    page.locator("nav a[href='/software/']").first.wait_for(state="attached")
    page.goto(f"{base}/software/")
    assert page.locator("#sw-spark-10 th .badge").inner_text() == "drift"  # seen without scrolling on a phone
    odd = page.locator("#sw-spark-10 td.sw-odd")
    assert odd.count() == 2
    assert odd.first.inner_text().replace("\n", " ") == "580.82.09 ≠ 580.95.05"
    assert page.locator("#sw-spark-11 td.sw-odd").count() == 0
    assert "unknown" in page.locator("#sw-spark-16").inner_text()  # no Docker: its image is unknown, not odd
    assert page.locator("#sw-spark-17").inner_text().count("unknown") >= 6
    finding = page.locator("#sw-finding-spark-10").inner_text()
    assert "GPU driver 580.82.09 (580.95.05 on spark-07 to spark-09 and spark-11 to spark-14)" in finding
    assert "update spark-10's driver to 580.95.05, as on spark-07 to spark-09 and spark-11 to spark-14" in finding
    assert (
        page.locator("#sw-summary")
        .inner_text()
        .endswith("1 Spark runs other software than its group or the lab expects")
    )
    for width, height in ((1440, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        shot(f"software-{width}")
        # nothing pushes the page sideways: the wide table scrolls inside its wrapper
        no_sideways_scroll(page, slack=1)

    # The group filter swaps the table in place.
    page.set_viewport_size({"width": 1440, "height": 900})
    ring = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="spark-03")
    page.select_option("#sw-group", ring.name)
    page.locator("#sw-spark-10").wait_for(state="detached")
    assert page.locator("#sw-spark-03").count() == 1 and f"group={ring.name}" in page.url
    assert "no software drift" in page.locator("#sw-summary").inner_text()

    page.goto(f"{base}/groups/{switched.pk}/")
    body = page.locator("main").inner_text()
    assert "software-drift" in body and "update spark-10's driver to 580.95.05" in body
    assert "Fix it before verifying the fabric" in body
    for width, height in ((1440, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        shot(f"group-software-drift-{width}")
        no_sideways_scroll(page, slack=1)
    # at phone width, the parts that carry the finding, close up
    page.locator(".sw-drift-note").screenshot(path=str(SHOTS / "group-software-drift-390-fabric.png"))
    page.locator("#findings").screenshot(path=str(SHOTS / "group-software-drift-390-findings.png"))

    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{base}/sparks/spark-10/")
    box = page.locator("#spark-software").inner_text()
    assert "580.82.09" in box and "software-drift" in box
    assert page.locator("#spark-software-vllm").inner_text().split("\t") == [
        "vLLM on the host",
        "not on the fleet user's PATH (benchmarks run the client in the launch image)",
    ]
    history = page.locator("#spark-software-history").inner_text()
    assert "GPU driver 580.95.05 → 580.82.09" in history and "NCCL 2.28.9 → 2.27.7" in history
    shot("spark-software-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page, slack=1)
    # every value is inside the box on a phone (a long image name once pushed them out of sight)
    box = page.locator("#spark-software").bounding_box()
    assert box is not None
    for cell in page.locator("#spark-software table td:nth-child(2)").all():
        where = cell.bounding_box()
        assert where is not None and where["x"] + where["width"] <= box["x"] + box["width"] + 1, cell.inner_text()
    page.locator("#spark-software").screenshot(path=str(SHOTS / "spark-software-390.png"))

    # spark-04 of the ring loses the launch image (docker image prune): a finding, which the plan page
    # repeats, and says that serving may go ahead over it (it pulls the image)
    text = software_text({"image_digest": "absent"}, set(), [VLLM])
    later = timezone.now()
    readings_store([(ids["spark-04"], later, 7200.0, parse_software(split_sections(text)))], now=later)
    software_drift_sync()
    ring = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="spark-04")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{base}/plans/?group={ring.pk}&model=llama-3.1-8b")
    note = page.locator(".sw-drift-note")
    assert "Software drift: spark-04 runs other software than the rest. Fix it before using the launch commands" in (
        note.inner_text()
    )
    assert note.locator("#drift-servable").inner_text() == (
        f"Serving can go ahead: none of this is what it uses. It pulls {VLLM} on a Spark without it and checks "
        "that a multi-node instance's nodes hold one build; the launch commands do not."
    )
    note.screenshot(path=str(SHOTS / "plan-drift-servable-1440.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page, slack=1)
    note.screenshot(path=str(SHOTS / "plan-drift-servable-390.png"))
