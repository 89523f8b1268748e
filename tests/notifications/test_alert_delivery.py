"""Alerts that reach people: on opening and closing, emails to subscribers
(by group and severity) and webhooks (generic JSON and Slack-style), sent by
Celery tasks with retries, against a real SMTP server and a real HTTP
receiver on 127.0.0.1. Poll rounds are stored by the product's store service
from the simulator's rendering of a Spark's answer (no SSH needed here)."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from core.roles import ADMIN, MEMBER, VIEWER
from inventory.models import NodeGroupMember, Spark
from notifications.models import Delivery, Subscription
from simfleet.simulator import make_nodes
from telemetry.models import Alert
from tests.conftest import celery_conf, make_user
from tests.notifications.receivers import http_receiver, smtp_server
from tests.telemetry.stored import register, store_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet():
    nodes = make_nodes(4, prefix="n-")
    register(nodes)
    store_round(nodes)  # everyone healthy: no alert
    return nodes


def group_of(name: str) -> int:
    return NodeGroupMember.objects.filter(spark__name=name, group__retired_at__isnull=True).values_list(
        "group_id", flat=True
    )[0]


def people(fleet):
    admin = make_user("admin1", ADMIN)
    member = make_user("member1", MEMBER)
    viewer = make_user("viewer1", VIEWER)
    for user in (admin, member, viewer):
        user.email = f"{user.username}@example.org"
        user.save()
    Subscription.objects.create(user=admin, group=None, min_severity="critical")  # every Spark, critical
    Subscription.objects.create(user=member, group_id=group_of("n-03"), min_severity="warning")  # another group
    Subscription.objects.create(user=viewer, group_id=group_of("n-01"), min_severity="warning")  # n-01's group
    return admin, member, viewer


def hooks(settings, url: str, **extra):
    settings.FLEET_ALERT_WEBHOOKS = json.dumps(
        [
            {"name": "ops", "url": f"{url}/json", "format": "json", **extra},
            {"name": "chat", "url": f"{url}/slack", "format": "slack", "min_severity": "critical"},
        ]
    )


def test_opening_and_closing_reach_subscribers_and_both_webhooks(fleet, settings, django_capture_on_commit_callbacks):
    people(fleet)
    with smtp_server(settings) as mail, http_receiver() as hook:
        hooks(settings, hook.url)
        with django_capture_on_commit_callbacks(execute=True):
            store_round(fleet, down={"n-01"})
        alert = Alert.objects.get(spark__name="n-01", code="unreachable", ended_at__isnull=True)
        # Emails: the fleet-wide critical subscriber and n-01's group; not the other group's member.
        assert [m["Subject"] for m in mail.to("admin1@example.org")] == [
            "[Spark Fleet] critical OPEN: unreachable on n-01"
        ]
        assert len(mail.to("viewer1@example.org")) == 1 and mail.to("member1@example.org") == []
        assert "/sparks/n-01/telemetry/" in mail.to("admin1@example.org")[0].get_payload()
        (opened,) = hook.bodies("/json")
        assert opened["event"] == "opened" and opened["alert"]["id"] == alert.pk
        assert (opened["alert"]["node"], opened["alert"]["code"], opened["alert"]["severity"]) == (
            "n-01", "unreachable", "critical",
        )  # fmt: skip
        (slack,) = hook.bodies("/slack")
        assert "*unreachable* opened on *n-01*" in slack["text"] and slack["blocks"][0]["type"] == "section"

        with django_capture_on_commit_callbacks(execute=True):
            store_round(fleet)  # n-01 answers again
        assert [m["Subject"] for m in mail.to("admin1@example.org")][-1] == (
            "[Spark Fleet] critical closed: unreachable on n-01"
        )
        assert [b["event"] for b in hook.bodies("/json")] == ["opened", "closed"]
        assert hook.bodies("/json")[1]["alert"]["ended_at"] is not None
        assert len(hook.bodies("/slack")) == 2
    sent = Delivery.objects.filter(alert=alert)
    assert sent.count() == 8 and set(sent.values_list("state", flat=True)) == {"sent"}
    assert not Delivery.objects.filter(body__contains=hook.url).exists()  # webhook URLs never stored


def test_a_flapping_node_is_announced_once_per_quiet_period(fleet, settings, django_capture_on_commit_callbacks):
    settings.FLEET_ALERT_QUIET_S = 600
    people(fleet)
    with smtp_server(settings) as mail, http_receiver() as hook:
        hooks(settings, hook.url)
        with django_capture_on_commit_callbacks(execute=True):
            for _ in range(3):  # down, up, down, up, down, up
                store_round(fleet, down={"n-01"})
                store_round(fleet)
        subjects = [m["Subject"] for m in mail.to("admin1@example.org")]
        assert subjects == [
            "[Spark Fleet] critical OPEN: unreachable on n-01",
            "[Spark Fleet] critical closed: unreachable on n-01",
        ]
        assert [b["event"] for b in hook.bodies("/json")] == ["opened", "closed"]
        assert Delivery.objects.filter(state="quiet").count() == 2  # the two later openings, held back

        settings.FLEET_ALERT_QUIET_S = 0  # quiet period over
        with django_capture_on_commit_callbacks(execute=True):
            store_round(fleet, down={"n-01"})
        assert len(mail.to("admin1@example.org")) == 3


def test_a_receiver_that_fails_then_recovers_gets_the_same_payload_once_it_answers(
    fleet, settings, django_capture_on_commit_callbacks
):
    settings.FLEET_NOTIFY_RETRY_S = 0
    with http_receiver() as hook:
        hooks(settings, hook.url)
        hook.failures = [503, 502]  # down twice, then fine
        with django_capture_on_commit_callbacks(execute=True):
            store_round(fleet, down={"n-02"})
        bodies = hook.bodies("/json")
        assert len(bodies) == 3 and bodies[0] == bodies[1] == bodies[2]  # retried with the same content
        delivery = Delivery.objects.get(target="ops", event="opened")
        assert (delivery.state, delivery.attempts, delivery.last_error) == ("sent", 3, "")

        hook.failures = [400]  # refused for good: not retried
        with django_capture_on_commit_callbacks(execute=True):
            store_round(fleet)
        closed = Delivery.objects.get(target="ops", event="closed")
        assert (closed.state, closed.attempts) == ("failed", 1) and "HTTP 400" in closed.last_error


def test_a_receiver_that_never_recovers_fails_after_the_retries(fleet, settings, django_capture_on_commit_callbacks):
    settings.FLEET_NOTIFY_RETRY_S = 0
    settings.FLEET_NOTIFY_RETRIES = 2
    with http_receiver() as hook:
        hooks(settings, hook.url)
        hook.failures = [503] * 10
        with django_capture_on_commit_callbacks(execute=True):
            store_round(fleet, down={"n-02"})
        delivery = Delivery.objects.get(target="ops", event="opened")
        assert (delivery.state, delivery.attempts) == ("failed", 3)
        assert "HTTP 503" in delivery.last_error and hook.url not in delivery.last_error
        assert len(hook.bodies("/json")) == 3


def test_a_mail_server_saying_try_later_gets_the_mail_on_retry(fleet, settings, django_capture_on_commit_callbacks):
    settings.FLEET_NOTIFY_RETRY_S = 0
    people(fleet)
    with smtp_server(settings) as mail:
        mail.refuse = 1
        with django_capture_on_commit_callbacks(execute=True):
            store_round(fleet, down={"n-01"})
        assert len(mail.to("admin1@example.org")) == 1
    retried = Delivery.objects.get(target__in=["admin1@example.org", "viewer1@example.org"], attempts=2)
    assert retried.state == "sent"


def test_users_without_an_email_address_get_nothing_and_nothing_fails(
    fleet, settings, django_capture_on_commit_callbacks
):
    user = make_user("nomail", MEMBER)
    Subscription.objects.create(user=user, group=None, min_severity="info")
    with django_capture_on_commit_callbacks(execute=True):
        store_round(fleet, down={"n-01"})
    assert not Delivery.objects.filter(channel="email").exists()
    assert Spark.objects.get(name="n-01").telemetry.status == "down"


@pytest.mark.django_db(transaction=True)
def test_through_a_real_broker_and_worker_a_failed_webhook_is_retried_later(settings, real_broker):
    """The tasks go through the broker to a worker; the retry is a new message with a countdown."""
    from celery.contrib.testing.worker import start_worker

    from fleet.celery import app

    settings.FLEET_NOTIFY_RETRY_S = 0.5
    queue = f"notify-test-{uuid.uuid4().hex[:8]}"  # never steal another run's messages
    routes = app.conf.task_routes

    def reroute(table):  # Celery builds its router once: rebuild it with the new table
        celery_conf("task_routes", table)
        app.amqp.flush_routes()
        app.amqp.__dict__.pop("router", None)

    reroute({"notifications.*": {"queue": queue}})
    try:
        nodes = make_nodes(2, prefix="b-")
        register(nodes)
        store_round(nodes)
        with (
            http_receiver() as hook,
            start_worker(app, pool="solo", perform_ping_check=False, queues=[queue], shutdown_timeout=15),
        ):
            hooks(settings, hook.url)
            hook.failures = [503]
            started = time.monotonic()
            store_round(nodes, down={"b-01"})  # commits: the fan-out is queued on commit
            deadline = time.monotonic() + 20
            while not Delivery.objects.filter(target="ops", state="sent").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            elapsed = time.monotonic() - started
        delivery = Delivery.objects.get(target="ops")
        assert (delivery.state, delivery.attempts) == ("sent", 2)
        assert elapsed >= 0.5  # the retry waited for its countdown
        assert [b["event"] for b in hook.bodies("/json")] == ["opened", "opened"]
    finally:
        reroute(routes)
