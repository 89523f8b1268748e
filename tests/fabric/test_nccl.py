"""nccl-tests all_gather_perf output: read like two real Sparks print it, and
judged against what the group's links should give.

Shape from nccl-tests' all_gather_perf (NVIDIA/nccl-tests) as published for
DGX Spark pairs (NVIDIA dgx-spark-playbooks nccl README; Spark owners' posts):
right-padded host names, NCCL INFO and X11 lines between rows, an average
line that may end in a space, version lines that vary.
"""

import pytest

from fabric.nccl import NetworkUse, expected_busbw, judge, networks_of, parse_all_gather

HEALTHY = """\
Authorization required, but no authorization protocol specified
# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809
# Collective test starting: all_gather_perf
# nThread 1 nGpus 1 minBytes 536870912 maxBytes 4294967296 step: 2(factor) warmup iters: 1 iters: 20 \
agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid 105893 on  spark-101 device  0 [000f:01:00] NVIDIA GB10
#  Rank  1 Group  0 Pid  93712 on  spark-102 device  0 [000f:01:00] NVIDIA GB10
spark-101:105893:105893 [0] NCCL INFO NCCL version 2.28.9+cuda13.0
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   536870912      67108864     float    none      -1    12611   42.57   21.29      0    12587   42.65   21.33      0
  1073741824     134217728     float    none      -1    24874   43.17   21.58      0    24851   43.21   21.60      0
spark-102:93712:93730 [0] NCCL INFO NET/IB : Using [0]rocep1s0f1:1/RoCE [1]roceP2p1s0f1:1/RoCE
  2147483648     268435456     float    none      -1    48632   44.16   22.08      0    48590   44.20   22.10      0
  4294967296     536870912     float    none      -1    95218   45.11   22.55      0    95120   45.15   22.58      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 21.8838{SPACE}
#
# Collective test concluded: all_gather_perf
""".replace("{SPACE}", " ")  # the average line ends in a space on real nodes


def table(busbw, wrong=0, avg=None):
    rows = "".join(
        f"  {s:>10}  {s // 8:>12}     float    none      -1    99999   {b * 2:.2f}   {b:.2f}  {wrong:>5}"
        f"    99999   {b * 2:.2f}   {b:.2f}      0\n"
        for s, b in zip((536870912, 1073741824, 2147483648, 4294967296), busbw, strict=False)
    )
    tail = f"# Avg bus bandwidth    : {avg if avg is not None else sum(busbw) / len(busbw):.4f}\n"
    return "# nccl-tests version 2.20.0 (b4d5bee)\n" + rows + tail


def test_reads_every_size_the_average_and_the_hosts():
    result = parse_all_gather(HEALTHY)
    assert [r.size_bytes for r in result.rows] == [512 << 20, 1 << 30, 2 << 30, 4 << 30]
    assert [r.busbw_oop for r in result.rows] == [21.29, 21.58, 22.08, 22.55]
    assert result.rows[-1].busbw_ip == 22.58
    assert result.avg_busbw == pytest.approx(21.8838)
    assert result.wrong == 0 and result.hosts == ("spark-101", "spark-102")
    assert result.nccl_version == "2.28.9+cuda13.0" and result.tests_version == "2.17.6"
    assert result.complete and result.errors == ()


def test_a_healthy_200g_pair_is_as_expected():
    verdict = judge(parse_all_gather(HEALTHY), kind="direct", link_gbps=200)
    assert verdict.status == "ok" and verdict.findings == ()
    assert (verdict.expected.low, verdict.expected.high) == (20.0, 24.0)


def test_stuck_near_3_gbs_names_the_fixes():
    verdict = judge(parse_all_gather(table([2.81, 2.82, 2.83, 2.82])), kind="direct", link_gbps=200)
    assert verdict.status == "failed"
    (finding,) = verdict.findings
    assert finding.code == "fabric-stuck-low"
    assert "NCCL_IB_HCA" in finding.fix and "release tag" in finding.fix and "9000" in finding.fix


def test_one_twin_gives_about_half():
    verdict = judge(parse_all_gather(table([11.2, 11.6, 11.9, 12.1])), kind="switched", link_gbps=200)
    assert [f.code for f in verdict.findings] == ["fabric-one-half"] and verdict.status == "degraded"
    assert "second twin" in verdict.findings[0].fix


def test_rings_accept_10_gbs_and_up():
    assert judge(parse_all_gather(table([10.4, 10.9, 11.3, 11.6])), kind="ring", link_gbps=200).status == "ok"
    low = judge(parse_all_gather(table([7.9, 8.1, 8.4, 8.6])), kind="ring", link_gbps=200)
    assert [f.code for f in low.findings] == ["fabric-below-expected"]
    assert "under the 10 GB/s and up these links give" in low.findings[0].message


def test_100g_links_expect_about_half():
    expected = expected_busbw("switched", 100)
    assert (expected.low, expected.high) == (10.0, 12.0)
    assert judge(parse_all_gather(table([10.6, 10.9, 11.1, 11.2])), kind="switched", link_gbps=100).status == "ok"


def test_wrong_values_are_errors():
    verdict = judge(parse_all_gather(table([21.0, 21.5, 22.0, 22.4], wrong=3)), kind="direct", link_gbps=200)
    assert [f.code for f in verdict.findings] == ["fabric-errors"] and verdict.status == "failed"
    assert parse_all_gather(table([21.0, 21.5, 22.0, 22.4], wrong=3)).wrong == 12


def test_a_run_cut_short_is_failed_with_the_reason():
    cut = HEALTHY.split("  2147483648")[0]
    result = parse_all_gather(cut)
    assert len(result.rows) == 2 and not result.complete
    verdict = judge(result, kind="direct", link_gbps=200)
    assert verdict.status == "failed" and verdict.findings[0].code == "fabric-run-failed"
    assert "stopped before the end" in verdict.findings[0].message
    timed_out = judge(result, kind="direct", link_gbps=200, error="timed out after 600 s")
    assert "timed out after 600 s" in timed_out.findings[0].message


@pytest.mark.parametrize(
    "text",
    [
        "",
        "garbage\n\x00\n",
        "# Avg bus bandwidth : x\n",
        "123 abc\n" * 5,
        "  536870912 67108864 float none -1 1 2 3 N/A 1 2 nan 0\n",
    ],
)
def test_anything_else_reads_as_no_result(text):
    result = parse_all_gather(text)
    assert not result.complete and result.errors
    assert judge(result, kind="direct", link_gbps=200).status == "failed"


def test_validation_off_reads_na_as_no_wrong_values():
    text = table([21.0, 21.5, 22.0, 22.4]).replace("      0\n", "    N/A\n")
    assert parse_all_gather(text).wrong == 0


# What NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,NET adds per rank (NCCL's
# init.cc "Using network %s", net_ib/init.cc "NET/IB : Using%s %s; OOB %s:%s",
# net_socket.cc "NET/Socket : Using%s").
ON_ROCE = """\
spark-101:105:105 [0] NCCL INFO NET/IB : Using [0]rocep1s0f1:1/RoCE [1]roceP2p1s0f1:1/RoCE [RO]; OOB enP7s7:10.0.0.11<0>
spark-101:105:105 [0] NCCL INFO Using network IB
spark-102:937:937 [0] NCCL INFO NET/IB : Using [0]rocep1s0f1:1/RoCE [1]roceP2p1s0f1:1/RoCE [RO]; OOB enP7s7:10.0.0.12<0>
spark-102:937:937 [0] NCCL INFO Using network IB
"""
ON_SOCKETS = """\
spark-101:105:105 [0] NCCL INFO NET/IB : No device found.
spark-101:105:105 [0] NCCL INFO NET/Socket : Using [0]bond0:10.0.0.1<0>
spark-101:105:105 [0] NCCL INFO Using network Socket
spark-102:937:937 [0] NCCL INFO NET/IB : No device found.
spark-102:937:937 [0] NCCL INFO NET/Socket : Using [0]bond0:10.0.0.2<0>
spark-102:937:937 [0] NCCL INFO Using network Socket
"""


def test_the_network_each_rank_chose_is_read_with_its_devices():
    roce = parse_all_gather(ON_ROCE + table([21.3, 21.6, 22.1, 22.5]))
    assert roce.networks == (("spark-101", "IB"), ("spark-102", "IB"))
    assert roce.net_devices == (
        ("spark-101", "IB", ("rocep1s0f1", "roceP2p1s0f1")),
        ("spark-102", "IB", ("rocep1s0f1", "roceP2p1s0f1")),
    )
    assert roce.socket_hosts == () and roce.complete
    assert judge(roce, kind="direct", link_gbps=200).status == "ok"
    # the stored form reads back grouped, as the run's page and API show it
    assert networks_of(roce.to_dict()) == [NetworkUse("IB", ("spark-101", "spark-102"), ("rocep1s0f1", "roceP2p1s0f1"))]
    # a run printed with NCCL_DEBUG=VERSION (before it was kept) has a device line at most, no network
    older = parse_all_gather(HEALTHY)
    assert older.networks == () and older.net_devices == (("spark-102", "IB", ("rocep1s0f1", "roceP2p1s0f1")),)
    assert networks_of(older.to_dict()) == []


def test_nccl_on_tcp_sockets_is_a_finding_whatever_the_bandwidth():
    """A ring on sockets can reach the ring floor; it is still not RDMA."""
    result = parse_all_gather(ON_SOCKETS + table([10.4, 10.6, 10.9, 11.0]))
    assert result.socket_hosts == ("spark-101", "spark-102")
    verdict = judge(result, kind="ring", link_gbps=200)
    assert verdict.status == "failed"
    (finding,) = verdict.findings
    assert finding.code == "fabric-socket" and finding.severity == "critical"
    assert finding.message.startswith(
        "NCCL on spark-101, spark-102 chose TCP sockets ('Using network Socket' over bond0), not RoCE"
    )
    assert "ibv_devinfo" in finding.fix and "NCCL_IB_HCA" in finding.fix and "/dev/infiniband" in finding.fix
    assert networks_of(result.to_dict()) == [NetworkUse("Socket", ("spark-101", "spark-102"), ("bond0",))]
    # and beside a bandwidth finding on a pair
    pair = judge(parse_all_gather(ON_SOCKETS + table([5.4, 5.5, 5.6, 5.7])), kind="direct", link_gbps=200)
    assert [f.code for f in pair.findings] == ["fabric-socket", "fabric-below-expected"]


@pytest.mark.parametrize(
    "stored",
    [None, [], {"networks": "IB"}, {"networks": {"a": 3}}, {"networks": {"a": "IB"}, "net_devices": {"a IB": "x"}}],
)
def test_a_stored_result_of_any_shape_reads_without_error(stored):
    found = networks_of(stored)
    assert found in ([], [NetworkUse("IB", ("a",), ())])
