"""A simulated fleet served from a background thread, with matching Sparks in
the inventory, for the Django-side telemetry tests.

The pure-side fixtures run the simulator inside ``asyncio.run`` around one
coroutine; Django code (services, tasks, commands, pages) is synchronous, so
here the fleet gets its own event loop in a thread and tests call Django
normally while real asyncssh servers answer on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import Spark
from simfleet.simulator import SimEndpoint, SimFleet, SimNode
from simfleet.trust import host_keys_trust
from tests.support.catalogue import seed_catalogue


class BackgroundFleet:
    def __init__(self, nodes: list[SimNode], *, client_public: str, host_key_dir: Path, slow_s: float = 0.3):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.fleet = SimFleet(nodes, authorized_client_key=client_public, host_key_dir=host_key_dir, slow_s=slow_s)
        self.endpoints: dict[str, SimEndpoint] = {e.name: e for e in self._run(self.fleet.start())}

    def _run(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def set_faults(self, name: str, faults: set[str]) -> None:
        async def change() -> None:
            self.fleet.set_faults(name, faults)
            await self.fleet.settle()

        self._run(change())

    def set_software(self, name: str, software: dict[str, str]) -> None:
        async def change() -> None:
            self.fleet.set_software(name, software)

        self._run(change())

    def current_key(self, name: str) -> str:
        return self.fleet.endpoint(name).host_key

    def stats(self, name: str) -> Any:
        return self.fleet.stats(name)

    def stop(self) -> None:
        try:
            self._run(self.fleet.stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)
            self.loop.close()


@pytest.fixture(scope="session")
def fleet_key(tmp_path_factory: Any) -> tuple[str, str]:
    """(private key path, public key text) of a throwaway fleet key."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path_factory.mktemp("fleet-key") / "fleet_ssh_key"
    path.write_bytes(key.export_private_key())
    path.chmod(0o600)
    return str(path), key.export_public_key("openssh").decode()


def lab_for(nodes: list[SimNode], endpoints: dict[str, SimEndpoint]) -> dict[str, Any]:
    """A lab document: one Spark per simulated node at its loopback port, a
    QSFP112 cable per node-to-node cabling, switches for the rest."""
    sparks = [
        {
            "name": n.name,
            "hardware": "dgx-spark-64" if n.memory_gb == 64 else "dgx-spark-128",
            "ssh": {"host": "127.0.0.1", "port": endpoints[n.name].port, "user": "fleet"},
        }
        for n in nodes
    ]
    names = {n.name for n in nodes}
    cables, seen = [], set()
    for node in nodes:
        for port, (peer, peer_port) in sorted(node.cabled_ports.items()):
            if peer in names:
                key = tuple(sorted([f"{node.name}:{port}", f"{peer}:{peer_port}"]))
                if key not in seen:
                    seen.add(key)
                    cables.append({"type": "qsfp112-dac", "ends": list(key)})
    return {"sparks": sparks, "switches": [], "cables": cables}


@contextmanager
def sim_lab(
    nodes: list[SimNode],
    fleet_key: tuple[str, str],
    tmp_path: Path,
    settings: Any,
    *,
    accept: bool = True,
    slow_s: float = 0.3,
) -> Iterator[BackgroundFleet]:
    """Serve ``nodes``, register them (and their cables) in the inventory,
    point the poller at the key and, unless ``accept`` is False, accept every
    node's first host key as an admin would."""
    late = {n.name: set(n.faults) for n in nodes if "host-key-changed" in n.faults}
    for node in nodes:
        node.faults = node.faults - {"host-key-changed"}
    settings.FLEET_SSH_KEY = fleet_key[0]
    fleet = BackgroundFleet(nodes, client_public=fleet_key[1], host_key_dir=tmp_path / "hk", slow_s=slow_s)
    try:
        seed_catalogue()
        lab_import(actor=Actor(source="import"), data=lab_for(nodes, fleet.endpoints))
        if accept:
            host_keys_trust(actor=Actor(source="command"), keys={n: e.host_key for n, e in fleet.endpoints.items()})
        for name, faults in late.items():
            fleet.set_faults(name, faults)
        yield fleet
    finally:
        fleet.stop()


def ids(*names: str) -> list[int]:
    return list(Spark.objects.filter(name__in=names).values_list("pk", flat=True))
