"""Review and accept the SSH host keys of Sparks (trust on first use, by an admin).

``hostkeys list`` shows each node's accepted and presented key fingerprints;
``hostkeys accept NAME`` trusts the key NAME presented; ``hostkeys accept --all``
trusts every key presented by a node that never had one accepted. A changed
key (mismatch) is only ever accepted by name, never by ``--all``.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.actor import Actor
from inventory.models import Spark
from telemetry import services
from telemetry.keys import fingerprint
from telemetry.models import NodeState


class Command(BaseCommand):
    help = "List or accept the SSH host keys Sparks present."

    def add_arguments(self, parser: Any) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("list", help="every Spark's host key status and fingerprints")
        accept = sub.add_parser("accept", help="accept the key a Spark presented")
        accept.add_argument("name", nargs="?")
        accept.add_argument("--all", action="store_true", help="every node presenting its first key")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "list":
            self._list()
            return
        actor = Actor(source="command")
        if options["all"] == bool(options["name"]):
            raise CommandError("accept: give a Spark name or --all (not both)")
        if options["name"]:
            spark = Spark.objects.filter(name=options["name"]).first()
            if spark is None:
                raise CommandError(f"no Spark named {options['name']!r}")
            try:
                state = services.host_key_accept(actor=actor, spark=spark)
            except services.TelemetryError as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(f"{spark.name}: accepted {fingerprint(state.host_key)}")
            return
        first_use = (
            NodeState.objects.filter(key_status=NodeState.KeyStatus.UNKNOWN, host_key="")
            .exclude(presented_key="")
            .select_related("spark")
        )
        accepted = 0
        for state in first_use:
            services.host_key_accept(actor=actor, spark=state.spark)
            self.stdout.write(f"{state.spark.name}: accepted {fingerprint(state.presented_key)}")
            accepted += 1
        held = NodeState.objects.filter(key_status=NodeState.KeyStatus.MISMATCH).count()
        self.stdout.write(
            f"accepted {accepted} first-use keys"
            + (f"; {held} changed keys need 'hostkeys accept NAME' each" if held else "")
        )

    def _list(self) -> None:
        states = {s.spark_id: s for s in NodeState.objects.all()}
        self.stdout.write(f"{'node':<16} {'status':<10} {'accepted':<52} presented")
        for spark in Spark.objects.order_by("name"):
            st = states.get(spark.pk)
            status = st.key_status if st else "unknown"
            accepted = (fingerprint(st.host_key) if st else "") or "-"
            presented = (fingerprint(st.presented_key) if st else "") or "-"
            self.stdout.write(f"{spark.name:<16} {status:<10} {accepted:<52} {presented}")
