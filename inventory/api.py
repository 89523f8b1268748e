"""Inventory API: Sparks, switches, cables, the catalogue, import/export and
the change log. Thin: parse, call one service or selector, return."""

from __future__ import annotations

# The edge types (core.validation) are built by functions, which mypy cannot read as types.
# mypy: disable-error-code="valid-type"
import json
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

import yaml
from django.conf import settings
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from ninja import Field, FilterLookup, FilterSchema, Query, Router, Schema, Status
from pydantic import StrictBool

from core import live
from core.actor import Actor
from core.api import ADMIN
from core.health import HEALTH_STATUSES, HealthValue
from core.pages import Rows, paginated
from core.validation import PATCH_ONLY_KNOWN, CleanStr, Int, TcpPort, merge_patch, whole_number

from . import labdoc, labio, selectors, services
from .errors import InventoryError
from .models import Cable, CatalogueEntry, Change, Spark, Switch

router = Router(tags=["inventory"])

# Field types with the lengths of their columns (inventory/models.py) and plausible ranges.
Name = CleanStr(63, min_length=1)
Slug = CleanStr(64, min_length=1)
Serial = CleanStr(64)
Vendor = CleanStr(60)
Label = CleanStr(64)
Host = CleanStr(253, min_length=1)
SshUser = CleanStr(32, min_length=1)
PortName = CleanStr(80, min_length=1)  # "<device>:<port>"
MemoryGb = Int(1, 100_000)
Cage = Literal["QSFP-DD", "QSFP56-DD", "QSFP112", "QSFP56", "QSFP28", "QSFP+", "SFP56", "SFP28", "SFP+", "RJ45"]
CageName = Cage | Literal[""]
# a group of like switch ports: [count, speed_gbps, cage, breakout]
PortGroup = tuple[Annotated[int, Field(ge=1, le=256)], Annotated[int, Field(ge=1, le=1600)], Cage, StrictBool]
PortCount = Int(1, 1024)
SpeedGbps = Int(1, 10_000)
LengthM = Annotated[Decimal, Field(ge=0, le=Decimal("999.99"), max_digits=5, decimal_places=2)]
# what the price column holds (services._price says the same in words)
Price = Annotated[Decimal, Field(ge=0, lt=Decimal("1e10"), max_digits=12, decimal_places=2, allow_inf_nan=False)]
Search = CleanStr(63)
CableId = Int(1, 2**63 - 1)


def actor(request: HttpRequest) -> Actor:
    return Actor.from_request(request, "api")


# ------------------------------------------------------------------ schemas


class SshIn(Schema):
    host: Host
    port: TcpPort = 22
    user: SshUser = "fleet"


class TwinOut(Schema):
    name: str
    rdma: str


class PortOut(Schema):
    name: str
    speed_gbps: int
    breakout: bool
    cage: str = Field("", description="the cage's form factor (QSFP112, QSFP56-DD, ...); empty: unknown")
    cable: int | None = None
    peer: list[str] = []
    twins: list[TwinOut] = []


class SparkHealthOut(Schema):
    status: HealthValue = Field(
        description="new: never polled, or reached with an SSH host key awaiting acceptance (not down); down: its "
        "last poll did not reach it (never reached: nothing answers on its address and port) or it presented "
        "another host key; unknown: no sample for 3 poll intervals; "
        "degraded: a warning or critical alert; ok"
    )
    alerts: list[str] = Field(description="codes of its open alerts")
    last_seen: datetime | None = Field(description="when its last sample was taken")
    why: str = Field(description="the reason in words; for new, the action to take")


class SparkOut(Schema):
    id: int
    name: str
    hardware: str
    memory_gb: int
    vendor: str
    serial: str
    ssh: dict[str, Any]
    status: str = Field(description="in the inventory: active, maintenance or retired (see health for telemetry)")
    ports: list[PortOut]
    health: SparkHealthOut | None
    usable_gb: float | None = Field(
        description="what a model can take on it now, GB (10^9 bytes): measured "
        "(MemAvailable of a fresh sample) or expected (capacity minus the "
        "OS reserve), 0 when it is down (unavailable); see usable_source"
    )
    usable_source: Literal["measured", "expected", "unavailable"] | None
    software: dict[str, Any] | None = Field(
        None,
        description="what it runs, from its last software reading (None: never read): dgx_os, kernel, driver, "
        "cuda, connectx_firmware and nccl, each {value, read_at, since}; images {docker, read_at, value: "
        "[{ref, digest, image_id, nccl, launch, since}], launch}; vllm {value: present, absent or unread, path, "
        "version (its package's, when told), python and ray (the Python it is installed for, Ray's version beside it), "
        "read_at}: whether the fleet user's SSH shell finds a vllm (the "
        "benchmark client's first choice); "
        "notes: what could not be read and why",
    )


class SparkIn(Schema):
    name: Name
    hardware: Slug
    ssh: SshIn
    serial: Serial = ""
    vendor: Vendor = ""
    status: Literal["active", "maintenance", "retired"] = "active"


class SshPatch(Schema):
    model_config = PATCH_ONLY_KNOWN
    host: Host | None = None
    port: TcpPort | None = None
    user: SshUser | None = None


class SparkPatch(Schema):
    model_config = PATCH_ONLY_KNOWN
    name: Name | None = None
    hardware: Slug | None = None
    ssh: SshPatch | None = None
    serial: Serial | None = None
    vendor: Vendor | None = None
    status: Literal["active", "maintenance", "retired"] | None = None


class SwitchOut(Schema):
    id: int
    name: str
    hardware: str
    serial: str
    ports: list[PortOut]


class SwitchIn(Schema):
    name: Name
    hardware: Slug
    serial: Serial = ""


class SwitchPatch(Schema):
    model_config = PATCH_ONLY_KNOWN
    name: Name | None = None
    hardware: Slug | None = None
    serial: Serial | None = None


class CableOut(Schema):
    id: int
    type: str
    label: str
    length_m: float | None
    coded_for: str
    ends: list[str]


class CableIn(Schema):
    type: Slug
    ends: list[PortName] = Field(..., max_length=9)
    label: Label = ""
    length_m: LengthM | None = None
    coded_for: Literal["nvidia", "generic"] = "nvidia"


class CablePatch(Schema):
    model_config = PATCH_ONLY_KNOWN
    type: Slug | None = None
    ends: list[PortName] | None = Field(None, max_length=9)
    label: Label | None = None
    length_m: LengthM | None = None
    coded_for: Literal["nvidia", "generic"] | None = None


class CatalogueOut(Schema):
    kind: str
    slug: str
    name: str
    vendor: str
    memory_gb: int | None
    has_connectx: bool
    port_count: int | None
    speed_gbps: int | None
    breakout: bool
    cage: str = Field(description="switches: their ports' cage; cables: the plug of the first end (a breakout's trunk)")
    port_groups: list[list[Any]] = Field(
        description="switches whose ports differ: [count, speed_gbps, cage, breakout] group by group in port order"
    )
    price: Decimal | None = Field(None, description="what one costs, as a lab admin entered it (designs total it)")
    currency: str = Field("", description="the price's ISO 4217 code, e.g. EUR")


class CatalogueIn(Schema):
    model_config = PATCH_ONLY_KNOWN  # a misspelt field (or one the API once dropped, as price) is named
    kind: Literal["spark", "switch", "cable"]
    slug: Slug
    name: CleanStr(120, min_length=1)
    vendor: Vendor = ""
    memory_gb: MemoryGb | None = None
    has_connectx: StrictBool = True  # true or false, not 0 or "no"
    port_count: PortCount | None = None
    speed_gbps: SpeedGbps | None = None
    breakout: StrictBool = False
    cage: CageName = ""
    port_groups: list[PortGroup] = []
    price: Price | None = None
    currency: CleanStr(3) = ""


class ChangeOut(Schema):
    id: int
    at: datetime
    user: str = Field(..., alias="username")
    source: str
    action: str
    object_type: str
    object_name: str
    diff: dict[str, Any]


# ------------------------------------------------------------------ helpers


def _port_out(port: Any) -> dict[str, Any]:
    end = selectors.port_end(port)
    peers: list[str] = []
    cable_id = None
    if end is not None:
        cable_id = end.cable_id
        peers = [e.port.label for e in end.cable.ends.all() if e.port_id != port.pk]
    return {
        "name": port.name,
        "speed_gbps": port.speed_gbps,
        "breakout": port.breakout,
        "cage": port.cage,
        "cable": cable_id,
        "peer": peers,
        "twins": [{"name": t.name, "rdma": t.rdma} for t in port.twins.all()],
    }


def spark_out(
    s: Spark, states: Mapping[str, Any] | None = None, software: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A Spark as the API shows it, with its one state and its software (read
    for it alone unless ``states``/``software`` have them)."""
    state = (states if states is not None else live.spark_states([s.name])).get(s.name)
    runs = (software if software is not None else live.spark_software([s.name])).get(s.name)
    return {
        "id": s.pk,
        "name": s.name,
        "hardware": s.hardware.slug,
        "memory_gb": s.memory_gb,
        "vendor": s.vendor,
        "serial": s.serial,
        "status": s.status,
        "ssh": {"host": s.ssh_host, "port": s.ssh_port, "user": s.ssh_user},
        "ports": [_port_out(p) for p in s.ports.all()],
        "health": None
        if state is None
        else {"status": state.health, "alerts": list(state.alerts), "last_seen": state.last_seen, "why": state.why},
        "usable_gb": None if state is None else state.usable_gb,
        "usable_source": None if state is None else state.usable_source,
        "software": runs,
    }


def switch_out(w: Switch) -> dict[str, Any]:
    return {
        "id": w.pk,
        "name": w.name,
        "hardware": w.hardware.slug,
        "serial": w.serial,
        "ports": [_port_out(p) for p in w.ports.all()],
    }


def cable_out(c: Cable) -> dict[str, Any]:
    return {
        "id": c.pk,
        "type": c.type.slug,
        "label": c.label,
        "coded_for": c.coded_for,
        "length_m": float(c.length_m) if c.length_m is not None else None,
        "ends": [e.port.label for e in c.ends.all()],
    }


# ------------------------------------------------------------------ Sparks


class SparkFilter(FilterSchema):
    q: Annotated[Search, FilterLookup("name__icontains")] = ""
    health: CleanStr(20) = ""

    def filter_health(self, value: str) -> Q:
        """Health is the one state's (computed, not stored): the Sparks in that state, by name."""
        if not value:
            return Q()
        if value not in HEALTH_STATUSES:
            raise InventoryError(f"{value!r} is not a health status; one of {', '.join(HEALTH_STATUSES)}", "health")
        return Q(name__in=[n for n, st in live.spark_states().items() if st.health == value])


def _sparks_out(page: list[Spark]) -> list[dict[str, Any]]:
    names = [s.name for s in page]  # the page's Sparks only
    states, software = live.spark_states(names), live.spark_software(names)
    return [spark_out(s, states, software) for s in page]


@router.get("/sparks", response=list[SparkOut], summary="List Sparks")
@paginated()
def sparks_list(request: HttpRequest, filters: Query[SparkFilter]) -> Rows:
    """Sparks with their health and usable memory; ``health`` keeps one status."""
    return Rows(filters.filter(selectors.sparks_for_api()), _sparks_out)


@router.get("/sparks/{name}", response=SparkOut, summary="Read one Spark")
def sparks_read(request: HttpRequest, name: Name) -> dict[str, Any]:
    return spark_out(selectors.spark_get(name))


@router.post("/sparks", response={201: SparkOut}, summary="Register a Spark", auth=ADMIN)
def sparks_create(request: HttpRequest, payload: SparkIn) -> Status[dict[str, Any]]:
    spark = services.spark_create(
        actor=actor(request),
        name=payload.name,
        hardware=payload.hardware,
        ssh_host=payload.ssh.host,
        ssh_port=payload.ssh.port,
        ssh_user=payload.ssh.user,
        serial=payload.serial,
        vendor=payload.vendor,
        status=payload.status,
    )
    return Status(201, spark_out(selectors.spark_get(spark.name)))


@router.patch("/sparks/{name}", response=SparkOut, summary="Change a Spark", auth=ADMIN)
def sparks_update(request: HttpRequest, name: Name, payload: SparkPatch) -> dict[str, Any]:
    spark = services.get_or_404(Spark, name=name)
    changes = merge_patch(payload.dict(exclude_unset=True), cleared=("serial", "vendor"))
    ssh = merge_patch(changes.pop("ssh", None) or {}, where="ssh.")
    for key, value in ssh.items():
        if key not in ("host", "port", "user"):
            raise InventoryError("unknown key; allowed: host, port, user", f"ssh.{key}")
        changes[f"ssh_{key}"] = value
    spark = services.spark_update(actor=actor(request), spark=spark, **changes)
    return spark_out(selectors.spark_get(spark.name))


@router.delete("/sparks/{name}", summary="Delete a Spark and the cables plugged into it", auth=ADMIN)
def sparks_delete(request: HttpRequest, name: Name) -> dict[str, Any]:
    freed = services.spark_delete(actor=actor(request), spark=services.get_or_404(Spark, name=name))
    return {"deleted": name, "cables_removed": freed}


# ------------------------------------------------------------------ switches


@router.get("/switches", response=list[SwitchOut], summary="List switches")
@paginated()
def switches_list(request: HttpRequest) -> Rows:
    return Rows.each(selectors.switches_for_api(), switch_out)


@router.get("/switches/{name}", response=SwitchOut, summary="Read one switch")
def switches_read(request: HttpRequest, name: Name) -> dict[str, Any]:
    return switch_out(selectors.switch_get(name))


@router.post("/switches", response={201: SwitchOut}, summary="Register a switch", auth=ADMIN)
def switches_create(request: HttpRequest, payload: SwitchIn) -> Status[dict[str, Any]]:
    w = services.switch_create(
        actor=actor(request), name=payload.name, hardware=payload.hardware, serial=payload.serial
    )
    return Status(201, switch_out(selectors.switch_get(w.name)))


@router.patch("/switches/{name}", response=SwitchOut, summary="Change a switch", auth=ADMIN)
def switches_update(request: HttpRequest, name: Name, payload: SwitchPatch) -> dict[str, Any]:
    w = services.switch_update(
        actor=actor(request),
        switch=services.get_or_404(Switch, name=name),
        **merge_patch(payload.dict(exclude_unset=True), cleared=("serial",)),
    )
    return switch_out(selectors.switch_get(w.name))


@router.delete("/switches/{name}", summary="Delete a switch and the cables plugged into it", auth=ADMIN)
def switches_delete(request: HttpRequest, name: Name) -> dict[str, Any]:
    freed = services.switch_delete(actor=actor(request), switch=services.get_or_404(Switch, name=name))
    return {"deleted": name, "cables_removed": freed}


# ------------------------------------------------------------------ cables


@router.get("/cables", response=list[CableOut], summary="List cables")
@paginated()
def cables_list(request: HttpRequest) -> Rows:
    return Rows.each(selectors.cables_for_api(), cable_out)


@router.get("/cables/{cable_id}", response=CableOut, summary="Read one cable")
def cables_read(request: HttpRequest, cable_id: CableId) -> dict[str, Any]:
    return cable_out(selectors.cable_get(cable_id))


@router.post("/cables", response={201: CableOut}, summary="Register a cable and plug in its ends", auth=ADMIN)
def cables_create(request: HttpRequest, payload: CableIn) -> Status[dict[str, Any]]:
    c = services.cable_create(
        actor=actor(request),
        type=payload.type,
        ends=payload.ends,
        label=payload.label,
        length_m=payload.length_m,
        coded_for=payload.coded_for,
    )
    return Status(201, cable_out(selectors.cable_get(c.pk)))


@router.patch("/cables/{cable_id}", response=CableOut, summary="Change or re-plug a cable", auth=ADMIN)
def cables_update(request: HttpRequest, cable_id: CableId, payload: CablePatch) -> dict[str, Any]:
    changes = payload.dict(exclude_unset=True)
    length = {"length_m": changes.pop("length_m")} if "length_m" in changes else {}  # null: length unknown
    c = services.cable_update(
        actor=actor(request),
        cable=services.get_or_404(Cable, pk=cable_id),
        **merge_patch(changes, cleared=("label",)),
        **length,
    )
    return cable_out(selectors.cable_get(c.pk))


@router.delete("/cables/{cable_id}", summary="Delete a cable", auth=ADMIN)
def cables_delete(request: HttpRequest, cable_id: CableId) -> dict[str, Any]:
    services.cable_delete(actor=actor(request), cable=services.get_or_404(Cable, pk=cable_id))
    return {"deleted": cable_id}


# ------------------------------------------------------------------ catalogue


@router.get("/catalogue", response=list[CatalogueOut], summary="List the hardware catalogue")
def catalogue_list(request: HttpRequest, kind: Literal["", "spark", "switch", "cable"] = "") -> Any:
    qs = CatalogueEntry.objects.all()
    return qs.filter(kind=kind) if kind else qs


@router.get("/catalogue/{slug}", response=CatalogueOut, summary="Read one catalogue entry")
def catalogue_read(request: HttpRequest, slug: Slug) -> Any:
    return services.get_or_404(CatalogueEntry, slug=slug)


@router.post("/catalogue", response={201: CatalogueOut}, summary="Add a catalogue entry", auth=ADMIN)
def catalogue_create(request: HttpRequest, payload: CatalogueIn) -> Status[CatalogueEntry]:
    entry = services.catalogue_create(
        actor=actor(request),
        kind=payload.kind,
        slug=payload.slug,
        name=payload.name,
        vendor=payload.vendor,
        memory_gb=payload.memory_gb,
        has_connectx=payload.has_connectx,
        port_count=payload.port_count,
        speed_gbps=payload.speed_gbps,
        breakout=payload.breakout,
        cage=payload.cage,
        port_groups=[list(g) for g in payload.port_groups],
        price=payload.price,
        currency=payload.currency,
    )
    return Status(201, entry)


class CataloguePatch(Schema):
    model_config = PATCH_ONLY_KNOWN
    name: CleanStr(120, min_length=1) | None = None
    vendor: Vendor | None = None
    memory_gb: MemoryGb | None = None
    has_connectx: StrictBool | None = None
    port_count: PortCount | None = None
    speed_gbps: SpeedGbps | None = None
    breakout: StrictBool | None = None
    cage: CageName | None = None
    port_groups: list[PortGroup] | None = None
    price: Price | None = None  # null: no price (and no currency)
    currency: CleanStr(3) | None = None


@router.patch("/catalogue/{slug}", response=CatalogueOut, summary="Change a catalogue entry", auth=ADMIN)
def catalogue_update(request: HttpRequest, slug: Slug, payload: CataloguePatch) -> Any:
    entry = services.get_or_404(CatalogueEntry, slug=slug)
    changes = payload.dict(exclude_unset=True)
    for key in ("cage", "port_groups"):
        if key in changes and changes[key] is None:
            del changes[key]  # null: unchanged (neither has a "none")
    if "vendor" in changes and changes["vendor"] is None:
        changes["vendor"] = ""  # JSON merge-patch: null empties it (it leaked the database's NOT NULL)
    if "port_groups" in changes:
        changes["port_groups"] = [list(g) for g in changes["port_groups"]]
    return services.catalogue_update(actor=actor(request), entry=entry, **changes)


@router.delete("/catalogue/{slug}", summary="Delete an unused catalogue entry", auth=ADMIN)
def catalogue_delete(request: HttpRequest, slug: Slug) -> dict[str, Any]:
    services.catalogue_delete(actor=actor(request), entry=services.get_or_404(CatalogueEntry, slug=slug))
    return {"deleted": slug}


# ------------------------------------------------------------------ import / export


@router.post(
    "/import",
    summary="Import a whole lab document (YAML or JSON body); ?dry_run=true only says what "
    "it would create, change and remove; a prune that removes Sparks or switches needs "
    "confirm_remove=N, N the preview's confirm_remove",
    auth=ADMIN,
)
def lab_import(
    request: HttpRequest,
    prune: bool = False,
    dry_run: bool = False,
    confirm_remove: Annotated[int, Field(ge=0, le=1_000_000)] | None = None,
) -> dict[str, Any]:
    limit = settings.FLEET_IMPORT_MAX_BYTES
    declared = whole_number(request.META.get("CONTENT_LENGTH") or "0") or 0  # checked by core.middleware
    if declared > limit:
        raise labdoc.DocumentError([("", f"the document is {declared:,} bytes; the limit is {limit:,} bytes")])
    content_type = request.META.get("CONTENT_TYPE", "application/yaml")
    data = labdoc.load_text(request.body, content_type, max_bytes=limit)
    report = labio.lab_import(
        actor=actor(request), data=data, prune=prune, dry_run=dry_run, confirm_remove=confirm_remove
    )
    said = ("would change the inventory" if dry_run else "imported") if report.changed else "nothing to change"
    return {"message": said, **report.as_dict()}


@router.get("/export", summary="Export the whole lab as a document", response={200: None})
def lab_export(request: HttpRequest, format: Literal["yaml", "json"] = "yaml") -> HttpResponse:
    data = labio.lab_export()
    if format == "json" or "application/json" in request.headers.get("Accept", ""):
        return HttpResponse(json.dumps(data, indent=1), content_type="application/json")
    return HttpResponse(yaml.safe_dump(data, sort_keys=False), content_type="application/yaml")


@router.get("/changes", response=list[ChangeOut], summary="The change log, newest first")
@paginated()
def changes_list(
    request: HttpRequest,
    object_type: CleanStr(20) = "",
    object_name: CleanStr(120) = "",
    user: CleanStr(150) = "",
) -> QuerySet[Change]:
    return selectors.changes(object_type=object_type, object_name=object_name, username=user)
