"""Benchmark pages: the fleet-wide leaderboard by model, one group's runs with
the scaling chart, the forms to record or upload a result, and starting a
run on a booked group. Views parse input, call one service or selector, render."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HTMX_STOP_POLLING

from accounts.decorators import booker_required
from bookings.selectors import may_start_run
from core.actor import Actor
from core.errors import BadInput, NotFound
from core.forms import cleaned, upload_text
from core.htmx import htmx_asks
from core.validation import whole_number
from inventory.forms import apply_errors
from inventory.models import NodeGroup
from placement import selectors as placement_selectors
from placement.errors import PlacementError
from placement.models import LlmModel
from placement.perfmodel import DEFAULT_READING

from . import runs, selectors, services
from .charts import Bar, bar_chart, scaling_chart
from .forms import BenchmarkForm, RunForm, UploadForm
from .models import BenchmarkRun
from .scaling import RunPoint, chart_series, scaling_rows

DEFAULT_MODEL = "qwen3.8-27b"


def _bar(run: BenchmarkRun, *, streams: bool = False) -> Bar:
    """A run's bar; ``streams``: say its concurrency beside the figure (runs of many concurrencies side by side)."""
    where = run.group_name if run.group_id else run.topology_kind
    layout = f" tp {run.tp} pp {run.pp}" if run.tp > 1 or run.pp > 1 else ""
    if run.copies > 1:
        layout += f" {run.copies} copies"
    label = f"{where} · {run.node_count} node{'s' if run.node_count != 1 else ''}{layout} · {run.get_engine_display()}"
    if run.quantization:
        label += f" {run.quantization}"
    if run.mode == BenchmarkRun.Mode.EAGER:
        label += " eager"
    if run.reading:
        label += f" · read as {run.reading}"
    href = f"/benchmarks/groups/{run.group_id}/?model={run.model_name}" if run.group_id else ""
    note = run.reference if run.source == BenchmarkRun.Source.PUBLISHED else "measured here"
    if run.checkpoint:
        note += f"; checkpoint {run.checkpoint}"
    flag = f"+ {run.speculative_label()}" if run.speculative else ""
    aside = f"· {run.concurrency} stream{'s' if run.concurrency != 1 else ''}" if streams else ""
    return Bar(label, run.decode_tps or 0.0, run.source, note, href, flag, aside)


def _board_concurrency(raw: str, levels: list[int]) -> int | None:
    """The leaderboard's concurrency from its query: 1 when not given, None for "any"."""
    if raw in ("", "1"):
        return 1
    if raw == "any":
        return None
    if (number := whole_number(raw)) in levels:
        return number
    known = ", ".join(str(n) for n in levels)
    raise BadInput(f"no finished run at concurrency {raw[:20]!r}: choose one of {known}, or any", "concurrency")


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    levels = selectors.leaderboard_levels()
    concurrency = _board_concurrency(request.GET.get("concurrency", "").strip(), levels)
    ranked = selectors.leaderboard(concurrency=concurrency)
    at = f"at concurrency {concurrency}" if concurrency is not None else "at any concurrency"
    board = [
        (
            name,
            model,
            model_runs,
            mark_safe(  # noqa: S308 - charts escape every text
                bar_chart(
                    [_bar(r, streams=concurrency is None) for r in model_runs],
                    title=f"{model.name if model else name}: decode {at}, fastest first",
                    width=540,
                    left=230,
                )
            ),
        )
        for name, model, model_runs in ranked
    ]
    best = []
    for name, model, model_runs in ranked:
        top = _bar(model_runs[0], streams=concurrency is None)
        best.append(
            Bar(
                f"{model.name if model else name} · {top.label.split(' · ', 1)[1]}",
                top.value,
                top.kind,
                top.note,
                f"#board-{slugify(name)}",
                top.flag,
                top.aside,
            )
        )
    return render(
        request,
        "benchmarks/leaderboard.html",
        {
            "board": board,
            "groups": placement_selectors.live_groups(),
            "default_reading": DEFAULT_READING,
            "levels": levels,
            "concurrency": concurrency,
            "overview": mark_safe(bar_chart(best, title=f"Fastest finished run of each model {at}")),  # noqa: S308
        },
    )


def _point(run: BenchmarkRun) -> RunPoint:
    label = (
        f"measured here on {run.group_name}"
        if run.source == BenchmarkRun.Source.MEASURED
        else f"published: {run.reference}"
    )
    return RunPoint(
        run.pk,
        run.source,
        run.topology_kind,
        run.backend,
        run.node_count,
        run.tp,
        run.pp,
        run.engine,
        run.concurrency,
        run.input_len,
        run.output_len,
        run.decode_tps or 0.0,
        run.link_gbps,
        label,
        run.quantization,
        run.mode,
        run.published_key or "",
        run.checkpoint,
        run.copies,
        run.speculative,
    )


def _charted(run: BenchmarkRun, concurrency: int) -> bool:
    # the disputed published row is charted in the reading the performance model uses
    return (
        run.status == BenchmarkRun.Status.DONE
        and run.decode_tps is not None
        and run.concurrency == concurrency
        and run.reading in ("", DEFAULT_READING)
    )


def _group_context(request: HttpRequest, group: NodeGroup) -> dict[str, Any]:
    here = list(BenchmarkRun.objects.filter(group=group).select_related("model").order_by("-created_at", "-id"))
    slugs = {r.model_name for r in here}
    model_slug = request.GET.get("model") or (here[0].model_name if here else DEFAULT_MODEL)
    model = LlmModel.objects.filter(slug=model_slug).first()
    # Published runs are this page's reference: those on the group's own topology, and one node alone
    # (every scaling starts there). Other topologies' figures are on the leaderboard.
    published_all = list(
        BenchmarkRun.objects.filter(source=BenchmarkRun.Source.PUBLISHED, model_name=model_slug).select_related("model")
    )
    published = [r for r in published_all if r.topology_kind == group.kind or r.node_count == 1]
    levels = sorted({r.concurrency for r in here + published if r.model_name == model_slug} | {1})
    raw = request.GET.get("concurrency", "1")
    concurrency = number if (number := whole_number(raw)) in levels else 1
    shown = [r for r in here if r.model_name == model_slug] + published
    rows = scaling_rows([_point(r) for r in shown if _charted(r, concurrency)], model.spec() if model else None)
    by_id = {r.pk: r for r in shown}
    title = f"{model.name if model else model_slug}: decode at concurrency {concurrency}"
    series = chart_series(rows, published_as_reference=True)
    allowed, why = may_start_run(request.user, group) if group.retired_at is None else (False, "retired")
    head = group.members.order_by("spark__name").values_list("spark__name", flat=True).first()
    pending = any(r.status in (BenchmarkRun.Status.QUEUED, BenchmarkRun.Status.RUNNING) for r in here)
    return {
        "group": group,
        "here": here,
        "rows": [(row, by_id[row.point.id]) for row in rows],
        # one chart for a desk, one with its legend below for a phone (CSS shows one)
        "chart": mark_safe(  # noqa: S308 - escaped
            scaling_chart(series, title=title)
            + scaling_chart(series, title=title, width=400, height=300, legend_below=True)
        ),
        "measured_here": any(r.source == BenchmarkRun.Source.MEASURED for r in here if r.model_name == model_slug),
        "published_elsewhere": len(published_all) - len(published),
        "models": placement_selectors.models_list(),
        "model_slug": model_slug,
        "model": model,
        "levels": levels,
        "concurrency": concurrency,
        "measured_models": sorted(slugs),
        "may_run": allowed,
        "why_not": why,
        "run_form": RunForm(initial={"model": model_slug}),
        "pending": pending,
        "default_reading": DEFAULT_READING,
        "head": head,
        "client": runs.client_words(head) if allowed else ("", ""),
        "other_readings": [r for r in published if r.reading not in ("", DEFAULT_READING)],
    }


def _group(group_id: int) -> NodeGroup:
    group = NodeGroup.objects.filter(pk=group_id).first()
    if group is None:
        raise NotFound(f"no node group with id {group_id}", "group_id")
    return group


@require_GET
def group_benchmarks(request: HttpRequest, group_id: int) -> HttpResponse:
    context = _group_context(request, _group(group_id))
    if htmx_asks(request, "runs"):
        # htmx stops polling once no run is queued or running
        status = 200 if context["pending"] else HTMX_STOP_POLLING
        return render(request, "benchmarks/group_benchmarks.html#runs", context, status=status)
    return render(request, "benchmarks/group_benchmarks.html", context)


@booker_required
@require_POST
def run_start(request: HttpRequest, group_id: int) -> HttpResponse:
    group = _group(group_id)
    form = RunForm(request.POST)
    if form.is_valid():
        try:
            run = runs.run_start(actor=Actor.from_request(request, "page"), group_id=group.pk, **form.cleaned_data)
        except runs.RunNotAllowed as exc:
            return render(request, "403.html", {"need": exc.text}, status=403)
        except PlacementError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"Benchmark run #{run.pk} queued on {run.nodes[0]}.")
            return redirect(f"/benchmarks/groups/{group.pk}/?model={run.model_name}")
    context = _group_context(request, group)
    context["run_form"] = form
    return render(request, "benchmarks/group_benchmarks.html", context, status=400)


# the record form's fields a link may fill (initial values only: the form validates what is posted)
RECORD_PREFILL = (
    "group",
    "model",
    "quantization",
    "engine",
    "backend",
    "mode",
    "checkpoint",
    "tp",
    "pp",
    "copies",
    "concurrency",
)


@booker_required
@require_http_methods(["GET", "POST"])
def benchmark_create(request: HttpRequest) -> HttpResponse:
    # a plan's "Record a run of this plan" link fills the form with what the plan runs
    initial = {name: request.GET[name] for name in RECORD_PREFILL if name in request.GET}
    form = BenchmarkForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            run = services.benchmark_create(actor=Actor.from_request(request, "page"), data=cleaned(form))
        except PlacementError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, f"Benchmark of {run.model_name} recorded.")
            return redirect(
                f"/benchmarks/groups/{run.group_id}/?model={run.model_name}" if run.group_id else "/benchmarks/"
            )
    return render(
        request,
        "placement/form.html",
        {"form": form, "title": "Record a benchmark result", "cancel": "/benchmarks/", "multipart": False},
        status=400 if form.errors else 200,
    )


@booker_required
@require_http_methods(["GET", "POST"])
def benchmark_upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST or None, request.FILES or None, initial={"group": request.GET.get("group", "")})
    if request.method == "POST" and form.is_valid():
        text = upload_text(form, "file")
        if text is not None:
            data = cleaned(form)
            data.pop("file", None)
            fmt = data.pop("format", "auto")
            try:
                actor = Actor.from_request(request, "page")
                run = services.benchmark_upload(actor=actor, text=text, fmt=fmt, data=data, path="file")
            except PlacementError as exc:
                apply_errors(form, exc.onto("file"))
            else:
                messages.success(request, f"Benchmark of {run.model_name} read from the file and recorded.")
                return redirect(f"/benchmarks/groups/{run.group_id}/?model={run.model_name}")
    return render(
        request,
        "placement/form.html",
        {
            "form": form,
            "title": "Upload a benchmark result",
            "cancel": "/benchmarks/",
            "multipart": True,
            "intro": "The JSON `vllm bench serve --save-result` writes, the summary it prints, or "
            "`llama-bench -o json` output. Missing fields and numbers written as text are refused, naming the field.",
        },
        status=400 if form.errors else 200,
    )
