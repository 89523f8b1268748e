"""A simulated fleet of DGX Sparks: one asyncssh server per node on 127.0.0.1.

Each fake node answers exactly ``telemetry.poll_script.POLL_SCRIPT`` with output
shaped like a real Spark's (docs/operations.md): drifting unified memory, varying GPU
gauges, twins up/down and addressed according to the node's cabling, LLDP
neighbours; head nodes also answer the benchmarks app's fixed command and the
fabric verification's ``mpirun ... all_gather_perf`` (``simfleet.nccl_answers``).
Any other command gets exit status 127. Faults (``FAULTS``) make a
node misbehave the ways real ones do. The simulator only ever binds to
loopback: it serves test and benchmark traffic, never a network.

Used by the telemetry tests, ``bench/poll_fleet.py`` and the ``simulate``
management command (through ``run_fleet``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import re
import shlex
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import asyncssh

from simfleet.nccl_answers import NcclAnswer, nccl_answer
from telemetry.poll_script import MARKER_PREFIX, POLL_SCRIPT, TWINS

LOOPBACK = "127.0.0.1"

FAULTS: frozenset[str] = frozenset(
    {
        "down",  # not listening: connection refused
        "hung",  # accepts the exec request, never answers
        "slow",  # answers after SimFleet.slow_s seconds
        "garbage",  # prints nonsense instead of the sections
        "twin-down",  # the PCIe-domain-2 twin of p0 is down
        "negotiated-100g",  # cabled twins report 100000 Mb/s
        "same-subnet",  # both twins of a port in one subnet
        "memory-pressure",  # MemAvailable sinks under 5 %, PSI stalls
        "host-key-changed",  # presents a second host key instead of its first
        "wrong-neighbour",  # LLDP shows another node than the cabling says
        "huge-output",  # answers 10 MB
        "close-mid-output",  # drops the connection half-way through the answer
        "mtu-1500",  # cabled twins left at MTU 1500 (the peer has 9000)
        "gpu-busy",  # a GPU compute process (owner: member1) on every poll
        "gpu-idle",  # no GPU compute process, ever
        "rdma-down",  # p0's first twin is up as a netdev but its RoCE port is DOWN
        "nccl-stuck",  # nccl-tests through this node sits near 3 GB/s (non-release NCCL build)
    }
)
HUGE_OUTPUT_BYTES = 10 * 1024 * 1024
_SCRIPT_STRIPPED = POLL_SCRIPT.strip()
_KB_PER_128GB = 127_600_748  # MemTotal of a real 128 GB Spark


@dataclass
class SimNode:
    """One simulated Spark. ``cabled_ports``: port ("p0"/"p1") -> (peer node or switch, peer port)."""

    name: str
    memory_gb: int = 128
    cabled_ports: dict[str, tuple[str, str]] = field(default_factory=dict)
    faults: set[str] = field(default_factory=set)
    port: int = 0  # TCP port to listen on; 0 picks a free one

    def __post_init__(self) -> None:
        unknown = set(self.faults) - FAULTS
        if unknown:
            raise ValueError(f"{self.name}: unknown fault(s) {sorted(unknown)}; known: {sorted(FAULTS)}")
        bad_ports = set(self.cabled_ports) - set(TWINS)
        if bad_ports:
            raise ValueError(f"{self.name}: unknown port(s) {sorted(bad_ports)}; a Spark has p0 and p1")


class SimEndpoint(NamedTuple):
    """Where a started node listens and the host key it presents (OpenSSH text)."""

    name: str
    host: str
    port: int
    host_key: str


@dataclass
class NodeStats:
    """What a node's server saw: lets tests assert no command ran on a refused key."""

    connections: int = 0
    auths: int = 0
    execs: int = 0


# --------------------------------------------------------------------------- addressing


def _link_networks(nodes: list[SimNode]) -> dict[tuple[str, str], tuple[str, str, int]]:
    """(node, port) -> (twin0 /24 prefix, twin1 /24 prefix, host octet).

    Each node-to-node link gets two /24s (one per twin, as NVIDIA's guides
    set up); each switch gets two /24s shared by every node cabled to it.
    """
    names = {n.name for n in nodes}
    nets: dict[str, tuple[str, str]] = {}
    members: dict[str, list[tuple[str, str]]] = {}
    for node in sorted(nodes, key=lambda n: n.name):
        for port, (peer, peer_port) in sorted(node.cabled_ports.items()):
            if peer in names:
                key = "|".join(sorted([f"{node.name}:{port}", f"{peer}:{peer_port}"]))
            else:
                key = f"switch|{peer}"
            members.setdefault(key, [])
            if (node.name, port) not in members[key]:
                members[key].append((node.name, port))
    for index, key in enumerate(sorted(members)):
        if index < 77:
            nets[key] = (f"192.168.{100 + 2 * index}", f"192.168.{101 + 2 * index}")
        else:
            k = index - 77
            nets[key] = (f"10.{1 + k // 128}.{2 * (k % 128)}", f"10.{1 + k // 128}.{2 * (k % 128) + 1}")
    result: dict[tuple[str, str], tuple[str, str, int]] = {}
    for key, endpoints in members.items():
        if key.startswith("switch|"):
            ordered = endpoints
        else:
            ordered = sorted(endpoints)
        for host_index, endpoint in enumerate(ordered):
            result[endpoint] = (*nets[key], 1 + host_index % 254)
    return result


# --------------------------------------------------------------------------- one node's answer


class SparkModel:
    """The state of one fake Spark and the text it prints for the poll script."""

    def __init__(
        self,
        node: SimNode,
        networks: Mapping[tuple[str, str], tuple[str, str, int]],
        all_names: list[str],
        seed: int | None = None,
    ) -> None:
        self.node = node
        digest = hashlib.sha256(node.name.encode()).digest()
        self._rng = random.Random(seed if seed is not None else int.from_bytes(digest[:8], "big"))
        self._networks = networks
        self._others = [n for n in all_names if n != node.name]
        self._mac_base = int.from_bytes(b"\x4c\xbb\x47" + digest[8:11], "big")
        self._boot = time.time() - self._rng.uniform(3600, 40 * 86400)
        self._avail = self._rng.uniform(0.55, 0.95)
        self._util = self._rng.uniform(0, 60)
        self._cache: dict[frozenset[str], str] = {}
        self.polls = 0

    # Memory and GPU drift on every poll; links only change with the faults.
    def output(self) -> str:
        self.polls += 1
        faults = frozenset(self.node.faults)
        links = self._cache.get(faults)
        if links is None:
            links = self._links_text(faults)
            self._cache[faults] = links
        return self._memory_text(faults) + self._gpu_text(faults) + links + self._misc_text()

    def _memory_text(self, faults: frozenset[str]) -> str:
        rng = self._rng
        if "memory-pressure" in faults:
            self._avail = max(0.012, min(self._avail, 0.08) * rng.uniform(0.7, 0.95))
            some, full = rng.uniform(20, 60), rng.uniform(8, 35)
        else:
            self._avail = min(0.96, max(0.25, self._avail + rng.uniform(-0.03, 0.03)))
            some, full = rng.choice([0.0, 0.0, 0.0, rng.uniform(0, 2)]), 0.0
        total = _KB_PER_128GB * self.node.memory_gb // 128
        available = int(total * self._avail)
        free = int(available * 0.8)
        cached = available - free
        swap_free = 16_777_212 - (rng.randint(0, 900_000) if "memory-pressure" in faults else 950_268)
        return (
            f"\n{MARKER_PREFIX}meminfo\n"
            f"MemTotal:       {total} kB\nMemFree:        {free} kB\nMemAvailable:   {available} kB\n"
            f"Buffers:          {rng.randint(30_000, 90_000)} kB\nCached:         {cached} kB\n"
            f"SwapCached:          0 kB\nActive:         {total - available} kB\n"
            f"SwapTotal:       16777212 kB\nSwapFree:        {swap_free} kB\n"
            f"Dirty:               {rng.randint(0, 4000)} kB\n"
            f"Shmem:           {rng.randint(9000, 90_000)} kB\n"
            f"HugePages_Total:       0\nHugepagesize:       2048 kB\n"
            f"\n{MARKER_PREFIX}psi\n"
            f"some avg10={some:.2f} avg60={some * 0.8:.2f} avg300={some * 0.5:.2f} total={int(some * 1e5)}\n"
            f"full avg10={full:.2f} avg60={full * 0.8:.2f} avg300={full * 0.5:.2f} total={int(full * 1e5)}\n"
        )

    def _gpu_text(self, faults: frozenset[str] = frozenset()) -> str:
        rng = self._rng
        self._util = min(100.0, max(0.0, self._util + rng.uniform(-15, 15)))
        if "gpu-busy" in faults:
            self._util = max(self._util, 60.0)
        elif "gpu-idle" in faults:
            self._util = 0.0
        util = int(self._util)
        temp = 34 + util * 0.42 + rng.uniform(-1, 1)
        power = 11.17 + util * 0.95 + rng.uniform(-2, 2)
        apps = ""
        owners = ""
        if util > 5:
            pid = 4000 + self._mac_base % 5000
            used = int((1 - self._avail) * self.node.memory_gb * 1024 * 0.8)
            apps = f"{pid}, {used} MiB, /usr/bin/python3\n"
            owners = f"{pid:>7} member1\n"
        return (
            f"\n{MARKER_PREFIX}gpu\n{util}, {temp:.0f}, {max(power, 4.0):.2f}\n"
            f"\n{MARKER_PREFIX}apps\n{apps}\n{MARKER_PREFIX}owners\n{owners}"
        )

    def _misc_text(self) -> str:
        rng = self._rng
        uptime = time.time() - self._boot
        load = self._util / 25 + rng.uniform(0, 0.8)
        return (
            f"\n{MARKER_PREFIX}uptime\n{uptime:.2f} {uptime * 19.3:.2f}\n"
            f"\n{MARKER_PREFIX}loadavg\n{load:.2f} {load * 0.9:.2f} {load * 0.8:.2f} "
            f"{rng.randint(1, 6)}/{rng.randint(400, 900)} {rng.randint(10_000, 90_000)}\n"
            f"\n{MARKER_PREFIX}end\n"
        )

    def _mac(self, offset: int) -> str:
        raw = (self._mac_base + offset).to_bytes(6, "big")
        return ":".join(f"{b:02x}" for b in raw)

    def _twin_states(self, faults: frozenset[str]) -> list[dict[str, Any]]:
        states = []
        for port, pair in TWINS.items():
            cabled = self.node.cabled_ports.get(port)
            nets = self._networks.get((self.node.name, port))
            for index, (ifname, rdma) in enumerate(pair):
                up = cabled is not None and not (port == "p0" and index == 1 and "twin-down" in faults)
                addresses: list[tuple[str, int]] = []
                if up and nets:
                    net = nets[0] if (index == 0 or "same-subnet" in faults) else nets[1]
                    host = nets[2] + (100 if index == 1 and "same-subnet" in faults else 0)
                    addresses.append((f"{net}.{host}", 24))
                states.append(
                    {
                        "ifname": ifname,
                        "rdma": rdma,
                        "port": port,
                        "index": index,
                        "up": up,
                        "cabled": cabled,
                        "speed": (100_000 if "negotiated-100g" in faults else 200_000) if up else None,
                        "mtu": 1500 if cabled is None or "mtu-1500" in faults else 9000,
                        "addresses": addresses,
                    }
                )
        return states

    def _links_text(self, faults: frozenset[str]) -> str:
        twins = self._twin_states(faults)
        digest = self._mac_base
        mgmt = f"10.0.{digest % 250}.{10 + digest % 240}"
        entries: list[tuple[str, list[str], int, str, list[dict[str, Any]]]] = [
            ("lo", ["LOOPBACK", "UP", "LOWER_UP"], 65536, "UNKNOWN", []),
            ("enP7s7", ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"], 1500, "UP", [_addr(mgmt, 24, "global")]),
        ]
        for twin in twins:
            flags = (
                ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"]
                if twin["up"]
                else ["NO-CARRIER", "BROADCAST", "MULTICAST", "UP"]
            )
            infos = [_addr(a, p, "global") for a, p in twin["addresses"]]
            if twin["up"]:
                infos.append(_addr(f"fe80::4ebb:47ff:fe00:{self._mac_base % 0xFFFF:x}", 64, "link", inet6=True))
            entries.append((twin["ifname"], flags, twin["mtu"], "UP" if twin["up"] else "DOWN", infos))
        entries.append(("wlP9s9", ["NO-CARRIER", "BROADCAST", "MULTICAST", "UP"], 1500, "DOWN", []))
        link_items, addr_items = [], []
        for ifindex, (name, flags, mtu, operstate, infos) in enumerate(entries, start=1):
            item: dict[str, Any] = {
                "ifindex": ifindex,
                "ifname": name,
                "flags": flags,
                "mtu": mtu,
                "qdisc": "noqueue" if name == "lo" else "mq",
                "operstate": operstate,
                "linkmode": "DEFAULT",
                "group": "default",
                "txqlen": 1000,
                "link_type": "loopback" if name == "lo" else "ether",
                "address": "00:00:00:00:00:00" if name == "lo" else self._mac(ifindex),
                "broadcast": "00:00:00:00:00:00" if name == "lo" else "ff:ff:ff:ff:ff:ff",
            }
            link_items.append(item)
            addr_items.append({**item, "addr_info": infos})
        sysfs = "".join(
            f"{t['ifname']} operstate={'up' if t['up'] else 'down'} "
            f"speed={t['speed'] if t['speed'] else -1} mtu={t['mtu']}\n"
            for t in twins
        )
        ibdev = "".join(
            f"{t['rdma']} port 1 ==> {t['ifname']} ({'Up' if t['up'] else 'Down'})\n"
            for t in sorted(twins, key=lambda t: t["rdma"])
        )
        rdma = "".join(self._rdma_line(t, faults) for t in sorted(twins, key=lambda t: t["rdma"]))
        return (
            f"\n{MARKER_PREFIX}ip_link\n{json.dumps(link_items, separators=(',', ':'))}\n"
            f"\n{MARKER_PREFIX}ip_addr\n{json.dumps(addr_items, separators=(',', ':'))}\n"
            f"\n{MARKER_PREFIX}sysfs\n{sysfs}"
            f"\n{MARKER_PREFIX}ibdev2netdev\n{ibdev}"
            f"\n{MARKER_PREFIX}rdma\n{rdma}"
            f"\n{MARKER_PREFIX}lldp\n{self._lldp_text(twins, faults)}"
        )

    @staticmethod
    def _rdma_line(twin: dict[str, Any], faults: frozenset[str]) -> str:
        """/sys/class/infiniband/<dev>/ports/1/{state,rate} as the poll script prints them."""
        active = twin["up"] and not (twin["port"] == "p0" and twin["index"] == 0 and "rdma-down" in faults)
        if not active:
            return f"{twin['rdma']}|1: DOWN|40 Gb/sec (4X QDR)\n"  # a down port still reports 40
        rate = "100 Gb/sec (2X HDR)" if twin["speed"] == 100_000 else "200 Gb/sec (4X HDR)"
        return f"{twin['rdma']}|4: ACTIVE|{rate}\n"

    def _lldp_text(self, twins: list[dict[str, Any]], faults: frozenset[str]) -> str:
        interfaces: list[dict[str, Any]] = []
        for twin in twins:
            if not twin["up"] or twin["cabled"] is None:
                continue
            peer, peer_port = twin["cabled"]
            if peer_port in TWINS:  # a Spark: lldpd sends its MAC as id, ifname as description
                peer_if = TWINS[peer_port][twin["index"]][0]
                port: dict[str, Any] = {"id": {"type": "mac", "value": "4c:bb:47:00:00:01"}, "descr": peer_if}
            else:  # a switch port names itself
                port = {"id": {"type": "ifname", "value": peer_port}, "descr": peer_port}
            if "wrong-neighbour" in faults:
                candidates = [n for n in self._others if n != peer]
                peer = candidates[0] if candidates else "lab-switch-9"
            interfaces.append(
                {
                    twin["ifname"]: {
                        "via": "LLDP",
                        "rid": str(len(interfaces) + 1),
                        "age": "0 day, 02:11:45",
                        "chassis": {
                            peer: {
                                "id": {"type": "mac", "value": "4c:bb:47:00:00:00"},
                                "descr": "Ubuntu 24.04.3 LTS Linux 6.11.0-1016-nvidia aarch64",
                                "capability": [{"type": "Bridge", "enabled": False}],
                            }
                        },
                        "port": {**port, "ttl": "120"},
                    }
                }
            )
        lldp: dict[str, Any] = {}
        if len(interfaces) == 1:
            lldp["interface"] = interfaces[0]
        elif interfaces:
            lldp["interface"] = interfaces
        return json.dumps({"lldp": lldp}, indent=2) + "\n"

    def garbage(self) -> str:
        rng = self._rng
        junk = "".join(rng.choice("abc{}[]:,=@ \n\t0123456789%") for _ in range(rng.randint(50, 400)))
        return (
            "Segmentation fault (core dumped)\n"
            f"\n{MARKER_PREFIX}meminfo\nMemTotal: lots\n\n{MARKER_PREFIX}gpu\n[N/A], [N/A]\n"
            f'\n{MARKER_PREFIX}ip_link\n{{"ifname": [\n{junk}\n'
        )


def _addr(local: str, prefixlen: int, scope: str, inet6: bool = False) -> dict[str, Any]:
    return {
        "family": "inet6" if inet6 else "inet",
        "local": local,
        "prefixlen": prefixlen,
        "scope": scope,
        "valid_life_time": 4294967295,
        "preferred_life_time": 4294967295,
    }


def render_poll_output(nodes: list[SimNode], name: str, *, polls: int = 1, seed: int | None = None) -> str:
    """The answer node ``name`` of this fleet would print (after ``polls`` polls): for parser tests."""
    networks = _link_networks(nodes)
    node = next(n for n in nodes if n.name == name)
    model = SparkModel(node, networks, sorted(n.name for n in nodes), seed=seed)
    text = ""
    for _ in range(polls):
        text = model.garbage() if "garbage" in node.faults else model.output()
    return text


# --------------------------------------------------------------------------- SSH serving


class _Runtime:
    """Per-node serving state shared by its listener, connections and sessions."""

    def __init__(self, fleet: SimFleet, node: SimNode, model: SparkModel) -> None:
        self.fleet = fleet
        self.node = node
        self.model = model
        self.stats = NodeStats()
        self.acceptor: asyncssh.SSHAcceptor | None = None
        self.connections: set[asyncssh.SSHServerConnection] = set()
        self.keys: tuple[asyncssh.SSHKey, asyncssh.SSHKey] | None = None
        self.port = node.port
        self.reopening = False
        # While the node is "down" its port stays bound (never listening): a
        # connection is refused, as by a dead node, and no other server on the
        # machine (another test worker, another fleet) can take the port meanwhile.
        self.hold: socket.socket | None = None


class _SimServer(asyncssh.SSHServer):
    def __init__(self, runtime: _Runtime) -> None:
        self._rt = runtime
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        self._rt.stats.connections += 1
        self._rt.connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._conn is not None:
            self._rt.connections.discard(self._conn)

    def auth_completed(self) -> None:
        self._rt.stats.auths += 1

    def session_requested(self) -> asyncssh.SSHServerSession[bytes]:
        return _SimSession(self._rt, self._conn)


_BENCH_RE = re.compile(
    r"export LC_ALL=C; echo (?P<version_mark>[A-Za-z0-9@:_-]+); vllm --version 2>/dev/null \|\| true; "
    r"echo (?P<result_mark>[A-Za-z0-9@:_-]+); (?P<bench>vllm bench serve .*)"
)
VLLM_VERSION = "0.11.1"


def bench_answer(command: str, node: SimNode) -> str | None:
    """What a head node running ``vllm bench serve`` prints for placement's
    fixed benchmark command, or None for any other command. Arguments are
    read with shlex.split, never executed; the figures follow the node's
    memory bandwidth bound (a 128 GB node decodes a mid-size model at about
    55 tok/s per stream) with a little noise, and batching helps up to a point."""
    match = _BENCH_RE.fullmatch(command.strip())
    if match is None:
        return None
    try:
        words = shlex.split(match["bench"])
    except ValueError:
        return None
    args = {words[i][2:]: words[i + 1] for i in range(len(words) - 1) if words[i].startswith("--")}
    try:
        conc = max(1, int(args.get("max-concurrency", "1")))
        prompts = max(1, int(args.get("num-prompts", "10")))
        in_len = max(1, int(args.get("random-input-len", "128")))
        out_len = max(1, int(args.get("random-output-len", "128")))
    except ValueError:
        return None
    rng = random.Random(f"{node.name}:{conc}:{in_len}:{out_len}")
    per_stream = 55.0 * (0.97 + rng.random() * 0.06) / (1 + 0.04 * (conc - 1))
    output_tps = per_stream * conc
    tpot = 1000.0 / per_stream
    ttft = 20.0 + in_len * 0.32 * (0.95 + rng.random() * 0.1)
    duration = prompts * (ttft / 1000 + out_len * tpot / 1000) / conc
    summary = "\n".join(
        [
            "============ Serving Benchmark Result ============",
            f"Successful requests:                     {prompts}",
            f"Maximum request concurrency:             {conc}",
            f"Benchmark duration (s):                  {duration:.2f}",
            f"Total input tokens:                      {prompts * in_len}",
            f"Total generated tokens:                  {prompts * out_len}",
            f"Request throughput (req/s):              {prompts / duration:.2f}",
            f"Output token throughput (tok/s):         {output_tps:.2f}",
            f"Total Token throughput (tok/s):          {(prompts * (in_len + out_len)) / duration:.2f}",
            "---------------Time to First Token----------------",
            f"Mean TTFT (ms):                          {ttft:.2f}",
            f"Median TTFT (ms):                        {ttft * 0.99:.2f}",
            f"P99 TTFT (ms):                           {ttft * 1.2:.2f}",
            "-----Time per Output Token (excl. 1st token)------",
            f"Mean TPOT (ms):                          {tpot:.2f}",
            f"Median TPOT (ms):                        {tpot * 0.998:.2f}",
            f"P99 TPOT (ms):                           {tpot * 1.04:.2f}",
            "---------------Inter-token Latency----------------",
            f"Mean ITL (ms):                           {tpot:.2f}",
            "==================================================",
        ]
    )
    return f"{match['version_mark']}\n{VLLM_VERSION}\n{match['result_mark']}\n{summary}\n"


class _SimSession(asyncssh.SSHServerSession[bytes]):
    def __init__(self, runtime: _Runtime, conn: asyncssh.SSHServerConnection | None) -> None:
        self._rt = runtime
        self._conn = conn
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._command: str | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan

    def shell_requested(self) -> bool:
        return False

    def exec_requested(self, command: str) -> bool:
        self._rt.stats.execs += 1
        self._command = command
        return True

    def session_started(self) -> None:
        chan = self._chan
        assert chan is not None
        faults = self._rt.node.faults
        # Trailing newlines get lost in shells ("$(cat script)"): compare without them.
        bench = bench_answer(self._command or "", self._rt.node)
        fleet = self._rt.fleet
        nccl = nccl_answer(
            self._command or "",
            {n.name: n.faults for n in fleet.nodes},
            {n.name: n.cabled_ports for n in fleet.nodes},
            row_s=fleet.nccl_row_s,
        )
        if nccl is not None:
            if "hung" not in faults:  # a hung head node never answers
                self._task = asyncio.get_running_loop().create_task(self._stream(nccl))
        elif bench is not None and "down" not in faults and "hung" not in faults:
            chan.write(bench.encode())
            chan.exit(0)
        elif (self._command or "").strip() != _SCRIPT_STRIPPED:
            first = (self._command or "").split(None, 1)[0] if (self._command or "").split() else ""
            chan.write_stderr(f"sh: 1: {first[:40]}: command not found\n".encode())
            chan.exit(127)
        elif "hung" in faults:
            return  # keep the channel open and silent forever
        elif "slow" in faults:
            self._timer = asyncio.get_running_loop().call_later(self._rt.fleet.slow_s, self._answer)
        else:
            self._answer()

    async def _stream(self, answer: NcclAnswer) -> None:
        for delay, text in answer.chunks:
            await asyncio.sleep(delay)
            if self._chan is None or self._chan.is_closing():
                return
            self._chan.write(text.encode())
        if answer.exit_status is not None and self._chan is not None and not self._chan.is_closing():
            self._chan.exit(answer.exit_status)

    def _answer(self) -> None:
        chan = self._chan
        if chan is None or chan.is_closing():
            return
        faults = self._rt.node.faults
        model = self._rt.model
        if "garbage" in faults:
            chan.write(model.garbage().encode() + b"\xff\xfe\x00 not utf-8\n")
        elif "huge-output" in faults:
            line = b"x" * 1023 + b"\n"
            chan.write(model.output().encode() + line * (HUGE_OUTPUT_BYTES // 1024))
        elif "close-mid-output" in faults:
            text = model.output().encode()
            chan.write(text[: len(text) // 2])
            if self._conn is not None:
                # Give the half answer time to leave, then drop the TCP connection
                # like a node that reboots or loses power mid-answer.
                asyncio.get_running_loop().call_later(0.05, self._conn.abort)
            return
        else:
            chan.write(model.output().encode())
        chan.exit(0)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()
        self._chan = None


class _HostKeys:
    """Per-node host keys (first and "changed"), generated lazily, cached on disk if asked."""

    def __init__(self, directory: Path | None) -> None:
        self._dir = directory
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def get(self, name: str, variant: str) -> asyncssh.SSHKey:
        if self._dir is None:
            return asyncssh.generate_private_key("ssh-ed25519")
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)
        path = self._dir / f"{safe}.{variant}.key"
        if path.exists():
            return asyncssh.read_private_key(path)
        key = asyncssh.generate_private_key("ssh-ed25519")
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(key.export_private_key())
        tmp.chmod(0o600)
        tmp.replace(path)
        return key


def public_key_text(key: asyncssh.SSHKey) -> str:
    """OpenSSH public key text without comment: ``ssh-ed25519 AAAA...``."""
    return " ".join(key.export_public_key("openssh").decode().split()[:2])


def _hold_port(port: int) -> socket.socket:
    """A socket bound to ``port`` (0: any free one) that never listens."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((LOOPBACK, port))
    except OSError:
        sock.close()
        # the port's closed connections may linger: binding over them needs SO_REUSEADDR
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
    return sock


def _release(runtime: _Runtime) -> None:
    if runtime.hold is not None:
        runtime.hold.close()
        runtime.hold = None


class SimFleet:
    """A set of simulated Sparks served on 127.0.0.1, one port each.

    ``authorized_client_key``: the OpenSSH public key text clients must
    authenticate with. ``host_key_dir``: where per-node host keys persist, so a
    restarted fleet presents the same keys (None: fresh keys each start).
    """

    def __init__(
        self,
        nodes: Iterable[SimNode],
        *,
        authorized_client_key: str,
        host_key_dir: Path | None = None,
        host: str = LOOPBACK,
        slow_s: float = 2.0,
        nccl_row_s: float = 1.0,
    ) -> None:
        if host != LOOPBACK:
            raise ValueError(f"the simulator binds to {LOOPBACK} only, not {host!r}")
        self.nodes = list(nodes)
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            raise ValueError("node names must be unique")
        self.slow_s = slow_s
        self.nccl_row_s = nccl_row_s  # seconds between two rows of a simulated nccl-tests run
        self._authorized = asyncssh.import_authorized_keys(authorized_client_key)
        self._keys = _HostKeys(host_key_dir)
        networks = _link_networks(self.nodes)
        everyone = sorted(names)
        self._runtimes = {n.name: _Runtime(self, n, SparkModel(n, networks, everyone)) for n in self.nodes}
        self._pending: set[asyncio.Task[None]] = set()

    async def start(self) -> list[SimEndpoint]:
        """Start every node's server; returns where each listens and its host key."""
        endpoints = []
        for runtime in self._runtimes.values():
            runtime.keys = (
                self._keys.get(runtime.node.name, "first"),
                self._keys.get(runtime.node.name, "changed"),
            )
            if "down" in runtime.node.faults:
                runtime.hold = _hold_port(runtime.port)
                runtime.port = int(runtime.hold.getsockname()[1])
            else:
                await self._listen(runtime)
            endpoints.append(self.endpoint(runtime.node.name))
        return endpoints

    def endpoint(self, name: str) -> SimEndpoint:
        runtime = self._runtimes[name]
        assert runtime.keys is not None, "start() first"
        return SimEndpoint(name, LOOPBACK, runtime.port, public_key_text(self._current_key(runtime)))

    def stats(self, name: str) -> NodeStats:
        return self._runtimes[name].stats

    def _current_key(self, runtime: _Runtime) -> asyncssh.SSHKey:
        assert runtime.keys is not None
        return runtime.keys[1] if "host-key-changed" in runtime.node.faults else runtime.keys[0]

    async def _listen(self, runtime: _Runtime) -> None:
        _release(runtime)
        runtime.acceptor = await asyncssh.listen(
            LOOPBACK,
            runtime.port,
            server_factory=lambda: _SimServer(runtime),
            server_host_keys=[self._current_key(runtime)],
            authorized_client_keys=self._authorized,
            encoding=None,
            allow_scp=False,
            agent_forwarding=False,
            x11_forwarding=False,
            keepalive_interval=0,
            reuse_address=True,
        )
        runtime.port = runtime.acceptor.get_port()

    def set_faults(self, name: str, faults: Iterable[str]) -> None:
        """Change a node's faults while serving. Output faults apply to the next
        exec; "host-key-changed" to the next connection; "down" closes the
        listener and drops connections at once, and reopening it after "down"
        is cleared completes asynchronously (``await settle()``)."""
        runtime = self._runtimes[name]
        new = set(faults)
        unknown = new - FAULTS
        if unknown:
            raise ValueError(f"unknown fault(s) {sorted(unknown)}")
        old = runtime.node.faults
        runtime.node.faults = new
        if runtime.keys is None:
            return  # not started: start() will honour the faults
        if ("host-key-changed" in old) != ("host-key-changed" in new) and runtime.acceptor is not None:
            runtime.acceptor.update(server_host_keys=[self._current_key(runtime)])
        if "down" in new and runtime.acceptor is not None:
            runtime.acceptor.close()
            runtime.acceptor = None
            for conn in list(runtime.connections):
                conn.abort()
            with contextlib.suppress(OSError):  # best effort: the node is down either way
                runtime.hold = _hold_port(runtime.port)
        elif "down" not in new and runtime.acceptor is None and not runtime.reopening:
            runtime.reopening = True
            task = asyncio.get_running_loop().create_task(self._reopen(runtime))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _reopen(self, runtime: _Runtime) -> None:
        try:
            if "down" not in runtime.node.faults:
                await self._listen(runtime)
        finally:
            runtime.reopening = False

    async def settle(self) -> None:
        """Wait until listeners reopened by ``set_faults`` accept connections."""
        while self._pending:
            await asyncio.gather(*list(self._pending))

    async def stop(self) -> None:
        await self.settle()
        for runtime in self._runtimes.values():
            _release(runtime)
            if runtime.acceptor is not None:
                runtime.acceptor.close()
            for conn in list(runtime.connections):
                conn.abort()
        for runtime in self._runtimes.values():
            if runtime.acceptor is not None:
                with contextlib.suppress(Exception):
                    await runtime.acceptor.wait_closed()
                runtime.acceptor = None


# --------------------------------------------------------------------------- scenarios


def _endpoint_ref(text: Any) -> tuple[str, str]:
    if not isinstance(text, str) or text.count(":") != 1 or not all(text.split(":")):
        raise ValueError(f"cabling end {text!r} must look like 'node:port' or 'switch:port'")
    name, port = text.split(":")
    return name, port


def load_scenario(source: str | Path | Mapping[str, Any]) -> list[SimNode]:
    """Nodes from a small YAML file (path) or dict::

        nodes:
          - spark-01                      # a bare name: 128 GB, no faults
          - {name: spark-02, memory_gb: 64, faults: [slow]}
        cabling:
          - [spark-01:p0, spark-02:p0]    # node to node
          - [spark-02:p1, sw1:swp3]       # node to a switch port

    Raises ValueError naming the entry at fault.
    """
    if isinstance(source, Mapping):
        data: Any = source
    else:
        import yaml  # only scenario files need PyYAML

        data = yaml.safe_load(Path(source).read_text())
    if not isinstance(data, Mapping) or not isinstance(data.get("nodes"), list):
        raise ValueError("a scenario needs a 'nodes' list")
    nodes: dict[str, SimNode] = {}
    for index, entry in enumerate(data["nodes"]):
        spec = {"name": entry} if isinstance(entry, str) else entry
        if not isinstance(spec, Mapping) or not isinstance(spec.get("name"), str):
            raise ValueError(f"nodes[{index}] needs a name")
        if spec["name"] in nodes:
            raise ValueError(f"nodes[{index}]: duplicate name {spec['name']!r}")
        memory: Any = spec.get("memory_gb", 128)
        if memory not in (64, 128):
            raise ValueError(f"nodes[{index}]: memory_gb must be 64 or 128, not {memory!r}")
        nodes[spec["name"]] = SimNode(
            name=spec["name"],
            memory_gb=memory,
            faults=set(spec.get("faults") or ()),
            port=int(spec.get("port", 0)),
        )
    for index, pair in enumerate(data.get("cabling") or ()):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ValueError(f"cabling[{index}] must be a pair of ends")
        (a, a_port), (b, b_port) = _endpoint_ref(pair[0]), _endpoint_ref(pair[1])
        for name, port, peer in ((a, a_port, (b, b_port)), (b, b_port, (a, a_port))):
            if name not in nodes:
                continue  # a switch: it has no simulated server
            if port not in TWINS:
                raise ValueError(f"cabling[{index}]: {name} has ports p0 and p1, not {port!r}")
            if port in nodes[name].cabled_ports:
                raise ValueError(f"cabling[{index}]: {name}:{port} is already cabled")
            nodes[name].cabled_ports[port] = peer
        if a not in nodes and b not in nodes:
            raise ValueError(f"cabling[{index}]: neither end is a node")
    return list(nodes.values())


def make_nodes(count: int, *, topology: str = "pairs", prefix: str = "spark-") -> list[SimNode]:
    """``count`` healthy nodes: "pairs" (direct cables p0-p0), "ring" (p1 to the
    next node's p0) or "switch" (every p0 to a port of switch ``sw1``)."""
    names = [f"{prefix}{i:04d}" if count > 99 else f"{prefix}{i:02d}" for i in range(1, count + 1)]
    nodes = [SimNode(name) for name in names]
    if topology == "pairs":
        for a, b in zip(nodes[0::2], nodes[1::2], strict=False):
            a.cabled_ports["p0"] = (b.name, "p0")
            b.cabled_ports["p0"] = (a.name, "p0")
    elif topology == "ring" and count >= 3:
        for i, node in enumerate(nodes):
            nxt = nodes[(i + 1) % count]
            node.cabled_ports["p1"] = (nxt.name, "p0")
            nxt.cabled_ports["p0"] = (node.name, "p1")
    elif topology == "switch":
        for i, node in enumerate(nodes, start=1):
            node.cabled_ports["p0"] = ("sw1", f"swp{i}")
    elif topology != "ring":
        raise ValueError(f"unknown topology {topology!r}: pairs, ring or switch")
    return nodes


async def run_fleet(
    nodes: list[SimNode],
    *,
    authorized_client_key: str,
    host_key_dir: Path | None = None,
    ready_callback: Callable[[list[SimEndpoint]], Awaitable[None] | None] | None = None,
    slow_s: float = 2.0,
    nccl_row_s: float = 1.0,
) -> None:
    """Serve ``nodes`` until cancelled (Ctrl-C in ``manage.py simulate``).

    ``ready_callback(endpoints)`` runs once every server listens (plain or async).
    """
    fleet = SimFleet(
        nodes,
        authorized_client_key=authorized_client_key,
        host_key_dir=host_key_dir,
        slow_s=slow_s,
        nccl_row_s=nccl_row_s,
    )
    try:
        endpoints = await fleet.start()
        if ready_callback is not None:
            result = ready_callback(endpoints)
            if asyncio.iscoroutine(result):
                await result
        await asyncio.Event().wait()
    finally:
        await fleet.stop()
