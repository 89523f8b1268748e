"""Alerts people trust: one outage is one alert (a Spark that does not answer
is not also "stale"), a "closed" never reaches a recipient before its
"opened" (the closing's task waits while the opening is retried; a real
worker's retries: tests/notifications/test_alert_delivery.py), Slack's
closing says what recovered, emails carry a
Message-ID in FLEET_SITE_URL's domain (the closing answering the opening),
and webhook bodies are signed with the webhook's own secret (calendar UIDs:
tests/bookings/test_feeds.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from notifications import signing
from notifications.models import Delivery
from simfleet.simulator import make_nodes
from telemetry import services
from telemetry.models import Alert
from tests.notifications.receivers import http_receiver, smtp_server
from tests.telemetry.stored import register, store_round

pytestmark = pytest.mark.django_db

SECRET = "whsec-0123456789abcdef-trust"


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """Store a round and run what its commit queues (the fan-out, then each delivery)."""

    def store(nodes, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return store_round(nodes, **kwargs)

    return store


@pytest.fixture
def fleet():
    nodes = make_nodes(2, prefix="t-")
    register(nodes)
    store_round(nodes)
    return nodes


def codes_open(name: str) -> set[str]:
    return set(Alert.objects.filter(spark__name=name, ended_at__isnull=True).values_list("code", flat=True))


def test_an_outage_raises_unreachable_alone_however_long_it_lasts(fleet, settings):
    settings.FLEET_POLL_INTERVAL_S = 30
    start = datetime.now(UTC)
    for minute in range(1, 8):  # seven minutes down: fourteen intervals, far past the stale threshold (three)
        store_round(fleet, down={"t-01"}, now=start + timedelta(minutes=minute))
        services.stale_check(now=start + timedelta(minutes=minute, seconds=10))
    assert codes_open("t-01") == {"unreachable"}
    assert codes_open("t-02") == set()
    assert not Alert.objects.filter(code="stale").exists()


def test_a_spark_nobody_polls_any_more_is_still_stale(fleet, settings):
    settings.FLEET_POLL_INTERVAL_S = 30
    services.stale_check(now=datetime.now(UTC) + timedelta(minutes=3))
    assert codes_open("t-01") == {"stale"} and codes_open("t-02") == {"stale"}


def hook(settings, url, fmt="json", secret=SECRET):
    entry = {"name": "ops", "url": f"{url}/{fmt}", "format": fmt, "min_severity": "warning"}
    if secret:
        entry["secret"] = secret
    settings.FLEET_ALERT_WEBHOOKS = json.dumps([entry])


def test_signed_bodies_verify_with_the_webhooks_secret_and_only_with_it(fleet, settings, commit):
    with http_receiver() as receiver:
        hook(settings, receiver.url)
        commit(fleet, down={"t-01"})
    ((path, body, headers, _),) = receiver.raw
    assert path == "/json" and json.loads(body)["event"] == "opened"
    assert signing.verify(SECRET, body, headers)
    assert headers[signing.SIGNATURE].startswith("v1=") and headers[signing.DELIVERY].isdigit()
    assert not signing.verify("another-secret-0123456789", body, headers)
    assert not signing.verify(SECRET, body.replace(b"opened", b"closed"), headers)
    assert not signing.verify(SECRET, body, headers, now=int(headers[signing.TIMESTAMP]) + 3600)  # a replay


def test_a_webhook_without_a_secret_is_sent_unsigned(fleet, settings, commit):
    with http_receiver() as receiver:
        hook(settings, receiver.url, secret="")
        commit(fleet, down={"t-01"})
    ((_, _, headers, _),) = receiver.raw
    assert signing.SIGNATURE not in headers and signing.DELIVERY in headers


def test_slacks_closing_says_what_recovered_not_what_failed(fleet, settings, commit):
    with http_receiver() as receiver:
        hook(settings, receiver.url, fmt="slack")
        commit(fleet, down={"t-01"})
        commit(fleet, now=datetime.now(UTC) + timedelta(minutes=12))
    opened, closed = (body["text"] for body in receiver.bodies("/slack"))
    assert "unreachable" in opened and "check its power" in opened
    assert closed.startswith(":white_check_mark: *t-01*: t-01 answers its polls again after 12 min")
    assert closed.endswith("unreachable (critical) closed.")
    assert "check its power" not in closed


def test_emails_carry_a_message_id_of_the_sites_domain_and_the_closing_answers_the_opening(fleet, settings, commit):
    from core.roles import ADMIN
    from notifications.models import Subscription
    from tests.conftest import make_user

    settings.FLEET_SITE_URL = "https://fleet.lab.example.org:8443/"
    admin = make_user("admin1", ADMIN)
    admin.email = "admin1@example.org"
    admin.save()
    Subscription.objects.create(user=admin, group=None, min_severity="critical")
    with smtp_server(settings) as box:
        commit(fleet, down={"t-01"})
        commit(fleet, now=datetime.now(UTC) + timedelta(minutes=5))
    opened, closed = box.to("admin1@example.org")
    assert opened["Message-ID"].endswith("@fleet.lab.example.org>") and "localhost" not in opened["Message-ID"]
    assert closed["In-Reply-To"] == opened["Message-ID"] == closed["References"]
    assert closed["Message-ID"] != opened["Message-ID"]


def test_a_closing_whose_opening_was_refused_is_not_sent(fleet, settings, commit):
    with http_receiver() as receiver:
        hook(settings, receiver.url)
        receiver.failures = [400]  # refused for good: no retry
        commit(fleet, down={"t-01"})
        commit(fleet, now=datetime.now(UTC) + timedelta(minutes=5))
    assert [status for *_, status in receiver.raw] == [400]
    closed = Delivery.objects.get(event="closed", target="ops")
    assert (closed.state, closed.last_error) == ("failed", "not sent: its opening never reached the recipient")


class Task:
    """What ``notifications.tasks._attempt`` reads of the Celery task running it: the
    retries so far, and ``retry`` (which Celery turns into a new message with a countdown)."""

    def __init__(self, retries: int = 0) -> None:
        self.request = type("Request", (), {"retries": retries})()
        self.countdowns: list[float] = []

    def retry(self, exc=None, countdown=0.0, max_retries=None):
        from celery.exceptions import Retry

        self.countdowns.append(countdown)
        return Retry(exc=exc, when=countdown)


def test_a_closing_waits_while_its_opening_is_retried_then_follows_it(fleet, settings, commit):
    """The receiver fails the opening; the alert closes meanwhile; the closing's task waits
    (a retry with the opening's doubling countdown, nothing sent), and goes once the opening got through."""
    from celery.exceptions import Retry

    from notifications import tasks

    settings.FLEET_NOTIFY_RETRY_S = 10
    with http_receiver() as receiver:
        hook(settings, receiver.url)
        receiver.failures = [503] * 20  # the opening keeps failing while its retries are still to come
        with pytest.MonkeyPatch.context() as mp:
            # The deliveries are recorded but not run: this test runs them, step by step.
            mp.setattr(tasks, "queue", lambda deliveries: None)
            commit(fleet, down={"t-01"})
            commit(fleet, now=datetime.now(UTC) + timedelta(minutes=1))
        opened = Delivery.objects.get(event="opened", target="ops")
        closed = Delivery.objects.get(event="closed", target="ops")
        first = Task()
        with pytest.raises(Retry):
            raise tasks._attempt(opened, first, tasks._webhook)
        assert Delivery.objects.get(pk=opened.pk).state == "queued"
        waiting = Task(retries=0)
        with pytest.raises(Retry):
            raise tasks._attempt(Delivery.objects.get(pk=closed.pk), waiting, tasks._webhook)
        assert waiting.countdowns == [10.0] and len(receiver.raw) == 1  # nothing sent for the closing
        assert Delivery.objects.get(pk=closed.pk).attempts == 0  # waiting is not an attempt
        receiver.failures = []
        assert tasks._attempt(Delivery.objects.get(pk=opened.pk), Task(retries=1), tasks._webhook) == "sent"
        assert tasks._attempt(Delivery.objects.get(pk=closed.pk), Task(retries=1), tasks._webhook) == "sent"
    delivered = [(json.loads(body)["event"], status) for _, body, _, status in receiver.raw]
    assert delivered == [("opened", 503), ("opened", 200), ("closed", 200)]
    assert Delivery.objects.get(pk=closed.pk).attempts == 1
