"""Seed the hardware catalogue (idempotent). Called by the data migration and
after every ``migrate``/``flush`` (post_migrate), so a flushed test database
or a fresh one always has the catalogue, as Django does for permissions."""

from __future__ import annotations

from typing import Any

from . import hardware_catalogue as c


def _known(entry_model: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The fields the model has at this point of the migrations (an early data
    migration sees the table before later fields were added)."""
    names = {f.name for f in entry_model._meta.get_fields()}
    return {k: v for k, v in fields.items() if k in names}


def seed_catalogue(entry_model: Any) -> None:
    for slug, name, vendor, memory, connectx in c.SPARKS:
        entry_model.objects.get_or_create(
            slug=slug, defaults=dict(kind="spark", name=name, vendor=vendor, memory_gb=memory, has_connectx=connectx)
        )
    for slug, name, vendor, ports, speed, breakout, cage in c.SWITCHES:
        groups = [list(g) for g in c.PORT_GROUPS.get(slug, ())]
        entry_model.objects.get_or_create(
            slug=slug,
            defaults=_known(
                entry_model,
                dict(
                    kind="switch",
                    name=name,
                    vendor=vendor,
                    port_count=ports,
                    speed_gbps=speed,
                    breakout=breakout,
                    cage=cage,
                    port_groups=groups,
                ),
            ),
        )
    for slug, name, speed, breakout, plug in c.CABLES:
        entry_model.objects.get_or_create(
            slug=slug,
            defaults=_known(entry_model, dict(kind="cable", name=name, speed_gbps=speed, breakout=breakout, cage=plug)),
        )


def seed_cages(entry_model: Any, port_model: Any) -> None:
    """Give the seeded entries made before cages were recorded their cage or
    plug and their port groups, and their switches' ports the cage of their
    entry (idempotent: what is already set is kept)."""
    known = {slug: cage for slug, *_rest, cage in c.SWITCHES} | {slug: plug for slug, *_rest, plug in c.CABLES}
    for slug, cage in known.items():
        entry_model.objects.filter(slug=slug, cage="").update(cage=cage)
    for slug, groups in c.PORT_GROUPS.items():
        entry_model.objects.filter(slug=slug, port_groups=[]).update(port_groups=[list(g) for g in groups])
    for entry in entry_model.objects.filter(kind="switch", port_groups=[]).exclude(cage=""):
        port_model.objects.filter(switch__hardware=entry, cage="").update(cage=entry.cage)


def seed_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    from .models import CatalogueEntry

    if CatalogueEntry.objects.using(using).filter(slug="dgx-spark-128").exists():
        return
    seed_catalogue(CatalogueEntry.objects.db_manager(using).model)
