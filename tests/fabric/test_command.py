"""The verification command: NVIDIA's mpirun recipe with the topology's variables, quoted."""

import shlex
import shutil
import subprocess

import pytest

from fabric.command import VerifyNode, VerifySettings, verify_command, verify_problems

P0 = ("rocep1s0f0", "roceP2p1s0f0")
P1 = ("rocep1s0f1", "roceP2p1s0f1")


def words(command):
    return shlex.split(command)


def exported(command):
    w = words(command)
    return dict(w[i + 1].split("=", 1) for i, x in enumerate(w) if x == "-x" and "=" in w[i + 1])


def test_direct_pair():
    nodes = [VerifyNode("spark-01", "10.20.0.11", P1), VerifyNode("spark-02", "10.20.0.12", P1)]
    command = verify_command(nodes, "direct")
    w = words(command)
    assert w[w.index("mpirun") + 1 : w.index("mpirun") + 5] == ["-np", "2", "-H", "10.20.0.11:1,10.20.0.12:1"]
    env = exported(command)
    assert env["NCCL_SOCKET_IFNAME"] == env["UCX_NET_DEVICES"] == env["OMPI_MCA_btl_tcp_if_include"] == "enP7s7"
    assert env["NCCL_IB_HCA"] == "rocep1s0f1,roceP2p1s0f1" and env["NCCL_IB_SUBNET_AWARE_ROUTING"] == "1"
    assert "NCCL_NET_PLUGIN" not in env
    assert command.endswith('"$HOME"/nccl-tests/build/all_gather_perf -b 512M -e 4G -f 2 2>&1')
    assert "StrictHostKeyChecking" not in command and "timeout -k 10 600 mpirun" in command


def test_ring_adds_its_variables_and_all_four_twins():
    nodes = [VerifyNode(f"spark-0{i}", f"spark-0{i}", P0 + P1) for i in range(1, 4)]
    env = exported(verify_command(nodes, "ring", VerifySettings(mgmt_iface="wlP9s9", timeout_s=60)))
    assert env["NCCL_NET_PLUGIN"] == "none" and env["NCCL_IB_MERGE_NICS"] == "0"
    assert env["NCCL_IB_HCA"] == "rocep1s0f0,roceP2p1s0f0,rocep1s0f1,roceP2p1s0f1"
    assert env["NCCL_SOCKET_IFNAME"] == "wlP9s9"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_command_is_valid_shell_and_keeps_odd_paths_quoted():
    settings = VerifySettings(all_gather="/opt/nccl tests/$(reboot)/all_gather_perf")
    nodes = [VerifyNode("a", "a", P1), VerifyNode("b", "b", P1)]
    command = verify_command(nodes, "switched", settings)
    assert subprocess.run(["bash", "-n", "-c", command], check=False).returncode == 0
    assert "/opt/nccl tests/$(reboot)/all_gather_perf" in words(command)


def test_problems_are_named():
    assert verify_problems([VerifyNode("a", "a", P1)], VerifySettings()) == [
        ("group", "a fabric verification needs at least two Sparks")
    ]
    bad = [VerifyNode("a", "x y", P1), VerifyNode("b", "b", P1[:1])]
    problems = verify_problems(bad, VerifySettings())
    assert ("node a", "has no usable management address or name") in problems
    assert ("node b", "needs both RoCE twins of each cabled port") in problems
    with pytest.raises(ValueError):
        verify_command(bad, "direct")
