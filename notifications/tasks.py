"""Celery tasks: the fan-out after a poll, and one delivery per message with retries.

A delivery that fails for a passing reason (mail server or receiver down, a
timeout, HTTP 5xx or 429) is retried with a doubling delay; a refusal that
will not change (HTTP 4xx, a missing webhook) fails at once. Each attempt
is counted on the ``Delivery`` row, whose content never changes between
attempts. A delivery already sent is never sent again (a redelivered task).
A "closed" waits for its "opened" to the same recipient: it is never
delivered first, and not at all if the opening never got through. Emails
carry a Message-ID in FLEET_SITE_URL's domain (a closing answers its
opening's); webhooks with a secret are signed (``notifications.signing``).
"""

from __future__ import annotations

import logging
import smtplib
import urllib.error
import urllib.request
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.core.mail import EmailMessage
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from core import config
from core.outage import service_down
from notifications import conf, services, signing
from notifications.models import Delivery

log = logging.getLogger(__name__)


class Passing(Exception):
    """A failure worth retrying."""


def _countdown(retries: int) -> float:
    backoff: float = conf.retry_base_s() * (2**retries)
    return min(600.0, backoff)


def queue(deliveries: list[tuple[int, str]]) -> None:
    """Queue the deliveries' tasks, (id, channel) each, once the transaction
    that recorded them commits. A broker that is down fails nothing: the
    request or task that made the messages has done its work, and
    ``resend_unsent`` queues them again once the broker is back."""

    def send() -> None:
        for pk, channel in deliveries:
            try:
                (deliver_email if channel == Delivery.Channel.EMAIL else deliver_webhook).delay(pk)
            except Exception as exc:
                if service_down(exc) is None:
                    raise
                log.warning("could not queue delivery %s (the broker is down); it is sent again later", pk)

    transaction.on_commit(send)


UNSENT_AFTER_S = 300


# Every few minutes (beat): deliveries recorded but never tried, older than
# UNSENT_AFTER_S (their message never reached the broker), are queued again.
@shared_task(name="notifications.resend_unsent", ignore_result=True, expires=240)
def resend_unsent(limit: int = 500) -> int:
    cutoff = timezone.now() - timedelta(seconds=UNSENT_AFTER_S)
    unsent = list(
        Delivery.objects.filter(state=Delivery.State.QUEUED, attempts=0, created_at__lt=cutoff)
        .order_by("created_at")
        .values_list("pk", "channel")[:limit]
    )
    queue(unsent)
    return len(unsent)


@shared_task(
    name="notifications.alerts_changed",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    max_retries=5,
    ignore_result=True,
)
def alerts_changed(opened: list[int], closed: list[int]) -> dict[str, Any]:
    with transaction.atomic():
        result = services.alerts_fan_out(opened=opened, closed=closed)
        queue(result.deliveries)
    return {"deliveries": len(result.deliveries), "quiet": result.quiet}


def _opening_of(delivery: Delivery) -> Delivery | None:
    """The "opened" message to the same recipient that a "closed" one follows."""
    if delivery.event != "closed" or delivery.alert_id is None:
        return None
    return (
        Delivery.objects.filter(
            alert_id=delivery.alert_id, event="opened", channel=delivery.channel, target=delivery.target
        )
        .order_by("pk")
        .first()
    )


def _attempt(delivery: Delivery, task: Any, send: Any) -> str:
    if delivery.state in (Delivery.State.SENT, Delivery.State.FAILED):
        return str(delivery.state)
    opening = _opening_of(delivery)
    if opening is not None and opening.state == Delivery.State.QUEUED:
        # A "closed" never arrives before its "opened": wait while the opening
        # is still being retried (on the same doubling schedule, so it has
        # finished by the time these waits run out).
        waits = task.request.retries or 0
        if waits > conf.max_retries() + 2:
            delivery.state, delivery.last_error = Delivery.State.FAILED, "not sent: its opening is still queued"
            delivery.save(update_fields=["state", "last_error"])
            return "failed"
        raise task.retry(countdown=_countdown(waits), max_retries=None)
    if opening is not None and opening.state == Delivery.State.FAILED:
        delivery.state, delivery.last_error = Delivery.State.FAILED, "not sent: its opening never reached the recipient"
        delivery.save(update_fields=["state", "last_error"])
        return "failed"
    delivery.attempts += 1
    try:
        send(delivery)
    except Passing as exc:
        delivery.last_error = str(exc)[:300]
        retries = delivery.attempts - 1  # real attempts only: waiting for an opening is not one
        if retries >= conf.max_retries():
            delivery.state = Delivery.State.FAILED
            delivery.save(update_fields=["attempts", "last_error", "state"])
            return "failed"
        delivery.save(update_fields=["attempts", "last_error"])
        raise task.retry(exc=exc, countdown=_countdown(retries), max_retries=None) from exc
    except ValueError as exc:  # will not get better by waiting
        delivery.state, delivery.last_error = Delivery.State.FAILED, str(exc)[:300]
        delivery.save(update_fields=["attempts", "last_error", "state"])
        return "failed"
    delivery.state, delivery.sent_at, delivery.last_error = Delivery.State.SENT, timezone.now(), ""
    delivery.save(update_fields=["attempts", "state", "sent_at", "last_error"])
    return "sent"


def message_id(delivery_id: int) -> str:
    """One Message-ID per delivery, the same on every retry, in FLEET_SITE_URL's domain."""
    return f"<spark-fleet-delivery-{delivery_id}@{config.site_host()}>"


def _email(delivery: Delivery) -> None:
    headers = {"Message-ID": message_id(delivery.pk)}
    opening = _opening_of(delivery)
    if opening is not None:  # the closing answers the opening: mail clients show them as one thread
        headers["In-Reply-To"] = headers["References"] = message_id(opening.pk)
    message = EmailMessage(delivery.subject, delivery.body, None, [delivery.target], headers=headers)
    try:
        message.send()
    except (OSError, smtplib.SMTPException) as exc:
        raise Passing(f"mail server: {exc}") from exc


def _webhook(delivery: Delivery) -> None:
    hook = next((h for h in conf.webhooks() if h.name == delivery.target), None)
    if hook is None:
        raise ValueError(f"webhook {delivery.target!r} is no longer configured")
    body = delivery.body.encode()
    request = urllib.request.Request(  # noqa: S310 - http(s) only, checked in conf.webhooks
        hook.url,
        data=body,
        headers={
            "Content-Type": "application/json",
            "User-Agent": "spark-fleet-alerts",
            **signing.headers(hook.secret, body, delivery=delivery.pk),
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            response.read(1024)
    except urllib.error.HTTPError as exc:
        if exc.code >= 500 or exc.code == 429:
            raise Passing(f"HTTP {exc.code} from webhook {hook.name}") from exc
        raise ValueError(f"HTTP {exc.code} from webhook {hook.name}: refused") from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise Passing(f"webhook {hook.name} unreachable: {reason}") from exc  # the URL itself is never logged


@shared_task(name="notifications.deliver_email", bind=True, acks_late=True, ignore_result=True, max_retries=None)
def deliver_email(self: Any, delivery_id: int) -> str:
    delivery = Delivery.objects.filter(pk=delivery_id).first()
    return "gone" if delivery is None else _attempt(delivery, self, _email)


@shared_task(name="notifications.deliver_webhook", bind=True, acks_late=True, ignore_result=True, max_retries=None)
def deliver_webhook(self: Any, delivery_id: int) -> str:
    delivery = Delivery.objects.filter(pk=delivery_id).first()
    return "gone" if delivery is None else _attempt(delivery, self, _webhook)
