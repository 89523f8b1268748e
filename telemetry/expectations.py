"""What the inventory expects of each node's links, for the health rules.

For a set of Sparks: which ports are cabled, to which peer ("spark-02:p0",
or the switch port of a breakout's trunk "sw-804:3"), at which speed (200
unless the cable type or the switch port is slower: a breakout leg gets half
a breakout-capable port), and the Spark-to-Spark links whose two ends the
MTU rule compares. A fixed number of queries however many Sparks.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import connection

from inventory.hardware_catalogue import SPARK_PORT_GBPS
from inventory.models import Cable, CableEnd, Change, Port, Spark, Switch
from telemetry.health import ExpectedLink, NodeExpectation

LinkPair = tuple[tuple[str, str], tuple[str, str]]


@dataclass(frozen=True)
class Expectations:
    nodes: dict[str, NodeExpectation]
    links: list[LinkPair]  # Spark-to-Spark cables, each once, ends sorted

    def links_touching(self, names: Iterable[str]) -> list[LinkPair]:
        wanted = set(names)
        return [link for link in self.links if link[0][0] in wanted or link[1][0] in wanted]


# What a poll chunk expects, kept per process for the inventory it was read
# from: a chunk's Sparks are the same every round, and reading their cables,
# ports and hardware as model instances cost more than storing their polls.
_cache_lock = threading.Lock()
_cache: dict[tuple[Any, ...], Expectations] = {}
_CACHE_MAX = 1024


def _inventory_mark() -> tuple[Any, ...]:
    """One query that changes with every write the expectations read: every
    service write logs a change, rows added without one (bulk loads) raise a
    table's largest id, and an edit moves its table's last update time."""
    q = connection.ops.quote_name
    # Table names come from the models' own metadata: no input reaches this SQL.
    ids = [f"(SELECT MAX(id) FROM {q(m._meta.db_table)})" for m in (Change, Spark, Switch, Port, Cable, CableEnd)]  # noqa: S608
    edits = [f"(SELECT MAX(updated_at) FROM {q(m._meta.db_table)})" for m in (Spark, Switch, Cable)]  # noqa: S608
    sql = "SELECT " + ", ".join(ids + edits)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return (connection.alias, *(row or ()))


def expectations_cached(spark_ids: Iterable[int]) -> Expectations:
    """``expectations_for``, read again only when the inventory changed (one query when it did not)."""
    ids = tuple(spark_ids)
    key = (_inventory_mark(), ids)
    with _cache_lock:
        found = _cache.get(key)
    if found is not None:
        return found
    fresh = expectations_for(ids)
    with _cache_lock:
        if len(_cache) >= _CACHE_MAX or any(k[0] != key[0] for k in _cache):
            _cache.clear()
        _cache[key] = fresh
    return fresh


def expectations_for(spark_ids: Iterable[int]) -> Expectations:
    ids = list(spark_ids)
    wanted = set(ids)
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
            if spark is None or spark.id not in wanted or not spark.hardware.has_connectx:
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
