"""Serve a simulated fleet of Sparks over SSH on 127.0.0.1 (for the demo, tests
and benchmarks; never a network).

``--nodes N`` serves spark-01.. cabled in pairs on ports base+1.. (``--register``
puts them and their cables in the inventory);
``--scenario FILE`` reads a YAML scenario (labs/demo-scenario.yaml matches
labs/demo.yaml). The fleet's client key pair is made if missing (at
FLEET_SSH_KEY, default var/fleet_ssh_key) and its public half is the one the
nodes accept. ``--trust`` records the simulated host keys as accepted for the
inventory Sparks that point at these loopback ports (the simulator knows its
own keys, so no admin review is needed for the demo).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.actor import Actor
from inventory.labio import ImportReport, lab_import
from inventory.models import Spark
from simfleet.simulator import LOOPBACK, SimEndpoint, SimNode, load_scenario, make_nodes, run_fleet
from simfleet.trust import host_keys_trust
from telemetry import conf
from telemetry.keys import client_key_ensure


def lab_document(nodes: list[SimNode]) -> dict[str, Any]:
    """The lab document of simulated nodes: loopback SSH, one QSFP112 cable per cabled pair."""
    sparks = [
        {
            "name": n.name,
            "hardware": "dgx-spark-64" if n.memory_gb == 64 else "dgx-spark-128",
            "ssh": {"host": LOOPBACK, "port": n.port, "user": "fleet"},
        }
        for n in nodes
    ]
    names = {n.name for n in nodes}
    cables, seen = [], set()
    for node in nodes:
        for port, (peer, peer_port) in sorted(node.cabled_ports.items()):
            ends = tuple(sorted((f"{node.name}:{port}", f"{peer}:{peer_port}")))
            if peer in names and ends not in seen:
                seen.add(ends)
                cables.append({"type": "qsfp112-dac", "ends": list(ends)})
    return {"sparks": sparks, "cables": cables}


def shift_ports(nodes: list[SimNode], base: int) -> None:
    """Move the nodes' ports so the lowest is base+1, keeping their distances
    (a second demo on one machine listens beside the first)."""
    ports = [n.port for n in nodes if n.port]
    if not ports:
        return
    shift = base + 1 - min(ports)
    if max(ports) + shift > 65535 or base < 1024:
        raise CommandError(f"--base-port: ports {base + 1}..{max(ports) + shift} are not all between 1025 and 65535")
    for node in nodes:
        if node.port:
            node.port += shift


def register(nodes: list[SimNode]) -> ImportReport:
    return lab_import(actor=Actor(source="command"), data=lab_document(nodes))


class Command(BaseCommand):
    help = "Serve simulated Sparks over SSH on 127.0.0.1 until interrupted."

    def add_arguments(self, parser: Any) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--nodes", type=int, help="serve N healthy nodes spark-01.., cabled in pairs")
        which.add_argument("--scenario", help="a YAML scenario file (see labs/demo-scenario.yaml)")
        parser.add_argument(
            "--base-port",
            type=int,
            default=None,
            help="with --nodes: node i listens on base+i (default 22200); with --scenario: the scenario's lowest "
            "port moves to base+1 and the others keep their distance from it; 0: the OS picks free ports, and "
            "--trust points the inventory's loopback Sparks at them",
        )
        parser.add_argument(
            "--trust",
            action="store_true",
            help="record the simulated host keys as accepted for matching inventory Sparks",
        )
        parser.add_argument(
            "--register",
            action="store_true",
            help="with --nodes: register the simulated Sparks and their cables in the inventory (a lab import)",
        )
        parser.add_argument("--slow-s", type=float, default=2.0, help="how late the 'slow' fault answers")
        parser.add_argument(
            "--nccl-row-s",
            type=float,
            default=1.0,
            help="seconds between two rows of a simulated nccl-tests run (a fabric verification)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["nodes"] is not None:
            if not 1 <= options["nodes"] <= 5000:
                raise CommandError("--nodes: from 1 to 5000")
            nodes = make_nodes(options["nodes"], topology="pairs")
            base = 22200 if options["base_port"] is None else options["base_port"]
            for index, node in enumerate(nodes, start=1):
                node.port = base + index
            if options["register"]:
                report = register(nodes)
                self.stdout.write(
                    f"inventory: {report.created['spark']} Sparks and {report.created['cable']} "
                    f"cables registered, {report.unchanged} already there"
                )
        elif options["register"]:
            raise CommandError("--register goes with --nodes (a scenario's lab is imported from its own document)")
        else:
            try:
                nodes = load_scenario(Path(options["scenario"]))
            except (OSError, ValueError) as exc:
                raise CommandError(f"--scenario: {exc}") from exc
            if options["base_port"] == 0:  # the OS picks free ports; --trust points the inventory at them
                for node in nodes:
                    node.port = 0
            elif options["base_port"] is not None:
                shift_ports(nodes, options["base_port"])
        self._repoint = options["base_port"] == 0 and options["scenario"] is not None
        public = client_key_ensure(conf.ssh_key_path())
        self.stdout.write(f"client key: {conf.ssh_key_path()} (public half in .pub)")
        host_keys = Path(settings.VAR_DIR) / "sim-hostkeys"
        try:
            asyncio.run(
                run_fleet(
                    nodes,
                    authorized_client_key=public,
                    host_key_dir=host_keys,
                    ready_callback=lambda eps: self._ready(eps, options["trust"]),
                    slow_s=options["slow_s"],
                    nccl_row_s=options["nccl_row_s"],
                )
            )
        except KeyboardInterrupt:
            self.stdout.write("simulated fleet stopped")
        except OSError as exc:
            raise CommandError(f"could not listen on {LOOPBACK}: {exc}") from exc

    async def _ready(self, endpoints: list[SimEndpoint], trust: bool) -> None:
        self.stdout.write(
            f"serving {len(endpoints)} simulated Sparks on {LOOPBACK} "
            f"(ports {min(e.port for e in endpoints)}..{max(e.port for e in endpoints)})"
        )
        if trust and self._repoint:
            moved = await sync_to_async(self._point_at)(endpoints)
            self.stdout.write(f"inventory: {len(moved)} loopback Sparks now point at the ports served")
        if trust:
            names = await sync_to_async(self._trust)(endpoints)
            self.stdout.write(f"host keys recorded as accepted for {len(names)} inventory Sparks")
        self.stdout.flush()

    def _point_at(self, endpoints: list[SimEndpoint]) -> list[str]:
        """With ports the OS picked: the inventory's loopback Sparks of these names get the ports served."""
        from inventory import services as inventory_services

        moved = []
        for e in endpoints:
            loopback = Spark.objects.filter(name=e.name, ssh_host__in=[LOOPBACK, "localhost"])
            for spark in loopback.exclude(ssh_port=e.port):
                inventory_services.spark_update(actor=Actor(source="command"), spark=spark, ssh_port=e.port)
                moved.append(spark.name)
        return moved

    def _trust(self, endpoints: list[SimEndpoint]) -> list[str]:
        # Only Sparks the inventory points at this very loopback port: a real
        # node of the same name elsewhere never inherits a simulated key.
        matching = set(Spark.objects.filter(ssh_host__in=[LOOPBACK, "localhost"]).values_list("name", "ssh_port"))
        keys = {e.name: e.host_key for e in endpoints if (e.name, e.port) in matching}
        return host_keys_trust(actor=Actor(source="command"), keys=keys)
