"""The consistency scenario: a lab with every fault the one state must tell
apart, served by real simulated Sparks over SSH and polled by the real poller.

- spark-a (128 GB) and spark-b (64 GB), cabled directly: a 128+64 pair;
- spark-c and spark-d, cabled directly, spark-d's second twin of p0 down:
  the link runs on one twin, about 100 of 200 Gb/s;
- sw-1 with two breakouts: spark-e negotiated 100G, spark-f healthy,
  spark-g down (refuses connections), spark-h new (host key never accepted);
- spark-i and spark-j, cabled directly: spark-i registered at a port where
  nothing listens (its host key never seen, so down: check the address and
  port, not "accept its key"), spark-j healthy.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inventory.labio import lab_import
from inventory.services import Actor
from simfleet.simulator import SimNode
from simfleet.trust import host_keys_trust
from telemetry.poll_round import poll_and_store
from tests.support.catalogue import seed_catalogue
from tests.telemetry.django_sim import BackgroundFleet, ids

NAMES = ("spark-a", "spark-b", "spark-c", "spark-d", "spark-e", "spark-f", "spark-g", "spark-h", "spark-i", "spark-j")


def nodes() -> list[SimNode]:
    return [
        SimNode("spark-a", cabled_ports={"p0": ("spark-b", "p0")}),
        SimNode("spark-b", memory_gb=64, cabled_ports={"p0": ("spark-a", "p0")}),
        SimNode("spark-c", cabled_ports={"p0": ("spark-d", "p0")}),
        SimNode("spark-d", cabled_ports={"p0": ("spark-c", "p0")}, faults={"twin-down"}),
        SimNode("spark-e", cabled_ports={"p0": ("sw-1", "1")}, faults={"negotiated-100g"}),
        SimNode("spark-f", cabled_ports={"p0": ("sw-1", "1")}),
        SimNode("spark-g", cabled_ports={"p0": ("sw-1", "2")}, faults={"down"}),
        SimNode("spark-h", cabled_ports={"p0": ("sw-1", "2")}),
        SimNode("spark-j", cabled_ports={"p0": ("spark-i", "p0")}),
    ]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def lab(ports: dict[str, int]) -> dict[str, Any]:
    def spark(name: str, hardware: str = "dgx-spark-128") -> dict[str, Any]:
        return {"name": name, "hardware": hardware, "ssh": {"host": "127.0.0.1", "port": ports[name], "user": "fleet"}}

    return {
        "sparks": [spark(n, "dgx-spark-64" if n == "spark-b" else "dgx-spark-128") for n in NAMES],
        "switches": [{"name": "sw-1", "hardware": "mikrotik-crs804-ddq"}],
        "cables": [
            {"type": "qsfp112-dac", "ends": ["spark-a:p0", "spark-b:p0"], "label": "pair-ab"},
            {"type": "qsfp112-dac", "ends": ["spark-c:p0", "spark-d:p0"], "label": "pair-cd"},
            {"type": "qsfp-dd-2x-qsfp56-breakout", "ends": ["sw-1:1", "spark-e:p0", "spark-f:p0"], "label": "bo-1"},
            {"type": "qsfp-dd-2x-qsfp56-breakout", "ends": ["sw-1:2", "spark-g:p0", "spark-h:p0"], "label": "bo-2"},
            {"type": "qsfp112-dac", "ends": ["spark-i:p0", "spark-j:p0"], "label": "pair-ij"},
        ],
    }


@contextmanager
def scenario(fleet_key: tuple[str, str], tmp_path: Path, settings: Any) -> Iterator[BackgroundFleet]:
    """Serve, register, accept every key but spark-h's, poll twice; the fleet stops on exit."""
    settings.FLEET_SSH_KEY = fleet_key[0]
    fleet = BackgroundFleet(nodes(), client_public=fleet_key[1], host_key_dir=tmp_path / "hk")
    try:
        seed_catalogue()
        ports = {n: e.port for n, e in fleet.endpoints.items()} | {"spark-i": closed_port()}
        lab_import(actor=Actor(source="import"), data=lab(ports))
        host_keys_trust(
            actor=Actor(source="command"), keys={n: e.host_key for n, e in fleet.endpoints.items() if n != "spark-h"}
        )
        for _ in range(2):
            poll_and_store(spark_ids=ids(*NAMES))
        yield fleet
    finally:
        fleet.stop()
