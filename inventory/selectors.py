"""Reads of the inventory, with the joins and prefetches that keep the
number of queries per page constant however many objects there are."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet

from .errors import NotFound
from .models import Cable, CableEnd, CatalogueEntry, Change, Port, Spark, Switch


def _ends_with_ports() -> Prefetch[str]:
    """A cable's ends with their ports and devices joined in. Joined, not
    prefetched: Django prefetches a forward relation of many rows as one
    "id = a OR id = b ..." chain, which SQLite refuses past 1,000 terms
    ("Expression tree is too large"); the reverse relations stay plain IN lists."""
    return Prefetch("ends", queryset=CableEnd.objects.select_related("port__spark", "port__switch"))


def _ports_prefetch() -> Prefetch[str]:
    ends = CableEnd.objects.select_related("cable", "cable__type").prefetch_related(
        Prefetch("cable__ends", queryset=CableEnd.objects.select_related("port__spark", "port__switch"))
    )
    return Prefetch(
        "ports",
        queryset=Port.objects.prefetch_related("twins", Prefetch("cable_end", queryset=ends)),
    )


def port_end(port: Port) -> CableEnd | None:
    try:
        return port.cable_end
    except CableEnd.DoesNotExist:
        return None


def sparks_for_api() -> QuerySet[Spark]:
    return Spark.objects.select_related("hardware").prefetch_related(_ports_prefetch()).order_by("name")


def spark_get(name: str) -> Spark:
    spark = sparks_for_api().filter(name=name).first()
    if spark is None:
        raise NotFound(f"no Spark named {name!r}", "name")
    return spark


def switches_for_api() -> QuerySet[Switch]:
    return Switch.objects.select_related("hardware").prefetch_related(_ports_prefetch()).order_by("name")


def switch_get(name: str) -> Switch:
    switch = switches_for_api().filter(name=name).first()
    if switch is None:
        raise NotFound(f"no switch named {name!r}", "name")
    return switch


def cables_for_api() -> QuerySet[Cable]:
    return Cable.objects.select_related("type").prefetch_related(_ends_with_ports()).order_by("id")


def cable_get(cable_id: int) -> Cable:
    cable = cables_for_api().filter(pk=cable_id).first()
    if cable is None:
        raise NotFound(f"no cable with id {cable_id}", "id")
    return cable


def sparks_list(*, q: str = "", status: str = "") -> QuerySet[Spark]:
    """The Spark list page: one row per Spark with its cabled-port count."""
    qs = Spark.objects.select_related("hardware").annotate(cabled=Count("ports__cable_end", distinct=True))
    if q:
        qs = qs.filter(Q(name__icontains=q) | Q(ssh_host__icontains=q) | Q(serial__icontains=q))
    if status:
        qs = qs.filter(status=status)
    return qs.order_by("name")


def switches_list() -> QuerySet[Switch]:
    return (
        Switch.objects.select_related("hardware")
        .annotate(cabled=Count("ports__cable_end", distinct=True))
        .order_by("name")
    )


def cables_list(*, q: str = "") -> QuerySet[Cable]:
    qs = cables_for_api()
    if q:
        qs = qs.filter(
            Q(label__icontains=q)
            | Q(ends__port__spark__name__icontains=q)
            | Q(ends__port__switch__name__icontains=q)
            | Q(type__slug__icontains=q)
        ).distinct()
    return qs


def free_ports(*, cable: Cable | None = None) -> list[Port]:
    """Ports with no cable end (plus the given cable's own ends, when editing)."""
    qs = (
        Port.objects.select_related("spark", "switch")
        .filter(Q(cable_end__isnull=True) | Q(cable_end__cable=cable) if cable else Q(cable_end__isnull=True))
        .exclude(spark__status="retired")
    )
    return sorted(qs, key=lambda p: (p.spark is None, p.device_name, p.number))


def changes(*, object_type: str = "", object_name: str = "", username: str = "") -> QuerySet[Change]:
    qs = Change.objects.all()
    if object_type:
        qs = qs.filter(object_type=object_type)
    if object_name:
        qs = qs.filter(object_name=object_name)
    if username:
        qs = qs.filter(username=username)
    return qs


def catalogue(kind: str = "") -> QuerySet[CatalogueEntry]:
    qs = CatalogueEntry.objects.annotate(
        used=Count("sparks", distinct=True) + Count("switches", distinct=True) + Count("cables", distinct=True)
    )
    return qs.filter(kind=kind) if kind else qs


def counts() -> dict[str, Any]:
    return {
        "sparks": Spark.objects.count(),
        "switches": Switch.objects.count(),
        "cables": Cable.objects.count(),
    }
