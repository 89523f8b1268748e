"""Serving pages: what is served where (``/serving/``, its figures refreshed
by htmx), one serving with its steps' output while it starts, and the
buttons: serve a plan (from the plan page), stop, and measure it with the
benchmarks app's runner. Roles as the API's (``core.roles``): viewers read;
the booking holder or a lab admin serves, stops and measures."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from accounts.decorators import booker_required
from benchmarks.runs import ServedLayout, run_start
from core.actor import Actor
from core.errors import FleetError
from core.htmx import partial
from core.validation import as_whole_number, text_problem, whole_number

from . import selectors, services
from .live import ServingLive, many_live
from .models import LIVE, Serving
from .selectors import compared, measured_runs

LIST_SIZE = 60
ACTIVE = (Serving.Status.STARTING, Serving.Status.STOPPING)
_SERVE_FIELDS = ("group", "model", "plan", "saved_plan", "variant", "context_tokens", "concurrency", "goal")
_NUMBERS = ("plan", "saved_plan", "context_tokens", "concurrency")


def _may_act(request: HttpRequest, serving: Serving) -> bool:
    return services.may_act(request.user, serving)


def _rows() -> list[Serving]:
    return list(selectors.servings_list()[:LIST_SIZE])


def _live_of(rows: list[Serving]) -> dict[int, ServingLive]:
    return many_live([(s.pk, s.engines, s.model.slug) for s in rows if s.engines])


@require_GET
def serving_list(request: HttpRequest) -> HttpResponse:
    """Every served model; the table's live figures come from the engines when htmx asks for it."""
    rows = _rows()
    table = partial(request, "serving/list.html", "table", target="serving-table")
    fresh = table.endswith("#table")
    live = _live_of(rows) if fresh else {}
    context = {
        "items": [(s, live.get(s.pk)) for s in rows],
        "fresh": fresh,
        "any_live": any(s.status in LIVE for s in rows),
    }
    return render(request, table, context)


@require_GET
def serving_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One serving; htmx polls its steps while it starts or stops, and its engines' figures while it serves."""
    serving = selectors.serving_get(pk)
    template = "serving/detail.html"
    for name, target in (("steps", "serving-steps"), ("live", "serving-live")):
        template = partial(request, template, name, target=target)
        if template.endswith(f"#{name}"):
            break
    live = None
    if serving.status == Serving.Status.SERVING and not template.endswith("#steps"):
        live = _live_of([serving]).get(serving.pk)
    context = {
        "s": serving,
        "live": live,
        "active": serving.status in ACTIVE,
        "may_act": _may_act(request, serving),
        "measured": [compared(serving, r) for r in measured_runs(serving)],
    }
    response = render(request, template, context)
    if template.endswith("#steps") and serving.status not in ACTIVE:
        response["HX-Refresh"] = "true"  # it serves, failed or stopped: the whole page changes
    return response


def _serve_values(request: HttpRequest) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    values: dict[str, Any] = {}
    problems = []
    for name in _SERVE_FIELDS:
        raw = request.POST.get(name, "").strip()
        if raw == "":
            continue
        if name in _NUMBERS:
            number = whole_number(raw)  # the plan's own limits speak of a number too large for them
            if number is None:
                said = (
                    "is far too large"
                    if raw.isascii() and raw.isdigit()
                    else f"must be a whole number, not {raw[:20]!r}"
                )
                problems.append((name, f"{name} {said}"))
                continue
            values[name] = number
        elif (problem := text_problem(raw)) is not None:
            problems.append((name, f"{name} {problem}"))
        else:
            values[name] = raw[:120]
    if "group" in values:
        values["group"] = as_whole_number(values["group"])
    elif not any(path == "group" for path, _ in problems):
        # a form posted without it once answered 500
        problems.append(("group", "group is required: name the group to serve on"))
    return values, problems


def _back(request: HttpRequest) -> str:
    back = request.POST.get("back", "")
    return back if back.startswith("/plans/") and "//" not in back else "/plans/"


@booker_required
@require_POST
def serving_start(request: HttpRequest) -> HttpResponse:
    """Serve a plan (the plan page's or a saved plan's button); a refusal goes back with its reason."""
    values, problems = _serve_values(request)
    try:
        if problems:
            raise FleetError(problems)
        serving = services.serving_start(actor=Actor.from_request(request, "page"), **values)
    except FleetError as exc:
        messages.error(request, f"Not served: {exc.text}")
        return redirect(_back(request))
    messages.success(request, f"Serving {serving.pk} asked on {serving.group_name}: its steps follow below.")
    return redirect(f"/serving/{serving.pk}/")


@booker_required
@require_POST
def serving_stop(request: HttpRequest, pk: int) -> HttpResponse:
    serving = selectors.serving_get(pk)
    try:
        services.serving_stop(actor=Actor.from_request(request, "page"), serving=serving)
    except FleetError as exc:
        if exc.status == 403:
            return render(request, "403.html", {"need": exc.text}, status=403)
        messages.error(request, f"Not stopped: {exc.text}")
    else:
        messages.success(request, f"Serving {serving.pk} is stopping: its engines stop on every node.")
    return redirect(f"/serving/{serving.pk}/")


def served_layout(serving: Serving) -> ServedLayout:
    """What a measuring run records: the served URL, and one instance's layout as the plan served it."""
    plan = serving.plan
    instances = plan.get("instances") or [plan.get("nodes", [])]
    copies = int(plan.get("replicas") or 1)
    first = list(instances[0])
    notes = f"measured while serving {serving.pk} ({plan.get('label', '')}) at {serving.url}"
    if copies > 1:
        notes += f", through its router in front of {copies} copies (all together: the planner does not re-fit on it)"
    backend = str(plan.get("collective_backend") or ("none" if len(first) == 1 else "unknown"))
    networks = serving.engine_networks
    if networks and backend in ("nccl", "rocenante"):
        # the engines' own NCCL said which network each rank chose: that is the run's backend
        sockets = serving.engine_socket_hosts
        if sockets:
            backend = "socket"
            notes += (
                f"; backend NCCL over TCP sockets on {', '.join(sockets)}, as the engines' own NCCL said: "
                "the planner does not re-fit on it"
            )
        else:
            notes += f"; NCCL over RoCE on {', '.join(sorted(networks))}, as the engines' own NCCL said"
    elif plan.get("fabric_warning") and backend in ("nccl", "rocenante"):
        # the engines' NCCL was not read (a serving from before): the verification is the best word on it
        backend = "socket"
        notes += (
            "; backend NCCL over TCP sockets, as the group's latest fabric verification saw when serving started "
            "(the engines' NCCL was not read): the planner does not re-fit on it"
        )
    return ServedLayout(
        base_url=serving.url.removesuffix("/v1"),
        nodes=first,
        tp=int(plan.get("tp") or 1),
        pp=int(plan.get("pp") or 1),
        backend=backend,
        notes=notes,
        copies=copies,
        quantization=serving.quantization,
        # the plan's mode, which its engines were launched in; a serving from before the plan kept it: not known
        mode=str(plan.get("mode") or ""),
        # the checkpoint the plan's engines loaded; a serving from before the plan kept it: not known
        checkpoint=str(plan.get("checkpoint") or ""),
    )


@booker_required
@require_POST
def serving_measure(request: HttpRequest, pk: int) -> HttpResponse:
    """Benchmark the served model with the benchmarks app's runner, at the streams the plan was made for."""
    serving = selectors.serving_get(pk)
    if not _may_act(request, serving):
        need = f"only {serving.owner_name or 'its owner'} or a lab admin may measure serving {serving.pk}"
        return render(request, "403.html", {"need": need}, status=403)
    if serving.status != Serving.Status.SERVING or not serving.url:
        messages.error(request, f"Not measured: serving {serving.pk} is {serving.status}, not serving.")
        return redirect(f"/serving/{serving.pk}/")
    streams = int(serving.plan.get("concurrency") or 1)
    try:
        run = run_start(
            actor=Actor.from_request(request, "page"),
            group_id=serving.group_id,
            model=serving.model.slug,
            concurrency=streams,
            input_len=128,
            output_len=128,
            num_prompts=max(10, 2 * streams),
            serving=served_layout(serving),
        )
    except FleetError as exc:
        messages.error(request, f"Not measured: {exc.text}")
    else:
        messages.success(request, f"Benchmark run #{run.pk} queued: {streams} stream{'s' if streams > 1 else ''}.")
    return redirect(f"/serving/{serving.pk}/")
