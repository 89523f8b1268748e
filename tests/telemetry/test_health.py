"""Health rules: one example (or more) per code, on samples a simulated Spark prints.

Cabling used throughout::

    a:p0 ============ b:p0      (direct 200G cable, both twins, one /24 per twin)
    c:p0 ------------ sw1:swp3  (switch port)
"""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from simfleet.simulator import SimNode, render_poll_output
from telemetry.drift import spark_verdicts
from telemetry.health import (
    HEALTH_CODES,
    ExpectedLink,
    NodeExpectation,
    Thresholds,
    Verdict,
    evaluate_links,
    evaluate_node,
    node_status,
)
from telemetry.parsers import parse_poll_output
from telemetry.sample import PollResult, Sample

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
INTERVAL = 60.0
EXPECT = {
    "a": NodeExpectation("a", {"p0": ExpectedLink("b:p0", 200)}),
    "b": NodeExpectation("b", {"p0": ExpectedLink("a:p0", 200)}),
    "c": NodeExpectation("c", {"p0": ExpectedLink("sw1:swp3", 200)}),
}
LINKS = [(("a", "p0"), ("b", "p0"))]


def fleet(**faults: set[str]) -> list[SimNode]:
    return [
        SimNode("a", cabled_ports={"p0": ("b", "p0")}, faults=faults.get("a", set())),
        SimNode("b", cabled_ports={"p0": ("a", "p0")}, faults=faults.get("b", set())),
        SimNode("c", cabled_ports={"p0": ("sw1", "swp3")}, faults=faults.get("c", set())),
    ]


def sample_of(name: str, polls: int = 1, **faults: set[str]) -> Sample:
    return parse_poll_output(render_poll_output(fleet(**faults), name, polls=polls))


def result(name: str, sample: Sample | None, **fields) -> PollResult:
    base = dict(
        name=name, at=NOW, reachable=True, sample=sample, error="", host_key="ssh-ed25519 AAAA", host_key_status="ok"
    )
    return PollResult(duration_ms=12.0, **(base | fields))


def evaluate(name: str, observed, *, expectation="default", last_sample_at=None, **kwargs) -> list[Verdict]:
    alerts = evaluate_node(
        name,
        observed,
        EXPECT.get(name) if expectation == "default" else expectation,
        now=NOW,
        last_sample_at=last_sample_at,
        interval_s=INTERVAL,
        **kwargs,
    )
    for alert in alerts:
        assert alert.code in HEALTH_CODES
        assert alert.message.endswith(".") and ";" in alert.message  # one sentence: finding; fix.
    return alerts


def codes(alerts: list[Verdict]) -> list[str]:
    return [a.code for a in alerts]


def test_healthy_nodes_have_no_alerts():
    for name in ("a", "b", "c"):
        alerts = evaluate(name, result(name, sample_of(name, polls=3)))
        assert alerts == []
        assert node_status(alerts, reachable=True) == "ok"
    assert evaluate_links({n: sample_of(n) for n in "ab"}, LINKS) == []


def test_unreachable_when_ssh_fails_or_the_command_hangs():
    refused = evaluate("a", result("a", None, reachable=False, error="connection refused", host_key=None))
    assert codes(refused) == ["unreachable"] and "connection refused" in refused[0].message
    assert node_status(refused, reachable=False) == "down"
    hung = evaluate("a", result("a", None, error="command timed out after 10 s (0 bytes received)"))
    assert codes(hung) == ["unreachable"] and "freezes" in hung[0].message
    assert node_status(hung, reachable=True) == "down"


def test_host_key_mismatch_and_unknown():
    mismatch = evaluate("a", result("a", None, host_key_status="mismatch", error="host key mismatch"))
    assert codes(mismatch) == ["host-key-mismatch"]
    assert node_status(mismatch, reachable=True) == "down"
    unknown = evaluate("a", result("a", None, host_key_status="unknown", error="host key not accepted yet"))
    assert codes(unknown) == ["host-key-unknown"]
    assert node_status(unknown, reachable=True) == "unknown"


def test_link_down_one_twin_also_halves_the_port():
    alerts = evaluate("a", sample_of("a", a={"twin-down"}))
    assert codes(alerts) == ["link-down", "single-half"]
    down, half = alerts
    assert down.severity == "warning" and down.objects == ("a:p0", "a:enP2p1s0f0np0")
    assert "NCCL_IB_HCA (rocep1s0f0,roceP2p1s0f0)" in half.message
    assert node_status(alerts, reachable=True) == "degraded"


def test_link_down_whole_port_is_critical():
    uncabled = render_poll_output([SimNode("a")], "a")  # nothing plugged in where the inventory has a cable
    alerts = evaluate("a", parse_poll_output(uncabled))
    assert codes(alerts) == ["link-down"] and alerts[0].severity == "critical"


def test_single_half_when_a_twin_is_up_but_not_addressed():
    sample = sample_of("b")
    twins = tuple(
        replace(t, addresses=tuple(a for a in t.addresses if a.startswith("fe80"))) if t.name == "enP2p1s0f0np0" else t
        for t in sample.twins
    )
    alerts = evaluate("b", replace(sample, twins=twins))
    assert codes(alerts) == ["single-half"]
    assert "address enP2p1s0f0np0 in its own subnet" in alerts[0].message


def test_link_negotiated_100g():
    alerts = evaluate("c", sample_of("c", c={"negotiated-100g"}))
    assert codes(alerts) == ["link-negotiated-100g"]
    # a port the inventory knows runs at 100G (QSFP28 switch) is not flagged
    at_100 = NodeExpectation("c", {"p0": ExpectedLink("sw1:swp3", 100)})
    assert evaluate("c", sample_of("c", c={"negotiated-100g"}), expectation=at_100) == []


def test_twins_same_subnet():
    alerts = evaluate("a", sample_of("a", a={"same-subnet"}))
    assert codes(alerts) == ["twins-same-subnet"]
    assert "192.168.100.0/24" in alerts[0].message


def test_mtu_mismatch_needs_both_ends():
    samples = {"a": sample_of("a", a={"mtu-1500"}), "b": sample_of("b")}
    alerts = evaluate_links(samples, LINKS)
    assert codes(alerts) == ["mtu-mismatch"]
    assert alerts[0].objects == ("a:p0", "b:p0")
    assert "1500 on a:p0 but 9000 on b:p0" in alerts[0].message
    assert evaluate_links({"a": samples["a"], "b": None}, LINKS) == []  # one end unknown: no verdict


def test_memory_pressure_from_available_memory_or_psi():
    squeezed = sample_of("a", polls=6, a={"memory-pressure"})
    assert squeezed.memory.available_fraction < 0.05
    assert "memory-pressure" in codes(evaluate("a", squeezed))
    calm = sample_of("a")
    stalled = replace(calm, memory=replace(calm.memory, psi_full_avg10=25.0))
    assert codes(evaluate("a", stalled)) == ["memory-pressure"]
    assert evaluate("a", stalled, thresholds=Thresholds(psi_full_avg10=30.0)) == []


def test_cabling_drift_wrong_neighbour_and_unrecorded_cable():
    alerts = evaluate("a", sample_of("a", a={"wrong-neighbour"}))
    assert codes(alerts) == ["cabling-drift"]
    assert "where the inventory says b:p0" in alerts[0].message
    unrecorded = evaluate("a", sample_of("a"), expectation=NodeExpectation("a", {}))
    assert codes(unrecorded) == ["cabling-drift"] and "no cable there" in unrecorded[0].message
    assert evaluate("c", sample_of("c")) == []  # a switch port named by LLDP matches "sw1:swp3"


def test_stale_after_three_intervals():
    old = NOW - timedelta(seconds=3 * INTERVAL + 1)
    alerts = evaluate("a", None, last_sample_at=old)
    assert codes(alerts) == ["stale"]
    assert node_status(alerts, reachable=True) == "unknown"
    assert evaluate("a", None, last_sample_at=NOW - timedelta(seconds=2 * INTERVAL)) == []
    # a stored sample evaluated later: still judged, and marked stale
    assert codes(evaluate("a", sample_of("a"), last_sample_at=old)) == ["stale"]
    # a fresh poll result with a sample is its own proof of freshness
    assert evaluate("a", result("a", sample_of("a")), last_sample_at=old) == []
    # never sampled: unknown, not stale
    assert evaluate("a", None) == [] and node_status([], reachable=None) == "unknown"


def test_parse_error_is_info_unless_nothing_was_readable():
    partial = replace(sample_of("a"), errors=("gpu: no output (nvidia-smi missing or failed)",))
    (alert,) = evaluate("a", partial)
    assert (alert.code, alert.severity) == ("parse-error", "info")
    assert node_status([alert], reachable=True) == "ok"
    garbage = parse_poll_output(render_poll_output([SimNode("a", faults={"garbage"})], "a"))
    alerts = evaluate("a", result("a", garbage))
    assert codes(alerts) == ["parse-error"] and alerts[0].severity == "warning"


def test_rdma_port_down_under_an_up_interface():
    sample = sample_of("a", a={"rdma-down"})
    twin = next(t for t in sample.twins or () if t.name == "enp1s0f0np0")
    assert twin.up and twin.rdma_state == "DOWN" and twin.rdma_rate_gbps is None  # a down port's "40" is not read
    alerts = [x for x in evaluate("a", result("a", sample)) if x.code == "rdma-port-down"]
    assert len(alerts) == 1 and alerts[0].severity == "critical"
    assert "rocep1s0f0 is DOWN" in alerts[0].message and "a:enp1s0f0np0" in alerts[0].objects
    healthy = sample_of("a")
    assert {t.rdma_state for t in healthy.twins or () if t.up} == {"ACTIVE"}
    assert {t.rdma_rate_gbps for t in healthy.twins or () if t.up} == {200.0}
    assert "rdma-port-down" not in codes(evaluate("a", result("a", healthy)))


def test_mtu_below_9000_on_a_cabled_twin_is_named_with_its_fix():
    alerts = [x for x in evaluate("a", result("a", sample_of("a", a={"mtu-1500"}))) if x.code == "mtu-not-9000"]
    assert len(alerts) == 1 and "enp1s0f0np0 has MTU 1500" in alerts[0].message and "netplan" in alerts[0].message
    assert "mtu-not-9000" not in codes(evaluate("c", result("c", sample_of("c"))))  # uncabled twins at 1500 are fine


@pytest.mark.parametrize(
    ("free", "severity"),
    [(0.5, None), (0.1001, None), (0.0999, "warning"), (0.0301, "warning"), (0.0299, "critical"), (0.0, "critical")],
)
def test_a_root_filesystem_nearly_full_is_disk_low_then_critical(free, severity):
    """Under 10 % free: a warning, the next download will fail part-way; under 3 %: critical. The message
    says how much is left of what, what lives there, and how to see and free it."""
    import dataclasses

    from telemetry.sample import Disk

    total = 3_936_818_184_192
    sample = dataclasses.replace(sample_of("a"), disk=Disk(total, round(total * free)))
    found = [x for x in evaluate("a", result("a", sample)) if x.code == "disk-low"]
    assert [x.severity for x in found] == ([severity] if severity else [])
    if free == 0.0299:
        assert found[0].message == (
            "a has 118 GB (3.0%) of its 3.9 TB root filesystem free, where Docker's images and the Hugging Face "
            "cache live, so the next image or model download fails part-way; `docker system df` and "
            "`du -sh ~/.cache/huggingface/hub/*` show what holds it, and `docker image prune` removes images no "
            "container uses."
        )
        assert found[0].objects == ("a",)
    unread = dataclasses.replace(sample, disk=None)  # an answer without the section: nothing said
    assert "disk-low" not in codes(evaluate("a", result("a", unread)))


@pytest.mark.parametrize("code", sorted(HEALTH_CODES))
def test_every_code_is_described(code):
    info = HEALTH_CODES[code]
    assert info.severity in ("critical", "warning", "info") and info.description.endswith(".")


def test_every_code_has_an_example():
    """The scenarios above, condensed: together they produce every code in HEALTH_CODES."""
    old = NOW - timedelta(seconds=4 * INTERVAL)
    observed = [
        ("a", result("a", None, reachable=False, error="connection refused"), {}),
        ("a", result("a", None, host_key_status="mismatch"), {}),
        ("a", result("a", None, host_key_status="unknown"), {}),
        ("a", sample_of("a", a={"twin-down"}), {}),
        ("c", sample_of("c", c={"negotiated-100g"}), {}),
        ("a", sample_of("a", a={"same-subnet"}), {}),
        ("a", sample_of("a", polls=6, a={"memory-pressure"}), {}),
        ("a", sample_of("a", a={"wrong-neighbour"}), {}),
        ("a", None, {"last_sample_at": old}),
        ("a", sample_of("a", a={"garbage"}), {}),
        ("a", sample_of("a", a={"rdma-down"}), {}),
        ("a", sample_of("a", a={"mtu-1500"}), {}),
        ("a", sample_of("a", a={"disk-full"}), {}),
    ]
    produced = {alert.code for name, obs, kw in observed for alert in evaluate(name, obs, **kw)}
    produced |= set(codes(evaluate_links({"a": sample_of("a", a={"mtu-1500"}), "b": sample_of("b")}, LINKS)))
    drifted = spark_verdicts(
        {"g": ["a", "b", "c"]}, {"a": {"driver": "1.0"}, "b": {"driver": "1.0"}, "c": {"driver": "0.9"}}
    )
    produced |= {v.code for v in drifted.values()}
    assert produced == set(HEALTH_CODES)
