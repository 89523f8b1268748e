"""Parsers of the poll script output: real Spark shapes, full answers, garbage."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simfleet.simulator import SimNode, render_poll_output
from telemetry import parsers
from telemetry.parsers import (
    parse_compute_apps,
    parse_disk,
    parse_gpu_csv,
    parse_ibdev2netdev,
    parse_ip_addr_json,
    parse_ip_link_json,
    parse_lldp_json,
    parse_loadavg,
    parse_meminfo,
    parse_poll_output,
    parse_ps_owners,
    parse_psi,
    parse_sysfs_twin,
    parse_uptime,
    split_sections,
)
from telemetry.poll_script import POLL_SCRIPT, SECTIONS, TWIN_IFNAMES, TWINS
from telemetry.sample import Disk, Sample

# docs/operations.md ("Memory"): a 128 GB node, grep of /proc/meminfo
MEMINFO = """MemTotal:       127600748 kB
MemAvailable:   118566368 kB
SwapTotal:       16777212 kB
SwapFree:        15826944 kB
"""

# docs/operations.md ("Links"), NVIDIA's Connect Two Sparks playbook: one cable in port 1
IBDEV = """roceP2p1s0f0 port 1 ==> enP2p1s0f0np0 (Down)
roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Up)
rocep1s0f0 port 1 ==> enp1s0f0np0 (Down)
rocep1s0f1 port 1 ==> enp1s0f1np1 (Up)
"""


def _ip_item(name, up, mtu, addrs=(), operstate=True):
    item = {
        "ifindex": 3,
        "ifname": name,
        "flags": ["BROADCAST", "MULTICAST", "UP"] + (["LOWER_UP"] if up else []),
        "mtu": mtu,
        "addr_info": [
            {
                "family": "inet6" if ":" in a else "inet",
                "local": a.split("/")[0],
                "prefixlen": int(a.split("/")[1]),
            }
            for a in addrs
        ],
    }
    if operstate:
        item["operstate"] = "UP" if up else "DOWN"
    return item


# df -P -B1 / (coreutils' POSIX format, in bytes): the root filesystem of a 4 TB NVMe, 5% kept for root
DF = (
    "Filesystem          1-blocks          Used     Available Capacity Mounted on\n"
    "/dev/nvme0n1p2 3936818184192 2961454010368 778523264000      80% /\n"
)


def test_the_root_filesystem_is_read_from_df():
    """df's line mounted on /: its size and what a user may still write (Available, not size - used:
    ext4 keeps blocks for root); anything else is unreadable, never a guess."""
    assert parse_disk(DF) == parsers.Parsed(Disk(3_936_818_184_192, 778_523_264_000))
    assert parse_disk(DF).value.free_fraction == pytest.approx(0.19775, abs=1e-5)  # type: ignore[union-attr]
    for text in (
        "",
        "Filesystem 1-blocks Used Available Capacity Mounted on\n",
        "/dev/nvme0n1p2 3936818184192 2961454010368 778523264000 80% /home\n",  # not /
        "/dev/nvme0n1p2 lots 2961454010368 778523264000 80% /\n",
        "/dev/nvme0n1p2 100 0 200 0% /\n",  # more free than its size
        "/dev/nvme0n1p2 0 0 0 - /\n",
    ):
        parsed = parse_disk(text)
        assert parsed.value is None and parsed.errors and parsed.errors[0].startswith("unreadable"), text


def _real_node_output(lldp: str = "") -> str:
    """A full answer of a node with one cable in port 1, written by hand from docs/operations.md."""
    items = [
        _ip_item("lo", True, 65536, ["127.0.0.1/8"]),
        _ip_item("enP7s7", True, 1500, ["10.0.0.11/24"]),
        _ip_item("enp1s0f0np0", False, 1500),
        _ip_item("enP2p1s0f0np0", False, 1500),
        _ip_item("enp1s0f1np1", True, 9000, ["192.168.100.11/24", "fe80::4ebb:47ff:fe00:1/64"]),
        _ip_item("enP2p1s0f1np1", True, 9000, ["192.168.101.11/24"]),
    ]
    sysfs = (
        "enp1s0f0np0 operstate=down speed=- mtu=1500\n"
        "enP2p1s0f0np0 operstate=down speed=-1 mtu=1500\n"
        "enp1s0f1np1 operstate=up speed=200000 mtu=9000\n"
        "enP2p1s0f1np1 operstate=up speed=200000 mtu=9000\n"
    )
    return (
        f"@@fleet:meminfo\n{MEMINFO}"
        "@@fleet:psi\nsome avg10=1.50 avg60=0.40 avg300=0.10 total=123\n"
        "full avg10=0.25 avg60=0.00 avg300=0.00 total=4\n"
        "@@fleet:gpu\n0, 35, 11.17\n"
        "@@fleet:apps\n4123, 98304 MiB, /usr/bin/python3\n"
        "@@fleet:owners\n   4123 member1\n"
        f"@@fleet:ip_link\n{json.dumps(items)}\n"
        f"@@fleet:ip_addr\n{json.dumps(items)}\n"
        f"@@fleet:sysfs\n{sysfs}"
        f"@@fleet:ibdev2netdev\n{IBDEV}"
        # /sys/class/infiniband/<dev>/ports/1/{state,rate}: a down port still reports 40 (docs/operations.md)
        "@@fleet:rdma\nroceP2p1s0f0|1: DOWN|40 Gb/sec (4X QDR)\nroceP2p1s0f1|4: ACTIVE|200 Gb/sec (4X HDR)\n"
        "rocep1s0f0|1: DOWN|40 Gb/sec (4X QDR)\nrocep1s0f1|4: ACTIVE|200 Gb/sec (4X HDR)\n"
        f"@@fleet:lldp\n{lldp}\n"
        "@@fleet:uptime\n350735.47 234388.90\n"
        "@@fleet:loadavg\n0.52 0.58 0.59 1/467 12345\n"
        f"@@fleet:disk\n{DF}"
        "@@fleet:end\n"
    )


# --------------------------------------------------------------------------- examples


def test_meminfo_uses_memavailable_in_bytes():
    memory, errors = parse_meminfo(MEMINFO)
    assert errors == ()
    assert memory.total_bytes == 127600748 * 1024
    assert memory.available_bytes == 118566368 * 1024
    assert memory.used_bytes == (127600748 - 118566368) * 1024
    assert memory.swap_free_bytes == 15826944 * 1024
    assert round(memory.total_bytes / 2**30, 1) == 121.7  # what vLLM sees on a 128 GB node


def test_meminfo_without_memavailable_is_an_error_not_a_guess():
    memory, errors = parse_meminfo("MemTotal: 100 kB\nMemFree: 50 kB\n")
    assert memory is None
    assert errors == ("MemAvailable missing",)


def test_psi_reads_some_and_full_avg10():
    psi, errors = parse_psi(
        "some avg10=12.50 avg60=3.00 avg300=1.00 total=9\nfull avg10=4.25 avg60=1 avg300=0 total=2\n"
    )
    assert errors == ()
    assert psi == parsers.Psi(12.5, 4.25)
    assert parse_psi("") == parsers.Parsed(None)  # kernel without PSI: unknown, not an error


def test_gpu_csv_with_na_fields():
    assert parse_gpu_csv("0, 35, 11.17\n").value.power_w == 11.17
    gpu, errors = parse_gpu_csv("[N/A], 35, [N/A]\n")
    assert errors == ()
    assert (gpu.util_pct, gpu.temp_c, gpu.power_w) == (None, 35.0, None)
    assert parse_gpu_csv("").errors == ("no output (nvidia-smi missing or failed)",)
    assert parse_gpu_csv("0, 35\n").value is None


def test_compute_apps_and_owners():
    procs, errors = parse_compute_apps("4123, 98304 MiB, /usr/bin/python3\nbroken line\n77, [N/A], vllm, serve\n")
    assert [(p.pid, p.used_mib, p.name) for p in procs] == [
        (4123, 98304, "/usr/bin/python3"),
        (77, None, "vllm, serve"),
    ]
    assert errors == ("bad line 'broken line'",)
    assert parse_ps_owners("   4123 member1\n77 member2\n").value == {4123: "member1", 77: "member2"}


def test_ibdev2netdev_sample_from_spark_ops():
    mapping, errors = parse_ibdev2netdev(IBDEV)
    assert errors == ()
    assert mapping["enp1s0f1np1"] == ("rocep1s0f1", True)
    assert mapping["enP2p1s0f0np0"] == ("roceP2p1s0f0", False)


def test_ip_link_without_operstate_falls_back_to_lower_up():
    text = json.dumps([_ip_item("enp1s0f1np1", True, 9000, operstate=False)])
    links, errors = parse_ip_link_json(text)
    assert links["enp1s0f1np1"].operstate == "up"
    assert links["enp1s0f1np1"].mtu == 9000


def test_ip_addr_gives_cidrs_and_reports_bad_addresses():
    good = _ip_item("enp1s0f1np1", True, 9000, ["192.168.100.11/24", "fe80::1/64"])
    bad = {"ifname": "x", "addr_info": [{"family": "inet", "local": "999.1.1.1", "prefixlen": 24}]}
    addrs, errors = parse_ip_addr_json(json.dumps([good, bad]))
    assert addrs["enp1s0f1np1"] == ("192.168.100.11/24", "fe80::1/64")
    assert errors == ("x: bad address '999.1.1.1'",)
    assert parse_ip_addr_json("{not json").value is None


def test_sysfs_speed_of_a_down_link_is_unknown():
    links, errors = parse_sysfs_twin(
        "enp1s0f0np0 operstate=down speed=-1 mtu=9000\nenp1s0f1np1 operstate=up speed=100000 mtu=1500\n"
    )
    assert errors == ()
    assert links["enp1s0f0np0"].speed_mbps is None
    assert links["enp1s0f1np1"].speed_mbps == 100000


LLDP_CLASSIC_ONE = {
    "lldp": {
        "interface": {
            "enp1s0f1np1": {
                "via": "LLDP",
                "chassis": {"spark-02": {"id": {"type": "mac", "value": "4c:bb:47:00:00:10"}}},
                "port": {"id": {"type": "mac", "value": "4c:bb:47:00:00:11"}, "descr": "enp1s0f0np0"},
            }
        }
    }
}
LLDP_CLASSIC_MANY = {
    "lldp": {
        "interface": [
            {"enp1s0f1np1": LLDP_CLASSIC_ONE["lldp"]["interface"]["enp1s0f1np1"]},
            {
                "enP2p1s0f1np1": {
                    "chassis": {"crs804": {"id": {"type": "mac", "value": "x"}}},
                    "port": {"id": {"type": "ifname", "value": "qsfp56-dd-1-1"}, "descr": "uplink to spark"},
                }
            },
        ]
    }
}
LLDP_JSON0 = {
    "lldp": [
        {
            "interface": [
                {
                    "name": "enp1s0f0np0",
                    "chassis": [{"id": [{"type": "mac", "value": "x"}], "name": [{"value": "spark-07"}]}],
                    "port": [{"id": [{"type": "ifname", "value": "enp1s0f1np1"}]}],
                }
            ]
        }
    ]
}


def test_lldp_shapes():
    (one,) = parse_lldp_json(json.dumps(LLDP_CLASSIC_ONE)).value
    assert (one.local_if, one.system_name, one.port_id) == ("enp1s0f1np1", "spark-02", "enp1s0f0np0")
    many = parse_lldp_json(json.dumps(LLDP_CLASSIC_MANY)).value
    assert [(n.system_name, n.port_id) for n in many] == [
        ("spark-02", "enp1s0f0np0"),
        ("crs804", "qsfp56-dd-1-1"),
    ]
    (j0,) = parse_lldp_json(json.dumps(LLDP_JSON0)).value
    assert (j0.local_if, j0.system_name, j0.port_id) == ("enp1s0f0np0", "spark-07", "enp1s0f1np1")
    assert parse_lldp_json('{"lldp": {}}').value == ()
    assert parse_lldp_json("") == parsers.Parsed(None)  # no lldpd: unknown, not an error


def test_uptime_and_loadavg():
    assert parse_uptime("350735.47 234388.90\n").value == 350735.47
    assert parse_loadavg("0.52 0.58 0.59 1/467 12345\n").value == 0.52
    assert parse_uptime("nan 1").value is None


# --------------------------------------------------------------------------- full answers


def test_split_sections_follows_the_script_order():
    sections = split_sections(_real_node_output())
    assert list(sections) == [*SECTIONS, "end"]
    for name in SECTIONS:
        assert f"'@@fleet:{name}'" in POLL_SCRIPT  # every parsed section is printed by the script


def test_full_real_answer():
    sample = parse_poll_output(_real_node_output(json.dumps(LLDP_CLASSIC_ONE)))
    assert sample.errors == ()
    assert sample.memory.psi_full_avg10 == 0.25
    assert sample.gpu.temp_c == 35
    assert sample.processes[0].user == "member1"
    assert [t.name for t in sample.twins] == list(TWIN_IFNAMES)
    p1 = sample.twins_of("p1")
    assert [(t.name, t.rdma, t.up, t.speed_mbps, t.mtu) for t in p1] == [
        ("enp1s0f1np1", "rocep1s0f1", True, 200000, 9000),
        ("enP2p1s0f1np1", "roceP2p1s0f1", True, 200000, 9000),
    ]
    assert p1[0].addresses == ("192.168.100.11/24", "fe80::4ebb:47ff:fe00:1/64")
    assert not any(t.up for t in sample.twins_of("p0"))
    assert sample.neighbours[0].system_name == "spark-02"
    assert sample.uptime_s == 350735.47 and sample.load1 == 0.52
    assert sample.disk == Disk(3_936_818_184_192, 778_523_264_000)


def test_sample_round_trips_through_json():
    sample = parse_poll_output(_real_node_output(json.dumps(LLDP_CLASSIC_MANY)))
    assert Sample.from_dict(json.loads(json.dumps(sample.to_dict()))) == sample


def test_truncated_answer_keeps_what_arrived():
    text = _real_node_output()
    sample = parse_poll_output(text[: text.index("@@fleet:ip_link")])
    assert sample.memory is not None
    assert sample.twins is None
    assert "output: truncated (end marker missing)" in sample.errors
    assert "ip_link: section missing" in sample.errors


def test_simulated_pair_parses_cleanly_with_one_subnet_per_twin():
    nodes = [
        SimNode("a", cabled_ports={"p0": ("b", "p0")}),
        SimNode("b", memory_gb=64, cabled_ports={"p0": ("a", "p0"), "p1": ("sw1", "swp3")}),
    ]
    for name in ("a", "b"):
        sample = parse_poll_output(render_poll_output(nodes, name, polls=3))
        assert sample.errors == (), sample.errors
        twins = sample.twins_of("p0")
        assert all(t.up and t.mtu == 9000 and t.speed_mbps == 200000 for t in twins)
        v4 = [next(a for a in t.addresses if ":" not in a) for t in twins]
        assert v4[0].rsplit(".", 1)[0] != v4[1].rsplit(".", 1)[0]
    b = parse_poll_output(render_poll_output(nodes, "b"))
    assert 60 * 10**9 < b.memory.total_bytes < 70 * 10**9  # 128 GB shows 130.6e9 (121.7 GiB)
    assert b.disk is not None and b.disk.total_bytes == 3_936_818_184_192 and 0.40 <= b.disk.free_fraction <= 0.80
    full = parse_poll_output(render_poll_output([SimNode("f", faults={"disk-full"})], "f"))
    assert full.errors == () and full.disk is not None and full.disk.free_fraction == pytest.approx(0.015, abs=1e-6)
    by_if = {n.local_if: n for n in b.neighbours}
    assert (by_if[TWINS["p0"][1][0]].system_name, by_if[TWINS["p0"][1][0]].port_id) == ("a", "enP2p1s0f0np0")
    assert (by_if[TWINS["p1"][0][0]].system_name, by_if[TWINS["p1"][0][0]].port_id) == ("sw1", "swp3")


def test_simulated_garbage_is_recorded_not_raised():
    sample = parse_poll_output(render_poll_output([SimNode("g", faults={"garbage"})], "g"))
    assert sample.memory is None and sample.twins is None
    assert any(e.startswith("meminfo:") for e in sample.errors)
    assert any(e.startswith("ip_link: invalid JSON") for e in sample.errors)


def test_no_markers_at_all():
    sample = parse_poll_output("bash: line 1: syntax error\n")
    assert sample.memory is None
    assert sample.errors == ("output: no section markers in 'bash: line 1: syntax error'",)


# --------------------------------------------------------------------------- garbage never raises

PARSERS = [
    parse_meminfo,
    parse_psi,
    parse_gpu_csv,
    parse_compute_apps,
    parse_ps_owners,
    parse_ip_link_json,
    parse_ip_addr_json,
    parse_sysfs_twin,
    parse_ibdev2netdev,
    parse_lldp_json,
    parse_uptime,
    parse_loadavg,
]

_json_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
_json = st.recursive(
    _json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)
_noise = st.text(max_size=300) | _json.map(json.dumps)


@settings(max_examples=300, deadline=None)
@given(text=_noise)
def test_no_parser_raises_on_random_text(text):
    for parser in PARSERS:
        value, errors = parser(text)
        assert isinstance(errors, tuple)


@settings(max_examples=150, deadline=None)
@given(
    parts=st.lists(
        st.tuples(st.sampled_from([*SECTIONS, "end", "bogus"]), _noise),
        max_size=14,
    ),
    prefix=st.text(max_size=40),
)
def test_parse_poll_output_never_raises(parts, prefix):
    text = prefix + "".join(f"\n@@fleet:{name}\n{body}" for name, body in parts)
    sample = parse_poll_output(text)
    assert isinstance(sample, Sample)
    json.dumps(sample.to_dict())  # whatever was parsed can still be stored


@settings(max_examples=100, deadline=None)
@given(cut=st.integers(min_value=0, max_value=4000), junk=st.text(max_size=50))
def test_truncated_or_corrupted_real_output_never_raises(cut, junk):
    text = _real_node_output(json.dumps(LLDP_CLASSIC_MANY))
    cut = cut % len(text)
    sample = parse_poll_output(text[:cut] + junk + text[cut + len(junk) :])
    assert isinstance(sample, Sample)


def test_script_runs_on_a_machine_without_spark_tools():
    """The guards hold: no nvidia-smi, ibdev2netdev or lldpd here, yet the script completes."""
    import shutil
    import subprocess

    import pytest

    if not shutil.which("sh"):
        pytest.skip("no sh")
    out = subprocess.run(["sh", "-c", POLL_SCRIPT], capture_output=True, text=True, timeout=30, check=True)
    sample = parse_poll_output(out.stdout)
    assert sample.memory is not None and sample.memory.total_bytes > 0
    assert sample.uptime_s is not None
    assert "output: truncated (end marker missing)" not in sample.errors


def test_a_node_memo_parses_what_the_shared_cache_parses_and_reparses_only_on_change():
    nodes = [SimNode("a", cabled_ports={"p0": ("b", "p0")}), SimNode("b", cabled_ports={"p0": ("a", "p0")})]
    memo = parsers.ParseMemo()
    first_text = render_poll_output(nodes, "a", polls=1)
    first = parse_poll_output(first_text, memo)
    assert first == parse_poll_output(first_text)  # same Sample with or without a memo
    second = parse_poll_output(render_poll_output(nodes, "a", polls=2), memo)
    assert second.twins is first.twins and second.neighbours is first.neighbours  # unchanged links: not reparsed
    nodes[0].faults = {"twin-down"}
    changed = parse_poll_output(render_poll_output(nodes, "a", polls=3), memo)
    assert changed.twins is not first.twins
    assert [t.up for t in changed.twins_of("p0")] == [True, False]


def test_per_node_memos_do_not_thrash_past_the_shared_cache_size():
    """The process-wide cache holds 4,096 entries; a fleet polled in order larger
    than that misses on every lookup. Per-node memos keep hitting."""
    nodes = [SimNode(f"n{i}") for i in range(3)]
    texts = {n.name: render_poll_output(nodes, n.name) for n in nodes}
    memos = {n.name: parsers.ParseMemo() for n in nodes}
    parsers._twins_from_sections.cache_clear()
    for name, text in texts.items():
        parse_poll_output(text, memos[name])
    for name, text in texts.items():
        parse_poll_output(text, memos[name])
    assert parsers._twins_from_sections.cache_info().currsize == 0  # memos never touch the shared cache
    assert all(m.links_key is not None for m in memos.values())


def test_rdma_ports_from_sysfs():
    from telemetry.parsers import parse_rdma_ports

    text = (
        "rocep1s0f1|4: ACTIVE|200 Gb/sec (4X HDR)\nroceP2p1s0f1|1: DOWN|40 Gb/sec (4X QDR)\n"
        "rocep1s0f0|7: INIT|100 Gb/sec (2X HDR)\nbroken line\n"
    )
    ports, errors = parse_rdma_ports(text)
    assert ports == {"rocep1s0f1": ("ACTIVE", 200.0), "roceP2p1s0f1": ("DOWN", None), "rocep1s0f0": ("INIT", None)}
    assert errors == ("bad line 'broken line'",)
