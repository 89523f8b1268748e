"""nccl-tests ``all_gather_perf`` output: the parser and the judge.

The parser reads what real Sparks print (``docs/launch-and-fabric.md``): one
table row per buffer size (``size count type redop root`` then time, algbw,
busbw and ``#wrong`` for out-of-place and in-place), a closing ``# Avg bus
bandwidth : 21.9`` line that may end in a space, host names right-padded in
the rank lines, and NCCL INFO or X11 lines interleaved anywhere. From the
INFO lines it keeps which network each rank's NCCL chose ("Using network
IB" or "Socket") and its devices: a group whose NCCL fell back to TCP
sockets is a finding of its own, whatever its bandwidth.

The judge compares the average bus bandwidth with what the group's links
should give: about 20 to 24 GB/s on one 200 Gb/s link direct or through a
switch, 10 GB/s and up on a ring (NVIDIA's cluster set-up script accepts
that), about half on 100 Gb/s links. Findings name the fix. Pure: no Django.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["critical", "warning", "info"]

# NVIDIA's cluster set-up script (dgx-spark-playbooks, spark_cluster_setup.py):
# MIN_NCCL_TEST_BW = 21.875 GB/s (175 Gb/s) on direct or switched links,
# MIN_NCCL_TEST_BW_RING = 10 GB/s. Healthy published two-node runs average
# 21.4 to 23.0 GB/s, so the band we call "as expected" starts at 20.
EXPECTED_200G = (20.0, 24.0)
NVIDIA_THRESHOLD_200G = 21.875
RING_FLOOR = 10.0
# A run stuck near 3 GB/s whatever the buffer size: NCCL uses part of the link
# only, a non-release NCCL build, or a re-cabled node not rebooted (2.82 GB/s).
STUCK_BELOW = 5.0

FABRIC_CODES: dict[str, tuple[Severity, str]] = {
    "fabric-errors": ("critical", "nccl-tests counted wrong values (#wrong above 0): data was corrupted."),
    "fabric-stuck-low": ("critical", "Bus bandwidth stuck near 3 GB/s whatever the buffer size."),
    "fabric-one-half": ("warning", "Bus bandwidth about half of what the links give: one twin carries the traffic."),
    "fabric-below-expected": ("warning", "Bus bandwidth under what the group's links should give."),
    "fabric-run-failed": ("critical", "The fabric verification did not complete."),
    "fabric-socket": ("critical", "NCCL carried the test over TCP sockets, not RoCE."),
    "fabric-mixed-networks": (
        "critical",
        "The nodes' NCCL chose different networks (RoCE on some, TCP sockets on others): they cannot connect.",
    ),
}


FindingSeverity = Literal["error", "warning", "info"]  # topology's
_AS_FINDING: dict[Severity, FindingSeverity] = {"critical": "error", "warning": "warning", "info": "info"}


def finding_codes() -> dict[str, tuple[FindingSeverity, str]]:
    """The codes as topology findings (the group page's severities: critical is an error)."""
    return {code: (_AS_FINDING[sev], desc) for code, (sev, desc) in FABRIC_CODES.items()}


@dataclass(frozen=True)
class Row:
    size_bytes: int
    count: int
    busbw_oop: float  # GB/s, out-of-place
    busbw_ip: float  # GB/s, in-place
    algbw_oop: float
    wrong: int  # out-of-place + in-place; 0 when validation is off (N/A)

    @property
    def busbw(self) -> float:
        return max(self.busbw_oop, self.busbw_ip)


@dataclass(frozen=True)
class NcclResult:
    rows: tuple[Row, ...]
    avg_busbw: float | None  # the "# Avg bus bandwidth" line
    wrong: int
    hosts: tuple[str, ...]
    nccl_version: str | None
    tests_version: str | None
    errors: tuple[str, ...] = ()
    # what each rank's NCCL chose (NCCL_DEBUG=INFO, subsystems INIT,NET):
    # (host, network) from "Using network IB" or "... Socket", and (host,
    # network, devices) from "NET/IB : Using [0]rocep1s0f1:1/RoCE ..." or
    # "NET/Socket : Using [0]bond0:10.0.0.1<0>"
    networks: tuple[tuple[str, str], ...] = ()
    net_devices: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # (host, text) of each "NCCL WARN" line, in the order printed (at most WARN_LIMIT)
    warnings: tuple[tuple[str, str], ...] = ()

    @property
    def socket_hosts(self) -> tuple[str, ...]:
        """The hosts whose NCCL chose TCP sockets, in the order they printed it."""
        return tuple(dict.fromkeys(h for h, net in self.networks if net == "Socket"))

    @property
    def mixed_networks(self) -> bool:
        """Ranks whose NCCL chose different networks (NET/IB on some, Socket on others)."""
        return len({net for _, net in self.networks}) > 1

    @property
    def complete(self) -> bool:
        return bool(self.rows) and self.avg_busbw is not None

    def to_dict(self) -> dict[str, object]:
        return {
            "rows": [
                {
                    "size_bytes": r.size_bytes,
                    "busbw_oop": r.busbw_oop,
                    "busbw_ip": r.busbw_ip,
                    "algbw_oop": r.algbw_oop,
                    "wrong": r.wrong,
                }
                for r in self.rows
            ],
            "avg_busbw": self.avg_busbw,
            "wrong": self.wrong,
            "hosts": list(self.hosts),
            "nccl_version": self.nccl_version,
            "tests_version": self.tests_version,
            "errors": list(self.errors),
            "networks": dict(self.networks),
            "net_devices": {f"{host} {net}": list(devices) for host, net, devices in self.net_devices},
            "warnings": [[host, text] for host, text in self.warnings],
        }


_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*([0-9.]+)\s*$")
_RANK = re.compile(r"^#\s*Rank\s+\d+\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device")
_NCCL_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+\S*)")
_TESTS_VERSION = re.compile(r"^#\s*nccl-tests version (\S+)")
_NUMBER = re.compile(r"^[0-9]+$")
# An NCCL INFO line: "spark-102:93712:93730 [0] NCCL INFO <text>" (host, pid, tid, device).
_INFO = re.compile(r"^(\S+?):\d+:\d+\s+\[\d+\]\s+NCCL INFO\s+(.*)$")
# A NCCL WARN line: "spark-102:93712:93730 [0] misc/socket.cc:538 NCCL WARN <text>" (the source file optional).
_WARN = re.compile(r"^(\S+?):\d+:\d+\s+\[\d+\]\s+(?:\S+\s+)?NCCL WARN\s+(.*)$")
WARN_LIMIT = 20
# init.cc: INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name): "IB", "Socket" or a plugin's name
_USING_NETWORK = re.compile(r"^Using network (\S+)")
# net_ib/init.cc "NET/IB : Using [0]rocep1s0f1:1/RoCE [1]roceP2p1s0f1:1/RoCE [RO]; OOB ...";
# net_socket.cc "NET/Socket : Using [0]bond0:10.0.0.1<0>"
_NET_USING = re.compile(r"^NET/(IB|Socket) : Using((?:\s+\[\d+\][^\s;]+)+)")
_NET_DEVICE = re.compile(r"\[\d+\]([^:\s;]+)")


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value >= 0 else None


def _wrong(text: str) -> int | None:
    if text.upper() == "N/A":
        return 0
    return int(text) if _NUMBER.match(text) else None


def _nccl_line(
    line: str,
    networks: dict[str, str],
    net_devices: dict[tuple[str, str], tuple[str, ...]],
    warnings: list[tuple[str, str]],
) -> bool:
    """Keep what a NCCL INFO or WARN line says of the networks; False for any other line."""
    if info := _INFO.match(line):
        host, said = info.groups()
        if match := _USING_NETWORK.match(said):
            networks.setdefault(host, match.group(1))
        elif match := _NET_USING.match(said):
            net_devices.setdefault((host, match.group(1)), tuple(_NET_DEVICE.findall(match.group(2))))
        return True
    if warn := _WARN.match(line):
        if len(warnings) < WARN_LIMIT:
            warnings.append((warn.group(1), warn.group(2)[:300]))
        return True
    return False


def networks_in(text: str) -> dict[str, str]:
    """Which network each host's NCCL chose ("IB" or "Socket"), from the NCCL
    INFO lines anywhere in ``text`` (an engine's log, a grep of it): the
    first word a host printed. Never raises."""
    networks: dict[str, str] = {}
    for raw in text.splitlines():
        _nccl_line(raw.strip(), networks, {}, [])
    return networks


def parse_all_gather(text: str) -> NcclResult:
    """Every size row, the average, the #wrong total. Never raises."""
    rows: list[Row] = []
    errors: list[str] = []
    avg = None
    hosts: list[str] = []
    nccl_version = tests_version = None
    networks: dict[str, str] = {}
    net_devices: dict[tuple[str, str], tuple[str, ...]] = {}
    warnings: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if match := _NCCL_VERSION.search(line):
            nccl_version = nccl_version or match.group(1)
        if _nccl_line(line, networks, net_devices, warnings):
            continue
        if line.startswith("#"):
            if match := _AVG.match(line):
                avg = float(match.group(1))
            elif match := _RANK.match(line):
                hosts.append(match.group(1))
            elif match := _TESTS_VERSION.match(line):
                tests_version = match.group(1)
            continue
        words = line.split()
        if not _NUMBER.match(words[0]) or len(words) < 13:
            continue  # NCCL INFO, X11 and other lines between the rows
        size, count = int(words[0]), words[1]
        values = [_float(w) for w in (words[6], words[7], words[10], words[11])]
        wrongs = [_wrong(words[8]), _wrong(words[12])]
        if any(v is None for v in values) or any(w is None for w in wrongs) or not _NUMBER.match(count):
            errors.append(f"unreadable row: {line[:80]}")
            continue
        algbw, busbw_oop, _algbw_ip, busbw_ip = (v or 0.0 for v in values)
        rows.append(Row(size, int(count), busbw_oop, busbw_ip, algbw, sum(w or 0 for w in wrongs)))
    if not rows:
        errors.append("no result rows: the test did not print its table")
    elif avg is None:
        errors.append("no '# Avg bus bandwidth' line: the run stopped before the end")
    return NcclResult(
        tuple(rows),
        avg,
        sum(r.wrong for r in rows),
        tuple(hosts),
        nccl_version,
        tests_version,
        tuple(errors),
        tuple(networks.items()),
        tuple((host, net, devices) for (host, net), devices in net_devices.items()),
        tuple(warnings),
    )


@dataclass(frozen=True)
class NetworkUse:
    """One network NCCL chose, the hosts that chose it and their devices."""

    network: str  # "IB", "Socket" or a plugin's name
    hosts: tuple[str, ...]
    devices: tuple[str, ...]

    @property
    def words(self) -> str:
        return {"IB": "RDMA over RoCE (NET/IB)", "Socket": "TCP sockets (NET/Socket)"}.get(
            self.network, f"the {self.network} network plugin"
        )


def networks_of(stored: object) -> list[NetworkUse]:
    """The networks of a stored result (``NcclResult.to_dict``), grouped: an
    older run, or a malformed field, gives none."""
    if not isinstance(stored, dict):
        return []
    networks, devices = stored.get("networks"), stored.get("net_devices")
    if not isinstance(networks, dict):
        return []
    devices = devices if isinstance(devices, dict) else {}
    hosts: dict[str, list[str]] = {}
    for host, network in networks.items():
        if isinstance(host, str) and isinstance(network, str):
            hosts.setdefault(network, []).append(host)
    out = []
    for network, names in hosts.items():
        seen: dict[str, None] = {}
        for host in names:
            listed = devices.get(f"{host} {network}", [])
            for device in listed if isinstance(listed, list) else []:
                if isinstance(device, str):
                    seen[device] = None
        out.append(NetworkUse(network, tuple(names), tuple(seen)))
    return out


def socket_hosts_of(stored: object) -> tuple[str, ...]:
    """The hosts whose NCCL chose TCP sockets in a stored result (none for an
    older run that kept no networks, or a malformed field)."""
    return tuple(h for use in networks_of(stored) if use.network == "Socket" for h in use.hosts)


# --- the judge --------------------------------------------------------------------


@dataclass(frozen=True)
class FabricFinding:
    code: str
    severity: Severity
    message: str
    fix: str


@dataclass(frozen=True)
class Expectation:
    low: float  # GB/s
    high: float | None
    source: str

    @property
    def short(self) -> str:
        """The range alone, for a finding's sentence."""
        return f"{self.low:g} to {self.high:g} GB/s" if self.high is not None else f"{self.low:g} GB/s and up"


@dataclass(frozen=True)
class Verdict:
    status: Literal["ok", "degraded", "failed"]
    expected: Expectation
    measured: float | None
    findings: tuple[FabricFinding, ...] = field(default_factory=tuple)


def expected_busbw(kind: str, link_gbps: float) -> Expectation:
    """What all_gather_perf's average should reach on this group's links."""
    scale = max(0.0, min(link_gbps, 200.0)) / 200.0
    speed = f"{link_gbps:g} Gb/s"
    if kind in ("ring", "chain"):
        low = RING_FLOOR * scale
        return Expectation(
            low,
            None,
            f"{low:g} GB/s and up in a {kind} of {speed} links (NVIDIA's cluster set-up "
            "script accepts 10 GB/s on 200 Gb/s rings)",
        )
    low, high = EXPECTED_200G[0] * scale, EXPECTED_200G[1] * scale
    note = (
        f"; NVIDIA's set-up script warns under {NVIDIA_THRESHOLD_200G} GB/s"
        if scale == 1
        else " (about half of the 20 to 24 GB/s one 200 Gb/s link gives)"
    )
    return Expectation(low, high, f"about {low:g} to {high:g} GB/s on {speed} {kind} links{note}")


def _f(code: str, message: str, fix: str) -> FabricFinding:
    return FabricFinding(code, FABRIC_CODES[code][0], message, fix)


# What the fix of a node whose NCCL found no usable RoCE device says (fabric-socket, fabric-mixed-networks).
NO_ROCE_FIX = (
    "Check that ibv_devinfo lists both twins of the cabled port (e.g. rocep1s0f1 and roceP2p1s0f1) in state "
    "PORT_ACTIVE, that each twin holds its own address (the netplan files), that NCCL_IB_HCA names them and "
    "NCCL_IB_DISABLE is not set, and that a container runs with /dev/infiniband; then run the verification again."
)


def _mixed(result: NcclResult, reason: str) -> FabricFinding:
    """Ranks on RoCE and ranks on sockets in one run: NCCL's net transports
    refuse each other's connections (NCCL 2.28's socketFinalizeAccept: "wrong
    type 4 != 3"), so the run stops before its first row."""
    uses = networks_of(result.to_dict())
    sockets = [h for use in uses if use.network == "Socket" for h in use.hosts]
    others = [
        f"{', '.join(use.hosts)} chose {_NETWORK_WORDS.get(use.network, use.network)}"
        for use in uses
        if use.network != "Socket"
    ]
    said = next((text for _, text in result.warnings if "wrong type" in text), "")
    quoted = f" (NCCL said: '{said}')" if said else ""
    return _f(
        "fabric-mixed-networks",
        f"NCCL on {', '.join(sockets) or 'some nodes'} chose TCP sockets ('Using network Socket') while "
        f"{'; '.join(others) or 'the others chose another network'}: ranks on different networks cannot connect "
        f"to each other{quoted}, so the verification stopped: {reason}.",
        f"NCCL found no usable RoCE device on {', '.join(sockets) or 'those nodes'}. {NO_ROCE_FIX}",
    )


_NETWORK_WORDS = {"IB": "RoCE (NET/IB)", "Socket": "TCP sockets (NET/Socket)"}


def judge(result: NcclResult | None, *, kind: str, link_gbps: float, error: str = "") -> Verdict:
    """The verdict of one run: findings with their fixes, "ok" when none."""
    expected = expected_busbw(kind, link_gbps)
    if error or result is None or not result.complete:
        reason = error or "; ".join(result.errors if result else ()) or "no output"
        if result is not None and result.mixed_networks:
            return Verdict("failed", expected, result.avg_busbw, (_mixed(result, reason),))
        return Verdict(
            "failed",
            expected,
            result.avg_busbw if result else None,
            (
                _f(
                    "fabric-run-failed",
                    f"The verification did not complete: {reason}.",
                    "Check that every node answers SSH from the head node without a password, that nccl-tests is "
                    "built with MPI=1 at the configured path on every node, and that no node froze (memory); then "
                    "run it again.",
                ),
            ),
        )
    avg = result.avg_busbw or 0.0
    busbws = [r.busbw for r in result.rows]
    findings: list[FabricFinding] = []
    if sockets := result.socket_hosts:
        ifaces = sorted({d for h, net, devs in result.net_devices if net == "Socket" and h in sockets for d in devs})
        over = f" over {', '.join(ifaces)}" if ifaces else ""
        findings.append(
            _f(
                "fabric-socket",
                f"NCCL on {', '.join(sockets)} chose TCP sockets ('Using network Socket'{over}), not RoCE: every "
                "collective goes through the kernels' TCP stacks instead of RDMA, so the bandwidth here and "
                "tensor-parallel decode on this group are not what these links give.",
                f"NCCL found no usable RoCE device there. {NO_ROCE_FIX}",
            )
        )
    if result.wrong:
        findings.append(
            _f(
                "fabric-errors",
                f"nccl-tests counted {result.wrong} wrong value(s) across "
                f"{sum(1 for r in result.rows if r.wrong)} buffer size(s).",
                "Reseat or replace the cable, check dmesg for PCIe/AER errors on the ConnectX-7, update "
                "the firmware, and run the verification again before trusting results.",
            )
        )
    if max(busbws) < STUCK_BELOW and expected.low > STUCK_BELOW:
        findings.append(
            _f(
                "fabric-stuck-low",
                f"Bus bandwidth sits at {min(busbws):.2f} to {max(busbws):.2f} GB/s whatever the buffer size, "
                f"where these links give {expected.short}.",
                "Run with NCCL_DEBUG=INFO and check for 'NET/IB : Using [0]... [1]...' (both twins); "
                "set NCCL_IB_HCA to both twins of the cabled port; build NCCL from a release tag "
                "(not a development branch); set MTU 9000 on the cluster twins; reboot a node whose cable was moved.",
            )
        )
    elif kind not in ("ring", "chain") and 0.35 * expected.low <= avg <= 0.65 * (expected.high or expected.low):
        findings.append(
            _f(
                "fabric-one-half",
                f"Average bus bandwidth {avg:.2f} GB/s is about half of the {expected.short} these links give: "
                "one twin of each cabled port carries the traffic.",
                "Bring up and address the second twin of each cabled port in its own subnet (see the netplan "
                "files), and list both RoCE devices in NCCL_IB_HCA.",
            )
        )
    elif avg < expected.low:
        findings.append(
            _f(
                "fabric-below-expected",
                f"Average bus bandwidth {avg:.2f} GB/s is under the {expected.short} these links give.",
                "Stop other GPU work on the nodes and run again; check both twins are up at 200 Gb/s (telemetry), "
                "MTU 9000 on both ends, and NCCL_IB_HCA listing both twins.",
            )
        )
    status: Literal["ok", "degraded", "failed"] = "ok"
    if findings:
        status = "failed" if any(f.severity == "critical" for f in findings) else "degraded"
    return Verdict(status, expected, avg, tuple(findings))
