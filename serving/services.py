"""Writes to servings: start a plan on a booked group, stop it, and what the
worker records as it goes. Each request is one transaction; errors users can
cause are raised before anything is written (``serving.errors``).

No Spark serves twice: the check and the insert share one transaction,
after taking the bookings' per-Spark lock (PostgreSQL) or the write lock
(SQLite's BEGIN IMMEDIATE), and the partial unique index on live
``ServingNode`` rows refuses whatever slips past (answered as the same 409).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from bookings.models import Allocation, Booking
from bookings.selectors import LIVE as BOOKING_LIVE
from bookings.selectors import group_find
from core.actor import Actor
from core.errors import FleetError, Unavailable
from core.locks import lock_sparks
from core.outage import service_down
from core.roles import can_book, is_admin
from core.types import Visitor
from fabric.selectors import active_runs_on
from inventory.models import NodeGroup, Spark
from placement.launch import LaunchError, LaunchSettings
from placement.selectors import launch_settings_for
from telemetry.discovery import address
from telemetry.software_store import run_drift

from . import steps as serve_steps
from .conf import base_port
from .errors import ServingError, ServingForbidden, ServingRefused
from .models import LIVE, Serving, ServingEvent, ServingNode, ServingPort
from .plans import Chosen, plan_choose, plan_snapshot


def log(serving: Serving, actor: Actor, action: str, detail: str = "") -> None:
    ServingEvent.objects.create(
        serving=serving, username=actor.username, source=actor.source[:10], action=action, detail=detail[:300]
    )


def _holding(actor: Actor, group: NodeGroup, spark_ids: list[int], now: datetime) -> Booking:
    """The booking the serving lives under: the member's own covering every
    Spark now; for a lab admin, any booking holding them now. The one ending
    first, when several together cover the group."""
    if not can_book(actor.user):
        raise ServingForbidden("serving a model needs the member or lab admin role")
    rows = Allocation.objects.filter(
        spark_id__in=spark_ids, live=True, booking__status__in=BOOKING_LIVE, start__lte=now, end__gt=now
    ).select_related("booking")
    if not is_admin(actor.user):
        rows = rows.filter(booking__owner_id=actor.user_id)
    held = {a.spark_id: a.booking for a in rows}
    if set(held) != set(spark_ids):
        if is_admin(actor.user):
            raise ServingRefused(
                f"{group.name} is not booked now: book it first (serving lives under a booking)", "group"
            )
        raise ServingForbidden(f"book {group.name} first: a member serves only on a group booked for them now", "group")
    return min(held.values(), key=lambda b: (b.end, b.pk))


def _state_checks(chosen: Chosen, group: NodeGroup, image: str) -> None:
    down = [s.name for s in chosen.planned.down]
    if down:
        raise ServingRefused(f"{', '.join(down)} of {group.name} is down: nothing can be started there", "group")
    names = [n.name for n in chosen.planned.spec.nodes]
    drift = run_drift(names, image=image)
    if drift:
        text = " ".join(message for _, message in drift)  # each names its Spark
        raise ServingRefused(f"software drift in {group.name} (fix it first): {text}", "group")


def busy_serving(spark_ids: list[int]) -> list[str]:
    """What these Sparks serve now, in words (also fabric.services.BUSY_SPARKS: no
    verification runs beside an engine)."""
    rows = ServingNode.objects.filter(spark_id__in=spark_ids, live=True).select_related("spark", "serving__model")
    return [
        f"{r.spark.name} serves {r.serving.model.slug} (serving {r.serving_id}, {r.serving.owner_name})" for r in rows
    ]


def _busy(sparks: dict[str, Spark]) -> list[str]:
    """Live servings and fabric verifications on these Sparks (an engine and
    nccl-tests at once disturb each other), in words."""
    verifying = [
        f"{', '.join(sorted(shared))} {'is' if len(shared) == 1 else 'are'} being verified "
        f"(fabric run {run.pk} of {run.group_name})"
        for run, shared in active_runs_on(sparks)
    ]
    return busy_serving([s.pk for s in sparks.values()]) + verifying


def _ports(chosen: Chosen, hosts: dict[str, str]) -> tuple[list[int], tuple[int, int] | None]:
    """Each instance's port, and the router's and its metrics' (several copies): free on
    their host among live servings."""
    used = set(ServingPort.objects.filter(live=True).values_list("host", "port"))
    base = base_port()

    def take(host: str) -> int:
        port = base
        while (host, port) in used:
            port += 1
        used.add((host, port))
        return port

    engines = [take(hosts[names[0]]) for names in chosen.plan.instances]
    first = hosts[chosen.plan.nodes[0]]
    router = (take(first), take(first)) if chosen.plan.replicas > 1 else None
    return engines, router


def serving_start(
    *,
    actor: Actor,
    group: Any,
    model: Any = None,
    plan: Any = None,
    saved_plan: Any = None,
    launcher: Any = None,
    variant: Any = None,
    context_tokens: Any = 8192,
    concurrency: Any = 1,
    goal: Any = "latency",
) -> Serving:
    """Queue a plan to be served on a group booked now; refused with the reason."""
    launcher = launcher or serve_steps.SERVABLE[0]
    if launcher not in serve_steps.SERVABLE:
        raise ServingError(f"serving starts {', '.join(serve_steps.SERVABLE)}, not {launcher!r}", "launcher")
    if model is None and saved_plan is None:
        raise ServingError("name the model (its catalogue slug), or a saved plan", "model")
    row = group_find(group)
    spark_ids = sorted(row.members.values_list("spark_id", flat=True))
    booking = _holding(actor, row, spark_ids, timezone.now())
    chosen = plan_choose(
        group=row,
        model=model,
        plan=plan,
        saved_plan=saved_plan,
        variant=variant,
        context_tokens=context_tokens,
        concurrency=concurrency,
        goal=goal,
    )
    settings = launch_settings_for(chosen.planned)
    _state_checks(chosen, row, settings.vllm_image)
    problems = serve_steps.serve_problems(
        chosen.plan, chosen.planned.spec, chosen.spec, launcher=launcher, settings=settings
    )
    if problems:
        raise ServingError(problems)
    sparks = {s.name: s for s in Spark.objects.filter(name__in=chosen.plan.nodes)}
    with transaction.atomic():
        lock_sparks([s.pk for s in sparks.values()])
        busy = _busy(sparks)
        if busy:
            raise ServingRefused([("group", f"busy: {b}") for b in busy])
        engines, router = _ports(chosen, {name: s.ssh_host for name, s in sparks.items()})
        serving = Serving.objects.create(
            model=chosen.model,
            quantization=chosen.spec.quantization,
            group=row,
            group_name=row.name,
            plan_index=chosen.index,
            saved_plan=chosen.saved,
            plan={**plan_snapshot(chosen), "ports": engines, "router_port": router[0] if router else None},
            launcher=launcher,
            owner=actor.known_user,
            owner_name=actor.username,
            booking=booking,
        )
        try:
            with transaction.atomic():
                _claim_rows(serving, chosen, sparks, engines, router)
        except IntegrityError as exc:
            raise ServingRefused("another serving took these Sparks or ports at the same moment", "group") from exc
        _write_steps(serving, chosen, sparks, engines, router, settings)
        log(serving, actor, "start", f"{chosen.plan.label} with {launcher} under booking {booking.pk}")
        transaction.on_commit(lambda: queue(serving))
    return serving


def base_url(host: str, port: int) -> str:
    """http://host:port (an IPv6 address in brackets)."""
    return f"http://{address(host, port)}"


def _write_steps(
    serving: Serving,
    chosen: Chosen,
    sparks: dict[str, Spark],
    engines: list[int],
    router: tuple[int, int] | None,
    settings: LaunchSettings,
) -> None:
    """What the worker will run, node by node, and where each instance (and the router) will answer."""
    try:
        built = serve_steps.engine_steps(
            chosen.plan, chosen.planned.spec, chosen.spec, serving_id=serving.pk, ports=engines, settings=settings
        )
        weights = serve_steps.weights_steps(chosen.plan, chosen.spec, settings, serving_id=serving.pk)
        built = [*serve_steps.image_steps(chosen.plan, settings, pinned=settings.vllm_pin), *weights, *built]
    except LaunchError as exc:
        raise launch_error(exc) from exc
    heads = [sparks[names[0]] for names in chosen.plan.instances]
    bases = [base_url(s.ssh_host, port) for s, port in zip(heads, engines, strict=True)]
    serving.endpoints = [{"node": s.name, "url": f"{b}/v1"} for s, b in zip(heads, bases, strict=True)]
    url = serving.endpoints[0]["url"]
    waits: list[dict[str, Any]] = [
        _wait(e["node"], e["url"], "engine")
        | {"container": serve_steps.container(serving.pk, index, 0), "in_ray": len(chosen.plan.instances[index]) > 1}
        for index, e in enumerate(serving.endpoints)
    ]
    if router is not None:
        first = sparks[chosen.plan.nodes[0]]
        built.append(
            serve_steps.router_step(
                first.name, serving_id=serving.pk, port=router[0], metrics_port=router[1], workers=bases
            )
        )
        url = f"{base_url(first.ssh_host, router[0])}/v1"
    steps: list[dict[str, Any]] = [
        {"node": s.node, "label": s.label, "script": s.script, "status": "waiting", "output": ""}
        | ({"image": s.image} if s.image else {})
        | ({"pinned": s.pinned} if s.pinned else {})
        | ({"weights": s.weights, "expected_bytes": s.expected_bytes} if s.weights else {})
        for s in built
    ]
    # once the engines answer, each multi-node rank says which network its NCCL chose
    reads = [
        {"node": s.node, "label": s.label, "script": s.script, "status": "waiting", "output": "", "reads": "nccl"}
        for s in serve_steps.network_steps(chosen.plan, serving_id=serving.pk)
    ]
    if router is not None:  # the router waits for its workers: they answer first
        steps = [*steps[:-1], *waits, *reads, steps[-1], _wait(chosen.plan.nodes[0], url, "router")]
    else:
        steps += [*waits, *reads]
    serving.steps = steps
    serving.plan = {**serving.plan, "url": url}
    serving.save(update_fields=["steps", "endpoints", "plan"])


def _wait(node: str, url: str, what: str) -> dict[str, Any]:
    """A step the worker runs itself: ``GET {url}/models`` until it lists the model."""
    return {"node": node, "label": f"wait for the {what}", "url": url, "status": "waiting", "output": ""}


def _claim_rows(
    serving: Serving, chosen: Chosen, sparks: dict[str, Spark], engines: list[int], router: tuple[int, int] | None
) -> None:
    ServingNode.objects.bulk_create([ServingNode(serving=serving, spark=sparks[n]) for n in chosen.plan.nodes])
    ports = [
        ServingPort(serving=serving, spark=sparks[names[0]], host=sparks[names[0]].ssh_host, port=port, kind="engine")
        for names, port in zip(chosen.plan.instances, engines, strict=True)
    ]
    if router is not None:
        first = sparks[chosen.plan.nodes[0]]
        ports += [
            ServingPort(serving=serving, spark=first, host=first.ssh_host, port=port, kind=kind)
            for port, kind in zip(router, ("router", "metrics"), strict=True)
        ]
    ServingPort.objects.bulk_create(ports)


def queue(serving: Serving, *, stop: bool = False) -> None:
    """Send the worker's task; a broker that cannot take it fails the serving (nothing was started)."""
    from . import tasks

    try:
        (tasks.stop_serving if stop else tasks.start_serving).delay(serving.pk)
    except Exception as exc:
        which = service_down(exc)
        if which is None:
            raise
        if not stop:
            serving_release(serving.pk, status=Serving.Status.FAILED, error="not started: the task queue is down")
        raise Unavailable("the task queue (broker) is unavailable; start it again once it is back", which) from exc


def may_act(user: Visitor | None, serving: Serving) -> bool:
    """Who may stop (or measure) a serving: a lab admin, or its owner while a member."""
    if is_admin(user):
        return True
    return can_book(user) and serving.owner_id is not None and user is not None and serving.owner_id == user.pk


def may_stop(actor: Actor, serving: Serving) -> None:
    if not may_act(actor.user, serving):
        raise ServingForbidden(f"only {serving.owner_name or 'its owner'} or a lab admin may stop serving {serving.pk}")


def serving_stop(*, actor: Actor, serving: Serving, reason: str = "", on_time: bool = False) -> Serving:
    """Stop a live serving: its engines (and router) on every node, then free the Sparks.
    ``on_time``: the clock stops it (its booking ended), not a person."""
    if not on_time:
        may_stop(actor, serving)
    with transaction.atomic():
        locked = Serving.objects.select_for_update().get(pk=serving.pk)
        if locked.status not in (Serving.Status.STARTING, Serving.Status.SERVING):
            raise ServingRefused(f"serving {locked.pk} is {locked.status}: nothing to stop", "status")
        locked.status = Serving.Status.STOPPING
        locked.save(update_fields=["status"])
        log(locked, actor, "stop", reason)
        transaction.on_commit(lambda: queue(locked, stop=True))
    return locked


def serving_release(pk: int, *, status: str, error: str = "", failed_step: str = "") -> None:
    """The end of a serving: its status, and its Sparks and ports free again."""
    with transaction.atomic():
        fields: dict[str, Any] = {"status": status, "stopped_at": timezone.now()}
        if error:
            fields["error"] = error[:4000]
        if failed_step:
            fields["failed_step"] = failed_step[:120]
        Serving.objects.filter(pk=pk).update(**fields)
        ServingNode.objects.filter(serving_id=pk).update(live=False)
        ServingPort.objects.filter(serving_id=pk).update(live=False)


def launch_error(exc: LaunchError) -> FleetError:
    return ServingError([(where, message) for where, message in exc.problems])


__all__ = ["LIVE", "serving_release", "serving_start", "serving_stop"]
