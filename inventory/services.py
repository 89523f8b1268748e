"""Writes to the inventory. Every function validates its input, changes the
database inside one transaction and records the change (who, when, the
field-level difference) in the same transaction.

Errors users can cause raise ``InventoryError`` with (field, message) pairs
and leave the database unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from core.actor import Actor
from core.hooks import Hook

from . import validators as v
from .errors import Held, InventoryError, NotFound
from .hardware_catalogue import CAGES, SPARK_PORT_GBPS, SPARK_PORTS, plug_fits, switch_ports
from .models import Cable, CableEnd, CatalogueEntry, Change, NodeGroup, Port, Spark, Switch, Twin

# Called (inside the transaction) after every inventory write; the topology
# layer adds its group refresh here so groups never lag the cabling.
AFTER_CHANGE: Hook[Callable[[], None]] = Hook("inventory.after_change")
# What holds a Spark that deleting it would take away (the bookings layer adds
# its bookings that have not ended): each entry gives sentences for the Spark
# ids it is asked about, and a Spark anything holds is not deleted. A delete asks
# inside its transaction, so an entry may lock what it reads until the commit.
DELETE_HOLDS: Hook[Callable[[list[int]], list[str]]] = Hook("inventory.delete_holds")
# Called (inside the transaction) once per deletion that unplugs cables from Sparks,
# with each removed cable's Spark ids and description: the bookings layer tells the
# owners of bookings that hold those Sparks that their group lost a link.
CABLES_REMOVED: Hook[Callable[[Actor, list[tuple[list[int], str]]], None]] = Hook("inventory.cables_removed")


_deferred = threading.local()


def _after_change() -> None:
    if getattr(_deferred, "depth", 0):
        _deferred.dirty = True
        return
    for hook in AFTER_CHANGE:
        hook()


@contextmanager
def refresh_once() -> Iterator[None]:
    """Run the after-change hooks once at the end of a batch (an import) instead
    of after every object."""
    _deferred.depth = getattr(_deferred, "depth", 0) + 1
    try:
        yield
    finally:
        _deferred.depth -= 1
    if _deferred.depth == 0 and getattr(_deferred, "dirty", False):
        _deferred.dirty = False
        _after_change()


# ---------------------------------------------------------------- change log

SPARK_FIELDS = ("name", "hardware", "vendor", "serial", "ssh_host", "ssh_port", "ssh_user", "status")
SWITCH_FIELDS = ("name", "hardware", "serial")
CABLE_FIELDS = ("type", "label", "length_m", "coded_for", "ends")
CATALOGUE_FIELDS = (
    "kind",
    "slug",
    "name",
    "vendor",
    "memory_gb",
    "has_connectx",
    "port_count",
    "speed_gbps",
    "breakout",
    "cage",
    "port_groups",
)


def snapshot(obj: Any) -> dict[str, Any]:
    if isinstance(obj, Spark):
        data = {f: getattr(obj, f) for f in SPARK_FIELDS if f != "hardware"}
        data["hardware"] = obj.hardware.slug
    elif isinstance(obj, Switch):
        data = {"name": obj.name, "hardware": obj.hardware.slug, "serial": obj.serial}
    elif isinstance(obj, Cable):
        data = {
            "type": obj.type.slug,
            "label": obj.label,
            "length_m": str(obj.length_m) if obj.length_m is not None else None,
            "coded_for": obj.coded_for,
            "ends": [e.port.label for e in obj.ends.select_related("port__spark", "port__switch")],
        }
    elif isinstance(obj, CatalogueEntry):
        data = {f: getattr(obj, f) for f in CATALOGUE_FIELDS}
        data["price"] = str(obj.price) if obj.price is not None else None
        data["currency"] = obj.currency
    elif isinstance(obj, NodeGroup):
        data = {
            "name": obj.name,
            "kind": obj.kind,
            "parent": obj.parent.name if obj.parent_id and obj.parent else None,
            "nodes": sorted(obj.members.values_list("spark__name", flat=True)),
        }
    else:  # pragma: no cover - programming error
        raise TypeError(type(obj))
    return data


def _object_type(obj: Any) -> str:
    return {
        Spark: "spark",
        Switch: "switch",
        Cable: "cable",
        CatalogueEntry: "catalogue",
        NodeGroup: "group",
    }[type(obj)]


def change_record(
    *,
    actor: Actor,
    action: str,
    obj: Any,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    object_type: str = "",
) -> Change | None:
    """One line of the change log (``object_type``: for an app above inventory's own
    objects, such as the model catalogue's ``model``)."""
    before = before or {}
    after = after or {}
    diff = {
        key: [before.get(key), after.get(key)]
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    }
    if action == Change.Action.UPDATE and not diff:
        return None
    # a catalogue entry by its slug (the name it is found by: two entries may share a display name)
    keys = ("slug", "name") if isinstance(obj, CatalogueEntry) or object_type else ("name", "slug")
    name = str(next((side[k] for k in keys for side in (after, before) if side.get(k)), obj))
    return Change.objects.create(
        user=actor.known_user,
        username=actor.username,
        source=actor.source,
        action=action,
        object_type=object_type or _object_type(obj),
        object_id=obj.pk,
        object_name=name[:120],
        diff=diff,
    )


# ---------------------------------------------------------------- catalogue


def catalogue_get(slug: Any, kind: str, path: str = "hardware") -> CatalogueEntry:
    entry = CatalogueEntry.objects.filter(slug=slug, kind=kind).first() if isinstance(slug, str) else None
    if entry is None:
        known = ", ".join(CatalogueEntry.objects.filter(kind=kind).values_list("slug", flat=True)[:20])
        raise InventoryError(f"unknown {kind} type {slug!r}; known: {known}", path)
    return entry


# Whole-number figures each kind of catalogue entry needs, with their upper bounds.
FIGURES = {
    "spark": {"memory_gb": 4096},
    "switch": {"port_count": 256, "speed_gbps": 1600},
    "cable": {"speed_gbps": 1600},
}


def _figure_errors(kind: Any, fields: dict[str, Any]) -> list[tuple[str, str]]:
    errors = []
    for key, upper in FIGURES.get(kind, {}).items() if isinstance(kind, str) else ():
        value = fields.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= upper:
            errors.append((key, f"{key} must be a whole number from 1 to {upper}"))
    return errors


def _layout_errors(fields: dict[str, Any]) -> list[tuple[str, str]]:
    """A cage (or plug) the catalogue knows, and a switch's port groups that add
    up to its ports: [count, speed_gbps, cage, breakout] each, the fastest its speed."""
    errors = []
    cage = fields.get("cage", "")
    if cage not in ("", None, *CAGES):
        errors.append(("cage", f"{cage!r} is not one of {', '.join(CAGES)} (or empty: unknown)"))
    groups = fields.get("port_groups") or []
    if not groups:
        return errors
    if fields.get("kind") != "switch" or not isinstance(groups, list):
        return [
            *errors,
            ("port_groups", "only a switch has port groups, a list of [count, speed_gbps, cage, breakout]"),
        ]
    for i, group in enumerate(groups):
        ok = isinstance(group, list | tuple) and len(group) == 4
        count, speed, group_cage, breakout = group if ok else (None, None, None, None)
        if not ok or any(isinstance(x, bool) or not isinstance(x, int) or not 0 < x <= 1600 for x in (count, speed)):
            errors.append((f"port_groups[{i}]", "a group is [count, speed_gbps, cage, breakout], whole numbers first"))
        elif group_cage not in CAGES or not isinstance(breakout, bool):
            errors.append((f"port_groups[{i}]", f"the cage is one of {', '.join(CAGES)} and breakout true or false"))
    if errors:
        return errors
    if sum(g[0] for g in groups) != fields.get("port_count"):
        errors.append(("port_groups", f"the groups hold {sum(g[0] for g in groups)} ports, not port_count's"))
    if max(g[1] for g in groups) != fields.get("speed_gbps"):
        errors.append(("port_groups", "speed_gbps is the fastest group's speed"))
    return errors


def _price(raw: Any, raw_currency: Any) -> tuple[Decimal | None, str, list[tuple[str, str]]]:
    """A price and its ISO 4217 currency (both or neither), and what is wrong with them."""
    currency = str(raw_currency or "").strip().upper()
    if raw is None:
        return None, currency, []
    errors = []
    price: Decimal | None = None
    try:
        price = Decimal(str(raw))
    except InvalidOperation:
        errors.append(("price", f"{raw!r} is not a number"))
    else:
        if not price.is_finite() or price < 0 or price >= Decimal("1e10"):
            errors.append(("price", "the price must be a number from 0 to 9,999,999,999.99"))
        else:
            price = price.quantize(Decimal("0.01"))  # as the column keeps it (and answers it)
    if not (len(currency) == 3 and currency.isalpha()):
        errors.append(("currency", "a price needs its currency, a three-letter ISO 4217 code like EUR or USD"))
    return price, currency, errors


def catalogue_create(*, actor: Actor, **fields: Any) -> CatalogueEntry:
    errors: list[tuple[str, str]] = []
    kind = fields.get("kind")
    if kind not in CatalogueEntry.Kind.values:
        errors.append(("kind", f"{kind!r} is not one of spark, switch, cable"))
    slug = fields.get("slug")
    if (msg := v.check_name(slug)) is not None:
        errors.append(("slug", msg.replace("name", "slug", 1)))
    elif CatalogueEntry.objects.filter(slug=slug).exists():
        errors.append(("slug", f"a catalogue entry {slug!r} already exists"))
    if not str(fields.get("name") or "").strip():
        errors.append(("name", "the name is required"))
    errors += _figure_errors(kind, fields)
    errors += _layout_errors(fields)
    price, currency, price_errors = _price(fields.get("price"), fields.get("currency"))
    errors += price_errors
    if errors:
        raise InventoryError(errors)
    allowed = {k: fields[k] for k in CATALOGUE_FIELDS if k in fields}
    if price is not None:
        allowed.update(price=price, currency=currency)
    with transaction.atomic():
        entry = CatalogueEntry.objects.create(**allowed)
        change_record(actor=actor, action="create", obj=entry, before=None, after=snapshot(entry))
    return entry


def catalogue_update(*, actor: Actor, entry: CatalogueEntry, **changes: Any) -> CatalogueEntry:
    """Names and vendor change freely; figures only while no inventory object uses the entry
    (ports were made from them)."""
    errors: list[tuple[str, str]] = []
    figures = {
        "kind",
        "slug",
        "memory_gb",
        "has_connectx",
        "port_count",
        "speed_gbps",
        "breakout",
        "cage",
        "port_groups",
    }
    if {"price", "currency"} & set(changes):  # both or neither: null clears the price and its currency
        price, currency, price_errors = _price(
            changes.pop("price", entry.price), changes.pop("currency", entry.currency)
        )
        errors += price_errors if price is not None else []
        changes.update(price=price, currency=currency if price is not None else "")
    unknown = set(changes) - {*CATALOGUE_FIELDS, "price", "currency"}
    errors += [(k, "not a field of a catalogue entry") for k in sorted(unknown)]
    in_use = entry.sparks.count() + entry.switches.count() + entry.cables.count()
    for key in sorted(set(changes) & figures):
        if changes[key] != getattr(entry, key) and in_use:
            errors.append((key, f"{entry.slug} is used by {in_use} inventory object(s); add a new entry instead"))
    if "name" in changes and not str(changes["name"] or "").strip():
        errors.append(("name", "the name is required"))
    if {"cage", "port_groups"} & set(changes):
        errors += _layout_errors({f: getattr(entry, f) for f in CATALOGUE_FIELDS} | changes)
    if errors:
        raise InventoryError(errors)
    with transaction.atomic():
        before = snapshot(entry)
        for key, value in changes.items():
            setattr(entry, key, value)
        try:
            with transaction.atomic():
                entry.full_clean(exclude=["slug"] if "slug" not in changes else None)
                entry.save()
        except (IntegrityError, ValidationError) as exc:
            raise InventoryError(f"the entry does not hold together: {exc}", "") from exc
        change_record(actor=actor, action="update", obj=entry, before=before, after=snapshot(entry))
    return entry


def catalogue_delete(*, actor: Actor, entry: CatalogueEntry) -> None:
    in_use = entry.sparks.count() + entry.switches.count() + entry.cables.count()
    if in_use:
        raise InventoryError(f"{entry.slug} is used by {in_use} inventory object(s); change those first", "slug")
    with transaction.atomic():
        change_record(actor=actor, action="delete", obj=entry, before=snapshot(entry), after=None)
        entry.delete()


_Device = TypeVar("_Device", Spark, Switch)


def _save_named(device: Spark | Switch) -> None:
    """Save; a name taken meanwhile (the unique constraint) is the user's error, not a crash."""
    try:
        with transaction.atomic():
            device.save()
    except IntegrityError as exc:
        raise InventoryError(f"the name {device.name!r} is already taken", "name") from exc


def _device_create(actor: Actor, device: _Device, ports_create: Callable[[_Device], None]) -> _Device:
    """Insert a validated Spark or switch with its ports, and log it, in one transaction."""
    with transaction.atomic():
        _save_named(device)
        ports_create(device)
        change_record(actor=actor, action="create", obj=device, before=None, after=snapshot(device))
        _after_change()
    return device


# ---------------------------------------------------------------- Sparks


def _check_spark_fields(data: dict[str, Any], *, instance: Spark | None) -> list[tuple[str, str]]:
    errors: list[tuple[str, str]] = []
    checks = {
        "name": v.check_name,
        "ssh_host": v.check_host,
        "ssh_user": v.check_user,
        "ssh_port": v.check_tcp_port,
        "serial": v.check_serial,
    }
    for key, check in checks.items():
        if key in data and (msg := check(data[key])) is not None:
            errors.append((key, msg))
    if "vendor" in data and (msg := v.check_label(data["vendor"])) is not None:
        errors.append(("vendor", msg))
    if "status" in data and data["status"] not in Spark.Status.values:
        errors.append(("status", f"{data['status']!r} is not one of {', '.join(Spark.Status.values)}"))
    if "name" in data and not any(p == "name" for p, _ in errors):
        clash = Spark.objects.filter(name=data["name"])
        if instance is not None:
            clash = clash.exclude(pk=instance.pk)
        if clash.exists() or Switch.objects.filter(name=data["name"]).exists():
            errors.append(("name", f"the name {data['name']!r} is already taken"))
    return errors


def spark_check(data: dict[str, Any], *, instance: Spark | None = None) -> list[tuple[str, str]]:
    """What spark_create or spark_update would refuse in these fields, without writing
    (a form shows them on the first submit, next to its own errors)."""
    return _check_spark_fields(data, instance=instance)


def _spark_ports_create(spark: Spark) -> None:
    if not spark.hardware.has_connectx:
        # An RTX Spark has one 10 Gb/s port and no RoCE twins.
        Port.objects.create(spark=spark, name="p0", number=0, speed_gbps=10)
        return
    for number, (port_name, twins) in enumerate(SPARK_PORTS.items()):
        port = Port.objects.create(spark=spark, name=port_name, number=number, speed_gbps=SPARK_PORT_GBPS)
        Twin.objects.bulk_create(
            Twin(port=port, name=netdev, rdma=rdma, pcie_domain=domain)
            for (netdev, rdma), domain in zip(twins, ("0000", "0002"), strict=True)
        )


def spark_create(
    *,
    actor: Actor,
    name: Any,
    hardware: Any,
    ssh_host: Any,
    ssh_port: Any = 22,
    ssh_user: Any = "fleet",
    serial: Any = "",
    vendor: Any = "",
    status: Any = Spark.Status.ACTIVE,
) -> Spark:
    data = {
        "name": name,
        "ssh_host": ssh_host,
        "ssh_port": ssh_port,
        "ssh_user": ssh_user,
        "serial": serial,
        "vendor": vendor,
        "status": status,
    }
    errors = _check_spark_fields(data, instance=None)
    entry = None
    try:
        entry = hardware if isinstance(hardware, CatalogueEntry) else catalogue_get(hardware, "spark")
    except InventoryError as exc:
        errors += exc.errors
    if errors or entry is None:
        raise InventoryError(errors)
    fields = {k: val for k, val in data.items() if k != "vendor"}
    return _device_create(actor, Spark(hardware=entry, vendor=vendor or entry.vendor, **fields), _spark_ports_create)


def spark_update(*, actor: Actor, spark: Spark, **changes: Any) -> Spark:
    unknown = set(changes) - set(SPARK_FIELDS)
    if unknown:
        raise InventoryError([(k, "not a field of a Spark") for k in sorted(unknown)])
    errors = _check_spark_fields(changes, instance=spark)
    entry = spark.hardware
    if "hardware" in changes:
        try:
            entry = changes["hardware"]
            if not isinstance(entry, CatalogueEntry):
                entry = catalogue_get(entry, "spark")
            if entry.has_connectx != spark.hardware.has_connectx:
                errors.append(
                    (
                        "hardware",
                        "cannot change between a Spark with ConnectX-7 and one without; delete and register again",
                    )
                )
        except InventoryError as exc:
            errors += exc.errors
    if errors:
        raise InventoryError(errors)
    with transaction.atomic():
        if changes.get("status") == Spark.Status.RETIRED and spark.status != Spark.Status.RETIRED:
            _refuse_if_held(spark, "retiring", "status")  # in the transaction, as a delete's
        before = snapshot(spark)
        for key, value in changes.items():
            if key != "hardware":
                setattr(spark, key, value)
        spark.hardware = entry
        _save_named(spark)
        change_record(actor=actor, action="update", obj=spark, before=before, after=snapshot(spark))
        _after_change()
    return spark


def _cables_on(ports: Iterable[Port]) -> list[Cable]:
    return list(Cable.objects.filter(ends__port__in=list(ports)).distinct().select_related("type").order_by("id"))


def cables_freed_by(device: Spark | Switch) -> list[Cable]:
    """The cables that deleting this device removes (every cable plugged into it)."""
    return _cables_on(device.ports.all())


def device_holds(device: Spark | Switch) -> list[str]:
    """What holds this Spark and would lose it if it were deleted (nothing holds a switch)."""
    if not isinstance(device, Spark):
        return []
    return [sentence for holds in DELETE_HOLDS for sentence in holds([device.pk])]


def _refuse_if_held(device: Spark | Switch, doing: str, path: str) -> None:
    """Held (409) naming what holds the Spark, before ``doing`` (deleting, retiring) takes it away."""
    if holds := device_holds(device):
        raise Held(
            f"{device.name} is held by {'; '.join(holds)}: cancel the booking or move it to other Sparks first "
            f"({doing} the Spark would take it from the booking without a word to its owner)",
            path,
        )


def _device_delete(*, actor: Actor, device: Spark | Switch) -> list[str]:
    """Delete a Spark or switch and the cables plugged into it; returns those cables' descriptions.
    A Spark a booking that has not ended holds is refused (409), naming the bookings."""
    with transaction.atomic():
        # Inside the transaction: a hold takes the booking's per-Spark lock, so a
        # booking being made for this Spark is either seen here or waits for the delete.
        _refuse_if_held(device, "deleting", "name")
        cables = cables_freed_by(device)
        freed = [cable_describe(c) for c in cables]
        announce_removed(actor, cables)
        for cable in cables:
            cable_delete(actor=actor, cable=cable, refresh=False, announce=False)
        change_record(actor=actor, action="delete", obj=device, before=snapshot(device), after=None)
        device.delete()
        _after_change()
    return freed


def spark_delete(*, actor: Actor, spark: Spark) -> list[str]:
    return _device_delete(actor=actor, device=spark)


# ---------------------------------------------------------------- switches


def _switch_ports_create(switch: Switch) -> None:
    hw = switch.hardware
    ports = switch_ports(hw.port_count or 0, hw.speed_gbps or 0, hw.breakout, hw.cage, hw.port_groups)
    Port.objects.bulk_create(
        Port(switch=switch, name=str(n), number=n, speed_gbps=speed, breakout=breakout, cage=cage)
        for n, speed, breakout, cage in ports
    )


def _check_switch_name(name: Any, instance: Switch | None) -> list[tuple[str, str]]:
    if (msg := v.check_name(name)) is not None:
        return [("name", msg)]
    clash = Switch.objects.filter(name=name)
    if instance is not None:
        clash = clash.exclude(pk=instance.pk)
    if clash.exists() or Spark.objects.filter(name=name).exists():
        return [("name", f"the name {name!r} is already taken")]
    return []


def switch_check(data: dict[str, Any], *, instance: Switch | None = None) -> list[tuple[str, str]]:
    """What switch_create or switch_update would refuse in these fields, without writing."""
    errors = _check_switch_name(data["name"], instance) if "name" in data else []
    if "serial" in data and (msg := v.check_serial(data["serial"])) is not None:
        errors.append(("serial", msg))
    return errors


def switch_create(*, actor: Actor, name: Any, hardware: Any, serial: Any = "") -> Switch:
    errors = _check_switch_name(name, None)
    if (msg := v.check_serial(serial)) is not None:
        errors.append(("serial", msg))
    entry = None
    try:
        entry = hardware if isinstance(hardware, CatalogueEntry) else catalogue_get(hardware, "switch")
    except InventoryError as exc:
        errors += exc.errors
    if errors or entry is None:
        raise InventoryError(errors)
    return _device_create(actor, Switch(name=name, hardware=entry, serial=serial), _switch_ports_create)


def switch_update(*, actor: Actor, switch: Switch, **changes: Any) -> Switch:
    unknown = set(changes) - set(SWITCH_FIELDS)
    if unknown:
        raise InventoryError([(k, "not a field of a switch") for k in sorted(unknown)])
    errors: list[tuple[str, str]] = []
    if "name" in changes:
        errors += _check_switch_name(changes["name"], switch)
    if "serial" in changes and (msg := v.check_serial(changes["serial"])) is not None:
        errors.append(("serial", msg))
    entry = switch.hardware
    if "hardware" in changes:
        try:
            entry = changes["hardware"]
            if not isinstance(entry, CatalogueEntry):
                entry = catalogue_get(entry, "switch")
            if entry.pk != switch.hardware_id and CableEnd.objects.filter(port__switch=switch).exists():
                errors.append(("hardware", "unplug the switch's cables before changing its hardware"))
        except InventoryError as exc:
            errors += exc.errors
    if errors:
        raise InventoryError(errors)
    with transaction.atomic():
        before = snapshot(switch)
        hardware_changed = entry.pk != switch.hardware_id
        for key in ("name", "serial"):
            if key in changes:
                setattr(switch, key, changes[key])
        switch.hardware = entry
        _save_named(switch)
        if hardware_changed:
            switch.ports.all().delete()
            _switch_ports_create(switch)
        change_record(actor=actor, action="update", obj=switch, before=before, after=snapshot(switch))
        _after_change()
    return switch


def switch_delete(*, actor: Actor, switch: Switch) -> list[str]:
    return _device_delete(actor=actor, device=switch)


# ---------------------------------------------------------------- cables


def port_resolve(ref: Any, path: str) -> Port:
    """``spark-01:p0`` or ``sw-1:3`` to the Port, or an error naming ``path``."""
    if not isinstance(ref, str) or ref.count(":") != 1:
        raise InventoryError(f"{ref!r} is not a port reference like spark-01:p0 or sw-1:3", path)
    device, port_name = ref.split(":")
    port = (
        Port.objects.select_related("spark", "switch", "switch__hardware")
        .filter(spark__name=device, name=port_name)
        .first()
        or Port.objects.select_related("spark", "switch", "switch__hardware")
        .filter(switch__name=device, name=port_name)
        .first()
    )
    if port is None:
        if Spark.objects.filter(name=device).exists():
            names = ", ".join(Port.objects.filter(spark__name=device).values_list("name", flat=True))
            raise InventoryError(f"Spark {device!r} has no port {port_name!r} (ports: {names})", path)
        switch = Switch.objects.select_related("hardware").filter(name=device).first()
        if switch is not None:
            raise InventoryError(
                f"switch {device!r} has no port {port_name!r} (ports 1 to {switch.hardware.port_count})", path
            )
        raise InventoryError(f"no Spark or switch is named {device!r}", path)
    return port


def cable_end_errors(
    cable_type: CatalogueEntry, ports: list[Port | None], *, path: str = "ends", name: str = ""
) -> list[tuple[str, str]]:
    """Shape rules of a cable's ends that need no database lookup."""
    errors: list[tuple[str, str]] = []
    wanted = 3 if cable_type.breakout else 2
    if len(ports) != wanted:
        shape = "a trunk and two legs" if cable_type.breakout else "two ends"
        errors.append((path, f"a {cable_type.slug} cable has {shape}: {wanted} ends, not {len(ports)}"))
        return errors
    seen: set[int] = set()
    for i, port in enumerate(ports):
        if port is None:
            continue
        if port.pk in seen:
            errors.append((f"{path}[{i}]", f"port {port.label} is named twice in this cable"))
        seen.add(port.pk)
    trunk = ports[0]
    a, b = ports[0], ports[-1]
    if not cable_type.breakout and a is not None and b is not None and a.pk != b.pk and a.spark_id is not None:
        if a.spark_id == b.spark_id:
            errors.append(
                (
                    f"{path}[1]",
                    f"{a.label} and {b.label} are ports of one Spark: a cable joins two Sparks, "
                    "or a Spark and a switch (a loop back carries no traffic the fleet can use)",
                )
            )
    if cable_type.breakout and trunk is not None:
        if trunk.spark_id is not None:
            errors.append(
                (
                    f"{path}[0]",
                    f"{trunk.label} is a Spark port: a breakout trunk goes into a 400G switch port that can break out",
                )
            )
        elif not trunk.breakout:
            errors.append((f"{path}[0]", f"switch port {trunk.label} cannot break out into 2 x 200G"))
    errors += _fit_errors(cable_type, ports, path, name)
    if cable_type.breakout:
        for i, leg in enumerate(ports[1:], start=1):
            if leg is not None and leg.switch_id is not None and leg.switch_id == getattr(trunk, "switch_id", None):
                errors.append((f"{path}[{i}]", "a breakout leg cannot go back into its own switch"))
    return errors


def _fit_errors(cable_type: CatalogueEntry, ports: list[Port | None], path: str, name: str) -> list[tuple[str, str]]:
    """A plug that does not fit the switch cage it is put in: a straight cable's
    ends, a breakout's trunk (its legs are the plug of another form). ``name``:
    the cable's label, when it has one."""
    errors = []
    for i, port in enumerate(ports[:1] if cable_type.breakout else ports):
        if port is None or port.switch_id is None or plug_fits(cable_type.cage, port.cage):
            continue
        what = "trunk" if cable_type.breakout else "end"
        errors.append(
            (
                f"{path}[{i}]",
                f"{f'cable {name}: ' if name else ''}the {cable_type.cage} plug of {cable_type.slug} (its {what}) "
                f"does not fit the {port.cage} cage "
                f"of switch port {port.label} ({_fits_in(cable_type.cage)})",
            )
        )
    return errors


def _fits_in(plug: str) -> str:
    cages = [cage for cage in CAGES if plug_fits(plug, cage)]
    return f"a {plug} plug fits {', '.join(cages)} cages"


def _resolve_ends(ends: Any, path: str = "ends") -> tuple[list[Port | None], list[tuple[str, str]]]:
    if not isinstance(ends, list | tuple) or not ends:
        return [], [(path, "a cable needs its ends, e.g. [spark-01:p0, spark-02:p0]")]
    ports: list[Port | None] = []
    errors: list[tuple[str, str]] = []
    for i, ref in enumerate(ends):
        if isinstance(ref, Port):
            ports.append(ref)
            continue
        try:
            ports.append(port_resolve(ref, f"{path}[{i}]"))
        except InventoryError as exc:
            ports.append(None)
            errors += exc.errors
    return ports, errors


def _occupied_errors(ports: list[Port | None], cable: Cable | None, path: str = "ends") -> list[tuple[str, str]]:
    errors = []
    ids = [p.pk for p in ports if p is not None]
    taken = CableEnd.objects.filter(port_id__in=ids).select_related("cable")
    if cable is not None:
        taken = taken.exclude(cable=cable)
    by_port = {end.port_id: end.cable for end in taken}
    for i, port in enumerate(ports):
        if port is not None and port.pk in by_port:
            errors.append((f"{path}[{i}]", f"port {port.label} already holds cable {by_port[port.pk].key}"))
    return errors


def _parse_length(value: Any) -> tuple[Decimal | None, str | None]:
    if value in (None, ""):
        return None, None
    try:
        length = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None, f"{value!r} is not a length in metres"
    if not length.is_finite() or not Decimal("0") < length <= Decimal("100"):
        return None, "the length must be more than 0 and at most 100 metres"
    return length.quantize(Decimal("0.01")), None


def cable_create(
    *,
    actor: Actor,
    type: Any,
    ends: Any,
    label: Any = "",
    length_m: Any = None,
    coded_for: Any = Cable.Coding.NVIDIA,
    refresh: bool = True,
) -> Cable:
    errors: list[tuple[str, str]] = []
    cable_type = None
    try:
        cable_type = type if isinstance(type, CatalogueEntry) else catalogue_get(type, "cable", "type")
    except InventoryError as exc:
        errors += exc.errors
    ports, end_errors = _resolve_ends(ends)
    errors += end_errors
    if cable_type is not None and ports:
        errors += cable_end_errors(cable_type, ports, name=str(label or ""))
    errors += _occupied_errors(ports, None)
    length, msg = _parse_length(length_m)
    if msg:
        errors.append(("length_m", msg))
    if (msg := v.check_label(label)) is not None:
        errors.append(("label", msg))
    elif label and Cable.objects.filter(label=label).exists():
        errors.append(("label", f"another cable is already labelled {label!r}"))
    if coded_for not in Cable.Coding.values:
        errors.append(("coded_for", f"{coded_for!r} is not one of nvidia, generic"))
    if errors or cable_type is None:
        raise InventoryError(errors)
    with transaction.atomic():
        cable = Cable.objects.create(type=cable_type, label=label, length_m=length, coded_for=coded_for)
        try:
            with transaction.atomic():
                CableEnd.objects.bulk_create(
                    CableEnd(cable=cable, position=i, port=p) for i, p in enumerate(ports) if p is not None
                )
        except IntegrityError as exc:
            raise InventoryError(
                "one of these ports was just taken by another cable; reload and retry", "ends"
            ) from exc
        change_record(actor=actor, action="create", obj=cable, before=None, after=snapshot(cable))
        if refresh:
            _after_change()
    return cable


def _label_and_coding_errors(cable: Cable, changes: dict[str, Any]) -> list[tuple[str, str]]:
    errors = []
    if "label" in changes and (msg := v.check_label(changes["label"])) is not None:
        errors.append(("label", msg))
    elif changes.get("label") and Cable.objects.filter(label=changes["label"]).exclude(pk=cable.pk).exists():
        errors.append(("label", f"another cable is already labelled {changes['label']!r}"))
    if "coded_for" in changes and changes["coded_for"] not in Cable.Coding.values:
        errors.append(("coded_for", f"{changes['coded_for']!r} is not one of nvidia, generic"))
    return errors


def cable_update(*, actor: Actor, cable: Cable, refresh: bool = True, **changes: Any) -> Cable:
    unknown = set(changes) - set(CABLE_FIELDS)
    if unknown:
        raise InventoryError([(k, "not a field of a cable") for k in sorted(unknown)])
    errors: list[tuple[str, str]] = []
    cable_type = cable.type
    if "type" in changes:
        try:
            cable_type = changes["type"]
            if not isinstance(cable_type, CatalogueEntry):
                cable_type = catalogue_get(cable_type, "cable", "type")
        except InventoryError as exc:
            errors += exc.errors
    if "ends" in changes:
        ports, end_errors = _resolve_ends(changes["ends"])
        errors += end_errors
    else:
        ports = [e.port for e in cable.ends.select_related("port", "port__spark", "port__switch")]
    if ports:
        errors += cable_end_errors(cable_type, ports, name=str(changes.get("label", cable.label) or ""))
    errors += _occupied_errors(ports, cable)
    length = cable.length_m
    if "length_m" in changes:
        length, msg = _parse_length(changes["length_m"])
        if msg:
            errors.append(("length_m", msg))
    errors += _label_and_coding_errors(cable, changes)
    if errors:
        raise InventoryError(errors)
    with transaction.atomic():
        before = snapshot(cable)
        cable.type = cable_type
        cable.length_m = length
        cable.label = changes.get("label", cable.label)
        cable.coded_for = changes.get("coded_for", cable.coded_for)
        cable.save()
        if "ends" in changes:
            cable.ends.all().delete()
            try:
                with transaction.atomic():
                    CableEnd.objects.bulk_create(
                        CableEnd(cable=cable, position=i, port=p) for i, p in enumerate(ports) if p is not None
                    )
            except IntegrityError as exc:
                raise InventoryError("one of these ports was just taken by another cable", "ends") from exc
        change_record(actor=actor, action="update", obj=cable, before=before, after=snapshot(cable))
        if refresh:
            _after_change()
    return cable


def _cable_sparks(cable: Cable) -> list[int]:
    return [e.port.spark_id for e in cable.ends.select_related("port") if e.port.spark_id is not None]


def cables_in_use(cables: Iterable[Cable]) -> list[str]:
    """The bookings that have not ended and hold a Spark these cables plug into,
    in words (a delete page says their owners will be told)."""
    ids = sorted({pk for cable in cables for pk in _cable_sparks(cable)})
    return [sentence for holds in DELETE_HOLDS for sentence in holds(ids)] if ids else []


def announce_removed(actor: Actor, cables: list[Cable]) -> None:
    """Tell CABLES_REMOVED, once, that these cables are about to go (in the deleting transaction)."""
    removed = [(ids, cable_describe(c)) for c in cables if (ids := _cable_sparks(c))]
    if removed:
        for entry in CABLES_REMOVED:
            entry(actor, removed)


def cable_delete(*, actor: Actor, cable: Cable, refresh: bool = True, announce: bool = True) -> None:
    """Delete a cable; the owners of bookings holding its Sparks are told
    (``announce``: a device's delete tells them once for all its cables)."""
    with transaction.atomic():
        if announce:
            announce_removed(actor, [cable])
        change_record(actor=actor, action="delete", obj=cable, before=snapshot(cable), after=None)
        cable.delete()
        if refresh:
            _after_change()


def cable_describe(cable: Cable) -> str:
    ends = " – ".join(e.port.label for e in cable.ends.select_related("port__spark", "port__switch"))
    return f"{cable.key} ({cable.type.slug}: {ends})"


def get_or_404(model: type[Any], **lookup: Any) -> Any:
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        what = " ".join(f"{k}={val!r}" for k, val in lookup.items())
        raise NotFound(f"no {model._meta.verbose_name} with {what}")
    return obj
