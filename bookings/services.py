"""Writes to bookings: book, cancel or release, move the ends, plan
maintenance, run the clock. Each is one transaction; errors users can
cause are raised before anything is written (``bookings.errors``).

No double booking: the clash check and the insert share one transaction.
On SQLite that transaction starts with ``BEGIN IMMEDIATE`` (settings), so
bookings queue for the write lock and the check is authoritative. On
PostgreSQL the exclusion constraint is the guarantee: an overlapping insert
that slips past the check is refused and answered like a clash found by
the check. Writers first take one advisory lock per Spark in id order, and
write allocations in that order: an exclusion check waits on a rival's
uncommitted row *after* inserting its own, so two bookings sharing Sparks
would otherwise deadlock even with a fixed insert order (measured in
tests/bookings/test_race.py before the locks were added).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.actor import Actor
from core.health import UNHEALTHY
from core.locks import lock_sparks
from core.roles import can_book, is_admin
from core.validation import data_too_deep, text_problem
from inventory.models import NodeGroupMember, Spark
from placement.models import SavedPlan

from . import conf, notify, selectors
from .errors import BookingConflict, BookingError, NeedsConfirmation, NotAllowed
from .models import Allocation, Booking, BookingEvent, MaintenanceWindow, Preference
from .rules import effective_status, fmt_span, group_clashes, window_errors

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _log(booking: Booking, actor: Actor, action: str, detail: str = "") -> None:
    BookingEvent.objects.create(
        booking=booking, username=actor.username, source=actor.source, action=action, detail=detail[:300]
    )


def _purpose(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BookingError("say what the booking is for", "purpose")
    if len(value.strip()) > 200:
        raise BookingError(f"keep the purpose under 200 characters (it has {len(value.strip())})", "purpose")
    problem = text_problem(value)
    if problem:
        raise BookingError(f"the purpose {problem}", "purpose")
    return value.strip()


def _plan(value: Any) -> Any:
    if value in (None, ""):
        return None
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError):
        raise BookingError("the plan must be text or JSON", "plan") from None
    if size > 20_000:
        raise BookingError(f"the plan is {size} characters; give a reference or a summary under 20,000", "plan")
    if "\\u0000" in json.dumps(value) or data_too_deep(value):
        raise BookingError("the plan holds a NUL character or is nested too deep", "plan")
    return value


def _window(start: Any, end: Any, now: datetime, *, started: bool = False) -> list[tuple[str, str]]:
    return window_errors(
        start,
        end,
        now=now,
        max_hours=conf.max_hours(),
        max_ahead_days=conf.max_ahead_days(),
        grace=conf.START_GRACE,
        started=started,
    )


def _refuse_if_gone(spark_ids: list[int], path: str) -> None:
    """Under the Sparks' lock: one deleted since the request named it is a 409
    (a delete holds the same lock, so none goes after this)."""
    if Spark.objects.filter(pk__in=spark_ids).count() != len(set(spark_ids)):
        raise BookingConflict("a Spark of this booking was deleted a moment ago: look at the group again", path=path)


def _clash_check(spark_ids: list[int], parts: list[tuple[datetime, datetime]], exclude: int | None = None) -> None:
    for start, end in parts:
        found = selectors.clashes(spark_ids=spark_ids, start=start, end=end, exclude=exclude)
        if found:
            raise BookingConflict("the Sparks are not free", group_clashes(found, start, end))


def holds_locked(spark_ids: list[int]) -> list[str]:
    """The bookings that hold these Sparks (selectors.holds_on), read under the
    Sparks' booking lock: called in a delete's transaction, a booking being made
    for them has either committed (and is named) or waits until the delete ends."""
    lock_sparks(spark_ids)
    return selectors.holds_on(spark_ids)


def cables_removed(actor: Actor, removed: list[tuple[list[int], str]]) -> None:
    """inventory.services.CABLES_REMOVED: each booking that has not ended and
    holds a Spark of a removed cable records it and its owner is emailed once,
    with every such cable (a switch's delete removes several)."""
    ids = {pk for spark_ids, _ in removed for pk in spark_ids}
    rows = (
        Booking.objects.filter(allocations__spark_id__in=ids, status__in=selectors.LIVE, end__gt=timezone.now())
        .select_related("owner")
        .prefetch_related("allocations__spark")
        .distinct()
        .order_by("pk")
    )
    who = actor.username or "a lab admin"
    for booking in rows:
        held = {a.spark_id for a in booking.allocations.all()}
        lost = [describe for spark_ids, describe in removed if held & set(spark_ids)]
        _log(booking, actor, "cable removed", "; ".join(lost))
        notify.cables_removed(booking, lost, who)


def _exclusion_violation(exc: IntegrityError) -> bool:
    # SQLSTATE 23P01: PostgreSQL's exclusion_violation (the no-overlap rule).
    return getattr(exc.__cause__, "sqlstate", None) == "23P01"


def booking_create(
    *,
    actor: Actor,
    group: Any = None,
    nodes: Any = None,
    start: Any,
    end: Any,
    purpose: Any,
    plan: Any = None,
    confirm: bool = False,
    now: datetime | None = None,
    saved_plan: SavedPlan | None = None,
) -> Booking:
    """Book a group (or a valid part of one) for [start, end). ``saved_plan``:
    the placement plan kept on the plan page; its nodes must be booked."""
    now = now or timezone.now()
    owner = actor.known_user
    if owner is None or not can_book(owner):
        raise NotAllowed("booking needs the member or lab admin role")
    errors = _window(start, end, now)
    try:
        target = selectors.target_resolve(group=group, nodes=nodes)
    except BookingError as exc:
        errors += exc.errors
        target = None
    for check in (lambda: _purpose(purpose), lambda: _plan(plan)):
        try:
            check()
        except BookingError as exc:
            errors += exc.errors
    if target is not None and saved_plan is not None:
        booked = {name for _, name in target.sparks}
        missing = sorted(set(saved_plan.nodes) - booked)
        if missing:
            errors.append(
                ("saved_plan", f"plan {saved_plan.pk} runs on {', '.join(missing)}, which this booking does not hold")
            )
    if errors or target is None:
        raise BookingError(errors)
    health = selectors.node_health(target.ids)
    sick = [f"{name} is {health[pk]} (telemetry)" for pk, name in target.sparks if health.get(pk) in UNHEALTHY]
    if sick and not confirm:
        raise NeedsConfirmation(sick)
    with transaction.atomic():
        # Serialises one person's bookings on PostgreSQL, so the per-person
        # limit holds under concurrent requests too (SQLite already queues).
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        held, limit = selectors.active_count(user=owner, now=now), conf.max_active_per_user()
        if held >= limit:
            raise BookingConflict(
                f"you already hold {held} upcoming or running bookings; the limit is {limit} "
                "(FLEET_BOOKING_MAX_ACTIVE_PER_USER): cancel one first",
                path="start",
            )
        lock_sparks(target.ids)
        _refuse_if_gone(target.ids, "group" if nodes is None else "nodes")
        _clash_check(target.ids, [(start, end)])
        booking = Booking.objects.create(
            owner=owner,
            group=target.group,
            group_name=target.group.name,
            whole_group=target.whole,
            start=start,
            end=end,
            purpose=_purpose(purpose),
            plan=_plan(plan),
            saved_plan=saved_plan,
            status=Booking.Status.ACTIVE if start <= now else Booking.Status.BOOKED,
        )
        try:
            with transaction.atomic():
                Allocation.objects.bulk_create(
                    [Allocation(booking=booking, spark_id=pk, start=start, end=end) for pk in sorted(target.ids)]
                )
        except IntegrityError as exc:
            if not _exclusion_violation(exc):
                raise
            _clash_check(target.ids, [(start, end)])  # names the booking that won the race
            raise BookingConflict("the Sparks were booked a moment ago") from exc
        what = ", ".join(target.names) if not target.whole else f"all of {target.group.name}"
        _log(
            booking,
            actor,
            "book",
            f"{what} {fmt_span(start, end, UTC)}" + (f"; confirmed despite: {'; '.join(sick)}" if sick else ""),
        )
    return booking


def _may_change(actor: Actor, booking: Booking) -> None:
    if booking.owner_id != actor.user_id and not is_admin(actor.user):
        raise NotAllowed(
            f"booking {booking.pk} belongs to {booking.owner.username}; only its owner or a lab admin may change it"
        )


def _locked(booking: Booking) -> Booking:
    return Booking.objects.select_for_update().select_related("owner").get(pk=booking.pk)


def booking_cancel(*, actor: Actor, booking: Booking, now: datetime | None = None) -> Booking:
    """Cancel a booking that has not started, or release a running one now."""
    now = now or timezone.now()
    with transaction.atomic():
        b = _locked(booking)
        _may_change(actor, b)
        state = effective_status(b.status, b.start, b.end, now)
        if state == "cancelled":
            raise BookingConflict(f"booking {b.pk} is already cancelled", path="id")
        if state == "finished":
            raise BookingConflict(f"booking {b.pk} already finished at {b.end:%Y-%m-%d %H:%M} UTC", path="id")
        if state == "booked":
            b.status = Booking.Status.CANCELLED
            b.save(update_fields=["status", "updated_at"])
            Allocation.objects.filter(booking=b).update(live=False)
            _log(b, actor, "cancel")
        else:
            b.status, b.end = Booking.Status.FINISHED, now
            b.save(update_fields=["status", "end", "updated_at"])
            Allocation.objects.filter(booking=b).update(end=now)
            _log(b, actor, "release", f"released at {now:%Y-%m-%d %H:%M} UTC")
        if b.owner_id != actor.user_id:
            admin = actor.username
            transaction.on_commit(lambda: notify.cancelled_by_admin(b, admin))
    return b


def booking_update(
    *,
    actor: Actor,
    booking: Booking,
    start: Any = None,
    end: Any = None,
    purpose: Any = None,
    plan: Any = None,
    now: datetime | None = None,
) -> Booking:
    """Move a booking's start (before it begins) or end, or change its purpose
    or plan. Only the time added is checked for clashes: a booking that
    maintenance overlaps can still be shortened."""
    now = now or timezone.now()
    with transaction.atomic():
        b = _locked(booking)
        _may_change(actor, b)
        state = effective_status(b.status, b.start, b.end, now)
        if state in ("cancelled", "finished"):
            raise BookingConflict(f"booking {b.pk} is {state}; book again instead", path="id")
        new_start, new_end = start or b.start, end or b.end
        errors: list[tuple[str, str]] = []
        if state == "active" and start is not None and start != b.start:
            errors.append(("start", f"booking {b.pk} has started; only its end can move"))
        errors += _window(new_start, new_end, now, started=state == "active" and new_start == b.start)
        fields = ["updated_at"]
        for name, value, check in (("purpose", purpose, _purpose), ("plan", plan, _plan)):
            if value is not None:
                try:
                    setattr(b, name, check(value))
                    fields.append(name)
                except BookingError as exc:
                    errors += exc.errors
        if errors:
            raise BookingError(errors)
        if (new_start, new_end) != (b.start, b.end):
            ids = sorted(Allocation.objects.filter(booking=b).values_list("spark_id", flat=True))
            added = [(s, e) for s, e in ((new_start, min(b.start, new_end)), (max(b.end, new_start), new_end)) if e > s]
            lock_sparks(ids)
            _clash_check(ids, added, exclude=b.pk)
            try:
                with transaction.atomic():
                    for pk in ids:  # one row at a time, in Spark order: no deadlock between extensions
                        Allocation.objects.filter(booking=b, spark_id=pk).update(start=new_start, end=new_end)
            except IntegrityError as exc:
                if not _exclusion_violation(exc):
                    raise
                _clash_check(ids, added, exclude=b.pk)
                raise BookingConflict("the Sparks were booked a moment ago") from exc
            detail = f"{fmt_span(b.start, b.end, UTC)} → {fmt_span(new_start, new_end, UTC)}"
            action = "extend" if added else "shorten"
            if new_end != b.end:
                b.reminded_at = None  # a new end earns its own reminder
                fields.append("reminded_at")
            b.start, b.end = new_start, new_end
            fields += ["start", "end"]
            _log(b, actor, action, detail)
        elif len(fields) > 1:
            _log(b, actor, "edit", ", ".join(fields[1:]))
        b.save(update_fields=fields)
    return b


# ---------------------------------------------------------------- maintenance


def _maintenance_sparks(group: Any, nodes: Any) -> tuple[Any, list[int]]:
    """Maintenance may take any Sparks, even one node of a ring (a cable swap)."""
    if nodes:
        if not isinstance(nodes, list | tuple) or not all(isinstance(n, str) for n in nodes):
            raise BookingError("give a list of Spark names", "nodes")
        known = dict(Spark.objects.filter(name__in=nodes).values_list("name", "id"))
        missing = [(f"nodes[{i}]", f"no Spark is named {n!r}") for i, n in enumerate(nodes) if n not in known]
        if missing:
            raise BookingError(missing)
        if group in (None, ""):
            return None, sorted(set(known.values()))
        row = selectors.group_find(group)
        members = set(NodeGroupMember.objects.filter(group=row).values_list("spark_id", flat=True))
        outside = [
            (f"nodes[{i}]", f"{n} is not a Spark of {row.name}") for i, n in enumerate(nodes) if known[n] not in members
        ]
        if outside:
            # the window would say "group-spark-01: spark-10"; name the Sparks alone, or Sparks of the group
            raise BookingError(outside)
        return row, sorted(set(known.values()))
    row = selectors.group_find(group)
    return row, sorted(NodeGroupMember.objects.filter(group=row).values_list("spark_id", flat=True))


def maintenance_create(
    *,
    actor: Actor,
    group: Any = None,
    nodes: Any = None,
    start: Any,
    end: Any,
    reason: Any,
    now: datetime | None = None,
) -> MaintenanceWindow:
    """Plan maintenance. It may overlap bookings: they are marked and their
    owners emailed once the window is saved."""
    now = now or timezone.now()
    if not is_admin(actor.user):
        raise NotAllowed("planning maintenance needs the lab admin role")
    errors = window_errors(start, end, now=now, max_hours=24 * 366, max_ahead_days=366, grace=conf.START_GRACE)
    if not isinstance(reason, str) or not reason.strip() or len(reason.strip()) > 200:
        errors.append(("reason", "say why, in under 200 characters"))
    elif text_problem(reason):
        errors.append(("reason", f"the reason {text_problem(reason)}"))
    row, spark_ids = None, list[int]()
    try:
        row, spark_ids = _maintenance_sparks(group, nodes)
    except BookingError as exc:
        errors += exc.errors
    if errors:
        raise BookingError(errors)
    if not spark_ids:
        raise BookingError("the group has no Sparks", "group")
    with transaction.atomic():
        # The bookings' locks: a booking racing this window either commits
        # first (and is marked below) or waits and then sees the window.
        lock_sparks(spark_ids)
        for same in MaintenanceWindow.objects.filter(start=start, end=end).prefetch_related("sparks"):
            if sorted(s.pk for s in same.sparks.all()) == sorted(spark_ids):
                # a second click or a script run twice: its owners would be emailed twice
                raise BookingConflict(f"maintenance {same.pk} already holds these Sparks at these times", path="start")
        window = MaintenanceWindow.objects.create(
            start=start, end=end, reason=reason.strip(), group=row, created_by=actor.known_user
        )
        window.sparks.set(spark_ids)
        hit = list(
            selectors.bookings_list(start=start, end=end, statuses=selectors.LIVE)
            .filter(allocations__spark_id__in=spark_ids, allocations__live=True)
            .distinct()
        )
        window.bookings.set(hit)
        for b in hit:
            _log(b, actor, "maintenance", f"maintenance {window.pk} ({window.reason}) overlaps")
        transaction.on_commit(lambda: notify.maintenance_planned(window, hit))
    return window


def maintenance_delete(*, actor: Actor, window: MaintenanceWindow) -> None:
    if not is_admin(actor.user):
        raise NotAllowed("lifting maintenance needs the lab admin role")
    with transaction.atomic():
        for b in window.bookings.all():
            _log(b, actor, "maintenance", f"maintenance {window.pk} ({window.reason}) lifted")
        window.delete()


# ---------------------------------------------------------------- the clock


def bookings_tick(*, now: datetime | None = None) -> dict[str, int]:
    """Start and finish bookings on time; remind owners once before the end."""
    now = now or timezone.now()
    started = Booking.objects.filter(status=Booking.Status.BOOKED, start__lte=now, end__gt=now).update(
        status=Booking.Status.ACTIVE
    )
    finished = Booking.objects.filter(status__in=selectors.LIVE, end__lte=now).update(status=Booking.Status.FINISHED)
    due = Booking.objects.filter(
        status__in=selectors.LIVE, reminded_at=None, end__gt=now, end__lte=now + conf.remind_before()
    )
    reminded = 0
    for booking in selectors.bookings_list().filter(pk__in=due.values("pk")):
        # Claiming the row first makes "once" hold when two ticks overlap.
        if Booking.objects.filter(pk=booking.pk, reminded_at=None).update(reminded_at=now):
            reminded += notify.ending_soon(booking)
    return {"started": started, "finished": finished, "reminded": reminded}


# ---------------------------------------------------------------- preferences


def preference_set(*, user: User, time_zone: object) -> str:
    name = time_zone.strip() if isinstance(time_zone, str) else ""
    if not name or selectors.zone(name).key != name:
        raise BookingError(f"unknown time zone {time_zone!r}; use an IANA name such as Europe/Berlin", "time_zone")
    Preference.objects.update_or_create(user=user, defaults={"time_zone": name})
    user.__dict__.pop(selectors.TZ_CACHE, None)
    return name
