"""``manage.py groups_sync``: bring the auto groups in step with the cabling
after rows were written around the services (raw SQL, a restored dump).
``migrate`` does the same; pages and the API only read."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from topology.services import groups_sync


class Command(BaseCommand):
    help = "Make the auto node groups match the cabling (after writes that bypassed the services)."

    def handle(self, *args: Any, **options: Any) -> None:
        changed = groups_sync()
        self.stdout.write("groups changed" if changed else "groups already match the cabling")
