"""Seed the hardware catalogue (idempotent). Called by the data migration and
after every ``migrate``/``flush`` (post_migrate), so a flushed test database
or a fresh one always has the catalogue, as Django does for permissions."""

from __future__ import annotations

from typing import Any

from . import hardware_catalogue as c


def seed_catalogue(entry_model: Any) -> None:
    for slug, name, vendor, memory, connectx in c.SPARKS:
        entry_model.objects.get_or_create(
            slug=slug, defaults=dict(kind="spark", name=name, vendor=vendor, memory_gb=memory, has_connectx=connectx)
        )
    for slug, name, vendor, ports, speed, breakout in c.SWITCHES:
        entry_model.objects.get_or_create(
            slug=slug,
            defaults=dict(
                kind="switch", name=name, vendor=vendor, port_count=ports, speed_gbps=speed, breakout=breakout
            ),
        )
    for slug, name, speed, breakout in c.CABLES:
        entry_model.objects.get_or_create(
            slug=slug, defaults=dict(kind="cable", name=name, speed_gbps=speed, breakout=breakout)
        )


def seed_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    from .models import CatalogueEntry

    if CatalogueEntry.objects.using(using).filter(slug="dgx-spark-128").exists():
        return
    seed_catalogue(CatalogueEntry.objects.db_manager(using).model)
