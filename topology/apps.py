"""The topology app: node groups, the engine's reading of the cabling, the
diagrams and the group pages.

``ready`` wires topology to the floors below without them knowing it:
inventory's writes re-sync the groups (``inventory.services.AFTER_CHANGE``),
every hook of a floor below is a ``core.hooks.Hook``;
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
        from .engine import FINDING_CATALOGUES
        from .services import GROUP_FINDING_PROVIDERS, groups_sync_hook

        inventory_services.AFTER_CHANGE.add(groups_sync_hook)
        post_migrate.connect(groups_after_migrate, sender=self, dispatch_uid="topology-groups-sync")

        FINDING_CATALOGUES.add(observed.health_codes)
        GROUP_FINDING_PROVIDERS.add(observed.alert_findings)

        # The one state, for the floors below: inventory's Sparks list and API,
        # telemetry's pages and /metrics read it through core.live.
        from core import live as core_live

        from . import live

        core_live.SPARK_STATES.add(live.spark_states)
        core_live.SPARK_FINDINGS.add(live.spark_findings)
        core_live.FLEET_STATE.add(live.fleet_snapshot)
