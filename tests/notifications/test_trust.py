"""Alerts people trust: one outage is one alert (a Spark that does not answer
is not also "stale"), a "closed" never reaches a recipient before its
"opened" (through a real broker and worker, with the receiver failing the
opening for a while), Slack's closing says what recovered, emails carry a
Message-ID in FLEET_SITE_URL's domain (the closing answering the opening),
and webhook bodies are signed with the webhook's own secret (calendar UIDs:
tests/bookings/test_feeds.py)."""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from notifications import signing
from notifications.models import Delivery
from telemetry import services
from telemetry.models import Alert
from telemetry.simulator import make_nodes
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


@pytest.mark.django_db(transaction=True)
def test_through_a_real_worker_a_closing_waits_for_its_opening(settings, real_broker):
    """The receiver fails the opening three times; the alert closes meanwhile; it still gets opened, then closed."""
    from celery.contrib.testing.worker import start_worker

    from fleet.celery import app

    settings.FLEET_NOTIFY_RETRY_S = 0.4
    queue = f"trust-test-{uuid.uuid4().hex[:8]}"
    routes = app.conf.task_routes

    def reroute(table):
        app.conf.task_routes = table
        app.amqp.flush_routes()
        app.amqp.__dict__.pop("router", None)

    reroute({"notifications.*": {"queue": queue}})
    try:
        nodes = make_nodes(2, prefix="w-")
        register(nodes)
        store_round(nodes)
        with (
            http_receiver() as receiver,
            start_worker(app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=15),
        ):
            hook(settings, receiver.url)
            receiver.failures = [503, 503, 503]
            store_round(nodes, down={"w-01"})
            while not receiver.raw:  # the first failed attempt has been made
                time.sleep(0.05)
            store_round(nodes, now=datetime.now(UTC) + timedelta(minutes=1))  # recovered: the closing is queued
            deadline = time.monotonic() + 30
            while Delivery.objects.filter(state="queued").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
        delivered = [(json.loads(body)["event"], status) for _, body, _, status in receiver.raw]
        assert delivered == [("opened", 503), ("opened", 503), ("opened", 503), ("opened", 200), ("closed", 200)]
        closed = Delivery.objects.get(event="closed")
        assert (closed.state, closed.attempts) == ("sent", 1)
    finally:
        reroute(routes)
