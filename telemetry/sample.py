"""What one poll of one Spark observed, as plain frozen dataclasses.

A ``Sample`` is built by ``telemetry.parsers.parse_poll_output`` and read by
``telemetry.health``; the Django side stores it as JSON (``to_dict`` /
``from_dict``). Any part may be ``None`` when its section could not be read;
``errors`` then says why ("section: what went wrong"). Units are in the field
names (bytes, MiB, Mb/s, W, degrees C, seconds) so nothing is guessed later.

``PollResult`` (what ``telemetry.poller`` returns per node) lives here too so
that code reading results (health rules, Django services) need not import
asyncssh.

Memory comes from /proc/meminfo only: nvidia-smi prints [N/A] for memory on
GB10 (unified memory), see docs/operations.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Literal

from telemetry.poll_script import TWIN_BY_IFNAME
from telemetry.software import SoftwareReading


@dataclass(frozen=True, slots=True)
class Memory:
    """Unified memory of the node, from /proc/meminfo and /proc/pressure/memory."""

    total_bytes: int
    available_bytes: int
    used_bytes: int  # MemTotal - MemAvailable: what really counts on GB10
    swap_total_bytes: int | None
    swap_free_bytes: int | None
    psi_some_avg10: float | None  # % of the last 10 s some task stalled on memory
    psi_full_avg10: float | None  # % of the last 10 s all tasks stalled on memory

    @property
    def available_fraction(self) -> float | None:
        return self.available_bytes / self.total_bytes if self.total_bytes > 0 else None


@dataclass(frozen=True, slots=True)
class Disk:
    """The root filesystem, from ``df -P -B1 /``: where a Spark keeps Docker's
    images and the models' weights (the Hugging Face cache)."""

    total_bytes: int
    free_bytes: int  # available to a user (df's "Available": without the blocks reserved for root)

    @property
    def free_fraction(self) -> float | None:
        return self.free_bytes / self.total_bytes if self.total_bytes > 0 else None


@dataclass(frozen=True, slots=True)
class Gpu:
    """GB10 GPU gauges that nvidia-smi still reports (memory is not among them)."""

    util_pct: float | None
    temp_c: float | None
    power_w: float | None


@dataclass(frozen=True, slots=True)
class ComputeProcess:
    """A process holding a GPU context (nvidia-smi --query-compute-apps)."""

    pid: int
    used_mib: int | None
    name: str
    user: str | None  # None when ps could not tell (process already gone)


@dataclass(frozen=True, slots=True)
class TwinReading:
    """One of the two Linux interfaces behind a physical QSFP port, as a poll
    read it (the registered twin is ``inventory.models.Twin``)."""

    name: str  # Linux interface, e.g. enp1s0f1np1
    port: str  # physical port: "p0" or "p1"
    rdma: str | None  # RoCE device, e.g. rocep1s0f1
    up: bool
    speed_mbps: int | None  # None when the link is down (sysfs speed unreadable)
    mtu: int | None
    addresses: tuple[str, ...]  # CIDR strings, IPv4 and IPv6
    # The RoCE device's port 1 as /sys/class/infiniband reports it: "ACTIVE",
    # "DOWN", "INIT"...; the rate only while ACTIVE (a down port still says 40).
    # None: not read (older samples, or no such device).
    rdma_state: str | None = None
    rdma_rate_gbps: float | None = None

    @property
    def twin_index(self) -> int:
        """0 for the PCIe domain 0000 interface, 1 for domain 0002."""
        known = TWIN_BY_IFNAME.get(self.name)
        return known[2] if known else 0


@dataclass(frozen=True, slots=True)
class Neighbour:
    """An LLDP neighbour seen on a local interface."""

    local_if: str
    system_name: str | None
    port_id: str | None


@dataclass(frozen=True, slots=True)
class Sample:
    """Everything one poll learnt about a node."""

    memory: Memory | None
    gpu: Gpu | None
    processes: tuple[ComputeProcess, ...] | None
    twins: tuple[TwinReading, ...] | None
    neighbours: tuple[Neighbour, ...] | None  # None: no LLDP data (lldpd absent)
    uptime_s: float | None
    load1: float | None
    errors: tuple[str, ...] = ()
    # What the node runs: read only when its software is due (telemetry.software_script).
    software: SoftwareReading | None = None
    disk: Disk | None = None  # None: not read (an answer from before the poll asked)

    def twins_of(self, port: str) -> tuple[TwinReading, ...]:
        """The twins of one physical port, in twin-index order."""
        twins = [t for t in self.twins or () if t.port == port]
        return tuple(sorted(twins, key=lambda t: t.twin_index))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (tuples become lists)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Sample:
        """Inverse of ``to_dict``; tolerates missing keys (older stored samples)."""
        mem = data.get("memory")
        gpu = data.get("gpu")
        procs = data.get("processes")
        twins = data.get("twins")
        neighbours = data.get("neighbours")
        return cls(
            memory=Memory(**mem) if mem is not None else None,
            gpu=Gpu(**gpu) if gpu is not None else None,
            processes=tuple(ComputeProcess(**p) for p in procs) if procs is not None else None,
            twins=(
                tuple(TwinReading(**{**t, "addresses": tuple(t.get("addresses", ()))}) for t in twins)
                if twins is not None
                else None
            ),
            neighbours=tuple(Neighbour(**n) for n in neighbours) if neighbours is not None else None,
            uptime_s=data.get("uptime_s"),
            load1=data.get("load1"),
            errors=tuple(data.get("errors", ())),
            software=SoftwareReading.from_dict(data["software"]) if data.get("software") is not None else None,
            disk=Disk(**data["disk"]) if data.get("disk") is not None else None,
        )


HostKeyStatus = Literal["ok", "unknown", "mismatch"]


@dataclass(frozen=True, slots=True)
class PollResult:
    """The outcome of polling one target.

    ``reachable``: the node's sshd completed the SSH handshake (so ``host_key``
    is what it presented); it does not mean the command answered: then
    ``sample`` is None and ``error`` says why. ``error`` is "" when all went well.
    """

    name: str
    at: datetime  # aware UTC, when the poll of this node started
    reachable: bool
    sample: Sample | None
    error: str
    host_key: str | None  # OpenSSH public key text the server presented
    host_key_status: HostKeyStatus
    duration_ms: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable (``at`` as ISO 8601, the sample via ``Sample.to_dict``)."""
        return {
            "name": self.name,
            "at": self.at.isoformat(),
            "reachable": self.reachable,
            "sample": self.sample.to_dict() if self.sample is not None else None,
            "error": self.error,
            "host_key": self.host_key,
            "host_key_status": self.host_key_status,
            "duration_ms": self.duration_ms,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PollResult:
        sample = data.get("sample")
        return cls(
            name=data["name"],
            at=datetime.fromisoformat(data["at"]),
            reachable=data["reachable"],
            sample=Sample.from_dict(sample) if sample is not None else None,
            error=data.get("error", ""),
            host_key=data.get("host_key"),
            host_key_status=data.get("host_key_status", "ok"),
            duration_ms=data.get("duration_ms", 0.0),
        )
