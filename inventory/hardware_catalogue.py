"""The hardware catalogue of the domain, as data with stable slugs.

Seeded into the ``CatalogueEntry`` table by a data migration; admins may add
entries later. Figures follow docs/hardware.md (with their public sources).
"""

from __future__ import annotations

from typing import Any

SPARK = "spark"
SWITCH = "switch"
CABLE = "cable"

# slug, name, vendor, memory_gb, has_connectx
SPARKS: list[tuple[str, str, str, int, bool]] = [
    ("dgx-spark-128", "DGX Spark 128 GB", "NVIDIA", 128, True),
    ("dgx-spark-64", "DGX Spark 64 GB", "NVIDIA", 64, True),
    ("asus-ascent-gx10-128", "ASUS Ascent GX10 128 GB", "ASUS", 128, True),
    ("dell-pro-max-gb10-128", "Dell Pro Max with GB10 128 GB", "Dell", 128, True),
    ("gigabyte-atom-gb10-128", "Gigabyte AI TOP ATOM 128 GB", "Gigabyte", 128, True),
    ("msi-edgexpert-gb10-128", "MSI EdgeXpert 128 GB", "MSI", 128, True),
    ("lenovo-thinkstation-pgx-128", "Lenovo ThinkStation PGX 128 GB", "Lenovo", 128, True),
    ("rtx-spark", "RTX Spark (no ConnectX-7)", "NVIDIA", 128, False),
]

# The cages of switch ports and the plugs of cables (docs/hardware.md). A
# QSFP-DD cage (QSFP56-DD on MikroTik's 400G switches) takes QSFP-DD plugs and,
# one row of contacts unused, every QSFP plug; a QSFP cage (QSFP+, QSFP28,
# QSFP56, QSFP112) takes QSFP plugs but not the longer QSFP-DD one (QSFP-DD
# MSA); SFP cages take SFP plugs; an RJ45 jack takes no QSFP cable at all.
CAGE_FAMILY: dict[str, str] = {
    "QSFP-DD": "qsfp-dd",
    "QSFP56-DD": "qsfp-dd",
    "QSFP112": "qsfp",
    "QSFP56": "qsfp",
    "QSFP28": "qsfp",
    "QSFP+": "qsfp",
    "SFP56": "sfp",
    "SFP28": "sfp",
    "SFP+": "sfp",
    "RJ45": "rj45",
}
CAGES = tuple(CAGE_FAMILY)
_TAKES = {"qsfp-dd": ("qsfp-dd", "qsfp"), "qsfp": ("qsfp",), "sfp": ("sfp",), "rj45": ("rj45",)}
SPARK_CAGE = "QSFP112"  # a Spark's two ConnectX-7 cages


def plug_fits(plug: str, cage: str) -> bool:
    """Whether a cable's plug goes into a cage; unknown on either side: no objection."""
    if plug not in CAGE_FAMILY or cage not in CAGE_FAMILY:
        return True
    return CAGE_FAMILY[plug] in _TAKES[CAGE_FAMILY[cage]]


# slug, name, vendor, port_count, port_speed_gbps (the fastest), breakout (any port), cage (of the fast ports)
SWITCHES: list[tuple[str, str, str, int, int, bool, str]] = [
    ("mikrotik-crs504-4xq-in", "MikroTik CRS504-4XQ-IN", "MikroTik", 4, 100, False, "QSFP28"),
    ("mikrotik-crs804-ddq", "MikroTik CRS804 DDQ", "MikroTik", 4, 400, True, "QSFP56-DD"),
    ("mikrotik-crs812-ddq", "MikroTik CRS812 DDQ (CRS812-8DS-2DQ-2DDQ-RM)", "MikroTik", 14, 400, True, "QSFP56-DD"),
    ("generic-qsfp112-switch-32", "Generic 32-port QSFP112 switch", "generic", 32, 400, True, "QSFP112"),
]

# Switches whose ports are not all alike, group by group in port order:
# (count, speed_gbps, cage, breakout). The CRS812 DDQ: 2 x 400G QSFP56-DD
# (each 1 x 400G or 2 x 200G), 2 x 200G QSFP56, 8 x 50G SFP56, 2 x 10G RJ45.
PORT_GROUPS: dict[str, tuple[tuple[int, int, str, bool], ...]] = {
    "mikrotik-crs812-ddq": (
        (2, 400, "QSFP56-DD", True),
        (2, 200, "QSFP56", False),
        (8, 50, "SFP56", False),
        (2, 10, "RJ45", False),
    ),
}


def switch_ports(
    port_count: int, speed_gbps: int, breakout: bool, cage: str, groups: Any = ()
) -> list[tuple[int, int, bool, str]]:
    """A switch's ports, numbered from 1: (number, speed_gbps, breakout, cage),
    from its groups when its ports are not all alike, else all as the entry says."""
    if groups:
        ports: list[tuple[int, int, bool, str]] = []
        for count, speed, group_cage, group_breakout in groups:
            ports += [(len(ports) + 1 + i, speed, group_breakout, group_cage) for i in range(count)]
        return ports
    return [(n, speed_gbps, breakout, cage) for n in range(1, port_count + 1)]


def ports_text(port_count: int, speed_gbps: int, breakout: bool, cage: str, groups: Any = ()) -> str:
    """A switch's ports in words: "4 x 400G QSFP56-DD (each 1 x 400G or 2 x 200G)", or
    its groups joined by " + " when they differ."""

    def one(count: int, speed: int, group_cage: str, group_breakout: bool) -> str:
        split = " (each 1 x 400G or 2 x 200G)" if group_breakout and speed >= 400 else ""
        split = split or (" (each can break out into 2 x 200G)" if group_breakout else "")
        return f"{count} x {speed}G{f' {group_cage}' if group_cage else ''}{split}"

    if groups:
        return " + ".join(one(*group) for group in groups)
    return one(port_count, speed_gbps, cage, breakout)


def catalogue_switch_ports(slug: str) -> list[tuple[int, int, bool, str]]:
    """The ports of a switch of this module's catalogue, by slug."""
    _, _, _, count, speed, breakout, cage = next(s for s in SWITCHES if s[0] == slug)
    return switch_ports(count, speed, breakout, cage, PORT_GROUPS.get(slug, ()))


# slug, name, speed_gbps (per end or per leg), breakout, plug (of the trunk of a breakout)
CABLES: list[tuple[str, str, int, bool, str]] = [
    ("qsfp112-dac", "QSFP112 DAC (400G)", 400, False, "QSFP112"),
    ("qsfp56-dac", "QSFP56 DAC (200G)", 200, False, "QSFP56"),
    ("qsfp28-dac", "QSFP28 DAC (100G)", 100, False, "QSFP28"),
    ("qsfp-plus-dac", "QSFP+ DAC (40G)", 40, False, "QSFP+"),
    ("qsfp-dd-2x-qsfp56-breakout", "QSFP-DD 400G to 2 x QSFP56 breakout", 200, True, "QSFP-DD"),
]

# The two ConnectX-7 ports of a Spark and their twin interfaces (docs/hardware.md):
# port -> ((netdev, rdma) on PCIe domain 0000, (netdev, rdma) on domain 0002)
SPARK_PORTS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "p0": (("enp1s0f0np0", "rocep1s0f0"), ("enP2p1s0f0np0", "roceP2p1s0f0")),
    "p1": (("enp1s0f1np1", "rocep1s0f1"), ("enP2p1s0f1np1", "roceP2p1s0f1")),
}
SPARK_PORT_GBPS = 200
