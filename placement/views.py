"""Placement pages: the plan page (live with htmx), the model catalogue with
its add and config.json forms. Benchmark pages are in ``bench_views``.
Views parse input, call one service or selector, and render."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import admin_required, booker_required
from core.actor import Actor
from core.errors import FleetError
from core.forms import cleaned, upload_text
from core.htmx import htmx_asks
from core.roles import can_book
from core.validation import whole_number
from inventory.forms import apply_errors
from telemetry.software_store import launch_readiness

from . import plan_request, selectors, services
from .charts import PlanBar, memory_bar, plan_bars
from .errors import PlacementError
from .forms import ConfigForm, ModelForm, PlanForm, VariantForm
from .lab_calibration import lab_calibration, lab_runs
from .model_catalogue import ModelSpec, choose_variant
from .perfmodel import DEFAULT_READING, RANGE_WORDS
from .perfmodel.calibration import refit_words
from .perfmodel.report import accuracy_of, fresh_sets
from .plan_types import Plan
from .planner import plan_placement
from .quants import engine_reference

DEFAULT_MODEL = "qwen3.8-27b"
MEMORY_PARTS = (
    ("weights", "seg-weights"),
    ("KV cache", "seg-kv"),
    ("runtime", "seg-overhead"),
    ("engine reserve", "seg-reserve"),
)


def _defaults(form: PlanForm) -> dict[str, Any]:
    models = [slug for slug, _ in form.fields["model"].choices]  # type: ignore[attr-defined]
    groups = [gid for gid, _ in form.fields["group"].choices]  # type: ignore[attr-defined]
    return {
        "model": DEFAULT_MODEL if DEFAULT_MODEL in models else (models[0] if models else ""),
        "group": groups[0] if groups else "",
        "context_tokens": 8192,
        "concurrency": 1,
        "goal": "latency",
        "engine": "vllm",
        "variant": "",
        "mode": "graphs",
        "collective_backend": "auto",
    }


def _plan_view(plan: plan_request.PlannedPlan, nodes: dict[str, float]) -> dict[str, Any]:
    """What one plan card shows: memory bars per distinct node size, launch texts."""
    m = plan.plan.memory_per_node_gb
    sizes: dict[float, list[str]] = {}
    for name in plan.plan.nodes:
        sizes.setdefault(nodes[name], []).append(name)
    bars = []
    for usable, names in sorted(sizes.items()):
        free = usable - m.needed
        segments = [
            (label, value, css)
            for (label, css), value in zip(MEMORY_PARTS, (m.weights, m.kv_cache, m.overhead, m.reserve), strict=True)
        ]
        bars.append(
            {
                "usable": usable,
                "names": names,
                "free": free,
                "short": -free,
                "svg": mark_safe(memory_bar(segments, usable)),  # noqa: S308 - built from numbers only
            }
        )
    return {"item": plan, "plan": plan.plan, "memory": m, "bars": bars}


def _planning_context(request: HttpRequest, launch_for: Collection[int] = (), source: Any = None) -> dict[str, Any]:
    """Plan from the inputs in ``source`` (default: the query string)."""
    source = request.GET if source is None else source
    blank = PlanForm()
    values = _defaults(blank)
    data = None
    if source:
        # Inputs left out (a link with ?group=7 only) take the defaults.
        data = source.copy()
        for key, value in values.items():
            data.setdefault(key, str(value))
    form = PlanForm(data, choices_from=blank)
    # the image the Serve button pulls (the drift note says whether serving may go ahead over drift)
    context: dict[str, Any] = {"form": form, "errors": [], "planning": None, "serve_image": selectors.vllm_image()}
    if data is not None:
        if not form.is_valid():
            context["errors"] = [(f, " ".join(str(m) for m in e)) for f, e in form.errors.items()]
            return context
        values.update(form.cleaned_data)
    else:
        form = PlanForm(initial=values, choices_from=blank)
        context["form"] = form
    if not values["group"] or not values["model"]:
        context["errors"] = [("group", "no live node group yet: cable some Sparks first")]
        return context
    offered = _variant_choices(context["form"], values["model"])
    if values.get("variant") and offered is not None and values["variant"] not in offered:
        # the model changed under a variant of the previous one: the list follows the model
        values["variant"] = ""
        if data is not None:
            data["variant"] = ""
    try:
        model = selectors.model_get(values["model"])
        choice = choose_variant(model.spec(), values["engine"], values.get("variant") or None)
        if choice.error:
            raise PlacementError(choice.error, "variant")
        spec = choice.spec
        inputs = plan_request.plan_input(
            context_tokens=values["context_tokens"],
            concurrency=values["concurrency"],
            goal=values["goal"],
            engine=values["engine"],
            model=spec,
            mode=values.get("mode") or "graphs",
            backend=values.get("collective_backend") or "auto",
        )
        planned = selectors.groupspec_for(selectors.live_group_or_error(values["group"]))
        runs = context["lab_runs"] = lab_runs()
        calibration = lab_calibration(runs)
        result = plan_request.plan_group(
            group=planned, model=spec, inputs=inputs, launch_for=launch_for, constants=calibration.constants, lab=runs
        )
    except PlacementError as exc:
        context["errors"] = exc.errors
        return context
    if choice.note:
        result.result.notes.insert(0, choice.note)
    usable = {n.name: n.usable_gb for n in planned.spec.nodes}
    alt = result.alternative
    context.update(
        alternative=alt,
        alternative_plan=alt.recommended if alt is not None else None,
        measured=planned.state.memory.measured if planned.state else 0,
    )
    rows = _table_rows(result, usable, inputs.goal)
    fitting = [r for r in rows if r["plan"].fits]
    others = [r for r in rows if not r["plan"].fits]
    row_sets = [
        {"id": "plans", "rows": fitting, "closed": False},
        {"id": "plans-nofit", "rows": others, "closed": bool(fitting)},
    ]
    context.update(
        planning=result,
        model=model,
        spec=spec,
        variant=choice.variant,
        rows=rows,
        row_sets=row_sets,
        recommended=result.result.recommended,
        runner_up=result.result.runner_up,
        chart=_chart(rows, inputs.concurrency),
        calibration=calibration,
        elsewhere=[] if result.result.recommended is not None else _elsewhere(spec, inputs, planned),
        query=_query(values),
        weights_gb=spec.weights_size_gb(),
        os_reserve=settings.FLEET_OS_RESERVE_GB,
        range_words=RANGE_WORDS,
        can_book=can_book(request.user),
        book_fields=[(k, values[k]) for k in PLAN_KEYS if values.get(k) not in (None, "")],
    )
    return context


def _table_rows(result: plan_request.Planning, usable: dict[str, float], goal: str) -> list[dict[str, Any]]:
    """One row per plan, sorted by the goal: fitting plans fastest first, then
    the others by how little they miss."""
    res = result.result

    def order(i: int) -> tuple[int, float]:
        p = result.plans[i].plan
        if p.fits and p.decode_tps is not None:
            return (0, -((p.decode_tps if goal == "latency" else p.aggregate_tps) or 0.0))
        return (1, -p.memory_per_node_gb.free)

    rows = []
    for i in sorted(range(len(result.plans)), key=order):
        view = _plan_view(result.plans[i], usable)
        mark = "recommended" if i == res.recommended else "runner-up" if i == res.runner_up else ""
        p = result.plans[i].plan
        metric = (p.decode_tps if goal == "latency" else p.aggregate_tps) or 0.0
        rows.append({**view, "index": i, "mark": mark, "metric": f"{metric:.3f}", "record": _record_url(result, p)})
    return rows


# the collective backends a benchmark record names as the plan does (llama.cpp's RPC is left to the form)
RECORDED_BACKENDS = ("nccl", "rocenante", "none")


def _record_url(result: plan_request.Planning, p: Plan) -> str:
    """The record form filled with what the plan runs (group, model, format,
    engine, backend, mode, checkpoint, layout, streams), for a member who
    measured it: the lab's re-fit reads the record (a plan of several
    copies records them measured together through their router: shown
    beside a plan of as many copies, never re-fitted on). Empty for a plan
    that does not fit, or a list of nodes that is no group."""
    group = result.group.group
    if not p.fits or group is None:
        return ""
    fields = {
        "group": group.pk,
        "model": result.model.slug,
        "quantization": result.model.quantization,
        "engine": p.engine,
        "mode": p.mode,
        "tp": p.tp,
        "pp": p.pp,
        "concurrency": result.inputs.concurrency,
    }
    if p.replicas > 1:
        fields["copies"] = p.replicas
    if p.collective_backend in RECORDED_BACKENDS:
        fields["backend"] = p.collective_backend
    if p.checkpoint:
        fields["checkpoint"] = p.checkpoint
    return "/benchmarks/new/?" + urlencode(fields)


def _chart(rows: list[dict[str, Any]], concurrency: int) -> str:
    bars = [
        PlanBar(r["plan"].label, r["plan"].decode_tps, r["plan"].aggregate_tps or 0.0, r["mark"])
        for r in rows
        if r["plan"].fits and r["plan"].decode_tps
    ][:12]
    return mark_safe(plan_bars(bars, concurrency=concurrency))  # noqa: S308 - numbers and escaped labels only


def _elsewhere(spec: ModelSpec, inputs: plan_request.PlanInput, here: Any) -> list[dict[str, Any]]:
    """The other live groups where the model would fit, with their best plan."""
    found = []
    for group in selectors.live_groups()[:40]:
        if here.group is not None and group.pk == here.group.pk:
            continue
        other = selectors.groupspec_for(group)
        result = plan_placement(
            other.spec,
            spec,
            context_tokens=inputs.context_tokens,
            concurrency=inputs.concurrency,
            engine=inputs.engine,
            goal=inputs.goal,
        )
        best = result.recommended_plan
        if best is not None:
            found.append({"group": group, "plan": best})
    return sorted(found, key=lambda f: len(f["plan"].nodes))


PLAN_KEYS = (
    "model",
    "group",
    "context_tokens",
    "concurrency",
    "goal",
    "engine",
    "variant",
    "mode",
    "collective_backend",
)


def _variant_choices(form: PlanForm, slug: Any) -> list[str] | None:
    """The variant box offers the chosen model's variants; their quantizations (None: no such model)."""
    try:
        spec = selectors.model_get(slug).spec()
    except PlacementError:
        return None
    choices = [("", "the one the engine loads")] + [
        (v.quantization, f"{v.quantization} · {v.weights_size_gb(spec.params_b):.1f} GB") for v in spec.all_variants()
    ]
    form.fields["variant"].widget = forms.Select(choices=choices)
    return [v.quantization for v in spec.all_variants()]


def _query(values: dict[str, Any]) -> str:
    return urlencode({k: values[k] for k in PLAN_KEYS if values.get(k) not in (None, "")})


@require_GET
def plan_page(request: HttpRequest) -> HttpResponse:
    context = _planning_context(request)
    if htmx_asks(request):
        # the variant box follows the model: swapped beside the results (htmx out of band)
        return render(request, "placement/plans.html#results", {**context, "oob": True})
    runs = context.get("lab_runs")
    runs = lab_runs() if runs is None else runs
    lab = context.get("calibration") or lab_calibration(runs)
    report = plan_request.fit_table(DEFAULT_READING)
    fresh = fresh_sets(report)
    context.update(
        readings=plan_request.readings(),
        default_reading=DEFAULT_READING,
        lab=lab,
        lab_pairs=list(zip(lab.before, lab.after, strict=True)),
        lab_refit=refit_words(lab.changes),
        lab_not_fitted=[r for r in runs if r.not_fitted],
        accuracy=accuracy_of(report),
        fresh=[
            (f.day, f.commit, len(f.report.errors), f.experiments, accuracy_of(f.report), f.seen_since) for f in fresh
        ],
        fresh_keys={e.key for f in fresh if not f.seen_since for e in f.report.errors},
    )
    return render(request, "placement/plans.html", context)


@require_GET
def plan_launch(request: HttpRequest) -> HttpResponse:
    """The launch commands of one plan (loaded when its section is opened)."""
    index = request.GET.get("plan", "")
    number = whole_number(index)
    context = _planning_context(request, launch_for={number} if number is not None else ())
    result = context.get("planning")
    item = None
    if result is not None and number is not None and number < len(result.plans):
        item = result.plans[number]
    # what the nodes' last software readings say against each launcher (one query for all of them)
    needs = (
        launch_readiness(item.plan.nodes, image=selectors.vllm_image()) if item is not None and item.plan.fits else {}
    )
    return render(
        request,
        "placement/_launch.html",
        {"item": item, "index": index, "planning": result, "errors": context["errors"], "launch_needs": needs},
    )


@require_POST
@booker_required
def plan_book(request: HttpRequest) -> HttpResponse:
    """Keep the chosen plan and open the booking form for its group, pointing at it."""
    index = request.POST.get("plan", "")
    context = _planning_context(request, source=request.POST)  # the plan's inputs, as the page read them
    result = context.get("planning")
    try:
        if result is None:
            raise PlacementError(context["errors"] or [("plan", "nothing planned")])
        saved = services.saved_plan_create(
            actor=Actor.from_request(request, "page"),
            model=context["model"],
            planning=result,
            index=-1 if (number := whole_number(index)) is None else number,
        )
    except PlacementError as exc:
        messages.error(request, exc.text)
        return redirect(f"/plans/?{context.get('query', '')}")
    return redirect(f"/bookings/new/?{urlencode({'group': saved.group_id or '', 'saved_plan': saved.pk})}")


@require_GET
def saved_plan(request: HttpRequest, pk: int) -> HttpResponse:
    row = selectors.saved_plan_get(pk)
    query = urlencode(
        {
            "model": row.model.slug,
            "group": row.group_id or "",
            "context_tokens": row.context_tokens,
            "concurrency": row.concurrency,
            "goal": row.goal,
            "engine": row.engine,
            "variant": row.quantization,
        }
    )
    return render(request, "placement/saved_plan.html", {"p": row, "query": query})


# ---------------------------------------------------------------- catalogue


ENGINE_LABELS = {"vllm": "vLLM", "sglang": "SGLang", "llama.cpp": "llama.cpp"}


def _variants(spec: ModelSpec) -> list[dict[str, Any]]:
    """Each variant with its size and, per engine, the reference or the reason it cannot load it."""
    return [
        {
            "v": v,
            "size": v.weights_size_gb(spec.params_b),
            "default": v.quantization == spec.quantization,
            "engines": [(ENGINE_LABELS[e], engine_reference(v, e)) for e in ENGINE_LABELS],
        }
        for v in spec.all_variants()
    ]


@require_GET
def model_list(request: HttpRequest) -> HttpResponse:
    specs = [(m, m.spec()) for m in selectors.models_list()]
    rows = [(m, s.weights_size_gb(), s.kv_bytes_per_token() * 1000 / 1e6, _variants(s)) for m, s in specs]
    return render(request, "placement/model_list.html", {"rows": rows})


@admin_required
@require_http_methods(["GET", "POST"])
def variant_create(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        model = selectors.model_get(slug, "slug")
    except PlacementError as exc:
        messages.error(request, exc.text)
        return redirect("placement:model_list")
    form = VariantForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            row = services.variant_create(actor=Actor.from_request(request, "page"), model=model, **cleaned(form))
        except PlacementError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"{row.quantization} variant added to {model.name}.")
            return redirect(f"/models/#model-{model.slug}")
    return render(
        request,
        "placement/form.html",
        {
            "form": form,
            "title": f"Add a variant of {model.name}",
            "cancel": "/models/",
            "multipart": False,
            "intro": "A safetensors format (nvfp4, mxfp4, fp8, bf16, int4) names its Hugging Face repository for "
            "vLLM and SGLang; a GGUF type names its GGUF repository and file for llama.cpp.",
        },
        status=400 if form.errors else 200,
    )


@admin_required
@require_http_methods(["POST"])
def variant_delete(request: HttpRequest, slug: str, quantization: str) -> HttpResponse:
    try:
        services.variant_delete(
            actor=Actor.from_request(request, "page"),
            model=selectors.model_get(slug, "slug"),
            quantization=quantization,
        )
    except FleetError as exc:  # no such model or variant (404s in the API): said on the list it returns to
        messages.error(request, exc.text)
    else:
        messages.success(request, f"{quantization} variant of {slug} removed.")
    return redirect("placement:model_list")


@admin_required
@require_http_methods(["GET", "POST"])
def model_create(request: HttpRequest) -> HttpResponse:
    form = ModelForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        fields = cleaned(form)
        fields.setdefault("active_params_b", fields.get("params_b"))
        try:
            row = services.model_create(actor=Actor.from_request(request, "page"), fields=fields)
        except PlacementError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"Model {row.name} added to the catalogue.")
            return redirect("placement:model_list")
    return render(
        request,
        "placement/form.html",
        {"form": form, "title": "Add a model", "cancel": "/models/", "multipart": False},
        status=400 if form.errors else 200,
    )


@admin_required
@require_http_methods(["GET", "POST"])
def model_upload(request: HttpRequest) -> HttpResponse:
    form = ConfigForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        text = upload_text(form, "config")
        if text is not None:
            data = cleaned(form)
            data.pop("config", None)
            try:
                row = services.model_create_from_config(actor=Actor.from_request(request, "page"), config=text, **data)
            except PlacementError as exc:
                apply_errors(form, exc.onto("config"))
            else:
                messages.success(
                    request,
                    f"Model {row.name} added from config.json"
                    + (f" (estimated: {', '.join(row.estimated_fields)})." if row.estimated_fields else "."),
                )
                return redirect("placement:model_list")
    return render(
        request,
        "placement/form.html",
        {
            "form": form,
            "title": "Add a model from a Hugging Face config.json",
            "cancel": "/models/",
            "multipart": True,
            "intro": "The file is read here, nothing is downloaded. Parameter counts not given "
            "are estimated from the shapes and marked as estimates.",
        },
        status=400 if form.errors else 200,
    )


@admin_required
@require_http_methods(["POST"])
def model_delete(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        row = selectors.model_get(slug, "slug")
        services.model_delete(actor=Actor.from_request(request, "page"), model=row)
    except PlacementError as exc:
        messages.error(request, exc.text)
        return redirect("placement:model_list")
    messages.success(request, f"Model {slug} removed from the catalogue.")
    return redirect("placement:model_list")
