"""Every candidate the designer offers imports through the real import
service into an empty lab, and the topology engine then reads the kind, the
link speeds and the findings the design promised."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.conf import settings
from django.test import Client

from core.actor import Actor
from design.generate import DesignInputError, Request, designs, netplans
from fabric.services import group_netplan
from inventory.labio import lab_import
from inventory.models import NodeGroup
from tests.conftest import ApiClient
from topology.engine import analyse
from topology.services import lab_read

REQUESTS = {
    "2": Request(2, 0),
    "3": Request(3, 0),
    "4": Request(4, 0),
    "8": Request(8, 0),
    "16": Request(16, 0),
    "3x128+2x64": Request(3, 2),
    "4x128+4x64": Request(4, 4),
}


def _cases() -> list[Any]:
    cases = []
    for label, request in REQUESTS.items():
        for design in designs(request):
            cases.append(pytest.param(request, design.key, id=f"{label}-{design.key}"))
    return cases


@pytest.mark.django_db
@pytest.mark.parametrize(("request_", "key"), _cases())
def test_lab_document_imports_as_the_design_promised(admin_user: Any, request_: Request, key: str) -> None:
    design = next(d for d in designs(request_) if d.key == key)
    assert not NodeGroup.objects.exists()
    lab_import(actor=Actor(user=admin_user, source="import"), data=design.document)
    groups = [g for g in analyse(lab_read().lab, os_reserve_gb=settings.FLEET_OS_RESERVE_GB) if g.nodes]
    assert len(groups) == 1
    built = groups[0]
    assert built.kind == design.kind == design.group.kind
    assert len(built.nodes) == request_.total
    assert sorted({link.gbps for link in built.links}) == design.link_gbps
    assert sorted({f.code for f in built.findings}) == design.finding_codes
    assert built.collective_gbs == design.group.collective_gbs
    # the inventory's own group (kept in step with the cabling) has the same kind
    assert list(NodeGroup.objects.filter(retired_at__isnull=True).values_list("kind", flat=True)) == [design.kind]
    # the netplan files written before anything is bought are the ones the built group gets
    designed = {n: yaml.safe_load(text)["network"] for n, text in netplans(design).items()}
    built_files = group_netplan(NodeGroup.objects.get(retired_at__isnull=True).pk).files
    assert len(designed) == request_.total
    assert designed == {n: yaml.safe_load(text)["network"] for n, text in built_files.items()}


def test_the_candidates_per_size_with_and_without_a_switch() -> None:
    keys = {label: [d.key for d in designs(r)] for label, r in REQUESTS.items()}
    assert keys["2"] == [
        "direct",
        "switched-mikrotik-crs504-4xq-in",
        "switched-mikrotik-crs812-ddq",
        "switched-mikrotik-crs804-ddq",
        "switched-generic-qsfp112-switch-32",
    ]
    # no ring of eight: its own switch-recommended finding says eight need a switch
    assert keys["8"] == ["switched-mikrotik-crs804-ddq", "switched-generic-qsfp112-switch-32"]
    assert keys["16"] == ["switched-generic-qsfp112-switch-32"]
    assert [d.key for d in designs(Request(4, 0, no_switch=True))] == ["ring"]
    assert [d.key for d in designs(Request(2, 0, no_switch=True))] == ["direct"]
    assert [d.key for d in designs(Request(8, 0, owned_switch="mikrotik-crs804-ddq"))] == [
        "switched-mikrotik-crs804-ddq"
    ]
    with pytest.raises(DesignInputError) as exc:
        designs(Request(16, 0, no_switch=True))
    assert exc.value.errors[0][0] == "no_switch" and "ring" in exc.value.errors[0][1]
    with pytest.raises(DesignInputError) as exc:
        designs(Request(8, 0, owned_switch="mikrotik-crs504-4xq-in"))
    assert "at most 4 Sparks" in exc.value.errors[0][1]
    with pytest.raises(DesignInputError) as exc:
        designs(Request(7, 0, owned_switch="mikrotik-crs812-ddq"))
    assert exc.value.errors[0][1] == "the mikrotik-crs812-ddq cables at most 6 Sparks, not 7"


def test_the_crs812_takes_breakouts_on_its_qsfp56_dd_ports_then_one_spark_a_qsfp56_port() -> None:
    """Two 2 x 200G breakouts on ports 1 and 2, then a QSFP56 cable on ports 3
    and 4: six Sparks at 200 Gb/s; five leave port 4 empty; three put the odd
    Spark on a QSFP56 cable into the second QSFP56-DD port."""
    six = next(d for d in designs(Request(6, 0)) if d.key == "switched-mikrotik-crs812-ddq")
    assert [(c["type"], c["ends"][0]) for c in six.document["cables"]] == [
        ("qsfp-dd-2x-qsfp56-breakout", "sw-1:1"),
        ("qsfp-dd-2x-qsfp56-breakout", "sw-1:2"),
        ("qsfp56-dac", "sw-1:3"),
        ("qsfp56-dac", "sw-1:4"),
    ]
    assert six.link_gbps == [200] and six.finding_codes == []
    assert "then one QSFP56 DAC (200G) a Spark on a port that does not break out" in six.notes[0]
    # every cable touches a Spark, whose NIC wants NVIDIA coding; the MikroTik end takes any
    assert {c["coded_for"] for c in six.document["cables"]} == {"nvidia"}
    assert any("MikroTik's switches take any vendor's coding" in n for n in six.notes)
    assert not any("any vendor's coding" in n for n in designs(Request(6, 0))[-1].notes)  # the generic switch
    three = next(d for d in designs(Request(3, 0)) if d.key == "switched-mikrotik-crs812-ddq")
    assert [(c["type"], c["ends"][0]) for c in three.document["cables"]] == [
        ("qsfp-dd-2x-qsfp56-breakout", "sw-1:1"),
        ("qsfp56-dac", "sw-1:2"),
    ]
    assert "the odd Spark on a QSFP56 DAC (200G)" in three.notes[0]


def test_what_the_engine_says_about_each_shape() -> None:
    by_key = {d.key: d for d in designs(Request(8, 0))}
    assert "ring" not in by_key  # eight need a switch
    ring7 = next(d for d in designs(Request(7, 0)) if d.key == "ring")
    assert ring7.finding_codes == ["switch-recommended"]
    assert ring7.group.collective_gbs == 12.0
    crs804 = by_key["switched-mikrotik-crs804-ddq"]
    assert crs804.link_gbps == [200] and crs804.finding_codes == [] and crs804.group.collective_gbs == 24.0
    parts = {(p.slug, p.coded_for): p.count for p in crs804.parts}
    assert parts == {
        ("dgx-spark-128", ""): 8,
        ("mikrotik-crs804-ddq", ""): 1,
        ("qsfp-dd-2x-qsfp56-breakout", "nvidia"): 4,
    }
    crs504 = next(d for d in designs(Request(4, 0)) if d.switch == "mikrotik-crs504-4xq-in")
    assert crs504.link_gbps == [100] and "slow-switch-port" in crs504.finding_codes
    mixed = designs(Request(3, 2))
    assert all("mixed-memory" in d.finding_codes for d in mixed)
    assert [s["hardware"] for s in mixed[0].document["sparks"]].count("dgx-spark-64") == 2
    # placeholder addresses are TEST-NET-1 (documentation only)
    assert all(s["ssh"]["host"].startswith("192.0.2.") for s in mixed[0].document["sparks"])
    # 32 Sparks is the catalogue's limit: one QSFP112 cable a port on the 32-port switch,
    # whose QSFP112 cages take no QSFP-DD breakout
    big = designs(Request(32, 0))
    assert [(p.slug, p.count) for p in big[0].parts if p.kind == "cable"] == [("qsfp112-dac", 32)]
    assert [d.switch for d in big] == ["generic-qsfp112-switch-32"]
    with pytest.raises(DesignInputError) as exc:
        designs(Request(33, 0))
    assert exc.value.errors == [
        (
            "sparks_128",
            "33 Sparks in all: a design needs 2 to 32 Sparks (the catalogue's largest switch, 32 QSFP112 ports, "
            "cables 32, one a port: a QSFP-DD breakout does not fit its cages; designs over several switches "
            "are not made)",
        )
    ]
    # breakouts only where their plug fits: the CRS804 DDQ's QSFP-DD cages
    for n in (9, 16, 24, 32):
        for d in designs(Request(n, 0)):
            assert "qsfp-dd-2x-qsfp56-breakout" not in {p.slug for p in d.parts}, (n, d.key)


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        (Request(0, 0), "sparks_128"),
        (Request(1, 0), "sparks_128"),
        (Request(10_000, 0), "sparks_128"),
        (Request(2, 0, owned_switch="no-such-switch"), "owned_switch"),
    ],
)
def test_bad_requests_name_the_field(request_: Request, path: str) -> None:
    with pytest.raises(DesignInputError) as exc:
        designs(request_)
    assert exc.value.errors[0][0] == path


@pytest.mark.django_db
def test_the_designed_prediction_is_the_one_the_built_group_gets(admin_user: Any, member_user: Any) -> None:
    """One truth for predicted decode: what the designer promises for a target
    model is what POST /api/plans and the plans page say once the design's
    document is imported (no telemetry yet: expected memory and link speed)."""
    api = ApiClient(member_user)
    target = {"model": "gpt-oss-120b", "context_tokens": 8192, "concurrency": 64, "goal": "throughput"}
    answer = api.post("/api/designs", {"sparks": [{"hardware": "dgx-spark-128", "planned": 4}], "models": [target]})
    assert answer.status_code == 200, answer.content
    ring = next(d for d in answer.json()["designs"] if d["key"] == "ring")
    promised = ring["models"][0]["plan"]
    lab_import(actor=Actor(user=admin_user, source="import"), data=ring["document"])
    group = NodeGroup.objects.get(retired_at__isnull=True)
    planned = api.post("/api/plans", {**target, "group": group.pk}).json()
    best = planned["plans"][planned["recommended"]]
    assert (best["label"], best["decode_tps"], best["aggregate_tps"]) == (
        promised["label"],
        promised["decode_tps"],
        promised["aggregate_tps"],
    )
    assert promised["label"] == "4 one-node copies"  # 64 streams on a ring of four: independent copies
    page = Client()
    page.force_login(member_user)
    html = page.get("/plans/", {**target, "group": group.pk, "engine": "vllm"}).content.decode()
    assert f"~{promised['aggregate_tps']:.0f} tok/s predicted" in html
