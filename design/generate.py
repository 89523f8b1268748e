"""The lab designer's generator: from "we have (or will buy) N Sparks" to
candidate cablings, each as a lab document, a bill of materials and what the
topology engine says about it, before anything is plugged in.

Pure: plain data in, plain data out, no Django. Hardware comes from the
hardware catalogue (``inventory.hardware_catalogue``) and nothing else: a
switch the catalogue lacks is not invented. What the engine says comes from
running the real engine (``topology.engine.analyse``) on the designed lab.

Candidates (each only when it fits the request):

- ``direct``: two Sparks, one QSFP112 cable port to port.
- ``ring``: 3 to 8 Sparks, each Spark's p1 cabled to the next one's p0; the
  engine raises ``switch-recommended`` beyond four (NVIDIA supports rings of
  three and tests rings of four).
- ``switched`` on every catalogue switch that has room: the MikroTik
  CRS504-4XQ-IN (4 ports at 100G, one QSFP28 cable a Spark: up to 4 Sparks at
  half speed), the MikroTik CRS804 DDQ (4 ports at 400G, each split into
  2 x 200G by a QSFP-DD breakout: up to 8), the 32-port QSFP112 switch (one
  QSFP112 cable a Spark up to 32, 2 x 200G breakouts up to 64).

SSH addresses in the documents are placeholders from TEST-NET-1
(192.0.2.0/24, RFC 5737, never routed): replace them before importing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fabric.netplan import check_netplans, netplan_yaml, plan_addresses, segments_from_links
from inventory.hardware_catalogue import CABLES, SPARKS, SWITCHES
from topology.engine import CableIn, EndIn, Group, LabIn, NodeIn, SwitchIn, SwitchPortIn, analyse

MAX_SPARKS = 64  # the largest lab the catalogue can cable: 32 ports x 2 breakout legs
RING_MIN, RING_MAX = 3, 8
PLACEHOLDER_NET = "192.0.2"  # TEST-NET-1, RFC 5737: documentation only, never routed
PLACEHOLDER_NOTE = ("SSH addresses are placeholders from TEST-NET-1 (192.0.2.0/24, RFC 5737): "
                    "replace each with the Spark's real management address before importing.")

SPARK_128, SPARK_64 = "dgx-spark-128", "dgx-spark-64"
DIRECT_CABLE = "qsfp112-dac"
BREAKOUT_CABLE = "qsfp-dd-2x-qsfp56-breakout"
ODD_CABLE = "qsfp56-dac"  # the last Spark of an odd count on a breakout switch
CRS504, CRS804, SWITCH_32 = "mikrotik-crs504-4xq-in", "mikrotik-crs804-ddq", "generic-qsfp112-switch-32"
# The cable that joins a Spark to a switch of each kind, one Spark a port.
_SWITCH_CABLE = {CRS504: "qsfp28-dac", SWITCH_32: DIRECT_CABLE}

_SPARK = {slug: (name, memory, connectx) for slug, name, _, memory, connectx in SPARKS}
_SWITCH = {slug: (name, ports, speed, breakout) for slug, name, _, ports, speed, breakout in SWITCHES}
_CABLE = {slug: (name, speed, breakout) for slug, name, speed, breakout in CABLES}


class DesignInputError(ValueError):
    """Input the generator cannot design for: (path, message) pairs."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{p}: {m}" for p, m in errors))
        self.errors = errors


@dataclass(frozen=True)
class Request:
    sparks_128: int = 0
    sparks_64: int = 0
    no_switch: bool = False
    owned_switch: str | None = None  # catalogue slug of a switch the lab already has
    owned_switches: int = 0  # how many of it (0 with owned_switch: one)

    @property
    def total(self) -> int:
        return self.sparks_128 + self.sparks_64


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

    @property
    def link_gbps(self) -> list[int]:
        return sorted({link.gbps for link in self.group.links})

    @property
    def finding_codes(self) -> list[str]:
        return sorted({f.code for f in self.group.findings})


def check(request: Request) -> None:
    errors: list[tuple[str, str]] = []
    for name in ("sparks_128", "sparks_64"):
        value = getattr(request, name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_SPARKS:
            errors.append((name, f"must be a whole number from 0 to {MAX_SPARKS}"))
    if not errors and not 2 <= request.total <= MAX_SPARKS:
        errors.append(("sparks_128", f"{request.total} Sparks in all: a design needs 2 to {MAX_SPARKS} Sparks "
                                     f"(the catalogue's largest switch cables {MAX_SPARKS})"))
    if request.owned_switch is not None:
        if request.owned_switch not in _SWITCH:
            errors.append(("owned_switch", f"{request.owned_switch!r} is not a switch of the hardware catalogue; "
                                           f"one of {', '.join(sorted(_SWITCH))}"))
        if request.no_switch:
            errors.append(("owned_switch", "give either no_switch or an owned switch, not both"))
    if errors:
        raise DesignInputError(errors)


def designs(request: Request) -> list[Design]:
    """Every candidate for the request, best-known order: direct, ring, switched
    (smallest switch first). Raises DesignInputError when none fits."""
    check(request)
    n = request.total
    found: list[Design] = []
    if request.owned_switch is None:
        if n == 2:
            found.append(_direct(request))
        if RING_MIN <= n <= RING_MAX:
            found.append(_ring(request))
    if not request.no_switch:
        for slug in (CRS504, CRS804, SWITCH_32):
            if request.owned_switch not in (None, slug):
                continue
            if n <= capacity(slug):
                found.append(_switched(request, slug))
    if not found:
        raise DesignInputError([("no_switch" if request.no_switch else "owned_switch", _why_none(request))])
    return found


def capacity(switch: str) -> int:
    """How many Sparks one switch of the catalogue cables at one port each (or two by breakout)."""
    _, ports, _, breakout = _SWITCH[switch]
    return ports * 2 if breakout and switch in (CRS804, SWITCH_32) else ports


def _why_none(request: Request) -> str:
    n = request.total
    if request.no_switch:
        return (f"{n} Sparks cannot be cabled without a switch: a direct pair is 2 Sparks and a ring "
                f"{RING_MIN} to {RING_MAX}; allow a switch")
    return f"the {request.owned_switch} cables at most {capacity(str(request.owned_switch))} Sparks, not {n}"


# ---------------------------------------------------------------- the candidates


def _names(request: Request) -> list[tuple[str, str]]:
    """(name, hardware slug) of every Spark: 128 GB ones first."""
    slugs = [SPARK_128] * request.sparks_128 + [SPARK_64] * request.sparks_64
    return [(f"spark-{i + 1:02d}", slug) for i, slug in enumerate(slugs)]


def _sparks_doc(request: Request) -> list[dict[str, Any]]:
    return [{"name": name, "hardware": slug,
             "ssh": {"host": f"{PLACEHOLDER_NET}.{i + 11}", "port": 22, "user": "fleet"}}
            for i, (name, slug) in enumerate(_names(request))]


def _cable(slug: str, ends: list[str], label: str) -> dict[str, Any]:
    return {"type": slug, "ends": ends, "coded_for": "nvidia", "label": label}


def _direct(request: Request) -> Design:
    (a, _), (b, _) = _names(request)
    cables = [_cable(DIRECT_CABLE, [f"{a}:p0", f"{b}:p0"], "pair-1")]
    return _finish(request, "direct", "Direct pair", "direct", None, [], cables,
                   ["One QSFP112 cable port to port; the second port stays free (a second cable adds no bandwidth)."])


def _ring(request: Request) -> Design:
    names = [name for name, _ in _names(request)]
    cables = [_cable(DIRECT_CABLE, [f"{a}:p1", f"{names[(i + 1) % len(names)]}:p0"], f"ring-{i + 1}")
              for i, a in enumerate(names)]
    return _finish(request, "ring", f"Ring of {len(names)}", "ring", None, [], cables,
                   ["Each Spark's p1 to the next Spark's p0, the last back to the first."])


def _switched(request: Request, switch: str) -> Design:
    names = [name for name, _ in _names(request)]
    sw_name, ports, speed, _ = _SWITCH[switch]
    sw = "sw-1"
    cables: list[dict[str, Any]] = []
    if switch == CRS804 or (switch == SWITCH_32 and len(names) > ports):
        for i in range(0, len(names), 2):
            legs = [f"{name}:p0" for name in names[i:i + 2]]
            if len(legs) == 2:
                cables.append(_cable(BREAKOUT_CABLE, [f"{sw}:{i // 2 + 1}", *legs], f"breakout-{i // 2 + 1}"))
            else:  # a breakout needs both legs cabled; the odd Spark gets a port of its own
                cables.append(_cable(ODD_CABLE, [f"{sw}:{i // 2 + 1}", legs[0]], f"link-{i // 2 + 1}"))
        how = f"each {speed}G port split into 2 x 200G by a QSFP-DD breakout, one leg a Spark"
        if len(names) % 2:
            how += (f"; the odd Spark on a {_CABLE[ODD_CABLE][0]} to a port of its own "
                    "(a QSFP-DD cage takes a QSFP56 plug)")
    else:
        ctype = _SWITCH_CABLE[switch]
        cables = [_cable(ctype, [f"{sw}:{i + 1}", f"{name}:p0"], f"link-{i + 1}") for i, name in enumerate(names)]
        how = f"one {_CABLE[ctype][0]} a Spark, port p0 to a switch port"
    notes = [f"{sw_name}: {how}."]
    if speed < 200:
        notes.append(f"Its ports run at {speed} Gb/s, half of what a Spark's port can do.")
    return _finish(request, f"switched-{switch}", f"Switched on {sw_name}", "switched", switch,
                   [{"name": sw, "hardware": switch}], cables, notes)


def _finish(request: Request, key: str, title: str, kind: str, switch: str | None,
            switches: list[dict[str, Any]], cables: list[dict[str, Any]], notes: list[str]) -> Design:
    document: dict[str, Any] = {"sparks": _sparks_doc(request), "switches": switches, "cables": cables}
    groups = [g for g in analyse(engine_input(document)) if g.nodes]
    if len(groups) != 1:  # the generator's own cabling must form one group
        raise AssertionError(f"design {key} reads as {len(groups)} groups")
    return Design(key, title, kind, switch, document, bill_of_materials(request, document), groups[0],
                  [*notes, PLACEHOLDER_NOTE])


# ---------------------------------------------------------------- reading a design


def engine_input(document: dict[str, Any]) -> LabIn:
    """The designed lab as the topology engine's input, from the catalogue's figures
    (as the inventory builds it from the database once imported)."""
    nodes = []
    for spark in document["sparks"]:
        _, memory, connectx = _SPARK[spark["hardware"]]
        nodes.append(NodeIn(spark["name"], float(memory), connectx))
    switches = []
    for sw in document.get("switches", []):
        _, ports, speed, breakout = _SWITCH[sw["hardware"]]
        switches.append(SwitchIn(sw["name"], tuple(SwitchPortIn(i + 1, speed, breakout) for i in range(ports))))
    cables = []
    for c in document.get("cables", []):
        _, speed, breakout = _CABLE[c["type"]]
        ends = tuple(EndIn(*end.split(":")) for end in c["ends"])
        cables.append(CableIn(c["label"], c["type"], speed, breakout, c.get("coded_for", "nvidia"), ends))
    return LabIn(tuple(nodes), tuple(switches), tuple(cables))


def bill_of_materials(request: Request, document: dict[str, Any]) -> list[Part]:
    """Parts by catalogue type and count (cables by vendor coding), Sparks first."""
    parts: list[Part] = []
    for slug, count in ((SPARK_128, request.sparks_128), (SPARK_64, request.sparks_64)):
        if count:
            parts.append(Part("spark", slug, _SPARK[slug][0], count))
    sw_counts: dict[str, int] = {}
    for sw in document.get("switches", []):
        sw_counts[sw["hardware"]] = sw_counts.get(sw["hardware"], 0) + 1
    for slug, count in sw_counts.items():
        owned = min(count, max(1, request.owned_switches)) if slug == request.owned_switch else 0
        parts.append(Part("switch", slug, _SWITCH[slug][0], count, owned=owned))
    cable_counts: dict[tuple[str, str], int] = {}
    for c in document.get("cables", []):
        key = (c["type"], c.get("coded_for", "nvidia"))
        cable_counts[key] = cable_counts.get(key, 0) + 1
    for (slug, coded), count in sorted(cable_counts.items()):
        parts.append(Part("cable", slug, _CABLE[slug][0], count, coded_for=coded))
    return parts


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
