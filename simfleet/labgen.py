"""Generated lab documents (the import format) of any size: switched groups
of 8 on CRS804s (2 Sparks per 400G port by breakout), rings of 4, direct
pairs, lone Sparks, and one big switched group on a 32-port QSFP112 switch
(one Spark a port: up to 32).

The one generator of large labs, used by the size tests, the browser journeys
and the benchmarks in ``bench/``. Plain data in, plain data out: it imports
nothing from Django; ``inventory.labio.lab_import`` applies what it makes.
Sparks are named ``<prefix>-0001`` upwards, in the order switched groups, big
group, rings, pairs, lone Sparks; every fifth Spark is a 64 GB one."""

from __future__ import annotations

from typing import Any

BIG_MAX = 32  # the big group's switch: 32 QSFP112 ports, one Spark each


def lab_document(
    *, switched: int = 0, rings: int = 0, pairs: int = 0, singles: int = 0, big: int = 0, prefix: str = "g"
) -> dict[str, Any]:
    sparks: list[dict[str, Any]] = []
    switches: list[dict[str, Any]] = []
    cables: list[dict[str, Any]] = []

    def spark() -> str:
        n = len(sparks) + 1
        name = f"{prefix}-{n:04d}"
        # Every fifth Spark is a 64 GB one, as in bench/topology_engine.py.
        sparks.append(
            {
                "name": name,
                "hardware": "dgx-spark-64" if n % 5 == 0 else "dgx-spark-128",
                "ssh": {"host": f"10.{100 + n // 62500}.{n // 250 % 250}.{n % 250 + 1}"},
            }
        )
        return name

    for s in range(switched):
        sw = f"{prefix}-crs-{s + 1:03d}"
        switches.append({"name": sw, "hardware": "mikrotik-crs804-ddq"})
        for port in range(1, 5):
            cables.append(
                {"type": "qsfp-dd-2x-qsfp56-breakout", "ends": [f"{sw}:{port}", f"{spark()}:p0", f"{spark()}:p0"]}
            )
    if big:
        # One Spark a port by QSFP112 DAC: a QSFP-DD breakout does not fit a QSFP112 cage, so the
        # 32-port switch takes up to 32 (the lab designer's rule too).
        if big > BIG_MAX:
            raise ValueError(f"a big group has at most {BIG_MAX} Sparks (one a port of the 32-port QSFP112 switch)")
        switches.append({"name": f"{prefix}-big", "hardware": "generic-qsfp112-switch-32"})
        for port in range(1, big + 1):
            cables.append({"type": "qsfp112-dac", "ends": [f"{prefix}-big:{port}", f"{spark()}:p0"]})
    for _ in range(rings):
        ring = [spark() for _ in range(4)]
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            cables.append({"type": "qsfp112-dac", "ends": [f"{a}:p1", f"{b}:p0"]})
    for _ in range(pairs):
        cables.append({"type": "qsfp112-dac", "ends": [f"{spark()}:p0", f"{spark()}:p0"]})
    for _ in range(singles):
        spark()
    return {"sparks": sparks, "switches": switches, "cables": cables}
