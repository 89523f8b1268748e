"""Plain data in and out of the topology engine.

The Django side builds the ``*In`` records from the database; the engine
answers with ``Group`` records. Everything is frozen so results can be cached
and compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["single", "direct", "ring", "chain", "switched", "irregular"]
Severity = Literal["error", "warning", "info"]

# What a Spark's ConnectX-7 port runs at, whatever the cage is rated for.
NODE_PORT_GBPS = 200
# A node without ConnectX-7 (RTX Spark) only has a 10 Gb/s port.
NO_CONNECTX_GBPS = 10
MEMORY_BANDWIDTH_GBS = 273.0


@dataclass(frozen=True)
class NodeIn:
    name: str
    memory_gb: float  # nominal unified memory: 128 or 64
    has_connectx: bool = True  # False for RTX Spark (only a 10G port)
    ports: tuple[str, ...] = ("p0", "p1")


@dataclass(frozen=True)
class SwitchPortIn:
    number: int
    speed_gbps: int  # e.g. 100 (CRS504), 400 (CRS804, generic 32-port)
    breakout: bool  # can split into 2 x 200G


@dataclass(frozen=True)
class SwitchIn:
    name: str
    ports: tuple[SwitchPortIn, ...]


@dataclass(frozen=True)
class EndIn:
    device: str  # a node name or a switch name
    port: str  # "p0"/"p1" on a node, "1".."N" on a switch


@dataclass(frozen=True)
class CableIn:
    key: str  # stable identifier of the cable (used in findings' objects and links)
    type: str  # catalogue slug: qsfp112-dac, qsfp56-dac, qsfp28-dac, qsfp-plus-dac, ...
    speed_gbps: int  # nominal per end/leg: 400, 200, 100, 40; breakout legs: 200
    breakout: bool  # True: ends[0] is the trunk (a switch port), ends[1:] the legs
    coded_for: str  # "nvidia" or "generic"
    ends: tuple[EndIn, ...]


@dataclass(frozen=True)
class LabIn:
    nodes: tuple[NodeIn, ...]
    switches: tuple[SwitchIn, ...]
    cables: tuple[CableIn, ...]


@dataclass(frozen=True)
class Link:
    """One cabled path between two devices, at the speed it can really run."""

    a: str  # "node:port"; the node end, or the smaller of two node ends
    b: str  # "node:port" or "switch:port"
    cable: str
    gbps: int
    limited_by: str  # the slowest part(s), "" when the link runs at the native 200


@dataclass(frozen=True)
class Memory:
    """Three of the four numbers that must never be merged (the fourth is the links)."""

    local_gb: float  # usable on the largest single node
    pooled_gb: float  # usable summed over the group
    symmetric_gb: float  # nodes x smallest usable: what symmetric sharding can use
    bandwidth_gbs: float  # nodes x 273 GB/s


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    message: str  # one sentence: what is wrong and the fix
    objects: tuple[str, ...]  # nodes, "node:port", switches, "switch:port", cable keys


@dataclass(frozen=True)
class Group:
    key: tuple[str, ...]  # sorted node names; sorted switch names if there is no Spark
    kind: Kind
    nodes: tuple[str, ...]
    switches: tuple[str, ...]
    links: tuple[Link, ...]
    memory: Memory
    collective_gbs: float  # expected collective bandwidth class, GB/s
    findings: tuple[Finding, ...]

    @property
    def slowest_link_gbps(self) -> int:
        """The slowest cluster link (what collective_gbs follows); 0 without links."""
        return min((link.gbps for link in self.links), default=0)
