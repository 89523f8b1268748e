"""What one simulated Spark prints for the poll script: drifting unified
memory, varying GPU gauges, twins up or down and addressed by the node's
cabling (``_link_networks``: two /24s per link, one per twin), LLDP
neighbours, and the faults' versions of all of it. Pure text, no I/O.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Mapping
from typing import Any

from telemetry.poll_script import MARKER_PREFIX, TWINS

from .nodes import SimNode
from .software_answers import software_text

_KB_PER_128GB = 127_600_748  # MemTotal of a real 128 GB Spark
# about the root filesystem df -B1 counts on a 4 TB NVMe, and the blocks ext4 keeps for root (5%)
DISK_BYTES = 3_936_818_184_192
DISK_RESERVED = DISK_BYTES // 20


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
    def output(self, software_images: list[str] | None = None) -> str:
        """The poll script's answer; with ``software_images`` (the launch images
        a software poll asks about), the software sections before the end marker."""
        self.polls += 1
        faults = frozenset(self.node.faults)
        links = self._cache.get(faults)
        if links is None:
            links = self._links_text(faults)
            self._cache[faults] = links
        text = self._memory_text(faults) + self._gpu_text(faults) + links + self._misc_text()
        if software_images is None:
            return text
        end = f"\n{MARKER_PREFIX}end\n"
        return text.removesuffix(end) + software_text(self.node.software, faults, software_images) + end

    def reboot(self) -> None:
        """The node boots now: its uptime starts again from zero."""
        self._boot = time.time()

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
        gauges = "[N/A], [N/A], [N/A]" if "gpu-na" in faults else f"{util}, {temp:.0f}, {max(power, 4.0):.2f}"
        return f"\n{MARKER_PREFIX}gpu\n{gauges}\n\n{MARKER_PREFIX}apps\n{apps}\n{MARKER_PREFIX}owners\n{owners}"

    def _misc_text(self) -> str:
        rng = self._rng
        uptime = time.time() - self._boot
        load = self._util / 25 + rng.uniform(0, 0.8)
        return (
            f"\n{MARKER_PREFIX}uptime\n{uptime:.2f} {uptime * 19.3:.2f}\n"
            f"\n{MARKER_PREFIX}loadavg\n{load:.2f} {load * 0.9:.2f} {load * 0.8:.2f} "
            f"{rng.randint(1, 6)}/{rng.randint(400, 900)} {rng.randint(10_000, 90_000)}\n"
            f"\n{MARKER_PREFIX}disk\n{self._disk_text()}"
            f"\n{MARKER_PREFIX}end\n"
        )

    def _disk_text(self) -> str:
        """df -P -B1 / of a 4 TB NVMe: 40 to 80% free by the node's name (not the random
        stream: the other readings stay as they were), 1.5% with ``disk-full``."""
        free = 0.015 if "disk-full" in self.node.faults else 0.40 + (self._mac_base % 41) / 100
        avail = int(DISK_BYTES * free)
        used = DISK_BYTES - avail - DISK_RESERVED
        return (
            "Filesystem          1-blocks          Used     Available Capacity Mounted on\n"
            f"/dev/nvme0n1p2 {DISK_BYTES} {used} {avail} {round(used * 100 / (used + avail))}% /\n"
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


def render_poll_output(
    nodes: list[SimNode],
    name: str,
    *,
    polls: int = 1,
    seed: int | None = None,
    software_images: list[str] | None = None,
) -> str:
    """The answer node ``name`` of this fleet would print (after ``polls`` polls): for parser tests.
    ``software_images``: answer a software poll asking about these launch images."""
    networks = _link_networks(nodes)
    node = next(n for n in nodes if n.name == name)
    model = SparkModel(node, networks, sorted(n.name for n in nodes), seed=seed)
    text = ""
    for _ in range(polls):
        text = model.garbage() if "garbage" in node.faults else model.output(software_images)
    return text
