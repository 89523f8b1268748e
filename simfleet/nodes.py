"""The simulated fleet's nodes: each fake Spark's name, memory, cabling and
faults (``FAULTS``, the ways real ones misbehave), and the scenarios that
describe a fleet (``load_scenario``, a YAML file or dict; ``make_nodes``,
N healthy nodes in pairs, a ring or on a switch). Plain data, no I/O but
reading a scenario file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from telemetry.poll_script import TWINS

from .software_answers import SOFTWARE_FAULTS, SOFTWARE_KEYS

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
        "disk-full",  # the root filesystem 1.5% free (Docker's images and the Hugging Face cache filled it)
        "host-key-changed",  # presents a second host key instead of its first
        "wrong-neighbour",  # LLDP shows another node than the cabling says
        "huge-output",  # answers 10 MB
        "close-mid-output",  # drops the connection half-way through the answer
        "mtu-1500",  # cabled twins left at MTU 1500 (the peer has 9000)
        "gpu-busy",  # a GPU compute process (owner: member1) on every poll
        "gpu-idle",  # no GPU compute process, ever
        "gpu-na",  # nvidia-smi answers [N/A] for every gauge (utilization, temperature, power)
        "rdma-down",  # p0's first twin is up as a netdev but its RoCE port is DOWN
        "nccl-stuck",  # nccl-tests through this node sits near 3 GB/s (non-release NCCL build)
        "no-rdma",  # NCCL finds no RoCE device here: nccl-tests falls back to TCP sockets
        "serve-fail",  # serving's launch exits 125 with docker's no-GPU-runtime error
        "pull-fail",  # the launch image is not there and the registry cannot be reached (docker pull, docker run)
        "pull-slow",  # the launch image is not there and downloads for longer than a step may last
        "pull-no-room",  # the launch image is not there and the disk fills while its layers are written
        "die-after",  # engines it starts stop answering SimFleet.die_after_s after they start
        "load-fail",  # serving's vLLM ends with status 1 while it loads the model (KV cache too small)
        "weights-gated",  # serving's weights step: a gated repository and no token that may read it
        "weights-slow",  # serving's weights step downloads for longer than the step may last
        "weights-no-room",  # serving's weights step finds too little disk for the weights (9.5 GB free)
    }
    | SOFTWARE_FAULTS  # how the software tools answer: no-docker, docker-denied, smi-mismatch, ...
)


@dataclass
class SimNode:
    """One simulated Spark. ``cabled_ports``: port ("p0"/"p1") -> (peer node or switch, peer port)."""

    name: str
    memory_gb: int = 128
    cabled_ports: dict[str, tuple[str, str]] = field(default_factory=dict)
    faults: set[str] = field(default_factory=set)
    port: int = 0  # TCP port to listen on; 0 picks a free one
    # What it runs, where it differs from simfleet.software_answers.DEFAULT_SOFTWARE.
    software: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = set(self.faults) - FAULTS
        if unknown:
            raise ValueError(f"{self.name}: unknown fault(s) {sorted(unknown)}; known: {sorted(FAULTS)}")
        odd = set(self.software) - SOFTWARE_KEYS
        if odd or not all(isinstance(v, str) and v for v in self.software.values()):
            raise ValueError(
                f"{self.name}: software takes non-empty text for {sorted(SOFTWARE_KEYS)}; not {sorted(odd) or 'these'}"
            )
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
          - {name: spark-03, software: {driver: 580.82.09}}   # one update behind
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
        software = spec.get("software") or {}
        if not isinstance(software, Mapping):
            raise ValueError(f"nodes[{index}]: software must map names to versions")
        nodes[spec["name"]] = SimNode(
            name=spec["name"],
            memory_gb=memory,
            faults=set(spec.get("faults") or ()),
            port=int(spec.get("port", 0)),
            software={str(k): str(v) for k, v in software.items()},
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
