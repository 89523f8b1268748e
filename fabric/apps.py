from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate

REAP_SCHEDULE = "fabric: fail runs whose worker stopped"


def schedule_create(**kwargs: Any) -> None:
    """The once-a-minute reaper's beat schedule, made after migrations (an admin's later edits are kept)."""
    from core.runs import schedule_ensure

    schedule_ensure(name=REAP_SCHEDULE, task="fabric.reap", every=1, period="minutes")


class FabricConfig(AppConfig):
    name = "fabric"
    verbose_name = "Fabric verification and network set-up"

    def ready(self) -> None:
        from . import conf  # noqa: F401 - its settings readers, read at start-up (core.config.read_at_start)

        post_migrate.connect(schedule_create, sender=self, dispatch_uid="fabric-schedule")
        # the group page lists every finding code it may show
        from core import panels
        from topology.engine import FINDING_CATALOGUES

        from .nccl import finding_codes
        from .templatetags.fabric_tags import exchange_panel, verification_panel

        panels.slot("group-exchange").add(exchange_panel)  # measured bus bandwidth in the group's table
        panels.slot("group").add(verification_panel, order=20)  # after who holds the group

        from topology.services import GROUP_FINDING_PROVIDERS

        from .selectors import fabric_findings

        GROUP_FINDING_PROVIDERS.add(fabric_findings)
        # the group state's measured exchange (pages, API, /metrics): latest finished verifications
        from topology.live import MEASURED_PROVIDERS

        from .selectors import measured_exchanges

        MEASURED_PROVIDERS.add(measured_exchanges)
        FINDING_CATALOGUES.add(finding_codes)
