"""The hardware catalogue of the domain, as data with stable slugs.

Seeded into the ``CatalogueEntry`` table by a data migration; admins may add
entries later. Figures follow docs/hardware.md (with their public sources).
"""

from __future__ import annotations

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

# slug, name, vendor, port_count, port_speed_gbps, breakout
SWITCHES: list[tuple[str, str, str, int, int, bool]] = [
    ("mikrotik-crs504-4xq-in", "MikroTik CRS504-4XQ-IN", "MikroTik", 4, 100, False),
    ("mikrotik-crs804-ddq", "MikroTik CRS804 DDQ", "MikroTik", 4, 400, True),
    ("generic-qsfp112-switch-32", "Generic 32-port QSFP112 switch", "generic", 32, 400, True),
]

# slug, name, speed_gbps (per end or per leg), breakout
CABLES: list[tuple[str, str, int, bool]] = [
    ("qsfp112-dac", "QSFP112 DAC (400G)", 400, False),
    ("qsfp56-dac", "QSFP56 DAC (200G)", 200, False),
    ("qsfp28-dac", "QSFP28 DAC (100G)", 100, False),
    ("qsfp-plus-dac", "QSFP+ DAC (40G)", 40, False),
    ("qsfp-dd-2x-qsfp56-breakout", "QSFP-DD 400G to 2 x QSFP56 breakout", 200, True),
]

# The two ConnectX-7 ports of a Spark and their twin interfaces (docs/hardware.md):
# port -> ((netdev, rdma) on PCIe domain 0000, (netdev, rdma) on domain 0002)
SPARK_PORTS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "p0": (("enp1s0f0np0", "rocep1s0f0"), ("enP2p1s0f0np0", "roceP2p1s0f0")),
    "p1": (("enp1s0f1np1", "rocep1s0f1"), ("enP2p1s0f1np1", "roceP2p1s0f1")),
}
SPARK_PORT_GBPS = 200
