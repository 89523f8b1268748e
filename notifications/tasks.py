"""Celery tasks: the fan-out after a poll, and one delivery per message with retries.

A delivery that fails for a passing reason (mail server or receiver down, a
timeout, HTTP 5xx or 429) is retried with a doubling delay; a refusal that
will not change (HTTP 4xx, a missing webhook) fails at once. Each attempt
is counted on the ``Delivery`` row, whose content never changes between
attempts. A delivery already sent is never sent again (a redelivered task).
"""

from __future__ import annotations

import smtplib
import urllib.error
import urllib.request
from typing import Any

from celery import shared_task
from django.core.mail import send_mail
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from notifications import conf, services
from notifications.models import Delivery


class Passing(Exception):
    """A failure worth retrying."""


def _countdown(retries: int) -> float:
    return min(600.0, conf.retry_base_s() * (2**retries))


def queue(deliveries: list[tuple[int, str]]) -> None:
    """Queue the deliveries' tasks, (id, channel) each, once the transaction that recorded them commits."""

    def send() -> None:
        for pk, channel in deliveries:
            (deliver_email if channel == Delivery.Channel.EMAIL else deliver_webhook).delay(pk)

    transaction.on_commit(send)


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


def _attempt(delivery: Delivery, task: Any, send: Any) -> str:
    if delivery.state in (Delivery.State.SENT, Delivery.State.FAILED):
        return str(delivery.state)
    delivery.attempts += 1
    try:
        send(delivery)
    except Passing as exc:
        delivery.last_error = str(exc)[:300]
        retries = task.request.retries or 0
        if retries >= conf.max_retries():
            delivery.state = Delivery.State.FAILED
            delivery.save(update_fields=["attempts", "last_error", "state"])
            return "failed"
        delivery.save(update_fields=["attempts", "last_error"])
        raise task.retry(exc=exc, countdown=_countdown(retries), max_retries=conf.max_retries()) from exc
    except ValueError as exc:  # will not get better by waiting
        delivery.state, delivery.last_error = Delivery.State.FAILED, str(exc)[:300]
        delivery.save(update_fields=["attempts", "last_error", "state"])
        return "failed"
    delivery.state, delivery.sent_at, delivery.last_error = Delivery.State.SENT, timezone.now(), ""
    delivery.save(update_fields=["attempts", "state", "sent_at", "last_error"])
    return "sent"


def _email(delivery: Delivery) -> None:
    try:
        send_mail(delivery.subject, delivery.body, None, [delivery.target])
    except (OSError, smtplib.SMTPException) as exc:
        raise Passing(f"mail server: {exc}") from exc


def _webhook(delivery: Delivery) -> None:
    hook = next((h for h in conf.webhooks() if h.name == delivery.target), None)
    if hook is None:
        raise ValueError(f"webhook {delivery.target!r} is no longer configured")
    request = urllib.request.Request(  # noqa: S310 - http(s) only, checked in conf.webhooks
        hook.url,
        data=delivery.body.encode(),
        headers={"Content-Type": "application/json", "User-Agent": "spark-fleet-alerts"},
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
