"""Fixtures for the telemetry tests: a real client key and a real simulated fleet.

No SSH is mocked: tests start asyncssh servers on 127.0.0.1 (random ports)
and poll them with the real poller. pytest-asyncio is not installed, so each
test runs its coroutine with ``asyncio.run`` through ``run_fleet``.
"""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from simfleet.simulator import SimEndpoint, SimFleet, SimNode
from telemetry.poller import Target


@dataclass(frozen=True)
class ClientKey:
    path: str
    public: str


@pytest.fixture(scope="session")
def client_key(tmp_path_factory) -> ClientKey:
    key = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path_factory.mktemp("fleet-key") / "id_ed25519"
    path.write_bytes(key.export_private_key())
    path.chmod(0o600)
    return ClientKey(str(path), key.export_public_key("openssh").decode())


@dataclass
class Running:
    fleet: SimFleet
    endpoints: dict[str, SimEndpoint]
    client_key: ClientKey

    def targets(self, *names: str) -> list[Target]:
        chosen = names or tuple(self.endpoints)
        return [Target(n, self.endpoints[n].host, self.endpoints[n].port, "fleet") for n in chosen]

    def accepted(self) -> dict[str, str | None]:
        """Every node's first key, as an admin would have accepted it."""
        return {n: e.host_key for n, e in self.endpoints.items()}


@pytest.fixture
def run_fleet(client_key, tmp_path) -> Callable[..., object]:
    """``run_fleet(nodes, body, slow_s=...)`` starts the fleet, awaits ``body(running)``, stops it."""

    def run(nodes: list[SimNode], body: Callable[[Running], Awaitable[object]], *, slow_s: float = 0.3) -> object:
        async def main() -> object:
            # Faults that change the host key are applied after start, so that
            # every endpoint reports its FIRST key (what an admin accepted).
            late = {n.name: set(n.faults) for n in nodes if "host-key-changed" in n.faults}
            for node in nodes:
                if node.name in late:
                    node.faults = node.faults - {"host-key-changed"}
            fleet = SimFleet(
                nodes, authorized_client_key=client_key.public, host_key_dir=Path(tmp_path) / "hk", slow_s=slow_s
            )
            endpoints = {e.name: e for e in await fleet.start()}
            for name, faults in late.items():
                fleet.set_faults(name, faults)
            try:
                return await body(Running(fleet, endpoints, client_key))
            finally:
                await fleet.stop()

        return asyncio.run(main())

    return run
