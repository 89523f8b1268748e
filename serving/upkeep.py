"""Keeping servings true to what runs: stop a serving when its booking ends
(beat, every minute), and reconcile the records with what the nodes say they
run (on a worker's start, and every few minutes): a serving whose engine is
gone is failed (its other engines stopped), and an engine this app started
for a serving that is no longer live is stopped."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from bookings.selectors import LIVE as BOOKING_LIVE
from core.actor import Actor
from core.runs import HEARTBEAT_STALE_S, silent_runs
from notifications import services as outbox
from notifications import tasks as delivery

from . import steps as serve_steps
from .models import LIVE, Serving, ServingNode
from .runner import on_node, stop_everywhere
from .services import log, queue, serving_release, serving_stop

TASK = Actor(source="task")


def servings_due(now: datetime) -> list[Serving]:
    """Live servings whose booking ended, was cancelled, or is gone."""
    over = Q(booking=None) | Q(booking__end__lte=now) | ~Q(booking__status__in=BOOKING_LIVE)
    rows = Serving.objects.filter(over, status__in=(Serving.Status.STARTING, Serving.Status.SERVING))
    return list(rows.select_related("booking"))


def owners_remind() -> int:
    """A serving started by someone other than the booking's owner (a lab
    admin): its owner is emailed too once the booking's end reminder went out."""
    rows = Serving.objects.filter(
        status__in=(Serving.Status.STARTING, Serving.Status.SERVING), booking__reminded_at__isnull=False
    ).select_related("owner", "booking", "model")
    sent = 0
    for serving in rows:
        owner, booking = serving.owner, serving.booking
        if owner is None or booking is None or owner.pk == booking.owner_id or not owner.email:
            continue
        if serving.events.filter(action="reminded").exists():
            continue
        body = (
            f"Hello {owner.username},\n\nYou serve {serving.model.slug} on {serving.group_name} (serving {serving.pk}"
            f"{', ' + serving.url if serving.url else ''}) under booking {booking.pk}, which ends at "
            f"{booking.end:%Y-%m-%d %H:%M} UTC. It is stopped then.\n"
        )
        mail = outbox.email_queue(to=owner.email, subject=f"[Spark Fleet] Serving {serving.pk} stops soon", body=body)
        delivery.queue([(mail.pk, mail.channel)])
        log(serving, TASK, "reminded", f"email queued for {owner.email}")
        sent += 1
    return sent


def servings_tick(*, now: datetime | None = None) -> dict[str, int]:
    """Stop what outlived its booking; fail starts whose worker vanished; remind owners."""
    now = now or timezone.now()
    stopped = 0
    for serving in servings_due(now):
        end = serving.booking.end if serving.booking else None
        reason = f"its booking ended at {end:%Y-%m-%d %H:%M} UTC" if end else "its booking is gone"
        serving_stop(actor=TASK, serving=serving, reason=reason, on_time=True)
        stopped += 1
    abandoned = 0
    for serving in silent_runs(Serving.objects.filter(status=Serving.Status.STARTING)):
        stop_everywhere(serving)
        serving_release(
            serving.pk,
            status=Serving.Status.FAILED,
            error=f"abandoned: the worker starting it gave no sign of life for {HEARTBEAT_STALE_S} s",
        )
        abandoned += 1
    return {"stopped": stopped, "abandoned": abandoned, "reminded": owners_remind(), "stops_again": stops_again(now)}


STOP_AGAIN_AFTER = timedelta(minutes=5)


def stops_again(now: datetime) -> int:
    """Stops asked for long ago and still not done (their worker died, the
    broker lost the task): asked of a worker again (stopping twice is harmless)."""
    late = Serving.objects.filter(
        status=Serving.Status.STOPPING, events__action="stop", events__at__lt=now - STOP_AGAIN_AFTER
    ).distinct()
    count = 0
    for serving in late:
        queue(serving, stop=True)
        count += 1
    return count


RECONCILE_WINDOW = timedelta(days=7)


def reconcile() -> dict[str, int]:
    """Compare what each node runs for this app with the records: the nodes of
    live servings and of those that ended within RECONCILE_WINDOW."""
    recent = Q(live=True) | Q(serving__stopped_at__gte=timezone.now() - RECONCILE_WINDOW)
    names = sorted(set(ServingNode.objects.filter(recent).values_list("spark__name", flat=True)))
    running: dict[str, dict[int, set[str]]] = {}
    for name in names:
        outcome = on_node(name, serve_steps.WHAT_RUNS, timeout=60.0)
        if not outcome.error:
            running[name] = serve_steps.read_what_runs(outcome.output)
    failed = strays = 0
    for serving in Serving.objects.filter(status=Serving.Status.SERVING):
        gone = _gone(serving, running)
        if gone:
            stop_everywhere(serving)
            serving_release(serving.pk, status=Serving.Status.FAILED, error=gone, failed_step="reconcile")
            log(serving, TASK, "failed", gone)
            failed += 1
    live = set(Serving.objects.filter(status__in=LIVE).values_list("pk", flat=True))
    for name, by_serving in running.items():
        for sid in sorted(set(by_serving) - live):
            on_node(name, serve_steps.stop_script(sid), timeout=120.0)
            strays += 1
    return {"nodes": len(running), "failed": failed, "stopped": strays}


def _gone(serving: Serving, running: dict[str, dict[int, set[str]]]) -> str:
    """Why a serving no longer serves ("" while everything it started runs)."""
    for index, names in enumerate(serving.plan.get("instances", [])):
        for rank, name in enumerate(names):
            if name not in running:
                continue  # the node did not answer: nothing is known
            if serve_steps.container(serving.pk, index, rank) not in running[name].get(serving.pk, set()):
                return f"the engine of instance {index + 1} on {name} is no longer running"
    first = (serving.plan.get("nodes") or [""])[0]
    if serving.plan.get("router_port") and first in running and "router" not in running[first].get(serving.pk, set()):
        return f"the router on {first} is no longer running"
    return ""
