"""Parsers for the output of the poll script (``telemetry.poll_script.POLL_SCRIPT``).

Pure functions, one per command, each returning ``Parsed(value, errors)``:
``value`` is ``None`` when nothing usable was found, ``errors`` says what was
wrong. They never raise on any input text: a node printing garbage must cost
us an entry in ``Sample.errors``, not a crashed poll.
``parse_poll_output`` splits the whole answer by section markers, runs every
parser and assembles a ``Sample`` (errors prefixed with their section).
"""

from __future__ import annotations

import functools
import ipaddress
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, NamedTuple, TypeVar

from telemetry.poll_script import END_SECTION, MARKER_PREFIX, SECTIONS, TWIN_BY_IFNAME, TWIN_IFNAMES
from telemetry.sample import ComputeProcess, Disk, Gpu, Memory, Neighbour, Sample, TwinReading
from telemetry.software import SoftwareReading, parse_software
from telemetry.software_script import SOFTWARE_SECTIONS

T = TypeVar("T")

_SECTION_NAME_RE = re.compile(r"[a-z0-9_]+")
# The scripts' own section names, whose marker lines need no regex to be told apart from content.
_KNOWN_SECTIONS = frozenset((*SECTIONS, END_SECTION, *SOFTWARE_SECTIONS))
_NA_VALUES = {"", "[n/a]", "n/a", "[not supported]", "not supported", "[unknown error]", "-"}


class Parsed(NamedTuple, Generic[T]):
    """A parser's answer: the value (None if unusable) and what went wrong."""

    value: T | None
    errors: tuple[str, ...] = ()


class Psi(NamedTuple):
    some_avg10: float | None
    full_avg10: float | None


@dataclass(frozen=True, slots=True)
class LinkState:
    """One interface as seen by ``ip -j link`` or by /sys/class/net."""

    operstate: str | None  # lower case: "up", "down", "unknown", ...
    mtu: int | None
    speed_mbps: int | None = None  # only sysfs knows the speed


def _short(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _to_float(text: str) -> float | None:
    """A finite float from an nvidia-smi style field; None for N/A and garbage."""
    try:
        value = float(text)  # the common case, and the cheapest
    except ValueError:
        cleaned = text.strip().lower()
        for unit in ("mib", "w", "%", "c"):
            if cleaned.endswith(unit):
                cleaned = cleaned[: -len(unit)].strip()
                break
        if cleaned in _NA_VALUES:
            return None
        try:
            value = float(cleaned)
        except ValueError:
            return None
    return value if math.isfinite(value) else None


def _to_int(text: str) -> int | None:
    text = text.strip()
    if not re.fullmatch(r"-?[0-9]{1,19}", text):
        return None
    return int(text)


def _load_json(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as exc:
        return None, f"invalid JSON ({type(exc).__name__}: {str(exc)[:80]})"


# --------------------------------------------------------------------------- sections


def split_sections(output: str) -> dict[str, str]:
    """Split the script's output at ``@@fleet:<name>`` marker lines.

    Text before the first marker (a chatty login script) is ignored. When a
    marker appears twice the first section wins. The ``end`` section is
    present (empty) only if the script ran to completion.
    """
    sections: dict[str, str] = {}
    current: str | None = None
    body: list[str] = []
    # Splitting on "\n@@fleet:" is several times cheaper than testing every line.
    if "\r" in output:
        output = output.replace("\r\n", "\n")
    pieces = ("\n" + output).split("\n" + MARKER_PREFIX)
    for piece in pieces[1:]:
        name, _, rest = piece.partition("\n")
        if name in _KNOWN_SECTIONS or _SECTION_NAME_RE.fullmatch(name):
            if current is not None and current not in sections:
                sections[current] = "\n".join(body)
            current, body = name, [rest]
        elif current is not None:
            body.append(MARKER_PREFIX + piece)  # not a marker line after all: keep it as content
    if current is not None and current not in sections:
        sections[current] = "\n".join(body)
    return sections


# --------------------------------------------------------------------------- memory


_MEMINFO_RE = re.compile(
    r"^(MemTotal|MemAvailable|SwapTotal|SwapFree):[ \t]*([0-9]+)(?:[ \t]+(kB))?[ \t]*$", re.M | re.I
)


def parse_meminfo(text: str) -> Parsed[Memory]:
    """/proc/meminfo -> Memory (PSI fields left None). Values are kB -> bytes."""
    values: dict[str, int] = {}
    # One regex pass instead of a Python loop over ~55 lines: this runs every poll.
    for key, number, unit in _MEMINFO_RE.findall(text):
        if len(number) <= 19:
            values.setdefault(key, int(number) * 1024 if unit.lower() == "kb" else int(number))
    missing = [k for k in ("MemTotal", "MemAvailable") if k not in values]
    if missing:
        return Parsed(None, (f"{', '.join(missing)} missing",))
    total, available = values["MemTotal"], values["MemAvailable"]
    if total <= 0 or available > total:
        return Parsed(None, (f"inconsistent MemTotal={total} MemAvailable={available}",))
    memory = Memory(
        total_bytes=total,
        available_bytes=available,
        used_bytes=total - available,
        swap_total_bytes=values.get("SwapTotal"),
        swap_free_bytes=values.get("SwapFree"),
        psi_some_avg10=None,
        psi_full_avg10=None,
    )
    return Parsed(memory)


_PSI_RE = re.compile(r"^(some|full) +avg10=([0-9.]+)", re.M)


def parse_psi(text: str) -> Parsed[Psi]:
    """/proc/pressure/memory -> avg10 of the "some" and "full" lines (percent)."""
    found: dict[str, float | None] = {}
    for kind, number in _PSI_RE.findall(text):
        value = _to_float(number)
        if value is not None and 0 <= value <= 100:
            found.setdefault(kind, value)
    if not found:
        if text.strip():
            return Parsed(None, (f"no some/full avg10 in {_short(text)}",))
        return Parsed(None)  # kernel without PSI: not an error, just unknown
    return Parsed(Psi(found.get("some"), found.get("full")))


# --------------------------------------------------------------------------- GPU


def parse_gpu_csv(text: str) -> Parsed[Gpu]:
    """``nvidia-smi --query-gpu=utilization.gpu,temperature.gpu,power.draw`` (noheader,nounits).

    GB10 has one GPU; extra lines are ignored. ``[N/A]`` fields become None.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return Parsed(None, ("no output (nvidia-smi missing or failed)",))
    fields = lines[0].split(",")
    if len(fields) != 3:
        return Parsed(None, (f"expected 3 CSV fields, got {_short(lines[0])}",))
    util, temp, power = (_to_float(f) for f in fields)
    if util is None and temp is None and power is None:
        known_na = all(f.strip().lower() in _NA_VALUES for f in fields)
        if not known_na:
            return Parsed(None, (f"unreadable values {_short(lines[0])}",))
    return Parsed(Gpu(util_pct=util, temp_c=temp, power_w=power))


def parse_compute_apps(text: str) -> Parsed[tuple[ComputeProcess, ...]]:
    """``nvidia-smi --query-compute-apps=pid,used_memory,process_name --format=csv,noheader``.

    Users are not known here (see ``parse_ps_owners``). Bad lines are skipped
    and reported; good ones kept.
    """
    processes: list[ComputeProcess] = []
    errors: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.strip().lower().startswith("no running"):
            continue
        fields = line.split(",", 2)
        pid = _to_int(fields[0]) if fields else None
        if len(fields) != 3 or pid is None or pid <= 0:
            errors.append(f"bad line {_short(line)}")
            continue
        used = _to_float(fields[1])
        processes.append(
            ComputeProcess(
                pid=pid,
                used_mib=int(used) if used is not None and 0 <= used < 2**40 else None,
                name=fields[2].strip(),
                user=None,
            )
        )
    return Parsed(tuple(processes), tuple(errors))


def parse_ps_owners(text: str) -> Parsed[dict[int, str]]:
    """``ps -o pid=,user= -p PIDS`` -> pid -> user name."""
    owners: dict[int, str] = {}
    errors: list[str] = []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        pid = _to_int(parts[0])
        if len(parts) != 2 or pid is None:
            errors.append(f"bad line {_short(line)}")
            continue
        owners[pid] = parts[1]
    return Parsed(owners, tuple(errors))


# --------------------------------------------------------------------------- links


def _json_list(text: str) -> tuple[list[dict[str, Any]] | None, str | None]:
    if not text.strip():
        return None, "no output (ip missing or failed)"
    data, error = _load_json(text)
    if error:
        return None, error
    if not isinstance(data, list):
        return None, f"expected a JSON list, got {type(data).__name__}"
    return [item for item in data if isinstance(item, dict)], None


def parse_ip_link_json(text: str) -> Parsed[dict[str, LinkState]]:
    """``ip -j link`` -> ifname -> LinkState (operstate, mtu).

    Some iproute2 versions omit ``operstate``: the LOWER_UP flag stands in.
    """
    items, error = _json_list(text)
    if items is None:
        return Parsed(None, (error or "unreadable",))
    links: dict[str, LinkState] = {}
    for item in items:
        name = item.get("ifname")
        if not isinstance(name, str):
            continue
        operstate = item.get("operstate")
        flags = item.get("flags")
        if not isinstance(operstate, str) or operstate.upper() == "UNKNOWN":
            if isinstance(flags, list):
                operstate = "up" if "LOWER_UP" in flags else "down"
            else:
                operstate = None
        mtu = item.get("mtu")
        links[name] = LinkState(
            operstate=operstate.lower() if isinstance(operstate, str) else None,
            mtu=mtu if isinstance(mtu, int) and not isinstance(mtu, bool) and mtu > 0 else None,
        )
    return Parsed(links)


@functools.lru_cache(maxsize=65536)
def _cidr(text: str) -> str | None:
    """Validated, normalised CIDR; cached because a node's addresses repeat every poll."""
    try:
        return ipaddress.ip_interface(text).with_prefixlen
    except ValueError:
        return None


def parse_ip_addr_json(text: str) -> Parsed[dict[str, tuple[str, ...]]]:
    """``ip -j addr`` -> ifname -> addresses as CIDR strings (IPv4 and IPv6)."""
    items, error = _json_list(text)
    if items is None:
        return Parsed(None, (error or "unreadable",))
    addresses: dict[str, tuple[str, ...]] = {}
    errors: list[str] = []
    for item in items:
        name = item.get("ifname")
        infos = item.get("addr_info")
        if not isinstance(name, str):
            continue
        cidrs: list[str] = []
        for info in infos if isinstance(infos, list) else ():
            if not isinstance(info, dict) or info.get("family") not in ("inet", "inet6"):
                continue
            cidr = _cidr(f"{info.get('local')}/{info.get('prefixlen')}")
            if cidr is None:
                errors.append(f"{name}: bad address {_short(str(info.get('local')))}")
                continue
            cidrs.append(cidr)
        addresses[name] = tuple(cidrs)
    return Parsed(addresses, tuple(errors))


def parse_sysfs_twin(text: str) -> Parsed[dict[str, LinkState]]:
    """Lines ``<ifname> operstate=up speed=200000 mtu=9000`` read from /sys/class/net.

    A down link cannot report its speed (the kernel answers -1 or EINVAL,
    printed as ``-``): speed is then None.
    """
    links: dict[str, LinkState] = {}
    errors: list[str] = []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        fields = dict(p.partition("=")[::2] for p in parts[1:])
        if len(parts) != 4 or set(fields) != {"operstate", "speed", "mtu"}:
            errors.append(f"bad line {_short(line)}")
            continue
        speed = _to_int(fields["speed"])
        mtu = _to_int(fields["mtu"])
        operstate = fields["operstate"].strip().lower()
        links[parts[0]] = LinkState(
            operstate=operstate if operstate not in ("", "-") else None,
            mtu=mtu if mtu is not None and mtu > 0 else None,
            speed_mbps=speed if speed is not None and speed > 0 else None,
        )
    return Parsed(links, tuple(errors))


_IBDEV_RE = re.compile(r"(\S+) port (\d+) ==> (\S+) \((\w+)\)")


def parse_ibdev2netdev(text: str) -> Parsed[dict[str, tuple[str, bool]]]:
    """``ibdev2netdev`` -> netdev -> (RDMA device, up)."""
    mapping: dict[str, tuple[str, bool]] = {}
    errors: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _IBDEV_RE.fullmatch(line.strip())
        if not match:
            errors.append(f"bad line {_short(line)}")
            continue
        rdma, _port, netdev, state = match.groups()
        mapping[netdev] = (rdma, state.lower() == "up")
    return Parsed(mapping, tuple(errors))


_RDMA_STATE_RE = re.compile(r"^\s*\d+\s*:\s*([A-Z_]+)\s*$")
_RDMA_RATE_RE = re.compile(r"^\s*([0-9.]+)\s*Gb/sec")


def parse_rdma_ports(text: str) -> Parsed[dict[str, tuple[str, float | None]]]:
    """Lines ``<rdma device>|4: ACTIVE|200 Gb/sec (4X HDR)`` from
    /sys/class/infiniband/<dev>/ports/1 -> device -> (state, Gb/s). A port
    that is not ACTIVE reports a meaningless rate (40 when down): None then."""
    ports: dict[str, tuple[str, float | None]] = {}
    errors: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.strip().split("|")
        state = _RDMA_STATE_RE.match(parts[1]) if len(parts) == 3 else None
        if state is None or not parts[0]:
            errors.append(f"bad line {_short(line)}")
            continue
        rate = _RDMA_RATE_RE.match(parts[2])
        value = state.group(1)
        ports[parts[0]] = (value, float(rate.group(1)) if rate and value == "ACTIVE" else None)
    return Parsed(ports, tuple(errors))


def _single_key(obj: Any) -> list[tuple[str, Any]]:
    """lldpctl's JSON turns a one-element list into a dict keyed by name; undo that."""
    if isinstance(obj, dict):
        return [(k, v) for k, v in obj.items()]
    if isinstance(obj, list):
        pairs: list[tuple[str, Any]] = []
        for item in obj:
            if isinstance(item, dict):
                pairs.extend(item.items())
        return pairs
    return []


def _value_of(obj: Any) -> str | None:
    """lldpctl prints fields either as a string or as {"type": ..., "value": ...}."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, dict) and isinstance(obj.get("value"), str):
        return str(obj["value"])
    if isinstance(obj, list) and obj:
        return _value_of(obj[0])
    return None


def _id_type(obj: Any) -> str | None:
    if isinstance(obj, list) and obj:
        obj = obj[0]
    return obj.get("type") if isinstance(obj, dict) and isinstance(obj.get("type"), str) else None


def _lldp_neighbour(local_if: str, entry: Any) -> Neighbour | None:
    if not isinstance(entry, dict):
        return None
    system_name: str | None = None
    chassis = entry.get("chassis")
    for key, value in _single_key(chassis):
        if key == "name":  # json0 style: {"name": [{"value": "spark-02"}]}
            system_name = _value_of(value)
        elif key not in ("id", "descr", "mgmt-ip", "capability") and isinstance(value, dict):
            system_name = key  # classic style: chassis keyed by system name
        if system_name:
            break
    port = entry.get("port")
    if isinstance(port, list):  # json0 style
        port = port[0] if port else None
    port_id = None
    if isinstance(port, dict):
        port_id = _value_of(port.get("id"))
        descr = _value_of(port.get("descr"))
        # lldpd on Linux sends the MAC as port id and the interface name as
        # description: the name is what the inventory can compare with.
        if descr and (port_id is None or _id_type(port.get("id")) == "mac"):
            port_id = descr
    if system_name is None and port_id is None:
        return None
    return Neighbour(local_if=local_if, system_name=system_name, port_id=port_id)


def parse_lldp_json(text: str) -> Parsed[tuple[Neighbour, ...]]:
    """``lldpctl -f json`` -> neighbours. Empty output (no lldpd) -> None, no error.

    lldpctl's JSON shape changes with the number of entries (a dict for one,
    a list for several) and between versions; both shapes are accepted.
    """
    if not text.strip():
        return Parsed(None)
    data, error = _load_json(text)
    if error:
        return Parsed(None, (error,))
    lldp = data.get("lldp") if isinstance(data, dict) else None
    if isinstance(lldp, list):  # json0: {"lldp": [{"interface": [...]}]}
        lldp = lldp[0] if lldp and isinstance(lldp[0], dict) else None
    if not isinstance(lldp, dict):
        return Parsed(None, ("no 'lldp' object",))
    interfaces = lldp.get("interface")
    entries: list[tuple[str, Any]] = []
    if isinstance(interfaces, dict):  # classic, one interface: {"eth0": {...}}
        entries = list(interfaces.items())
    elif isinstance(interfaces, list):
        for item in interfaces:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("name"), str):  # json0: [{"name": "eth0", ...}]
                entries.append((item["name"], item))
            else:  # classic, several interfaces: [{"eth0": {...}}, {"eth1": {...}}]
                entries.extend(item.items())
    neighbours: list[Neighbour] = []
    for name, entry in entries:
        neighbour = _lldp_neighbour(name, entry)
        if neighbour:
            neighbours.append(neighbour)
    return Parsed(tuple(neighbours))


# --------------------------------------------------------------------------- misc


def parse_uptime(text: str) -> Parsed[float]:
    """/proc/uptime -> seconds since boot."""
    parts = text.split()
    value = _to_float(parts[0]) if parts else None
    if value is None or value < 0:
        return Parsed(None, (f"unreadable {_short(text)}",))
    return Parsed(value)


def parse_loadavg(text: str) -> Parsed[float]:
    """/proc/loadavg -> 1-minute load average."""
    parts = text.split()
    value = _to_float(parts[0]) if parts else None
    if value is None or value < 0:
        return Parsed(None, (f"unreadable {_short(text)}",))
    return Parsed(value)


def parse_disk(text: str) -> Parsed[Disk]:
    """``df -P -B1 /`` -> the root filesystem's size and what a user may still
    write (the line mounted on ``/``: size, used, available, capacity)."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[-1] == "/":
            total, free = _to_int(parts[1]), _to_int(parts[3])
            if total is not None and free is not None and total > 0 and 0 <= free <= total:
                return Parsed(Disk(total, free))
            break
    return Parsed(None, (f"unreadable {_short(text)}",))


def build_twins(
    links: dict[str, LinkState] | None,
    addresses: dict[str, tuple[str, ...]] | None,
    sysfs: dict[str, LinkState] | None,
    ibdev: dict[str, tuple[str, bool]] | None,
    rdma_ports: dict[str, tuple[str, float | None]] | None = None,
) -> tuple[TwinReading, ...] | None:
    """Merge every link source into one TwinReading per twin interface the node has.

    sysfs is preferred (it has the speed), ``ip -j link`` next, ibdev2netdev
    last. An interface none of them mentions is absent from the node (an RTX
    Spark has no ConnectX-7): it gets no TwinReading. None if no source was readable.
    """
    if links is None and sysfs is None and ibdev is None:
        return None
    twins: list[TwinReading] = []
    for ifname in TWIN_IFNAMES:
        port, default_rdma, _index = TWIN_BY_IFNAME[ifname]
        fs = (sysfs or {}).get(ifname)
        link = (links or {}).get(ifname)
        ib = (ibdev or {}).get(ifname)
        if fs is None and link is None and ib is None:
            continue
        if fs is not None and fs.operstate is not None:
            up = fs.operstate == "up"
        elif link is not None and link.operstate is not None:
            up = link.operstate == "up"
        else:
            up = bool(ib and ib[1])
        mtu = (fs.mtu if fs else None) or (link.mtu if link else None)
        rdma = ib[0] if ib else default_rdma
        rdma_port = (rdma_ports or {}).get(rdma)
        twins.append(
            TwinReading(
                name=ifname,
                port=port,
                rdma=rdma,
                up=up,
                speed_mbps=fs.speed_mbps if fs is not None and up else None,
                mtu=mtu,
                addresses=(addresses or {}).get(ifname, ()),
                rdma_state=rdma_port[0] if rdma_port else None,
                rdma_rate_gbps=rdma_port[1] if rdma_port else None,
            )
        )
    return tuple(twins)


def _run(section: str, parser: Callable[[str], Parsed[T]], text: str, errors: list[str]) -> T | None:
    """Run one parser; a bug in it must not lose the rest of the sample."""
    try:
        value, problems = parser(text)
    except Exception as exc:  # defence in depth: parsers are written never to raise
        errors.append(f"{section}: parser failed ({type(exc).__name__})")
        return None
    errors.extend(f"{section}: {problem}" for problem in problems)
    return value


_LINK_SECTIONS = ("ip_link", "ip_addr", "sysfs", "ibdev2netdev", "rdma")


# Link and LLDP sections rarely change between two polls of a node, and they
# are most of the parsing cost (JSON): parse each distinct text once. Results
# are immutable (tuples of frozen dataclasses), so sharing them is safe.
#
# Two memories: a ``ParseMemo`` per node (what a long-lived poller passes: it
# holds only that node's last texts, so it never thrashes whatever the fleet
# size), and a process-wide LRU for callers without one. The LRU alone made
# the per-node cost grow with the fleet: past 4,096 distinct nodes polled in
# order, every lookup missed.
def _twins_uncached(
    link_text: str | None,
    addr_text: str | None,
    sysfs_text: str | None,
    ibdev_text: str | None,
    rdma_text: str | None = None,
) -> tuple[tuple[TwinReading, ...] | None, tuple[str, ...]]:
    errors: list[str] = []

    def run(section: str, text: str | None, parser: Callable[[str], Parsed[T]]) -> T | None:
        return None if text is None else _run(section, parser, text, errors)

    twins = build_twins(
        run("ip_link", link_text, parse_ip_link_json),
        run("ip_addr", addr_text, parse_ip_addr_json),
        run("sysfs", sysfs_text, parse_sysfs_twin),
        run("ibdev2netdev", ibdev_text, parse_ibdev2netdev),
        run("rdma", rdma_text, parse_rdma_ports),
    )
    return twins, tuple(errors)


_twins_from_sections = functools.lru_cache(maxsize=4096)(_twins_uncached)


def _neighbours_uncached(text: str | None) -> tuple[tuple[Neighbour, ...] | None, tuple[str, ...]]:
    if text is None:
        return None, ()
    errors: list[str] = []
    return _run("lldp", parse_lldp_json, text, errors), tuple(errors)


_neighbours_from_section = functools.lru_cache(maxsize=4096)(_neighbours_uncached)


_Processes = tuple[tuple[ComputeProcess, ...] | None, tuple[str, ...]]  # and the errors reading them


def _processes_uncached(apps: str | None, owners: str | None) -> _Processes:
    """The GPU compute processes with their owners, from the ``apps`` and ``owners`` sections."""
    errors: list[str] = []
    processes = _run("apps", parse_compute_apps, apps, errors) if apps is not None else None
    found = (_run("owners", parse_ps_owners, owners, errors) if owners is not None else None) or {}
    if processes is not None:
        processes = tuple(replace(p, user=found.get(p.pid)) for p in processes)
    return processes, tuple(errors)


class ParseMemo:
    """One node's last link, LLDP and GPU-process section texts and what they parsed to.

    Kept per node by whoever polls the node again and again (the poller's
    connection pool), so an unchanged section is compared, not parsed.
    """

    __slots__ = ("links_key", "links", "lldp_key", "lldp", "processes_key", "processes")

    def __init__(self) -> None:
        self.links_key: tuple[str | None, ...] | None = None
        self.links: tuple[tuple[TwinReading, ...] | None, tuple[str, ...]] = (None, ())
        self.lldp_key: str | None = None
        self.lldp: tuple[tuple[Neighbour, ...] | None, tuple[str, ...]] = (None, ())
        self.processes_key: tuple[str | None, str | None] | None = None
        self.processes: _Processes = (None, ())

    def compute(self, apps: str | None, owners: str | None) -> _Processes:
        key = (apps, owners)
        if key != self.processes_key:
            self.processes = _processes_uncached(apps, owners)
            self.processes_key = key
        return self.processes

    def twins(self, texts: tuple[str | None, ...]) -> tuple[tuple[TwinReading, ...] | None, tuple[str, ...]]:
        if texts != self.links_key:
            self.links = _twins_uncached(*texts)
            self.links_key = texts
        return self.links

    def neighbours(self, text: str | None) -> tuple[tuple[Neighbour, ...] | None, tuple[str, ...]]:
        if text is None:
            return None, ()
        if text != self.lldp_key:
            self.lldp = _neighbours_uncached(text)
            self.lldp_key = text
        return self.lldp


def parse_poll_output(output: str, memo: ParseMemo | None = None) -> Sample:
    """The whole answer of ``POLL_SCRIPT`` -> Sample. Never raises.

    ``memo``: this node's ``ParseMemo`` when the caller polls it repeatedly."""
    errors: list[str] = []
    sections = split_sections(output)
    if not sections:
        error = f"output: no section markers in {_short(output)}"
        return Sample(None, None, None, None, None, None, None, (error,))
    for name in SECTIONS:
        if name not in sections:
            errors.append(f"{name}: section missing")
    if END_SECTION not in sections:
        errors.append("output: truncated (end marker missing)")

    def run(section: str, parser: Callable[[str], Parsed[T]]) -> T | None:
        if section not in sections:
            return None
        return _run(section, parser, sections[section], errors)

    memory = run("meminfo", parse_meminfo)
    psi = run("psi", parse_psi)
    if memory is not None and psi is not None:
        memory = Memory(
            memory.total_bytes,
            memory.available_bytes,
            memory.used_bytes,
            memory.swap_total_bytes,
            memory.swap_free_bytes,
            psi.some_avg10,
            psi.full_avg10,
        )
    gpu = run("gpu", parse_gpu_csv)
    link_texts = tuple(sections.get(name) for name in _LINK_SECTIONS)
    if memo is not None:
        processes, process_errors = memo.compute(sections.get("apps"), sections.get("owners"))
        twins, twin_errors = memo.twins(link_texts)
        neighbours, lldp_errors = memo.neighbours(sections.get("lldp"))
    else:
        processes, process_errors = _processes_uncached(sections.get("apps"), sections.get("owners"))
        twins, twin_errors = _twins_from_sections(*link_texts)
        neighbours, lldp_errors = _neighbours_from_section(sections.get("lldp"))
    errors.extend(process_errors)
    errors.extend(twin_errors)
    errors.extend(lldp_errors)
    uptime_s, load1, disk = run("uptime", parse_uptime), run("loadavg", parse_loadavg), run("disk", parse_disk)
    software = _software(sections, errors)  # before the errors are frozen: it may add one
    return Sample(
        memory=memory,
        gpu=gpu,
        processes=processes,
        twins=twins,
        neighbours=neighbours,
        uptime_s=uptime_s,
        load1=load1,
        errors=tuple(errors),
        software=software,
        disk=disk,
    )


def _software(sections: dict[str, str], errors: list[str]) -> SoftwareReading | None:
    """The software sections, when this answer has them (a software poll). What
    they could not read stays in the reading's own notes: a Spark without
    Docker is not a parse error."""
    if SOFTWARE_SECTIONS[0] not in sections:
        return None
    try:
        return parse_software({name: sections.get(name, "") for name in SOFTWARE_SECTIONS})
    except Exception as exc:  # defence in depth: the parsers are written never to raise
        errors.append(f"software: parser failed ({type(exc).__name__})")
        return None
