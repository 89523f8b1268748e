"""A lab admin verifies a direct pair's fabric from its group page in a real
browser, against the simulated fleet: the card shows the run in progress
(rows as they arrive, polled by htmx), then its verdict, and the four-quantity
table shows the measured bus bandwidth beside the predicted class; the run's
page has the command, the rows and the raw output. A member who holds no
booking sees why they cannot start one.

    fab-a:p0 ===== fab-b:p0   (simulated Sparks answering mpirun ... all_gather_perf)
"""

from __future__ import annotations

import contextlib
import threading

import pytest

from fabric.models import FabricRun
from inventory.models import NodeGroup
from simfleet.simulator import SimNode
from tests.conftest import make_user
from tests.e2e.conftest import SHOTS, no_sideways_scroll, sign_in
from tests.support.figures import one_place
from tests.telemetry import django_sim
from tests.telemetry.django_sim import sim_lab

fleet_key = django_sim.fleet_key
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(monkeypatch):
    """A Celery worker stand-in: the task runs in a thread of its own, so the
    page sees the run queued, then running, then done."""
    from fabric import tasks

    threads: list[threading.Thread] = []

    def work(run_id: int) -> None:
        from django.db import connection

        try:
            tasks.verify_fabric(run_id)
        finally:
            connection.close()  # as a worker process does between tasks

    def delay(run_id: int) -> None:
        thread = threading.Thread(target=work, args=(run_id,), daemon=True)
        threads.append(thread)
        thread.start()

    monkeypatch.setattr(tasks.verify_fabric, "delay", delay)
    yield threads
    for thread in threads:
        thread.join(30)


def element_shot(page, selector: str, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(selector).screenshot(path=str(SHOTS / f"{name}.png"))


def test_admin_verifies_a_pair_from_its_page(live_server, page, shot, fleet_key, tmp_path, settings, worker):
    make_user("admin", "lab-admin")
    make_user("member", "member")
    nodes = [
        SimNode("fab-a", cabled_ports={"p0": ("fab-b", "p0")}),
        SimNode("fab-b", cabled_ports={"p0": ("fab-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        fleet.fleet.nccl_row_s = 1.2  # slow enough to watch, as a real sweep is
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="fab-a")
        base = live_server.url

        sign_in(page, base, "member", "member-pass-123")
        page.goto(f"{base}/groups/{group.pk}/")
        card = page.locator("#fabric")
        assert "book group-fab-a first" in card.inner_text().lower() or "Book group-fab-a" in card.inner_text()
        assert card.locator("button").count() == 0
        page.context.clear_cookies()

        sign_in(page, base, "admin", "admin-pass-123")
        page.goto(f"{base}/groups/{group.pk}/")
        assert "not measured yet" in page.locator("#q-exchange").inner_text()
        assert "predicted" in page.locator("#q-exchange").inner_text()
        page.click("#fabric button[type=submit]")
        page.wait_for_function(
            "() => document.querySelector('#fabric .fabric-progress') && "
            "document.querySelectorAll('#fabric .fabric-progress tbody tr').length >= 1"
        )
        progress = page.locator("#fabric").inner_text()
        assert "Running" in progress and "of 4 buffer sizes done" in progress and "Verifying" in progress
        shot("fabric-in-progress")
        element_shot(page, "#fabric", "fabric-card-in-progress")

        page.wait_for_function("() => document.querySelector('#fabric .fabric-result')", timeout=30_000)
        result = page.locator("#fabric").inner_text()
        run = FabricRun.objects.get()
        assert run.status == "done" and run.verdict == "ok"
        busbw = f"{one_place(run.avg_busbw)} GB/s"
        assert busbw in result and "measured" in result and "Expected: about 20 to 24" in result
        element_shot(page, "#fabric", "fabric-card-result")

        # the group's four numbers follow the finished run without a reload
        page.wait_for_function("() => !document.querySelector('#q-exchange').innerText.includes('not measured yet')")
        exchange = page.locator("#q-exchange").inner_text()
        assert "measured" in exchange and busbw in exchange and f"run #{run.pk}" in exchange
        element_shot(page, "#quantities", "fabric-four-quantities")
        shot("fabric-group-page-measured")
        page.reload()  # the same figure as the page renders it
        assert f"{one_place(run.avg_busbw)} GB/s" in page.locator("#q-exchange").inner_text()

        page.click(f"#q-exchange a[href='/fabric/runs/{run.pk}/']")
        page.wait_for_url(f"{base}/fabric/runs/{run.pk}/")
        text = page.locator("main").inner_text()
        assert "Per buffer size" in text and "all_gather_perf -b 512M -e 4G -f 2" in text and "4 GB" in text
        shot("fabric-run-page")


def test_a_refused_verification_says_why_in_the_card(live_server, page, shot, fleet_key, tmp_path, settings, worker):
    """An engine serves on fab-b: pressing Verify fabric shows the refusal in the
    card (htmx swaps no 4xx answer: the click once showed nothing), at 1440 and 390 px."""
    from tests.support.catalogue import seed_catalogue
    from tests.support.serving import live_serving

    seed_catalogue()
    admin = make_user("admin", "lab-admin")
    nodes = [
        SimNode("fab-a", cabled_ports={"p0": ("fab-b", "p0")}),
        SimNode("fab-b", cabled_ports={"p0": ("fab-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings):
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="fab-a")
        serving = live_serving(group, "fab-b", admin)
        sign_in(page, live_server.url, "admin", "admin-pass-123")
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/groups/{group.pk}/")
            page.click("#fabric button[type=submit]")
            refusal = page.locator("#fabric [role=alert]")
            refusal.wait_for()
            assert refusal.inner_text() == (
                f"group-fab-a is busy: fab-b serves llama-3.1-8b (serving {serving.pk}, admin); wait for it to end"
            )
            no_sideways_scroll(page)
            element_shot(page, "#fabric", f"fabric-card-refused-busy-{width}")
        assert not FabricRun.objects.exists()


@contextlib.contextmanager
def verified_pair_with(fault, page, live_server, fleet_key, tmp_path, settings, row_s, *, on_both=False):
    """fab-a and fab-b cabled p0 to p0, ``fault`` on fab-b (``on_both``: on
    fab-a too): an admin starts the verification from the group's page and
    waits for its result; the simulated fleet stays up while the caller looks."""
    make_user("admin", "lab-admin")
    nodes = [
        SimNode("fab-a", cabled_ports={"p0": ("fab-b", "p0")}, faults={fault} if on_both else set()),
        SimNode("fab-b", cabled_ports={"p0": ("fab-a", "p0")}, faults={fault}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        fleet.fleet.nccl_row_s = row_s
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="fab-a")
        sign_in(page, live_server.url, "admin", "admin-pass-123")
        page.goto(f"{live_server.url}/groups/{group.pk}/")
        page.click("#fabric button[type=submit]")
        page.wait_for_function("() => document.querySelector('#fabric .fabric-result')", timeout=30_000)
        yield group


def test_one_twin_shows_its_finding_and_fix(live_server, page, shot, fleet_key, tmp_path, settings, worker):
    """fab-b's second twin of p0 is down: the verification measures about half and says how to fix it,
    on the card and in the group's findings."""
    with verified_pair_with("twin-down", page, live_server, fleet_key, tmp_path, settings, 0.1):
        card = page.locator("#fabric").inner_text()
        assert "degraded" in card and "fabric-one-half" in card and "second twin" in card
        element_shot(page, "#fabric", "fabric-card-one-twin")
        page.reload()
        findings = page.locator("#findings").inner_text()
        assert "fabric-one-half" in findings and "Fabric verification #" in findings
        element_shot(page, "#findings", "fabric-group-findings-one-twin")


def test_nccl_on_tcp_sockets_shows_on_the_run_page(live_server, page, shot, fleet_key, tmp_path, settings, worker):
    """Neither node's NCCL finds a RoCE device: the run goes over TCP sockets;
    its page names the network each node chose beside the finding and its
    fix, on a phone and on a desktop."""
    with verified_pair_with("no-rdma", page, live_server, fleet_key, tmp_path, settings, 0.05, on_both=True) as group:
        run = FabricRun.objects.get(group=group)
        # the group's measured exchange says which network carried it, as the run ends
        page.wait_for_function("() => document.querySelector('#q-exchange .measured-network')")
        assert page.locator("#q-exchange .measured-network").inner_text() == (
            "over TCP sockets on fab-a, fab-b: NCCL fell back from RoCE"
        )
        element_shot(page, "#quantities", "fabric-four-quantities-sockets")
        page.goto(f"{live_server.url}/fabric/runs/{run.pk}/")
        network = page.locator(".nccl-network").inner_text()
        assert network == "NCCL network: Socket TCP sockets (NET/Socket) on fab-a, fab-b (enp1s0f1np1)."
        findings = page.locator(".findings").inner_text()
        assert "fabric-socket" in findings and "ibv_devinfo" in findings and "fabric-below-expected" in findings
        page.set_viewport_size({"width": 1440, "height": 900})
        shot("fabric-run-sockets-1440")
        page.set_viewport_size({"width": 390, "height": 844})
        no_sideways_scroll(page, slack=1)
        shot("fabric-run-sockets-390")
        # the plans read the same run: a warning above them, a badge on each multi-node row
        page.set_viewport_size({"width": 1440, "height": 900})
        page.goto(f"{live_server.url}/plans/?model=llama-3.3-70b&group={group.pk}")
        warning = page.locator("#plan-fabric").inner_text()
        assert warning.startswith(
            f"NCCL fell back to TCP sockets on fab-a, fab-b in this group's latest fabric verification (#{run.pk})."
        )
        assert page.locator("#plan-fabric a").get_attribute("href") == f"/fabric/runs/{run.pk}/"
        tp_rows = page.locator("tr.plan[data-strategy=tp]")
        assert tp_rows.count() >= 1 and tp_rows.locator(".badge.warn").first.inner_text() == "TCP sockets seen"
        assert page.locator("tr.plan[data-strategy=replicas] .badge.warn").count() == 0
        shot("plans-sockets-1440")
        page.set_viewport_size({"width": 390, "height": 844})
        no_sideways_scroll(page, slack=1)
        shot("plans-sockets-390")


def test_one_node_on_sockets_beside_roce_names_the_node_to_fix(
    live_server, page, shot, fleet_key, tmp_path, settings, worker
):
    """fab-b's NCCL finds no RoCE device while fab-a's does: NCCL refuses the
    connection between them, the run fails, and its card and page name the
    node to fix and what each node chose (not the generic SSH advice)."""
    with verified_pair_with("no-rdma", page, live_server, fleet_key, tmp_path, settings, 0.05) as group:
        run = FabricRun.objects.get(group=group)
        card = page.locator("#fabric").inner_text()
        assert "failed" in card and "fabric-mixed-networks" in card
        element_shot(page, "#fabric", "fabric-card-mixed-networks")
        page.goto(f"{live_server.url}/fabric/runs/{run.pk}/")
        findings = page.locator(".findings").inner_text()
        assert "NCCL on fab-b chose TCP sockets" in findings and "while fab-a chose RoCE (NET/IB)" in findings
        assert "wrong type 4 != 3" in findings and "NCCL found no usable RoCE device on fab-b" in findings
        assert "answers SSH" not in findings
        page.set_viewport_size({"width": 1440, "height": 900})
        shot("fabric-run-mixed-networks-1440")
        page.set_viewport_size({"width": 390, "height": 844})
        no_sideways_scroll(page, slack=1)
        shot("fabric-run-mixed-networks-390")
