"""Fabric verification end to end against the simulated fleet: the API or the
group page starts it, the Celery task runs nccl-tests' all_gather_perf
through mpirun on the head node over SSH (host key verified), and the run
stores its command, raw output, parsed result, verdict and findings.

    direct:  fab-a:p0 ===== fab-b:p0
    ring:    ring-a:p1 - ring-b:p0, ring-b:p1 - ring-c:p0, ring-c:p1 - ring-a:p0
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.test import Client, TestCase
from django.utils import timezone

from fabric.models import FabricRun
from fabric.selectors import latest_measured_busbw
from inventory.models import NodeGroup, Spark
from simfleet.simulator import SimNode
from tests.conftest import ApiClient
from tests.telemetry import django_sim
from tests.telemetry.django_sim import sim_lab

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def tasks_inline(monkeypatch):
    from fabric import tasks

    monkeypatch.setattr(tasks.verify_fabric, "delay", lambda run_id: tasks.verify_fabric(run_id))


def pair(*faults_b: str, faults_a: tuple[str, ...] = ()) -> list[SimNode]:
    return [
        SimNode("fab-a", cabled_ports={"p0": ("fab-b", "p0")}, faults=set(faults_a)),
        SimNode("fab-b", cabled_ports={"p0": ("fab-a", "p0")}, faults=set(faults_b)),
    ]


def ring() -> list[SimNode]:
    names = ["ring-a", "ring-b", "ring-c"]
    nodes = [SimNode(n) for n in names]
    for i, node in enumerate(nodes):
        nxt = nodes[(i + 1) % 3]
        node.cabled_ports["p1"] = (nxt.name, "p0")
        nxt.cabled_ports["p0"] = (node.name, "p1")
    return nodes


def group_of(name: str) -> NodeGroup:
    return NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name=name)


def verify(client, group):
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(f"/api/groups/{group.pk}/verify")


def fast(fleet) -> None:
    fleet.fleet.nccl_row_s = 0.02


def test_an_admin_verifies_a_pair_from_the_api(api_admin, api_viewer, fleet_key, tmp_path, settings, tasks_inline):
    with sim_lab(pair(), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        group = group_of("fab-a")
        before = api_viewer.get(f"/api/groups/{group.pk}").json()
        assert before["measured_gbs"] is None and before["measured_run"] is None  # nothing measured yet
        assert before["exchange_source"].startswith("predicted")
        response = verify(api_admin, group)
        assert response.status_code == 202, response.content
        assert fleet.stats("fab-a").execs == 1 and fleet.stats("fab-b").execs == 0  # the head runs mpirun
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert run.status == "done" and run.verdict == "ok", (run.error, run.findings)
    assert 21.0 < run.avg_busbw < 23.0 and run.findings == []
    assert (run.expected_low, run.expected_high) == (20.0, 24.0)
    assert [r["size_bytes"] for r in run.result["rows"]] == [512 << 20, 1 << 30, 2 << 30, 4 << 30]
    assert "mpirun -np 2 -H fab-a:1,fab-b:1" in run.command and "all_gather_perf -b 512M -e 4G -f 2" in run.command
    assert "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0" in run.command and "NCCL_NET_PLUGIN" not in run.command
    assert "# Avg bus bandwidth" in run.output and run.created_by_name == "admin1"
    devices = ["rocep1s0f0", "roceP2p1s0f0"]
    assert api_viewer.get(f"/api/verifications/{run.pk}").json()["networks"] == [
        {"network": "IB", "hosts": ["fab-a", "fab-b"], "devices": devices}
    ]
    listed = api_viewer.get(f"/api/groups/{group.pk}/verifications").json()
    assert [r["id"] for r in listed] == [run.pk] and listed[0]["verdict"] == "ok"
    assert listed[0]["measured_busbw_gbs"] == run.avg_busbw and len(listed[0]["rows"]) == 4
    assert api_viewer.get(f"/api/verifications/{run.pk}").json()["output"] == run.output
    assert latest_measured_busbw(group.pk) == (run.avg_busbw, run)
    # the group's one state carries it: measured beats predicted in the group API, read and listed
    read = api_viewer.get(f"/api/groups/{group.pk}").json()
    assert (read["measured_gbs"], read["measured_run"]) == (run.avg_busbw, run.pk)
    assert read["measured_at"] is not None and read["exchange_source"].startswith("predicted")  # beside, not instead
    assert read["measured_socket_hosts"] == []  # over RoCE
    listed_groups = {g["id"]: g for g in api_viewer.get("/api/groups").json()["items"]}
    assert listed_groups[group.pk]["measured_gbs"] == run.avg_busbw
    planned = api_viewer.post("/api/plans", {"model": "llama-3.3-70b", "group": group.pk}).json()
    assert any(n.startswith("Measured fabric used") and f"{run.avg_busbw:.1f} GB/s" in n for n in planned["notes"])
    assert planned["group"]["fabric"] == {"run": run.pk, "bus_gbytes_per_s": run.avg_busbw, "socket_hosts": []}
    assert {p["fabric_warning"] for p in planned["plans"]} == {""}  # RoCE seen: nothing against the figures
    assert run.socket_hosts == ()


def test_one_twin_is_found_and_named(api_admin, fleet_key, tmp_path, settings, tasks_inline):
    with sim_lab(pair("twin-down"), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        response = verify(api_admin, group_of("fab-a"))
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert run.status == "done" and run.verdict == "degraded"
    assert [f["code"] for f in run.findings] == ["fabric-one-half"] and "second twin" in run.findings[0]["fix"]
    # raised on the group: its findings list (page and API) names them
    group = api_admin.get(f"/api/groups/{run.group_id}").json()
    raised = [f for f in group["findings"] if f["code"] == "fabric-one-half"]
    assert raised and f"Fabric verification #{run.pk}" in raised[0]["message"]


def test_nccl_falling_back_to_tcp_sockets_is_found_and_shown(
    api_admin, admin_client, fleet_key, tmp_path, settings, tasks_inline
):
    """Nodes whose NCCL finds no RoCE device (both: one alone cannot connect to
    the other, see below): the run goes over TCP sockets; the verification
    says so (API, run page, the group's findings)."""
    with sim_lab(pair("no-rdma", faults_a=("no-rdma",)), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        response = verify(api_admin, group_of("fab-a"))
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert "NCCL_DEBUG=INFO" in run.command and "NCCL_DEBUG_SUBSYS=INIT,NET" in run.command
    assert run.status == "done" and run.verdict == "failed"
    assert [f["code"] for f in run.findings] == ["fabric-socket", "fabric-below-expected"]
    read = api_admin.get(f"/api/verifications/{run.pk}").json()
    assert read["networks"] == [{"network": "Socket", "hosts": ["fab-a", "fab-b"], "devices": ["enp1s0f1np1"]}]
    page = admin_client.get(f"/fabric/runs/{run.pk}/")
    assert page.status_code == 200
    text = re.sub(r"<[^>]+>", "", page.content.decode())
    assert "NCCL network: Socket TCP sockets (NET/Socket) on fab-a, fab-b (enp1s0f1np1)." in text
    group = api_admin.get(f"/api/groups/{run.group_id}").json()
    assert any(f["code"] == "fabric-socket" for f in group["findings"])
    # the one state carries it: the group API, and /metrics for Prometheus (FabricOnTcpSockets)
    assert group["measured_socket_hosts"] == ["fab-a", "fab-b"] and group["measured_run"] == run.pk
    settings.FLEET_METRICS_TOKEN = ""
    metrics = Client().get("/metrics").content.decode()
    assert f'fleet_group_fabric_socket_nodes{{group="{group["name"]}"}} 2.0' in metrics
    # the plans read it: each multi-node plan says its figure keeps RoCE's latency
    planned = api_admin.post("/api/plans", {"model": "llama-3.3-70b", "group": run.group_id}).json()
    assert planned["group"]["fabric"] == {
        "run": run.pk,
        "bus_gbytes_per_s": run.avg_busbw,
        "socket_hosts": ["fab-a", "fab-b"],
    }
    tp2 = [p for p in planned["plans"] if p["tp"] == 2][0]
    assert tp2["fabric_warning"].startswith(
        f"The latest fabric verification #{run.pk} saw NCCL on fab-a, fab-b fall back to TCP sockets: this figure "
        f"prices tensor parallelism's messages at its measured {run.avg_busbw:.1f} GB/s"
    )
    assert {p["fabric_warning"] for p in planned["plans"] if p["tp"] * p["pp"] == 1} == {""}
    group_page = re.sub(r"<[^>]+>", "", admin_client.get(f"/groups/{run.group_id}/").content.decode())
    assert "over TCP sockets on fab-a, fab-b: NCCL fell back from RoCE" in group_page
    shown = admin_client.get(f"/plans/?model=llama-3.3-70b&group={run.group_id}")
    assert shown.status_code == 200
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", shown.content.decode()))
    assert (
        f"NCCL fell back to TCP sockets on fab-a, fab-b in this group's latest fabric verification (#{run.pk})."
    ) in text


def test_one_node_on_sockets_beside_one_on_roce_fails_with_the_node_to_fix(
    api_admin, admin_client, fleet_key, tmp_path, settings, tasks_inline
):
    """fab-b's NCCL finds no RoCE device, fab-a's does: NCCL refuses the
    connection between them and the run fails before its first row. The run
    says which node chose which network and which one to fix, not the generic
    "check SSH and nccl-tests"; nothing is measured."""
    with sim_lab(pair("no-rdma"), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        response = verify(api_admin, group_of("fab-a"))
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert (run.status, run.verdict, run.avg_busbw, run.error) == ("failed", "failed", None, "exited with status 1")
    assert [f["code"] for f in run.findings] == ["fabric-mixed-networks"]
    assert run.findings[0]["message"].endswith("so the verification stopped: exited with status 1.")
    assert (
        "NCCL on fab-b chose TCP sockets ('Using network Socket') while fab-a chose RoCE (NET/IB)"
        in (run.findings[0]["message"])
    )
    assert run.findings[0]["fix"].startswith("NCCL found no usable RoCE device on fab-b.")
    read = api_admin.get(f"/api/verifications/{run.pk}").json()
    assert read["networks"] == [
        {"network": "IB", "hosts": ["fab-a"], "devices": ["rocep1s0f0", "roceP2p1s0f0"]},
        {"network": "Socket", "hosts": ["fab-b"], "devices": ["enp1s0f1np1"]},
    ]
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", admin_client.get(f"/fabric/runs/{run.pk}/").content.decode()))
    assert "fabric-mixed-networks" in page and "wrong type 4 != 3" in page
    assert "No row: the run stopped before its first buffer size." in page
    group = api_admin.get(f"/api/groups/{run.group_id}").json()
    assert [f["code"] for f in group["findings"] if f["code"].startswith("fabric-")] == ["fabric-mixed-networks"]
    assert group["measured_run"] is None  # a failed run measured nothing


def test_a_stuck_build_is_found(api_admin, fleet_key, tmp_path, settings, tasks_inline):
    with sim_lab(pair("nccl-stuck"), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        response = verify(api_admin, group_of("fab-a"))
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert run.status == "done" and run.verdict == "failed" and run.avg_busbw < 3.0
    assert [f["code"] for f in run.findings] == ["fabric-stuck-low"]


def test_a_ring_runs_with_its_variables_and_reaches_its_floor(api_admin, fleet_key, tmp_path, settings, tasks_inline):
    with sim_lab(ring(), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        response = verify(api_admin, group_of("ring-a"))
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert run.kind == "ring" and run.verdict == "ok", (run.error, run.findings, run.output[-400:])
    assert "NCCL_NET_PLUGIN=none" in run.command and "NCCL_IB_SUBNET_AWARE_ROUTING=1" in run.command
    assert "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0,rocep1s0f1,roceP2p1s0f1" in run.command
    assert 10.0 <= run.avg_busbw < 13.0 and run.expected_low == 10.0


def test_a_node_that_hangs_ends_the_run_with_a_clear_result(api_admin, fleet_key, tmp_path, settings, tasks_inline):
    settings.FLEET_VERIFY_TIMEOUT_S = 1
    settings.FLEET_VERIFY_GRACE_S = 1.5
    with sim_lab(pair("hung"), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        response = verify(api_admin, group_of("fab-a"))
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert run.status == "failed" and run.verdict == "failed" and run.avg_busbw is None
    assert "timed out" in run.error and "stopped after 1 of 4 buffer sizes" in run.error
    assert [f["code"] for f in run.findings] == ["fabric-run-failed"]
    assert len(run.result["rows"]) == 1  # what it printed before the node stopped is kept
    assert latest_measured_busbw(run.group_id) is None  # a failed run measured nothing
    read = api_admin.get(f"/api/groups/{run.group_id}").json()
    assert read["measured_gbs"] is None and read["measured_run"] is None


def test_a_node_that_is_down_fails_at_once(api_admin, fleet_key, tmp_path, settings, tasks_inline):
    with sim_lab(pair(), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        fleet.set_faults("fab-b", {"down"})
        response = verify(api_admin, group_of("fab-a"))
    run = FabricRun.objects.get(pk=response.json()["id"])
    assert run.status == "failed" and "exited with status 1" in run.error
    assert "Connection refused" in run.output


def test_one_run_per_group_at_a_time(api_admin, admin_user, fleet_key, tmp_path, settings, monkeypatch):
    from fabric import tasks

    monkeypatch.setattr(tasks.verify_fabric, "delay", lambda run_id: None)  # no worker takes it here
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        group = group_of("fab-a")
        first = api_admin.post(f"/api/groups/{group.pk}/verify")
        assert first.status_code == 202
        second = api_admin.post(f"/api/groups/{group.pk}/verify")
        assert second.status_code == 409 and "already under way" in second.json()["message"]
        # the group page's button (htmx swaps no 4xx answer): the panel, with the reason in it
        page = ApiClient(admin_user, session=True)
        clicked = page.post(f"/groups/{group.pk}/verify/", headers={"HX-Request": "true"})
        assert clicked.status_code == 200
        assert "a fabric verification of group-fab-a is already under way" in clicked.content.decode()
        assert FabricRun.objects.filter(group=group).count() == 1
        with pytest.raises(IntegrityError), transaction.atomic():  # the database says so too
            FabricRun.objects.create(group=group, group_name=group.name, kind="direct", link_gbps=200, status="running")


def test_who_may_verify(api_member, api_viewer, member_user, fleet_key, tmp_path, settings, tasks_inline):
    from bookings.services import booking_create
    from core.actor import Actor

    with sim_lab(pair(), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        group = group_of("fab-a")
        assert verify(api_viewer, group).status_code == 403
        assert verify(ApiClient(None), group).status_code == 401
        unbooked = verify(api_member, group)
        assert unbooked.status_code == 403 and "book group-fab-a first" in unbooked.json()["message"]
        assert not FabricRun.objects.exists() and fleet.stats("fab-a").execs == 0
        now = timezone.now()
        booking_create(
            actor=Actor(user=member_user, source="api"),
            group=group.pk,
            start=now,
            end=now + timedelta(hours=1),
            purpose="fabric check",
            confirm=True,
        )
        booked = verify(api_member, group)
        assert booked.status_code == 202
    assert FabricRun.objects.get(pk=booked.json()["id"]).verdict == "ok"


def test_the_group_page_starts_it_and_shows_measured_beside_predicted(
    admin_user, fleet_key, tmp_path, settings, tasks_inline
):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin_user)
    with sim_lab(pair(), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        group = group_of("fab-a")
        page = browser.get(f"/groups/{group.pk}/").content.decode()
        assert "Verify fabric" in page and "not measured yet" in page and "predicted" in page
        token = browser.cookies["csrftoken"].value
        assert browser.post(f"/groups/{group.pk}/verify/", headers={"HX-Request": "true"}).status_code == 403
        with TestCase.captureOnCommitCallbacks(execute=True):
            panel = browser.post(f"/groups/{group.pk}/verify/", headers={"HX-Request": "true", "X-CSRFToken": token})
        assert panel.status_code == 200 and 'id="fabric"' in panel.content.decode()
    run = FabricRun.objects.get()
    page = browser.get(f"/groups/{group.pk}/").content.decode()
    exchange = re.search(r'<tr id="q-exchange">.*?</tr>', page, re.S).group(0)
    assert "measured" in exchange and f'href="/fabric/runs/{run.pk}/"' in exchange
    assert f"{run.avg_busbw:.1f} GB/s" in exchange and "predicted" in exchange
    detail = browser.get(f"/fabric/runs/{run.pk}/").content.decode()
    assert "all_gather_perf" in detail and "Per buffer size" in detail and "512.0" in detail


def test_the_command_line_runs_one_in_the_foreground(fleet_key, tmp_path, settings):
    from io import StringIO

    from django.core.management import call_command

    with sim_lab(pair("twin-down"), fleet_key, tmp_path, settings) as fleet:
        fast(fleet)
        out = StringIO()
        call_command("verify", "group-fab-a", stdout=out)
    text = out.getvalue()
    assert "all_gather_perf -b 512M -e 4G -f 2" in text and "degraded:" in text
    assert "fabric-one-half" in text and "fix: Bring up and address the second twin" in text
    assert FabricRun.objects.get().created_by_name == ""


def test_a_mixed_run_that_hangs_names_the_network_not_a_silent_node():
    """On NCCL builds that drop the refused connection and wait (newer than
    2.28), a run with one node on sockets hangs until its timeout: its one
    finding is still the mixed networks, and its error does not send the admin
    looking for a node that stopped answering."""
    from fabric.services import _judged
    from simfleet.nccl_answers import _network_lines

    group = NodeGroup.objects.create(name="mixed-pair", kind="direct")
    run = FabricRun.objects.create(
        group=group, group_name=group.name, kind="direct", link_gbps=200, status=FabricRun.Status.RUNNING,
        nodes=[{"name": n, "host": n, "rdma": []} for n in ("fab-a", "fab-b")],
    )  # fmt: skip
    output = _network_lines(["fab-a", "fab-b"], ["rocep1s0f0", "roceP2p1s0f0"], {"fab-a": set(), "fab-b": {"no-rdma"}})
    done = _judged(run, output, "timed out after 600 s")
    assert (done.status, done.error) == ("failed", "timed out after 600 s")
    assert [f["code"] for f in done.findings] == ["fabric-mixed-networks"]
    assert done.findings[0]["message"].endswith(
        "cannot connect to each other, so the verification stopped: timed out after 600 s."
    )


def test_no_verification_beside_a_live_engine_or_another_run_on_the_same_sparks(
    api_admin, admin_user, fleet_key, tmp_path, settings, monkeypatch
):
    """A verification ran while an engine served on the same Sparks, and a
    sub-group's beside its switch group's: each measured the other, and the
    planner reads the figure. Both are 409s naming what runs there; a serving is
    refused on Sparks being verified."""
    from fabric import tasks
    from serving.models import ServingNode
    from serving.services import _busy
    from tests.support.catalogue import seed_catalogue
    from tests.support.serving import live_serving

    monkeypatch.setattr(tasks.verify_fabric, "delay", lambda run_id: None)  # no worker takes it here
    seed_catalogue()
    with sim_lab(pair(), fleet_key, tmp_path, settings):
        group = group_of("fab-a")
        serving = live_serving(group, "fab-b", admin_user)
        refused = api_admin.post(f"/api/groups/{group.pk}/verify")
        assert refused.status_code == 409
        assert refused.json()["errors"] == [
            {
                "path": "group",
                "message": f"{group.name} is busy: fab-b serves llama-3.1-8b (serving {serving.pk}, admin1); "
                "wait for it to end",
            }
        ]
        ServingNode.objects.update(live=False)
        # a run of another group on the same Sparks (as a switch group's sub-group's is)
        other = NodeGroup.objects.create(name="half", kind="switched", auto=False)
        first = FabricRun.objects.create(
            group=other,
            group_name="half",
            kind="switched",
            link_gbps=200,
            status="running",
            nodes=[{"name": "fab-a", "host": "a", "rdma": []}, {"name": "fab-b", "host": "b", "rdma": []}],
        )
        beside = api_admin.post(f"/api/groups/{group.pk}/verify")
        assert beside.status_code == 409
        assert beside.json()["errors"][0]["message"] == (
            f"{group.name} is busy: fab-a, fab-b are being verified in run {first.pk} of half; wait for it to end"
        )
        assert FabricRun.objects.count() == 1
        sparks = {s.name: s for s in Spark.objects.filter(name__in=["fab-a", "fab-b"])}
        assert _busy(sparks) == [f"fab-a, fab-b are being verified (fabric run {first.pk} of half)"]
