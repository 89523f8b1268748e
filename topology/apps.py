"""The topology app: node groups, the engine's reading of the cabling, the
diagrams and the group pages.

``ready`` wires topology to the floors below without them knowing it:
inventory's writes re-sync the groups (``inventory.services.AFTER_CHANGE``),
``migrate`` syncs them once (a database loaded or flushed around the
services), and telemetry's alerts and measured memory feed the group pages.
"""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def groups_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    from .services import groups_sync

    groups_sync()


class TopologyConfig(AppConfig):
    name = "topology"
    verbose_name = "Topology"

    def ready(self) -> None:
        from inventory import services as inventory_services

        from . import observed
        from .services import GROUP_FINDING_PROVIDERS, groups_sync_hook

        if groups_sync_hook not in inventory_services.AFTER_CHANGE:
            inventory_services.AFTER_CHANGE.append(groups_sync_hook)
        post_migrate.connect(groups_after_migrate, sender=self, dispatch_uid="topology-groups-sync")

        observed.register_health_codes()
        if observed.alert_findings not in GROUP_FINDING_PROVIDERS:
            GROUP_FINDING_PROVIDERS.append(observed.alert_findings)

        # The one state, for the floors below: inventory's Sparks list and API,
        # telemetry's pages and /metrics read it through core.live.
        from core import live as core_live

        from . import live

        core_live.provide(live.spark_states, live.fleet_snapshot)
