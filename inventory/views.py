"""Inventory pages: list, detail, create, edit and delete for Sparks,
switches and cables; the catalogue; import and export; the change log.
Views parse input, call one service or selector, and render."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts.decorators import admin_required
from core import live
from core.actor import Actor
from core.errors import NotFound
from core.health import HEALTH_STATUSES
from core.htmx import htmx_asks, partial

from . import labdoc, labio, selectors, services
from .errors import Held, InventoryError
from .forms import CableForm, CatalogueForm, ImportForm, SparkForm, SwitchForm, apply_errors
from .labdoc import DocumentError
from .models import Cable, CatalogueEntry, Change, Spark, Switch

PAGE_SIZE = 50


def _page(request: HttpRequest, qs: Any) -> Any:
    return Paginator(qs, PAGE_SIZE).get_page(request.GET.get("page"))


def _list(request: HttpRequest, template: str, context: dict[str, Any]) -> HttpResponse:
    return render(request, partial(request, template, "rows", target="rows"), context)


def _get(model: Any, **lookup: Any) -> Any:
    """The object an edit page names, or NotFound (the 404 page)."""
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        raise NotFound(f"no such {model._meta.verbose_name}", next(iter(lookup), ""))
    return obj


# ---------------------------------------------------------------- Sparks


def _findings_beside(findings: Any, state: Any) -> list[Any]:
    """A Spark's group findings that are not one of its open alerts (those are shown already)."""
    alerts = set(state.alerts) if state is not None else set()
    return [f for f in findings if f.code not in alerts]


@require_GET
def spark_list(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()
    status = request.GET.get("status", "")
    health = request.GET.get("health", "")
    qs = selectors.sparks_list(q=q, status=status)
    every = live.spark_states()
    counts = {h: 0 for h in HEALTH_STATUSES}
    for state in every.values():
        counts[state.health] = counts.get(state.health, 0) + 1
    if health in HEALTH_STATUSES:
        qs = qs.filter(name__in=[n for n, st in every.items() if st.health == health])
    else:
        health = ""
    page = _page(request, qs)
    findings = live.spark_findings()
    rows = [(s, every.get(s.name), _findings_beside(findings.get(s.name, ()), every.get(s.name))) for s in page]
    return _list(
        request,
        "inventory/spark_list.html",
        {
            "page": page,
            "rows": rows,
            "q": q,
            "status": status,
            "statuses": Spark.Status.choices,
            "health": health,
            "healths": [(h, counts[h]) for h in HEALTH_STATUSES],
        },
    )


@require_GET
def spark_detail(request: HttpRequest, name: str) -> HttpResponse:
    spark = selectors.spark_get(name)
    # each cabled port's link as the one state reads it (a 200 Gb/s port may run at 100)
    links = {ref: link for link in live.fleet_state().links for ref in (link.a, link.b)}
    ports = [(p, selectors.port_end(p), links.get(f"{spark.name}:{p.name}")) for p in spark.ports.all()]
    history = Change.objects.filter(object_type="spark", object_id=spark.pk)[:10]
    return render(request, "inventory/spark_detail.html", {"spark": spark, "ports": ports, "history": history})


@dataclass(frozen=True)
class DeviceKind:
    """What differs between the Spark and the switch pages."""

    label: str  # "Spark", "switch"
    path: str  # "sparks", "switches"
    model: Any
    form: Any
    default_hardware: str
    create: Callable[..., Any]
    update: Callable[..., Any]  # update(actor=, device=, **changes)
    delete: Callable[..., list[str]]  # delete(actor=, device=) -> freed cables
    check: Callable[..., list[tuple[str, str]]]  # check(data, instance=) -> what the services would refuse
    created_note: str = ""


SPARK_KIND = DeviceKind(
    "Spark",
    "sparks",
    Spark,
    SparkForm,
    "dgx-spark-128",
    services.spark_create,
    lambda *, actor, device, **changes: services.spark_update(actor=actor, spark=device, **changes),
    lambda *, actor, device: services.spark_delete(actor=actor, spark=device),
    services.spark_check,
    " with ports p0 and p1",
)
SWITCH_KIND = DeviceKind(
    "switch",
    "switches",
    Switch,
    SwitchForm,
    "mikrotik-crs804-ddq",
    services.switch_create,
    lambda *, actor, device, **changes: services.switch_update(actor=actor, switch=device, **changes),
    lambda *, actor, device: services.switch_delete(actor=actor, switch=device),
    services.switch_check,
)


def _device_form_view(request: HttpRequest, kind: DeviceKind, device: Any) -> HttpResponse:
    if request.method == "POST":
        form = kind.form(request.POST)
        if form.is_valid():
            try:
                if device is None:
                    device = kind.create(actor=Actor.from_request(request, "page"), **form.cleaned_data)
                    messages.success(request, f"{kind.label.capitalize()} {device.name} registered{kind.created_note}.")
                else:
                    current = services.snapshot(device)
                    changes = {k: val for k, val in form.cleaned_data.items() if current.get(k) != val}
                    device = kind.update(actor=Actor.from_request(request, "page"), device=device, **changes)
                    messages.success(request, f"{kind.label.capitalize()} {device.name} saved.")
                return redirect(f"/{kind.path}/{device.name}/")
            except InventoryError as exc:
                apply_errors(form, exc)
        else:
            # The fields the form found fine still get the services' checks (a bad or taken name),
            # so every problem shows on the first submit.
            valid = {k: val for k, val in form.cleaned_data.items() if k not in form.errors}
            apply_errors(form, InventoryError(kind.check(valid, instance=device)))
    else:
        form = kind.form(initial=services.snapshot(device) if device else {"hardware": kind.default_hardware})
    return render(
        request,
        "inventory/form.html",
        {
            "form": form,
            "object": device,
            "kind": kind.label,
            "cancel": f"/{kind.path}/{device.name}/" if device else f"/{kind.path}/",
        },
        status=200 if not form.errors else 400,
    )


def _device_delete_view(request: HttpRequest, kind: DeviceKind, name: str) -> HttpResponse:
    device = _get(kind.model, name=name)
    refused = ""
    if request.method == "POST":
        try:
            freed = kind.delete(actor=Actor.from_request(request, "page"), device=device)
        except Held as exc:
            refused = exc.errors[0][1]
        else:
            note = f" and {len(freed)} cable(s): {', '.join(freed)}" if freed else ""
            messages.success(request, f"Deleted {kind.label} {name}{note}.")
            return redirect(f"/{kind.path}/")
    cables = services.cables_freed_by(device)
    freed = [services.cable_describe(c) for c in cables]
    context = {
        "object": device,
        "kind": kind.label,
        "freed": freed,
        "holds": services.device_holds(device),
        "in_use": services.cables_in_use(cables) if isinstance(device, Switch) else [],
        "refused": refused,
        "cancel": f"/{kind.path}/{name}/",
    }
    return render(request, "inventory/confirm_delete.html", context, status=409 if refused else 200)


@admin_required
@require_http_methods(["GET", "POST"])
def spark_create(request: HttpRequest) -> HttpResponse:
    return _device_form_view(request, SPARK_KIND, None)


@admin_required
@require_http_methods(["GET", "POST"])
def spark_edit(request: HttpRequest, name: str) -> HttpResponse:
    return _device_form_view(request, SPARK_KIND, _get(Spark, name=name))


@admin_required
@require_http_methods(["GET", "POST"])
def spark_delete(request: HttpRequest, name: str) -> HttpResponse:
    return _device_delete_view(request, SPARK_KIND, name)


# ---------------------------------------------------------------- switches


@require_GET
def switch_list(request: HttpRequest) -> HttpResponse:
    return _list(request, "inventory/switch_list.html", {"page": _page(request, selectors.switches_list())})


@require_GET
def switch_detail(request: HttpRequest, name: str) -> HttpResponse:
    switch = selectors.switch_get(name)
    ports = [(p, selectors.port_end(p)) for p in switch.ports.all()]
    history = Change.objects.filter(object_type="switch", object_id=switch.pk)[:10]
    return render(request, "inventory/switch_detail.html", {"switch": switch, "ports": ports, "history": history})


@admin_required
@require_http_methods(["GET", "POST"])
def switch_create(request: HttpRequest) -> HttpResponse:
    return _device_form_view(request, SWITCH_KIND, None)


@admin_required
@require_http_methods(["GET", "POST"])
def switch_edit(request: HttpRequest, name: str) -> HttpResponse:
    return _device_form_view(request, SWITCH_KIND, _get(Switch, name=name))


@admin_required
@require_http_methods(["GET", "POST"])
def switch_delete(request: HttpRequest, name: str) -> HttpResponse:
    return _device_delete_view(request, SWITCH_KIND, name)


# ---------------------------------------------------------------- cables


@require_GET
def cable_list(request: HttpRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()
    return _list(request, "inventory/cable_list.html", {"page": _page(request, selectors.cables_list(q=q)), "q": q})


@require_GET
def cable_detail(request: HttpRequest, cable_id: int) -> HttpResponse:
    cable = selectors.cable_get(cable_id)
    history = Change.objects.filter(object_type="cable", object_id=cable.pk)[:10]
    return render(request, "inventory/cable_detail.html", {"cable": cable, "history": history})


def _cable_type(slug: str | None) -> CatalogueEntry | None:
    return CatalogueEntry.objects.filter(kind="cable", slug=slug or "qsfp112-dac").first()


def _cable_form_view(request: HttpRequest, cable: Cable | None) -> HttpResponse:
    data = request.POST if request.method == "POST" else None
    if cable is not None and data is None:
        snap = services.snapshot(cable)
        initial = {**snap, **{f"end_{i}": e for i, e in enumerate(snap["ends"])}}
    else:
        initial = {"type": request.GET.get("type", "qsfp112-dac"), "coded_for": "nvidia"}
        # An htmx re-render keeps the ports already chosen (when they still fit).
        initial.update({k: request.GET[k] for k in ("end_0", "end_1", "end_2") if request.GET.get(k)})
    type_slug = (data.get("type") if data is not None else None) or request.GET.get("type") or initial.get("type")
    cable_type = _cable_type(type_slug)
    ports = selectors.free_ports(cable=cable)
    device = request.GET.get("spark") or request.GET.get("switch")
    if cable is None and device and "end_0" not in initial:
        # "Plug in a cable" on a Spark's or switch's page: its first free port is end A.
        own = [p.label for p in ports if p.label.startswith(f"{device}:")]
        if own:
            initial[
                "end_1" if cable_type is not None and cable_type.breakout and request.GET.get("spark") else "end_0"
            ] = own[0]
    form = CableForm(data, initial=initial, ports=ports, cable_type=cable_type)
    if htmx_asks(request) and request.method == "GET":
        return render(request, "inventory/cable_form.html#ends", {"form": form})
    if data is not None and form.is_valid():
        fields = {k: form.cleaned_data[k] for k in ("type", "label", "length_m", "coded_for")}
        try:
            if cable is None:
                cable = services.cable_create(actor=Actor.from_request(request, "page"), ends=form.ends(), **fields)
                messages.success(request, f"Cable {cable.key} plugged in: {services.cable_describe(cable)}.")
            else:
                current = services.snapshot(cable)
                changes = {
                    k: val
                    for k, val in {**fields, "ends": form.ends()}.items()
                    if str(current.get(k) or "") != str(val or "")
                }
                cable = services.cable_update(actor=Actor.from_request(request, "page"), cable=cable, **changes)
                messages.success(request, f"Cable {cable.key} saved.")
            return redirect("inventory:cable_detail", cable_id=cable.pk)
        except InventoryError as exc:
            apply_errors(form, exc)
    return render(
        request,
        "inventory/cable_form.html",
        {
            "form": form,
            "object": cable,
            "cancel": f"/cables/{cable.pk}/" if cable else "/cables/",
        },
        status=400 if form.errors else 200,
    )


@admin_required
@require_http_methods(["GET", "POST"])
def cable_create(request: HttpRequest) -> HttpResponse:
    return _cable_form_view(request, None)


@admin_required
@require_http_methods(["GET", "POST"])
def cable_edit(request: HttpRequest, cable_id: int) -> HttpResponse:
    return _cable_form_view(request, _get(Cable, pk=cable_id))


@admin_required
@require_http_methods(["GET", "POST"])
def cable_delete(request: HttpRequest, cable_id: int) -> HttpResponse:
    cable = _get(Cable, pk=cable_id)
    if request.method == "POST":
        desc = services.cable_describe(cable)
        services.cable_delete(actor=Actor.from_request(request, "page"), cable=cable)
        messages.success(request, f"Deleted cable {desc}.")
        return redirect("inventory:cable_list")
    return render(
        request,
        "inventory/confirm_delete.html",
        {
            "object": cable,
            "kind": "cable",
            "freed": [],
            "cancel": f"/cables/{cable.pk}/",
            "describe": services.cable_describe(cable),
            "in_use": services.cables_in_use([cable]),
        },
    )


# ---------------------------------------------------------------- catalogue


@require_GET
def catalogue_list(request: HttpRequest) -> HttpResponse:
    return render(request, "inventory/catalogue_list.html", {"entries": selectors.catalogue()})


@admin_required
@require_http_methods(["GET", "POST"])
def catalogue_create(request: HttpRequest) -> HttpResponse:
    form = CatalogueForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        fields = {k: val for k, val in form.cleaned_data.items() if val is not None}
        try:
            entry = services.catalogue_create(actor=Actor.from_request(request, "page"), **fields)
            messages.success(request, f"Catalogue entry {entry.slug} added.")
            return redirect("inventory:catalogue_list")
        except InventoryError as exc:
            apply_errors(form, exc)
    return render(
        request,
        "inventory/form.html",
        {"form": form, "object": None, "kind": "catalogue entry", "cancel": "/catalogue/"},
        status=400 if form.errors else 200,
    )


# ---------------------------------------------------------------- import / export


IMPORT_LINKS = {"spark": "/sparks/{name}/", "switch": "/switches/{name}/", "cable": "/cables/{pk}/"}


def _import_rows(report: labio.ImportReport) -> dict[str, list[dict[str, str]]]:
    """What an import touched, by action, each with a link while the object exists."""
    rows: dict[str, list[dict[str, str]]] = {"created": [], "updated": [], "deleted": []}
    for action, kind, name, pk in report.objects:
        gone = pk is None or report.dry_run and action == "created"  # removed, or only in the preview
        link = "" if gone else IMPORT_LINKS[kind].format(name=name, pk=pk)
        rows[action].append({"kind": kind, "name": name, "link": link})
    return rows


@admin_required
@require_http_methods(["GET", "POST"])
def lab_import(request: HttpRequest) -> HttpResponse:
    """Paste or upload a lab document; Preview runs the import as a dry run (the
    same service, rolled back) and lists what it would create, change and
    remove; Apply imports it, asking first when prune would remove anything."""
    form = ImportForm(request.POST or None, request.FILES or None)
    ctx: dict[str, Any] = {
        "form": form,
        "report": None,
        "rows": None,
        "errors": [],
        "applied": False,
        "text": request.POST.get("text", ""),
    }
    status = 200
    if request.method == "POST" and form.is_valid():
        limit = settings.FLEET_IMPORT_MAX_BYTES
        upload = form.cleaned_data["document"]
        prune = form.cleaned_data["prune"]
        actor = Actor.from_request(request, "import")
        try:
            if upload is not None:
                if upload.size > limit:
                    raise DocumentError([("", f"the document is {upload.size:,} bytes; the limit is {limit:,} bytes")])
                raw = upload.read(limit + 1)
                ctype = "application/json" if upload.name.lower().endswith(".json") else "application/yaml"
                # the file's text goes into the paste box, so Apply sends what was previewed
                ctx["text"] = raw.decode("utf-8", errors="replace")
            else:
                raw = form.cleaned_data["text"].encode()
                ctype = "application/json" if raw.lstrip()[:1] in (b"{", b"[") else "application/yaml"
            try:
                data = labdoc.load_text(raw, ctype, max_bytes=limit)
            except DocumentError:
                if upload is not None or ctype != "application/json":
                    raise
                # pasted text that opens with { or [ may be YAML's flow style ({sparks: []}),
                # which the API takes as YAML: read it so before saying it is no JSON
                try:
                    data = labdoc.load_text(raw, "application/yaml", max_bytes=limit)
                except DocumentError:
                    data = labdoc.load_text(raw, ctype, max_bytes=limit)  # says what JSON found wrong
            report = labio.lab_import(actor=actor, data=data, prune=prune, dry_run=True)
            if request.POST.get("action") == "apply":
                removes = sum(report.deleted.values())
                if prune and removes and not form.cleaned_data["confirm_prune"]:
                    form.add_error(
                        "confirm_prune",
                        f"Prune would remove {removes} object{'s' if removes != 1 else ''} "
                        "(listed under Removed): tick the box to confirm, or untick prune.",
                    )
                    status = 400
                else:
                    try:
                        report = labio.lab_import(
                            actor=actor, data=data, prune=prune, confirm_remove=form.cleaned_data["confirm_remove"]
                        )
                        ctx["applied"] = True
                    except labio.PruneNotConfirmed:
                        form.add_error(
                            "confirm_prune",
                            f"This document now removes {report.devices_removed} Sparks and switches, not the "
                            f"{form.cleaned_data['confirm_remove'] or 0} of the preview you confirmed: check what it "
                            "removes under Removed and confirm again.",
                        )
                        status = 400
            ctx["report"], ctx["rows"] = report, _import_rows(report)
        except (DocumentError, InventoryError) as exc:
            ctx["errors"] = exc.errors
            status = 400
    elif request.method == "POST":
        status = 400
        # a hidden field's error has no place on the page: say it with the document's errors
        ctx["errors"] = [(f.name, " ".join(str(e) for e in f.errors)) for f in form.hidden_fields() if f.errors]
    return render(request, "inventory/import.html", ctx, status=status)


@require_GET
def lab_export(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(yaml.safe_dump(labio.lab_export(), sort_keys=False), content_type="application/yaml")
    response["Content-Disposition"] = 'attachment; filename="lab.yaml"'
    return response


@require_GET
def change_list(request: HttpRequest) -> HttpResponse:
    object_type = request.GET.get("object_type", "")
    object_name = request.GET.get("object_name", "").strip()
    user = request.GET.get("user", "").strip()
    page = _page(request, selectors.changes(object_type=object_type, object_name=object_name, username=user))
    users = Change.objects.exclude(username="").values_list("username", flat=True).distinct().order_by("username")
    return _list(
        request,
        "inventory/change_list.html",
        {
            "page": page,
            "object_type": object_type,
            "object_name": object_name,
            "user_filter": user,
            "users": users,
            "types": ["spark", "switch", "cable", "catalogue", "group", "model"],
        },
    )
