"""What the inventory expects of each node's links, for the health rules.

For a set of Sparks: which ports are cabled, to which peer ("spark-02:p0",
or the switch port of a breakout's trunk "sw-804:3"), at which speed (200
unless the cable type or the switch port is slower: a breakout leg gets half
a breakout-capable port), and the Spark-to-Spark links whose two ends the
MTU rule compares. A fixed number of queries however many Sparks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from inventory.hardware_catalogue import SPARK_PORT_GBPS
from inventory.models import CableEnd
from telemetry.health import ExpectedLink, NodeExpectation

LinkPair = tuple[tuple[str, str], tuple[str, str]]


@dataclass(frozen=True)
class Expectations:
    nodes: dict[str, NodeExpectation]
    links: list[LinkPair]  # Spark-to-Spark cables, each once, ends sorted

    def links_touching(self, names: Iterable[str]) -> list[LinkPair]:
        wanted = set(names)
        return [link for link in self.links if link[0][0] in wanted or link[1][0] in wanted]


def expectations_for(spark_ids: Iterable[int]) -> Expectations:
    ids = list(spark_ids)
    # Every end of every cable plugged into one of these Sparks, with its port's device.
    ends = list(
        CableEnd.objects.filter(cable__ends__port__spark_id__in=ids)
        .select_related("cable__type", "port__spark__hardware", "port__switch")
        .distinct()
        .order_by("cable_id", "position")
    )
    by_cable: dict[int, list[CableEnd]] = {}
    for end in ends:
        by_cable.setdefault(end.cable_id, []).append(end)
    cabled: dict[str, dict[str, ExpectedLink]] = {}
    names: dict[int, str] = {}
    links: set[LinkPair] = set()
    for cable_ends in by_cable.values():
        cable = cable_ends[0].cable
        breakout = cable.type.breakout and len(cable_ends) == 3
        for end in cable_ends:
            spark = end.port.spark
            if spark is None or spark.id not in ids or not spark.hardware.has_connectx:
                continue
            names[spark.id] = spark.name
            if breakout:
                if end.position == 0:
                    continue  # a trunk on a Spark port: the topology findings report it
                peer_end = cable_ends[0]
            else:
                others = [e for e in cable_ends if e.pk != end.pk]
                if len(others) != 1:
                    continue
                peer_end = others[0]
            gbps = min(SPARK_PORT_GBPS, cable.type.speed_gbps or SPARK_PORT_GBPS)
            peer_port = peer_end.port
            if peer_port.switch_id is not None:
                leg = breakout and peer_port.breakout
                gbps = min(gbps, peer_port.speed_gbps // 2 if leg else peer_port.speed_gbps)
            elif peer_port.spark is not None and not breakout:
                pair = sorted([(spark.name, end.port.name), (peer_port.spark.name, peer_port.name)])
                links.add((pair[0], pair[1]))
            cabled.setdefault(spark.name, {})[end.port.name] = ExpectedLink(peer_port.label, gbps)
    nodes = {name: NodeExpectation(name, cabled.get(name, {})) for name in cabled}
    return Expectations(nodes=nodes, links=sorted(links))
