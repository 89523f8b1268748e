"""What to send about alerts and to whom; delivering is the tasks' job.

``alerts_fan_out(opened, closed)`` runs in a Celery task after a poll stored
its results (never inside the poll): it decides, per alert event, whether
the quiet period holds it back, who is subscribed (by group and severity),
which webhooks want it, and records one ``Delivery`` per message. The caller
queues the deliveries once the records are committed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from inventory.models import NodeGroupMember
from notifications import conf
from notifications.models import SEVERITIES, Delivery, Subscription
from telemetry.models import Alert

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def severity_at_least(severity: str, minimum: str) -> bool:
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return rank.get(severity, len(SEVERITIES)) >= rank.get(minimum, 0)


@dataclass
class FanOut:
    deliveries: list[tuple[int, str]] = field(default_factory=list)  # (id, channel) to queue
    quiet: int = 0


def _node_url(alert: Alert) -> str:
    return f"{conf.site_url()}/sparks/{alert.spark.name}/telemetry/"


def email_text(alert: Alert, event: str) -> tuple[str, str]:
    verb = "OPEN" if event == "opened" else "closed"
    subject = f"[Spark Fleet] {alert.severity} {verb}: {alert.code} on {alert.spark.name}"
    lines = [
        f"{alert.code} ({alert.severity}) {'opened' if event == 'opened' else 'closed'} on {alert.spark.name}.",
        "",
        alert.message,
        "",
        f"Started: {alert.started_at:%Y-%m-%d %H:%M:%S %Z}",
    ]
    if alert.ended_at is not None:
        lines.append(f"Ended:   {alert.ended_at:%Y-%m-%d %H:%M:%S %Z}")
    lines += ["", f"Node: {_node_url(alert)}", "", "Change what you receive on your profile page."]
    return subject, "\n".join(lines) + "\n"


# What a closing says recovered, by code (the alert's own message says what failed).
RECOVERED = {
    "unreachable": "answers its polls again",
    "stale": "sends samples again",
    "host-key-mismatch": "presents its accepted SSH host key again, or a new one was accepted",
    "host-key-unknown": "has an accepted SSH host key",
    "link-down": "has every cabled twin up again",
    "single-half": "has both twins of the port up and addressed again (200 Gb/s)",
    "link-negotiated-100g": "negotiates 200 Gb/s again",
    "twins-same-subnet": "has its twins in subnets of their own again",
    "mtu-mismatch": "has the same MTU at both ends of the link again",
    "mtu-not-9000": "runs its cabled twins at MTU 9000 again",
    "rdma-port-down": "has its RoCE port ACTIVE again",
    "memory-pressure": "has unified memory available again",
    "cabling-drift": "sees the neighbours the inventory says again",
    "parse-error": "answers in a form the poller reads again",
}


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 1:
        return "under a minute"
    if minutes < 120:
        return f"{minutes} min"
    return f"{minutes / 60:.1f} h"


def recovered_text(alert: Alert) -> str:
    """A closing in words: what recovered, on what, after how long."""
    what = RECOVERED.get(alert.code, f"is clear of {alert.code}")
    about = [o for o in alert.about if o != alert.spark.name]
    where = f" ({', '.join(about)})" if about else ""
    took = ""
    if alert.ended_at is not None:
        took = f" after {_duration((alert.ended_at - alert.started_at).total_seconds())}"
    return f"{alert.spark.name}{where} {what}{took}; {alert.code} ({alert.severity}) closed."


def webhook_json(alert: Alert, event: str, fmt: str) -> str:
    body: dict[str, Any]
    if fmt == "slack":
        icon = {"critical": ":red_circle:", "warning": ":large_orange_circle:"}.get(alert.severity, ":white_circle:")
        if event == "closed":
            text = f":white_check_mark: *{alert.spark.name}*: {recovered_text(alert)}"
        else:
            text = f"{icon} *{alert.code}* {event} on *{alert.spark.name}* ({alert.severity}): {alert.message}"
        body = {
            "text": text,
            "blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": text}},
                {"type": "context", "elements": [{"type": "mrkdwn", "text": f"<{_node_url(alert)}|Open the node>"}]},
            ],
        }
    else:
        body = {
            "event": event,
            "alert": {
                "id": alert.pk,
                "node": alert.spark.name,
                "code": alert.code,
                "severity": alert.severity,
                "message": alert.message,
                "about": list(alert.about),
                "started_at": alert.started_at.isoformat(),
                "ended_at": alert.ended_at.isoformat() if alert.ended_at else None,
            },
            "url": _node_url(alert),
        }
    return json.dumps(body, sort_keys=True)


def _groups_of(spark_ids: Iterable[int]) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for spark_id, group_id in NodeGroupMember.objects.filter(
        spark_id__in=list(spark_ids), group__retired_at__isnull=True
    ).values_list("spark_id", "group_id"):
        out.setdefault(spark_id, set()).add(group_id)
    return out


def _group_names_of(spark_ids: Iterable[int]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for spark_id, name in NodeGroupMember.objects.filter(
        spark_id__in=list(spark_ids), group__retired_at__isnull=True
    ).values_list("spark_id", "group__name"):
        out.setdefault(spark_id, set()).add(name)
    return out


def alerts_fan_out(*, opened: Iterable[int], closed: Iterable[int]) -> FanOut:
    """Record the deliveries for these alert events; a fixed number of queries
    for any number of alerts (one chunk's worth arrives at once)."""
    now = timezone.now()
    result = FanOut()
    opened, closed = list(opened), list(closed)
    alerts = {a.pk: a for a in Alert.objects.select_related("spark").filter(pk__in=opened + closed)}
    if not alerts:
        return result
    quiet_since = now - timedelta(seconds=conf.quiet_s())
    # The quiet period: an alert key announced recently is not announced again.
    open_keys = {(a.spark_id, a.code, a.objects_key) for pk, a in alerts.items() if pk in opened}
    recent = set()
    if open_keys:
        recent_q = Q()
        for spark_id, code, key in open_keys:
            recent_q |= Q(alert__spark_id=spark_id, alert__code=code, alert__objects_key=key)
        recent = set(
            Delivery.objects.filter(recent_q, event="opened", created_at__gte=quiet_since)
            .exclude(channel=Delivery.Channel.NONE)
            .exclude(alert_id__in=opened)
            .values_list("alert__spark_id", "alert__code", "alert__objects_key")
        )
    # A closing is announced only when its opening was.
    announced = set(
        Delivery.objects.filter(alert_id__in=closed, event="opened")
        .exclude(channel=Delivery.Channel.NONE)
        .values_list("alert_id", flat=True)
    )
    subscriptions = list(
        Subscription.objects.select_related("user").exclude(user__email="").filter(user__is_active=True)
    )
    groups = _groups_of(a.spark_id for a in alerts.values())
    group_names = _group_names_of(a.spark_id for a in alerts.values())
    hooks = conf.webhooks()
    records: list[Delivery] = []
    events = [(pk, "opened") for pk in opened if pk in alerts] + [(pk, "closed") for pk in closed if pk in alerts]
    for pk, event in events:
        alert = alerts[pk]
        if event == "opened" and (alert.spark_id, alert.code, alert.objects_key) in recent:
            records.append(Delivery(channel=Delivery.Channel.NONE, target="", event=event, alert=alert,
                                    state=Delivery.State.QUIET))  # fmt: skip
            result.quiet += 1
            continue
        if event == "closed" and pk not in announced:
            continue
        subject, text = email_text(alert, event)
        emailed = set()
        for sub in subscriptions:
            if sub.user.email in emailed or not severity_at_least(alert.severity, sub.min_severity):
                continue
            if sub.group_id is not None and sub.group_id not in groups.get(alert.spark_id, set()):
                continue
            emailed.add(sub.user.email)
            records.append(Delivery(channel=Delivery.Channel.EMAIL, target=sub.user.email, event=event, alert=alert,
                                    subject=subject, body=text))  # fmt: skip
        for hook in hooks:
            if not severity_at_least(alert.severity, hook.min_severity):
                continue
            if hook.groups and not set(hook.groups) & group_names.get(alert.spark_id, set()):
                continue
            records.append(Delivery(channel=Delivery.Channel.WEBHOOK, target=hook.name, event=event, alert=alert,
                                    subject=hook.format, body=webhook_json(alert, event, hook.format)))  # fmt: skip
    with transaction.atomic():
        made = Delivery.objects.bulk_create(records)
    result.deliveries = [(d.pk, d.channel) for d in made if d.state == Delivery.State.QUEUED]
    return result


def email_queue(*, to: str, subject: str, body: str, event: str = "booking") -> Delivery:
    """Record an email for the queue (booking emails); the caller queues its task after commit."""
    return Delivery.objects.create(channel=Delivery.Channel.EMAIL, target=to, event=event, subject=subject, body=body)


def subscription_add(*, user: User, group_id: int | None, min_severity: str, email: str = "") -> Subscription:
    """Add or change the user's subscription for a group (None: every Spark),
    and the address it goes to when ``email`` is given. Everything is checked
    before anything is saved: a refused subscription leaves the address as it
    was. Raises ValueError naming the field."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    from inventory.models import NodeGroup

    email = email.strip()
    if email:
        longest = user._meta.get_field("email").max_length or 254
        try:
            validate_email(email)
        except ValidationError:
            raise ValueError("email: not an email address") from None
        if len(email) > longest:
            raise ValueError(f"email: at most {longest} characters")
    if min_severity not in SEVERITIES:
        raise ValueError(f"min_severity: one of {', '.join(SEVERITIES)}")
    if group_id is not None and not NodeGroup.objects.filter(pk=group_id, retired_at__isnull=True).exists():
        raise ValueError("group: no such live group")
    if not (email or user.email):
        raise ValueError("email: add an email address to your account first")
    with transaction.atomic():
        if email and email != user.email:
            user.email = email
            user.save(update_fields=["email"])
        sub, _ = Subscription.objects.update_or_create(
            user=user, group_id=group_id, defaults={"min_severity": min_severity}
        )
    return sub
