"""Import and export of a whole lab in the lab document format.

Import is atomic (all or nothing) and idempotent by name: Sparks and switches
match by name, cables by label when they have one, else by their ends.
Objects the document does not name are left alone unless ``prune`` is set.
A dry run goes through the very same code in a transaction that is rolled
back, so a preview says exactly what applying would create, change and remove.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import transaction

from core.actor import Actor
from core.errors import Conflict

from . import labdoc, services
from .errors import InventoryError
from .models import Cable, CableEnd, Spark, Switch


@dataclass
class ImportReport:
    created: dict[str, int] = field(default_factory=lambda: {"spark": 0, "switch": 0, "cable": 0})
    updated: dict[str, int] = field(default_factory=lambda: {"spark": 0, "switch": 0, "cable": 0})
    deleted: dict[str, int] = field(default_factory=lambda: {"spark": 0, "switch": 0, "cable": 0})
    unchanged: int = 0
    dry_run: bool = False
    # What was (or, in a dry run, would be) touched: (action, kind, name, pk); pk is None once deleted.
    objects: list[tuple[str, str, str, int | None]] = field(default_factory=list)

    def note(self, action: str, kind: str, name: str, pk: int | None) -> None:
        getattr(self, action)[kind] += 1
        self.objects.append((action, kind, name, pk))

    @property
    def devices_removed(self) -> int:
        """Sparks and switches a prune removes: the number ``confirm_remove`` must repeat."""
        return self.deleted["spark"] + self.deleted["switch"]

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "updated": self.updated,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "dry_run": self.dry_run,
            # what applying with prune must send as confirm_remove (0: no confirmation needed)
            "confirm_remove": self.devices_removed,
            "objects": [{"action": a, "kind": k, "name": n} for a, k, n, _ in self.objects],
        }

    @property
    def changed(self) -> bool:
        return any(sum(d.values()) for d in (self.created, self.updated, self.deleted))


def _prefixed(exc: InventoryError, path: str, rename: dict[str, str] | None = None) -> list[tuple[str, str]]:
    rename = rename or {}
    out = []
    for p, m in exc.errors:
        p = rename.get(p, p)
        out.append((f"{path}.{p}" if p else path, m))
    return out


SPARK_RENAME = {"ssh_host": "ssh.host", "ssh_port": "ssh.port", "ssh_user": "ssh.user"}


def _upsert(
    report: ImportReport,
    kind: str,
    name: str,
    existing: Any,
    fields: dict[str, Any],
    *,
    create: Callable[..., Any],
    update: Callable[[Any, dict[str, Any]], Any],
) -> None:
    """Create a Spark or switch the document names, or change what differs.
    The services refuse a name another device already has."""
    with transaction.atomic():
        if existing is None:
            made = create(**fields)
            report.note("created", kind, name, getattr(made, "pk", None))
            return
        current = services.snapshot(existing)
        changes = {k: val for k, val in fields.items() if current.get(k) != val}
        if changes:
            update(existing, changes)
            report.note("updated", kind, name, existing.pk)
        else:
            report.unchanged += 1


def _cable_name(label: str, ends: Any) -> str:
    return label or " – ".join(ends)


class _RolledBack(Exception):
    """Raised at the end of a dry run to roll its transaction back."""


class PruneNotConfirmed(Conflict):
    """A prune would remove Sparks or switches and ``confirm_remove`` does not say that number (409)."""


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'es' if n != 1 and word.endswith('h') else 's' if n != 1 else ''}"


def _removal_refused(report: ImportReport, confirm_remove: int | None) -> PruneNotConfirmed:
    n = report.devices_removed
    names = [name for action, kind, name, _ in report.objects if action == "deleted" and kind != "cable"]
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    kinds = (("spark", "Spark"), ("switch", "switch"), ("cable", "cable"))
    what = ", ".join(_count(report.deleted[kind], word) for kind, word in kinds)
    said = "not sent" if confirm_remove is None else f"{confirm_remove}"
    return PruneNotConfirmed(
        f"prune would remove {what} ({shown}), and confirm_remove is {said}; nothing was changed. "
        f"Check the preview (dry_run=true), then apply with confirm_remove={n}",
        "confirm_remove",
    )


def lab_import(
    *, actor: Actor, data: Any, prune: bool = False, dry_run: bool = False, confirm_remove: int | None = None
) -> ImportReport:
    """Import parsed document data. Raises DocumentError or InventoryError
    with every problem found; on error nothing is changed. ``dry_run``:
    the same import, rolled back; the report says what it would do.

    A prune that would remove Sparks or switches is applied only when
    ``confirm_remove`` is that number (the preview's ``confirm_remove``), so
    a wrong flag or a document that reads as nearly empty cannot erase a lab;
    a prune that removes only cables needs no confirmation."""
    doc = labdoc.parse(data)
    report = ImportReport(dry_run=dry_run)
    try:
        with transaction.atomic():
            _apply(doc, report, actor=actor, prune=prune)
            if dry_run:
                raise _RolledBack
            if report.devices_removed and confirm_remove != report.devices_removed:
                raise _removal_refused(report, confirm_remove)
    except _RolledBack:
        pass
    return report


def _apply(doc: Any, report: ImportReport, *, actor: Actor, prune: bool) -> None:
    errors: list[tuple[str, str]] = []
    with transaction.atomic(), services.refresh_once():
        sparks = {s.name: s for s in Spark.objects.select_related("hardware")}
        switches = {s.name: s for s in Switch.objects.select_related("hardware")}
        cables = cables_with_ends()
        if prune:
            _prune(doc, report, actor=actor, sparks=sparks, switches=switches, cables=cables)
            cables = cables_with_ends()
        errors += _apply_sparks(doc, report, actor=actor, sparks=sparks)
        errors += _apply_switches(doc, report, actor=actor, switches=switches)
        # devices the document names but that could not be created: their own error says why,
        # so their cables report only what is wrong with the cables themselves
        made = set(Spark.objects.filter(name__in=[s.name for s in doc.sparks]).values_list("name", flat=True))
        made |= set(Switch.objects.filter(name__in=[w.name for w in doc.switches]).values_list("name", flat=True))
        failed = {s.name: "spark" for s in doc.sparks if s.name not in made}
        failed |= {w.name: "switch" for w in doc.switches if w.name not in made}
        errors += _apply_cables(doc, report, actor=actor, cables=cables, prune=prune, failed=failed)
        if errors:
            raise InventoryError(errors)


def _prune(
    doc: Any,
    report: ImportReport,
    *,
    actor: Actor,
    sparks: dict[str, Spark],
    switches: dict[str, Switch],
    cables: list[tuple[Cable, tuple[str, ...]]],
) -> None:
    """Remove what the document does not hold: cables first (removing a device removes its cables too)."""
    doc_names = {s.name for s in doc.sparks} | {s.name for s in doc.switches}
    wanted_ends = {(c.type, tuple(c.ends)) for c in doc.cables}
    wanted_labels = {c.label for c in doc.cables if c.label}
    doomed = [
        (cable, ends)
        for cable, ends in cables
        if (cable.type.slug, ends) not in wanted_ends and cable.label not in wanted_labels
    ]
    services.announce_removed(actor, [cable for cable, _ in doomed])  # the owners they touch are told once
    for cable, ends in doomed:
        services.cable_delete(actor=actor, cable=cable, announce=False)
        report.note("deleted", "cable", _cable_name(cable.label, ends), None)
    for name, spark in sparks.items():
        if name not in doc_names:
            for gone in services.spark_delete(actor=actor, spark=spark):
                report.note("deleted", "cable", str(gone), None)
            report.note("deleted", "spark", name, None)
    for name, switch in switches.items():
        if name not in doc_names:
            for gone in services.switch_delete(actor=actor, switch=switch):
                report.note("deleted", "cable", str(gone), None)
            report.note("deleted", "switch", name, None)


def _apply_sparks(doc: Any, report: ImportReport, *, actor: Actor, sparks: dict[str, Spark]) -> list[tuple[str, str]]:
    errors: list[tuple[str, str]] = []
    for i, s in enumerate(doc.sparks):
        fields: dict[str, Any] = {
            "hardware": s.hardware,
            "ssh_host": s.ssh_host,
            "ssh_port": s.ssh_port,
            "ssh_user": s.ssh_user,
            "serial": s.serial,
        }
        if s.vendor is not None:
            fields["vendor"] = s.vendor
        if s.status is not None:
            fields["status"] = s.status
        try:
            _upsert(
                report,
                "spark",
                s.name,
                sparks.get(s.name),
                fields,
                create=partial(services.spark_create, actor=actor, name=s.name),
                update=lambda device, changes: services.spark_update(actor=actor, spark=device, **changes),
            )
        except InventoryError as exc:
            errors += _prefixed(exc, f"sparks[{i}]", SPARK_RENAME)
    return errors


def _apply_switches(
    doc: Any, report: ImportReport, *, actor: Actor, switches: dict[str, Switch]
) -> list[tuple[str, str]]:
    errors: list[tuple[str, str]] = []
    for i, w in enumerate(doc.switches):
        try:
            _upsert(
                report,
                "switch",
                w.name,
                switches.get(w.name),
                {"hardware": w.hardware, "serial": w.serial},
                create=partial(services.switch_create, actor=actor, name=w.name),
                update=lambda device, changes: services.switch_update(actor=actor, switch=device, **changes),
            )
        except InventoryError as exc:
            errors += _prefixed(exc, f"switches[{i}]")
    return errors


def _apply_cables(
    doc: Any,
    report: ImportReport,
    *,
    actor: Actor,
    cables: list[tuple[Cable, tuple[str, ...]]],
    prune: bool,
    failed: dict[str, str],
) -> list[tuple[str, str]]:
    """Each cable of the document: matched by label, else by its ends; created, updated or unchanged.
    A cable with an end on a device of ``failed`` (name: kind) is only checked, end by end."""
    errors: list[tuple[str, str]] = []
    by_label = {c.label: c for c, _ in cables if c.label}
    by_ends = {ends: c for c, ends in cables}
    for i, c in enumerate(doc.cables):
        if any(str(end).rpartition(":")[0] in failed for end in c.ends):
            errors += _ends_checked(c.ends, f"cables[{i}].ends", failed)
            continue
        match = by_label.get(c.label) if c.label else None
        if match is None:
            match = by_ends.get(tuple(c.ends))
        try:
            with transaction.atomic():
                _apply_cable(c, match, report, actor=actor)
        except InventoryError as exc:
            msgs = _prefixed(exc, f"cables[{i}]")
            if not prune:
                msgs = [
                    (p, m + "; remove that cable first, or import with prune") if "already holds" in m else (p, m)
                    for p, m in msgs
                ]
            errors += msgs
    return errors


SPARK_PORTS = ("p0", "p1")  # the two QSFP ports of a Spark (ConnectX-7)


def _ends_checked(ends: Any, path: str, failed: dict[str, str]) -> list[tuple[str, str]]:
    """The mistakes of a cable's own ends when some of them are on devices that could
    not be created (named by the document: never "no such device"): a Spark port is
    p0 or p1; the other ends must be real ports."""
    errors: list[tuple[str, str]] = []
    for j, ref in enumerate(ends):
        device, _, port = str(ref).rpartition(":")
        if failed.get(device) == "spark":
            if port not in SPARK_PORTS:
                errors.append((f"{path}[{j}]", f"a Spark's ports are {' and '.join(SPARK_PORTS)}, not {port!r}"))
        elif device not in failed:
            try:
                services.port_resolve(ref, f"{path}[{j}]")
            except InventoryError as exc:
                errors += exc.errors
    return errors


def _apply_cable(c: Any, match: Cable | None, report: ImportReport, *, actor: Actor) -> None:
    if match is None:
        made = services.cable_create(
            actor=actor, type=c.type, ends=c.ends, label=c.label, length_m=c.length_m, coded_for=c.coded_for
        )
        report.note("created", "cable", _cable_name(c.label, c.ends), getattr(made, "pk", None))
        return
    current = services.snapshot(match)
    wanted = {
        "type": c.type,
        "ends": list(c.ends),
        "label": c.label,
        "coded_for": c.coded_for,
        "length_m": None if c.length_m in (None, "") else c.length_m,
    }
    changes = {key: val for key, val in wanted.items() if not _same(key, current.get(key), val)}
    if changes:
        services.cable_update(actor=actor, cable=match, **changes)
        report.note("updated", "cable", _cable_name(c.label, c.ends), match.pk)
    else:
        report.unchanged += 1


def _same(key: str, current: Any, wanted: Any) -> bool:
    """A stored value equals the document's (a length as a number: 1.0 is 1)."""
    if key == "length_m" and wanted is not None and current is not None:
        try:
            return float(str(current)) == float(str(wanted))
        except (TypeError, ValueError):
            pass
    return bool(current == wanted)


def cables_with_ends() -> list[tuple[Cable, tuple[str, ...]]]:
    """Every cable with its ends' port labels in order, in two queries whatever
    the lab's size. (A prefetch would send every id in one IN list, which
    SQLite refuses past about a thousand ports: "Expression tree is too large".)"""
    ends: dict[int, list[str]] = {}
    for end in CableEnd.objects.select_related("port__spark", "port__switch").order_by("cable_id", "position"):
        ends.setdefault(end.cable_id, []).append(end.port.label)
    return [(c, tuple(ends.get(c.pk, ()))) for c in Cable.objects.select_related("type").order_by("id")]


def lab_export() -> dict[str, Any]:
    """The whole inventory as a lab document (plain data, stable order)."""
    sparks = []
    for s in Spark.objects.select_related("hardware").order_by("name"):
        item: dict[str, Any] = {
            "name": s.name,
            "hardware": s.hardware.slug,
            "ssh": {"host": s.ssh_host, "port": s.ssh_port, "user": s.ssh_user},
        }
        if s.serial:
            item["serial"] = s.serial
        if s.vendor and s.vendor != s.hardware.vendor:
            item["vendor"] = s.vendor
        if s.status != Spark.Status.ACTIVE:
            item["status"] = s.status
        sparks.append(item)
    switches = []
    for w in Switch.objects.select_related("hardware").order_by("name"):
        sw: dict[str, Any] = {"name": w.name, "hardware": w.hardware.slug}
        if w.serial:
            sw["serial"] = w.serial
        switches.append(sw)
    cables = []
    for c, ends in cables_with_ends():
        item = {"type": c.type.slug, "ends": list(ends)}
        if c.coded_for != Cable.Coding.NVIDIA:
            item["coded_for"] = c.coded_for
        if c.label:
            item["label"] = c.label
        if c.length_m is not None:
            item["length_m"] = float(c.length_m)
        cables.append(item)
    cables.sort(key=lambda item: item["ends"])
    return {"sparks": sparks, "switches": switches, "cables": cables}
