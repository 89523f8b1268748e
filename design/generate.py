"""The lab designer's generator: from "we have (or will buy) N Sparks" to
candidate cablings, each as a lab document, a bill of materials and what the
topology engine says about it, before anything is plugged in.

Pure: plain data in, plain data out, no Django. Hardware comes from the
hardware catalogue (``inventory.hardware_catalogue``) and nothing else: a
switch the catalogue lacks is not invented. What the engine says comes from
running the real engine (``topology.engine.analyse``) on the designed lab.

Candidates (each only when it fits the request):

- ``direct``: two Sparks, one QSFP112 cable port to port.
- ``ring``: 3 to 7 Sparks, each Spark's p1 cabled to the next one's p0; the
  engine raises ``switch-recommended`` beyond four (NVIDIA supports rings of
  three and tests rings of four) and says a switch is required for eight, so
  a ring of eight is never offered.
- ``switched`` on every catalogue switch that has room: the MikroTik
  CRS504-4XQ-IN (4 ports at 100G, one QSFP28 cable a Spark: up to 4 Sparks at
  half speed), the MikroTik CRS804 DDQ (4 ports at 400G, each split into
  2 x 200G by a QSFP-DD breakout: up to 8), the 32-port QSFP112 switch (one
  QSFP112 cable a Spark: up to 32), the MikroTik CRS812 DDQ (its two
  QSFP56-DD ports split by breakouts, then its two 200G QSFP56 ports one Spark
  each: up to 6). A breakout goes only where its plug fits the cage
  (``inventory.hardware_catalogue.plug_fits``): a QSFP-DD plug does not fit a QSFP112 cage,
  so the 32-port switch takes no QSFP-DD breakout, and no breakout that fits
  its cages is in the catalogue.

The Sparks come as lines by hardware (owned and planned; partner builds
included), or as the DGX Spark 128/64 GB shorthand. Growing a registered lab,
the request carries the lab as its exported document: its Sparks (not retired,
with a ConnectX-7) come first under their own names and addresses, its
switches are used where a design needs one of their kind, and its cables stay
where a designed cable of the same type and coding joins the same ports.

SSH addresses of new Sparks in the documents are placeholders from TEST-NET-1
(192.0.2.0/24, RFC 5737, never routed): replace them before importing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fabric.netplan import check_netplans, netplan_yaml, plan_addresses, segments_from_links
from inventory.hardware_catalogue import (
    CABLES,
    SPARK_PORT_GBPS,
    SPARKS,
    SWITCHES,
    catalogue_switch_ports,
    plug_fits,
)
from topology.engine import CableIn, EndIn, Group, LabIn, NodeIn, SwitchIn, SwitchPortIn, analyse

MAX_SPARKS = 32  # the largest lab the catalogue can cable: the 32-port QSFP112 switch, one Spark a port
# The most one line (or shorthand) may ask for: above MAX_SPARKS in all, the
# request is refused with the reason (the switch), not as a malformed count.
MAX_LINE = 1000
# A ring of eight is not offered: the engine's own switch-recommended finding
# says a switch is required for eight (topology.engine.shape).
RING_MIN, RING_MAX = 3, 7
PLACEHOLDER_NET = "192.0.2"  # TEST-NET-1, RFC 5737: documentation only, never routed
PLACEHOLDER_NOTE = (
    "SSH addresses are placeholders from TEST-NET-1 (192.0.2.0/24, RFC 5737): "
    "replace each with the Spark's real management address before importing."
)

SPARK_128, SPARK_64 = "dgx-spark-128", "dgx-spark-64"
DIRECT_CABLE = "qsfp112-dac"
BREAKOUT_CABLE = "qsfp-dd-2x-qsfp56-breakout"
ODD_CABLE = "qsfp56-dac"  # the last Spark of an odd count on a breakout switch
CRS504, CRS804, SWITCH_32 = "mikrotik-crs504-4xq-in", "mikrotik-crs804-ddq", "generic-qsfp112-switch-32"
CRS812 = "mikrotik-crs812-ddq"
# The switches a design may use, smallest first (Sparks each cables at most).
SWITCH_CANDIDATES = (CRS504, CRS812, CRS804, SWITCH_32)
# The cable that joins one Spark to a switch port of each cage.
_CAGE_CABLE = {"QSFP28": "qsfp28-dac", "QSFP56": ODD_CABLE, "QSFP56-DD": ODD_CABLE, "QSFP112": DIRECT_CABLE}

_SPARK = {slug: (name, memory, connectx) for slug, name, _, memory, connectx in SPARKS}
_SWITCH = {slug: (name, ports, speed, breakout) for slug, name, _, ports, speed, breakout, _cage in SWITCHES}
_CABLE = {slug: (name, speed, breakout) for slug, name, speed, breakout, _plug in CABLES}
_CABLE_PLUG = {slug: plug for slug, *_rest, plug in CABLES}
_VENDOR = {slug: vendor for slug, _, vendor, *_rest in SWITCHES}


class DesignInputError(ValueError):
    """Input the generator cannot design for: (path, message) pairs."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{p}: {m}" for p, m in errors))
        self.errors = errors


@dataclass(frozen=True)
class SparkLine:
    """Sparks of one hardware catalogue entry: how many the lab owns and how many it plans to buy."""

    hardware: str
    owned: int = 0
    planned: int = 0

    @property
    def count(self) -> int:
        return self.owned + self.planned


@dataclass(frozen=True)
class Request:
    sparks_128: int = 0  # shorthand for a line of planned DGX Spark 128 GB
    sparks_64: int = 0  # shorthand for a line of planned DGX Spark 64 GB
    no_switch: bool = False
    owned_switch: str | None = None  # catalogue slug of a switch the lab already has
    owned_switches: int = 0  # how many of it (0 with owned_switch: one)
    lines: tuple[SparkLine, ...] = ()  # Sparks by hardware; when given, the shorthand is not used
    # The lab to grow, as its exported lab document (``inventory.labio.lab_export``):
    # its Sparks (not retired, with a ConnectX-7) and switches are owned, its cables reused where they fit.
    inventory: dict[str, Any] | None = None
    # Device names and cable labels the lab already uses (a fresh design, not growing it):
    # new Sparks and cables never take them, so the document imports beside the lab.
    reserved: frozenset[str] = frozenset()
    reserved_labels: frozenset[str] = frozenset()

    def spark_lines(self) -> tuple[SparkLine, ...]:
        if self.lines:
            return self.lines
        return tuple(
            SparkLine(slug, planned=n) for slug, n in ((SPARK_128, self.sparks_128), (SPARK_64, self.sparks_64)) if n
        )

    @property
    def total(self) -> int:
        return len(_growing(self.inventory)) + sum(line.count for line in self.spark_lines())


@dataclass(frozen=True)
class Part:
    kind: str  # "spark", "switch" or "cable"
    slug: str
    name: str
    count: int
    coded_for: str = ""  # cables: the vendor coding; "" for other parts
    owned: int = 0  # how many of them the lab already has


@dataclass
class Design:
    key: str  # stable: direct, ring, switched-<switch slug>
    title: str
    kind: str  # what the design promises the engine will read: direct, ring, switched
    switch: str | None
    document: dict[str, Any]  # the lab document (YAML-ready)
    parts: list[Part]
    group: Group  # the engine's reading of the designed lab (its one group)
    notes: list[str] = field(default_factory=list)
    # Growth only: the lab's cables this design unplugs (import with prune removes them), as "label (ends)".
    unplug: list[str] = field(default_factory=list)
    kept_cables: int = 0  # the lab's cables that stay where they are

    @property
    def link_gbps(self) -> list[int]:
        return sorted({link.gbps for link in self.group.links})

    @property
    def finding_codes(self) -> list[str]:
        return sorted({f.code for f in self.group.findings})


def _count_ok(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_LINE


def count_errors(request: Request, *, growing: bool) -> list[tuple[str, str]]:
    """What is wrong with the request's lines (or shorthand counts) alone."""
    errors: list[tuple[str, str]] = []
    if request.lines:
        for i, line in enumerate(request.lines):
            errors += _line_errors(line, f"sparks[{i}]", growing=growing)
    else:
        for name in ("sparks_128", "sparks_64"):
            if not _count_ok(getattr(request, name)):
                errors.append((name, f"must be a whole number from 0 to {MAX_LINE:,}"))
    return errors


def too_many(request: Request, have: int | None) -> tuple[str, str]:
    """The refusal of a request of more Sparks than a design can cable (``have``:
    how many of them are the lab's, None for a new lab)."""
    path = "sparks" if request.lines else "sparks_128"
    total = (have or 0) + sum(line.count for line in request.spark_lines())
    lab = f" ({have} of them the lab's)" if have is not None else ""
    return (
        path,
        f"{total} Sparks in all{lab}: a design needs 2 to {MAX_SPARKS} Sparks "
        f"(the catalogue's largest switch, 32 QSFP112 ports, cables {MAX_SPARKS}, one a port: "
        "a QSFP-DD breakout does not fit its cages; designs over several switches are not made)",
    )


# The catalogue Sparks a growth design cables: those with a ConnectX-7 (``_growing``).
GROWABLE = frozenset(slug for slug, (_, _, connectx) in _SPARK.items() if connectx)


def check(request: Request) -> None:
    errors = count_errors(request, growing=request.inventory is not None)
    if request.inventory is not None:
        for s in request.inventory.get("sparks", []):
            if s.get("status") != "retired" and s["hardware"] not in _SPARK:
                errors.append(
                    (
                        "from_inventory",
                        f"{s['name']}'s hardware {s['hardware']!r} is not in the hardware "
                        "catalogue the designer knows; retire it or design without the lab",
                    )
                )
    if not errors and not 2 <= request.total <= MAX_SPARKS:
        errors.append(too_many(request, len(_growing(request.inventory)) if request.inventory is not None else None))
    errors += _switch_errors(request)
    if errors:
        raise DesignInputError(errors)


def _line_errors(line: SparkLine, path: str, *, growing: bool) -> list[tuple[str, str]]:
    """One Spark line: a catalogue Spark with ConnectX-7, whole counts; growing the lab, none owned."""
    errors = []
    spark = _SPARK.get(line.hardware) if isinstance(line.hardware, str) else None
    if spark is None:
        errors.append(
            (
                f"{path}.hardware",
                f"{line.hardware!r} is not a Spark of the hardware catalogue; "
                f"one of {', '.join(s for s in _SPARK if _SPARK[s][2])}",
            )
        )
    elif not spark[2]:
        errors.append(
            (f"{path}.hardware", f"the {spark[0]} has no ConnectX-7 port: it cannot be cabled into a cluster")
        )
    for name in ("owned", "planned"):
        if not _count_ok(getattr(line, name)):
            errors.append((f"{path}.{name}", f"must be a whole number from 0 to {MAX_LINE:,}"))
    if growing and line.owned:
        errors.append(
            (
                f"{path}.owned",
                "growing the lab, its owned Sparks are the registered ones: "
                "list only planned Sparks here (or register the others first)",
            )
        )
    return errors


def _switch_errors(request: Request) -> list[tuple[str, str]]:
    if request.owned_switch is None:
        return []
    errors = []
    if request.owned_switch not in _SWITCH:
        errors.append(
            (
                "owned_switch",
                f"{request.owned_switch!r} is not a switch of the hardware catalogue; "
                f"one of {', '.join(sorted(_SWITCH))}",
            )
        )
    if request.no_switch:
        errors.append(("owned_switch", "give either no_switch or an owned switch, not both"))
    return errors


def designs(request: Request) -> list[Design]:
    """Every candidate for the request, best-known order: direct, ring, switched
    (smallest switch first). Raises DesignInputError when none fits."""
    check(request)
    lab = _lab(request)
    n = request.total
    found: list[Design] = []
    if request.owned_switch is None:
        if n == 2:
            found.append(_direct(lab))
        if RING_MIN <= n <= RING_MAX:
            found.append(_ring(lab))
    if not request.no_switch:
        for slug in SWITCH_CANDIDATES:
            if request.owned_switch not in (None, slug):
                continue
            if n <= capacity(slug):
                found.append(_switched(lab, slug))
    if not found:
        raise DesignInputError([("no_switch" if request.no_switch else "owned_switch", _why_none(request))])
    return found


def slots(switch: str) -> list[tuple[int, bool]]:
    """(port, breakout) of the ports a design cables on a switch of the
    catalogue, in port order: its ports that run at a Spark's speed (or its
    fastest, when all are slower), each split by a breakout where the switch
    port breaks out and the breakout's plug fits its cage, else one Spark."""
    ports = catalogue_switch_ports(switch)
    floor = min(max(speed for _, speed, _, _ in ports), SPARK_PORT_GBPS)
    plug = _CABLE_PLUG[BREAKOUT_CABLE]
    return [(n, brk and plug_fits(plug, cage)) for n, speed, brk, cage in ports if speed >= floor]


def capacity(switch: str) -> int:
    """How many Sparks one switch of the catalogue cables at one port each, or
    two a port by a breakout whose plug fits the switch's cages."""
    return sum(2 if breakout else 1 for _, breakout in slots(switch))


def _why_none(request: Request) -> str:
    n = request.total
    if request.no_switch:
        return (
            f"{n} Sparks cannot be cabled without a switch: a direct pair is 2 Sparks and a ring "
            f"{RING_MIN} to {RING_MAX}; allow a switch"
        )
    return f"the {request.owned_switch} cables at most {capacity(str(request.owned_switch))} Sparks, not {n}"


# ---------------------------------------------------------------- the lab to cable


def _growing(inventory: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The inventory's Sparks a growth design cables: not retired, with a ConnectX-7."""
    if inventory is None:
        return []
    return [s for s in inventory.get("sparks", []) if s.get("status") != "retired" and s["hardware"] in GROWABLE]


@dataclass
class _Lab:
    """What every candidate of one request shares."""

    request: Request
    sparks: list[dict[str, Any]]  # the designed Sparks' document entries, in cabling order
    owned: dict[str, int]  # hardware slug -> Sparks owned (in order of first appearance)
    count: dict[str, int]  # hardware slug -> Sparks in all
    left_out: list[dict[str, Any]]  # the lab's Sparks the design does not cable, kept unchanged
    switches: list[dict[str, Any]]  # the lab's switches
    cables: list[dict[str, Any]]  # the lab's cables
    taken: set[str]  # device names in use

    @property
    def names(self) -> list[str]:
        return [s["name"] for s in self.sparks]

    def free_name(self, base: str) -> str:
        """``base`` when free, else ``base-2``, ``base-3`` ..."""
        name, k = base, 2
        while name in self.taken:
            name, k = f"{base}-{k}", k + 1
        return name


def _next_names(taken: set[str], existing: list[str], how_many: int) -> list[str]:
    """Names for planned Sparks: the lab's own pattern continued (``node-08`` after
    ``node-07``) when all its Sparks share one, else ``spark-NN``; never a name in use."""
    prefix, width, start = "spark-", 2, 1
    found = [re.fullmatch(r"(.*?)(\d+)", name) for name in existing]
    if existing and all(found) and len({m.group(1) for m in found if m}) == 1:
        prefix = found[0].group(1) if found[0] else prefix
        width = max(len(m.group(2)) for m in found if m)
        start = max(int(m.group(2)) for m in found if m) + 1
    names: list[str] = []
    i = start
    while len(names) < how_many:
        name = f"{prefix}{i:0{width}d}"
        if name not in taken:
            names.append(name)
            taken.add(name)
        i += 1
    return names


def _lab(request: Request) -> _Lab:
    inventory = request.inventory or {}
    growing = _growing(request.inventory)
    owned: dict[str, int] = {}
    count: dict[str, int] = {}
    for s in growing:
        owned[s["hardware"]] = owned.get(s["hardware"], 0) + 1
        count[s["hardware"]] = count.get(s["hardware"], 0) + 1
    taken = {s["name"] for s in inventory.get("sparks", [])} | {w["name"] for w in inventory.get("switches", [])}
    taken |= request.reserved
    slugs: list[str] = []
    for line in request.spark_lines():
        owned[line.hardware] = owned.get(line.hardware, 0) + line.owned
        count[line.hardware] = count.get(line.hardware, 0) + line.count
        slugs += [line.hardware] * line.count
    sparks = [dict(s) for s in growing]
    used_hosts = {str(s.get("ssh", {}).get("host")) for s in inventory.get("sparks", [])}
    host = 11
    for name, slug in zip(_next_names(taken, [s["name"] for s in growing], len(slugs)), slugs, strict=True):
        while f"{PLACEHOLDER_NET}.{host}" in used_hosts:
            host += 1
        sparks.append(
            {"name": name, "hardware": slug, "ssh": {"host": f"{PLACEHOLDER_NET}.{host}", "port": 22, "user": "fleet"}}
        )
        host += 1
    designed = {s["name"] for s in sparks}
    left_out = [s for s in inventory.get("sparks", []) if s["name"] not in designed]
    return _Lab(
        request,
        sparks,
        {k: v for k, v in owned.items() if k in count},
        count,
        left_out,
        list(inventory.get("switches", [])),
        list(inventory.get("cables", [])),
        taken,
    )


# ---------------------------------------------------------------- the candidates


def _cable(slug: str, ends: list[str], label: str) -> dict[str, Any]:
    return {"type": slug, "ends": ends, "coded_for": "nvidia", "label": label}


def _direct(lab: _Lab) -> Design:
    a, b = lab.names
    cables = [_cable(DIRECT_CABLE, [f"{a}:p0", f"{b}:p0"], "pair-1")]
    return _finish(
        lab,
        "direct",
        "Direct pair",
        "direct",
        None,
        cables,
        ["One QSFP112 cable port to port; the second port stays free (a second cable adds no bandwidth)."],
    )


def _ring(lab: _Lab) -> Design:
    names = lab.names
    cables = [
        _cable(DIRECT_CABLE, [f"{a}:p1", f"{names[(i + 1) % len(names)]}:p0"], f"ring-{i + 1}")
        for i, a in enumerate(names)
    ]
    return _finish(
        lab,
        "ring",
        f"Ring of {len(names)}",
        "ring",
        None,
        cables,
        ["Each Spark's p1 to the next Spark's p0, the last back to the first."],
    )


def _switched(lab: _Lab, switch: str) -> Design:
    names = lab.names
    sw_name, _, speed, _ = _SWITCH[switch]
    mine = next((w["name"] for w in lab.switches if w["hardware"] == switch), None)
    sw = mine or lab.free_name("sw-1")
    cages = {n: cage for n, _, _, cage in catalogue_switch_ports(switch)}
    cables: list[dict[str, Any]] = []
    odd = plain = ""  # the cable of an odd Spark on a breakout port; of a port that does not break out
    left = list(names)
    for port, breakout in slots(switch):
        if not left:
            break
        if breakout and len(left) >= 2:
            legs = [f"{name}:p0" for name in left[:2]]
            cables.append(_cable(BREAKOUT_CABLE, [f"{sw}:{port}", *legs], f"breakout-{port}"))
            left = left[2:]
            continue
        # one Spark a port (a breakout needs both legs cabled: the odd Spark gets a port of its own)
        ctype = _CAGE_CABLE[cages[port]]
        cables.append(_cable(ctype, [f"{sw}:{port}", f"{left[0]}:p0"], f"link-{port}"))
        left = left[1:]
        odd, plain = (ctype, plain) if breakout else (odd, ctype)
    notes = [f"{sw_name}{f' (the lab’s {sw})' if mine else ''}: {_how(speed, cables, odd, plain)}."]
    if speed < 200:
        notes.append(f"Its ports run at {speed} Gb/s, half of what a Spark's port can do.")
    if _VENDOR[switch] == "MikroTik":
        notes.append(
            "Cables are NVIDIA-coded for the Sparks' ConnectX-7 end; MikroTik's switches take any vendor's "
            "coding at theirs (docs/hardware.md)."
        )
    new_switch = [] if mine else [{"name": sw, "hardware": switch}]
    return _finish(lab, f"switched-{switch}", f"Switched on {sw_name}", "switched", switch, cables, notes, new_switch)


def _how(speed: int, cables: list[dict[str, Any]], odd: str, plain: str) -> str:
    """How a switched design cables its Sparks, in words."""
    if not any(c["type"] == BREAKOUT_CABLE for c in cables):
        return f"one {_CABLE[plain][0]} a Spark, port p0 to a switch port"
    how = f"each {speed}G port split into 2 x 200G by a QSFP-DD breakout, one leg a Spark"
    if plain:
        how += f"; then one {_CABLE[plain][0]} a Spark on a port that does not break out"
    if odd:
        how += f"; the odd Spark on a {_CABLE[odd][0]} to a port of its own (a QSFP-DD cage takes a QSFP56 plug)"
    return how


def _ends_key(cable: dict[str, Any]) -> tuple[str, str, frozenset[str]]:
    return cable["type"], cable.get("coded_for", "nvidia"), frozenset(cable["ends"])


def _relabelled(cable: dict[str, Any], labels: frozenset[str]) -> dict[str, Any]:
    """The cable under a label the lab does not use (``ring-1`` taken: ``ring-1-2``)."""
    label, k = cable["label"], 2
    while label in labels:
        label, k = f"{cable['label']}-{k}", k + 1
    return cable if label == cable["label"] else {**cable, "label": label}


def _reuse(lab: _Lab, cables: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """The designed cables with the lab's own where one of the same type and
    coding already joins the same ports (written as the lab has it, so the
    import matches it); new cables get labels the lab does not use.
    Returns (cables, the lab's cables to unplug, how many stay)."""
    if not lab.cables:
        return [_relabelled(c, lab.request.reserved_labels) for c in cables], [], 0
    by_key: dict[tuple[str, str, frozenset[str]], dict[str, Any]] = {}
    for c in lab.cables:
        by_key.setdefault(_ends_key(c), c)
    labels = {c["label"] for c in lab.cables if c.get("label")}
    out: list[dict[str, Any]] = []
    kept: set[int] = set()
    for c in cables:
        mine = by_key.pop(_ends_key(c), None)
        if mine is not None:
            out.append(mine)
            kept.add(id(mine))
            continue
        label, k = c["label"], 2
        while label in labels:
            label, k = f"{c['label']}-{k}", k + 1
        labels.add(label)
        out.append({**c, "label": label})
    unplug = [c for c in lab.cables if id(c) not in kept]
    return out, unplug, len(kept)


def _finish(
    lab: _Lab,
    key: str,
    title: str,
    kind: str,
    switch: str | None,
    cables: list[dict[str, Any]],
    notes: list[str],
    new_switches: list[dict[str, Any]] | None = None,
) -> Design:
    cables, unplug, kept = _reuse(lab, cables)
    document: dict[str, Any] = {
        "sparks": [*lab.sparks, *lab.left_out],
        "switches": [*lab.switches, *(new_switches or [])],
        "cables": cables,
    }
    designed = set(lab.names)
    groups = [g for g in analyse(engine_input(document)) if designed & set(g.nodes)]
    if len(groups) != 1 or set(groups[0].nodes) != designed:  # the generator's own cabling must form one group
        raise AssertionError(f"design {key} reads as {len(groups)} groups")
    unplugged = [f"{c.get('label') or 'unlabelled ' + c['type']} ({' – '.join(c['ends'])})" for c in unplug]
    if lab.request.inventory is not None:
        planned = len(lab.sparks) - len(_growing(lab.request.inventory))
        notes = [
            *notes,
            f"Grows the lab’s {len(designed) - planned} Sparks by {planned} planned "
            f"({', '.join(lab.names[len(designed) - planned :]) or 'none'}).",
        ]
        if unplugged:
            notes.append(
                f"Re-cabling: unplug {len(unplugged)} of the lab’s cables; {kept} stay where they are. "
                "Import this document with prune: it removes only those cables (the preview lists them) "
                "and keeps every Spark and switch as registered."
            )
        else:
            notes.append(f"No re-cabling: the lab’s {kept} cables stay where they are.")
        if lab.left_out:
            notes.append(
                "Not cabled, kept as registered: "
                + ", ".join(f"{s['name']} ({s.get('status') or 'no ConnectX-7'})" for s in lab.left_out)
                + "."
            )
    design = Design(
        key,
        title,
        kind,
        switch,
        document,
        bill_of_materials(lab, document),
        groups[0],
        [*notes, PLACEHOLDER_NOTE],
        unplugged,
        kept,
    )
    return design


# ---------------------------------------------------------------- reading a design


def engine_input(document: dict[str, Any]) -> LabIn:
    """The designed lab as the topology engine's input, from the catalogue's figures
    (as the inventory builds it from the database once imported). A lab's Spark
    whose hardware the catalogue module lacks is left out (it is never cabled)."""
    nodes = []
    for spark in document["sparks"]:
        if spark["hardware"] in _SPARK:
            _, memory, connectx = _SPARK[spark["hardware"]]
            nodes.append(NodeIn(spark["name"], float(memory), connectx))
    switches = []
    for sw in document.get("switches", []):
        if sw["hardware"] in _SWITCH:
            ports = catalogue_switch_ports(sw["hardware"])
            switches.append(SwitchIn(sw["name"], tuple(SwitchPortIn(n, speed, brk) for n, speed, brk, _ in ports)))
    cables = []
    for i, c in enumerate(document.get("cables", [])):
        _, speed, breakout = _CABLE[c["type"]]
        ends = tuple(EndIn(*end.split(":")) for end in c["ends"])
        cables.append(
            CableIn(c.get("label") or f"cable-{i + 1}", c["type"], speed, breakout, c.get("coded_for", "nvidia"), ends)
        )
    return LabIn(tuple(nodes), tuple(switches), tuple(cables))


def bill_of_materials(lab: _Lab, document: dict[str, Any]) -> list[Part]:
    """Parts by catalogue type and count (cables by vendor coding), Sparks first,
    each with how many the lab already owns: Sparks as the request says (or the
    lab's registered ones), switches already owned or registered, cables of the
    same type and coding the lab has (re-cabled where they must move)."""
    parts = [
        Part("spark", slug, _SPARK[slug][0], count, owned=lab.owned.get(slug, 0))
        for slug, count in lab.count.items()
        if count
    ]
    request = lab.request
    used = {end.partition(":")[0] for c in document.get("cables", []) for end in c["ends"]}
    sw_counts: dict[str, int] = {}
    for sw in document.get("switches", []):
        if sw["name"] in used:
            sw_counts[sw["hardware"]] = sw_counts.get(sw["hardware"], 0) + 1
    registered: dict[str, int] = {}
    for sw in lab.switches:
        registered[sw["hardware"]] = registered.get(sw["hardware"], 0) + 1
    for slug, count in sw_counts.items():
        owned = registered.get(slug, 0)
        if slug == request.owned_switch:
            owned = max(owned, request.owned_switches, 1)
        parts.append(Part("switch", slug, _SWITCH[slug][0], count, owned=min(count, owned)))
    cable_counts: dict[tuple[str, str], int] = {}
    for c in document.get("cables", []):
        key = (c["type"], c.get("coded_for", "nvidia"))
        cable_counts[key] = cable_counts.get(key, 0) + 1
    have: dict[tuple[str, str], int] = {}
    for c in lab.cables:
        key = (c["type"], c.get("coded_for", "nvidia"))
        have[key] = have.get(key, 0) + 1
    for (slug, coded), count in sorted(cable_counts.items()):
        parts.append(
            Part("cable", slug, _CABLE[slug][0], count, coded_for=coded, owned=min(count, have.get((slug, coded), 0)))
        )
    return parts


def spark_choices() -> list[tuple[str, str]]:
    """(slug, name) of every catalogue Spark that can be cabled (has a ConnectX-7)."""
    return [(slug, name) for slug, (name, _, connectx) in _SPARK.items() if connectx]


def switch_choices() -> list[tuple[str, str]]:
    """(slug, name) of every catalogue switch, for the "already owned" field."""
    return [(slug, name) for slug, (name, *_rest) in _SWITCH.items()]


def netplans(design: Design) -> dict[str, str]:
    """Each designed Spark's netplan file, addressed by the same rules as a
    built group's (one subnet per twin per link, a switch as one segment,
    MTU 9000), so the lab can write them before the first boot."""
    segments = segments_from_links([(link.a, link.b) for link in design.group.links], design.group.nodes)
    plan = plan_addresses(segments)
    files = {n: netplan_yaml(n, plan, group=design.title) for n in design.group.nodes if plan.addresses.get(n)}
    problems = check_netplans(files, segments)
    if problems:  # the generator's own addressing must pass its own checker
        raise AssertionError(f"design {design.key}: {problems[0]}")
    return files
