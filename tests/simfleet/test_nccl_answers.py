"""The simulated head node answers the fabric verification like real Sparks do:
read back by the real parser and judged by the real judge."""

import pytest

from fabric.command import VerifyNode, verify_command
from fabric.nccl import judge, parse_all_gather
from simfleet.nccl_answers import nccl_answer

P0 = ("rocep1s0f0", "roceP2p1s0f0")
P1 = ("rocep1s0f1", "roceP2p1s0f1")
PAIR = {"a": {"p0": ("b", "p0")}, "b": {"p0": ("a", "p0")}}
RING = {
    "a": {"p1": ("b", "p0"), "p0": ("c", "p1")},
    "b": {"p1": ("c", "p0"), "p0": ("a", "p1")},
    "c": {"p1": ("a", "p0"), "p0": ("b", "p1")},
}


def run(cabling, kind, faults=None, rdma=P0):
    names = sorted(cabling)
    command = verify_command([VerifyNode(n, n, rdma if kind != "ring" else P0 + P1) for n in names], kind)
    answer = nccl_answer(command, {n: set((faults or {}).get(n, ())) for n in names}, cabling, row_s=0)
    assert answer is not None
    text = "".join(t for _, t in answer.chunks)
    return answer, parse_all_gather(text)


def test_healthy_pair_prints_the_full_sweep():
    answer, result = run(PAIR, "direct")
    assert answer.exit_status == 0 and result.complete
    assert [r.size_bytes for r in result.rows] == [512 << 20, 1 << 30, 2 << 30, 4 << 30]
    assert result.hosts == ("a", "b") and result.nccl_version == "2.28.9+cuda13.0"
    assert judge(result, kind="direct", link_gbps=200).status == "ok"
    assert result.networks == (("a", "IB"), ("b", "IB"))
    assert {devices for _, _, devices in result.net_devices} == {P0}


def test_nodes_without_rdma_all_run_over_sockets():
    answer, result = run(PAIR, "direct", {"a": {"no-rdma"}, "b": {"no-rdma"}})
    assert answer.exit_status == 0 and result.complete
    assert result.networks == (("a", "Socket"), ("b", "Socket")) and result.socket_hosts == ("a", "b")
    codes = [f.code for f in judge(result, kind="direct", link_gbps=200).findings]
    assert codes == ["fabric-socket", "fabric-below-expected"]


def test_one_node_without_rdma_beside_one_with_it_fails_and_says_why():
    """Each rank's NCCL picks its own network: RoCE on a, sockets on b, and
    NCCL's transports refuse each other's connections (NCCL 2.28)."""
    answer, result = run(PAIR, "direct", {"b": {"no-rdma"}})
    assert answer.exit_status == 1 and not result.rows
    assert result.networks == (("a", "IB"), ("b", "Socket")) and result.mixed_networks
    assert result.warnings == (("b", "socketFinalizeAccept from 192.168.100.11<45113>: wrong type 4 != 3"),)
    verdict = judge(result, kind="direct", link_gbps=200, error="mpirun exited with status 1")
    assert verdict.status == "failed"
    [finding] = verdict.findings
    assert finding.code == "fabric-mixed-networks" and finding.severity == "critical"
    assert finding.message.startswith(
        "NCCL on b chose TCP sockets ('Using network Socket') while a chose RoCE (NET/IB): ranks on different "
        "networks cannot connect to each other (NCCL said: 'socketFinalizeAccept from 192.168.100.11<45113>: "
        "wrong type 4 != 3'), so the verification stopped: mpirun exited with status 1."
    )
    assert finding.fix.startswith("NCCL found no usable RoCE device on b. Check that ibv_devinfo lists")


@pytest.mark.parametrize(("fault", "code"), [("twin-down", "fabric-one-half"), ("nccl-stuck", "fabric-stuck-low")])
def test_faults_show_in_the_figures(fault, code):
    _, result = run(PAIR, "direct", {"b": {fault}})
    assert [f.code for f in judge(result, kind="direct", link_gbps=200).findings] == [code]


def test_a_ring_reaches_its_floor_and_fails_without_its_variables():
    answer, result = run(RING, "ring")
    assert answer.exit_status == 0 and judge(result, kind="ring", link_gbps=200).status == "ok"
    assert 10 <= (result.avg_busbw or 0) < 13
    bad = verify_command([VerifyNode(n, n, P0 + P1) for n in "abc"], "switched")  # no ring variables
    answer = nccl_answer(bad, {n: set() for n in "abc"}, RING, row_s=0)
    assert answer is not None and answer.exit_status == 1
    assert "ibv_modify_qp failed with 110" in "".join(t for _, t in answer.chunks)


def test_a_hung_node_leaves_the_run_waiting_and_a_down_one_stops_it():
    answer, result = run(PAIR, "direct", {"b": {"hung"}})
    assert answer.exit_status is None and len(result.rows) == 1 and not result.complete
    answer, result = run(PAIR, "direct", {"b": {"down"}})
    assert answer.exit_status == 1 and not result.rows


def test_other_commands_are_not_answered():
    assert nccl_answer("cat /proc/meminfo", {"a": set()}, PAIR) is None
