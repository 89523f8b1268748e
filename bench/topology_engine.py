"""Time the topology engine on a 1,024-Spark lab.

The lab: switched groups of 8 Sparks on CRS804-like switches (4 x 400G
breakout ports, two Sparks per port), rings of 4, direct pairs and a few
singles. The baseline, measured in the same run, is the least any analysis
must do: one pass over all cables into adjacency dicts and a walk of the
connected components. The ratio says what the engine's rules cost on top.

    .venv/bin/python bench/topology_engine.py [--repeats N]
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import median_seconds  # noqa: E402 - bench/ is the script's own folder

from topology.engine import CableIn, EndIn, LabIn, NodeIn, SwitchIn, SwitchPortIn, analyse  # noqa: E402

SWITCHED_GROUPS = 80  # x 8 = 640 Sparks
RINGS = 70  # x 4 = 280
PAIRS = 50  # x 2 = 100
SINGLES = 4  # total 1,024


def build_lab() -> LabIn:
    nodes: list[NodeIn] = []
    switches: list[SwitchIn] = []
    cables: list[CableIn] = []
    count = 0

    def spark() -> str:
        nonlocal count
        count += 1
        name = f"spark-{count:04d}"
        # Every fifth Spark is a 64 GB one, so mixed-memory findings are part of the work.
        nodes.append(NodeIn(name, 64 if count % 5 == 0 else 128))
        return name

    def dac(a: EndIn, b: EndIn) -> None:
        cables.append(CableIn(f"cable-{len(cables) + 1:05d}", "qsfp112-dac", 400, False, "nvidia", (a, b)))

    for g in range(SWITCHED_GROUPS):
        sw = f"crs804-{g + 1:03d}"
        switches.append(SwitchIn(sw, tuple(SwitchPortIn(p, 400, True) for p in range(1, 5))))
        for port in range(1, 5):
            legs = (EndIn(spark(), "p0"), EndIn(spark(), "p0"))
            key = f"cable-{len(cables) + 1:05d}"
            cables.append(
                CableIn(key, "qsfp-dd-2x-qsfp56-breakout", 200, True, "nvidia", (EndIn(sw, str(port)), *legs))
            )
    for _ in range(RINGS):
        ring = [spark() for _ in range(4)]
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            dac(EndIn(a, "p1"), EndIn(b, "p0"))
    for _ in range(PAIRS):
        dac(EndIn(spark(), "p0"), EndIn(spark(), "p0"))
    for _ in range(SINGLES):
        spark()
    return LabIn(tuple(nodes), tuple(switches), tuple(cables))


def baseline(lab: LabIn) -> int:
    """Adjacency dicts from one pass over the cables, then connected components."""
    adjacency: dict[str, list[str]] = defaultdict(list)
    for cable in lab.cables:
        first = cable.ends[0].device
        for end in cable.ends[1:]:
            adjacency[first].append(end.device)
            adjacency[end.device].append(first)
    seen: set[str] = set()
    components = 0
    for device in [n.name for n in lab.nodes] + [s.name for s in lab.switches]:
        if device in seen:
            continue
        components += 1
        stack = [device]
        seen.add(device)
        while stack:
            for other in adjacency[stack.pop()]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
    return components


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()

    lab = build_lab()
    groups = analyse(lab)
    kinds = Counter(g.kind for g in groups)
    findings = Counter(f.code for g in groups for f in g.findings)
    assert sum(len(g.nodes) for g in groups) == len(lab.nodes) == 1024
    assert baseline(lab) == len(groups)

    engine = median_seconds(lambda: analyse(lab), args.repeats)
    base = median_seconds(lambda: baseline(lab), args.repeats)
    print(f"python {platform.python_version()} on {platform.machine()}, {args.repeats} repeats, median")
    print(f"lab: {len(lab.nodes)} Sparks, {len(lab.switches)} switches, {len(lab.cables)} cables")
    print(f"groups: {len(groups)} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    print(f"findings: {', '.join(f'{k} {v}' for k, v in sorted(findings.items()))}")
    print(f"analyse():  {engine * 1000:8.2f} ms")
    print(f"baseline:   {base * 1000:8.2f} ms  (adjacency dicts + connected components)")
    print(f"ratio:      {engine / base:8.1f} x baseline")
    print(f"goal:       analyse() well under 1 s: {'met' if engine < 1.0 else 'MISSED'}")


if __name__ == "__main__":
    main()
