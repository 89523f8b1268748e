"""Throttling that cannot be turned against scripts: a stranger's wrong
tokens never refuse a valid one from the same address (a NAT, a proxy);
wrong ones are paused by their digest and by their address; a refused
request never moves its own pause; calendar-feed guesses are limited too."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from accounts.models import Refusal

pytestmark = pytest.mark.django_db


def _get(client: Client, token: str, addr: str = "203.0.113.7"):
    return client.get("/api/sparks", headers={"Authorization": f"Bearer {token}"}, REMOTE_ADDR=addr)


def test_a_strangers_wrong_tokens_never_refuse_a_valid_one(api_admin, settings):
    settings.FLEET_TOKEN_ADDRESS_LIMIT = 30
    stranger, script = Client(), api_admin
    good = script.headers["Authorization"].split()[1]
    statuses = []
    for i in range(45):
        statuses.append(_get(stranger, f"sfk_wrong{i}").status_code)
        r = _get(script.client, good)  # the script behind the same address keeps polling
        assert r.status_code == 200, (i, r.content[:200])
    # the first 29 wrong ones are plain 401s; the 30th starts the address's pause for wrong tokens
    assert statuses[:30] == [401] * 30 and set(statuses[30:]) == {429}
    from axes.models import AccessAttempt

    assert AccessAttempt.objects.count() == 0  # tokens are not password sign-ins


def test_a_paused_wrong_token_says_when_to_come_back(settings):
    settings.FLEET_TOKEN_FAILURE_LIMIT = 5
    c = Client()
    assert [_get(c, "sfk_revoked-in-a-cron-job").status_code for _ in range(5)] == [401] * 5
    r = _get(c, "sfk_revoked-in-a-cron-job")
    assert r.status_code == 429 and r.json()["errors"][0]["path"] == "Authorization"
    assert "a valid one is always accepted" in r.json()["message"]
    assert 1 <= int(r["Retry-After"]) <= 15 * 60
    assert _get(c, "sfk_another-wrong-one").status_code == 401  # only that token is paused
    assert _get(c, "sfk_revoked-in-a-cron-job", addr="198.51.100.1").status_code == 401  # and only from there


def test_a_refused_request_never_moves_its_own_pause(settings):
    settings.FLEET_TOKEN_FAILURE_LIMIT = 3
    c = Client()
    for _ in range(3):
        _get(c, "sfk_old")
    row = Refusal.objects.get(kind="token", key__regex=r"^[0-9a-f]{64}$")
    until = row.paused_until
    assert until is not None
    with time_machine.travel(timezone.now() + timedelta(minutes=10)):
        for _ in range(20):
            assert _get(c, "sfk_old").status_code == 429
    row.refresh_from_db()
    assert row.paused_until == until  # twenty refused tries later, the pause ends when it said
    with time_machine.travel(until + timedelta(seconds=1)):
        assert _get(c, "sfk_old").status_code == 401  # over: counted afresh


def test_a_password_tried_during_the_pause_does_not_extend_it(admin_user, settings):
    from axes.models import AccessAttempt

    settings.AXES_FAILURE_LIMIT = 3
    c = Client()
    for _ in range(3):
        c.post("/accounts/login/", {"username": "admin1", "password": "wrong-password"})
    attempt = AccessAttempt.objects.get()
    began = attempt.attempt_time
    with time_machine.travel(timezone.now() + timedelta(minutes=5)):
        r = c.post("/accounts/login/", {"username": "admin1", "password": "admin1-pass-123"})
        assert r.status_code == 429
    attempt.refresh_from_db()
    assert attempt.attempt_time == began


def test_calendar_feed_guesses_are_limited_and_a_real_feed_still_works(member_user, settings):
    from bookings import feeds

    settings.FLEET_TOKEN_ADDRESS_LIMIT = 30
    token = feeds.feed_token_rotate(user=member_user)
    guesser = Client()
    statuses = [
        guesser.get(f"/feeds/bookings/{member_user.pk}-{i:040x}/mine.ics", REMOTE_ADDR="203.0.113.9").status_code
        for i in range(40)
    ]
    assert statuses[:30] == [404] * 30 and set(statuses[30:]) == {429}
    paused = guesser.get(f"/feeds/bookings/{member_user.pk}-{'f' * 40}/mine.ics", REMOTE_ADDR="203.0.113.9")
    assert paused.status_code == 429 and 1 <= int(paused["Retry-After"]) <= 60
    real = Client().get(f"/feeds/bookings/{token}/mine.ics", REMOTE_ADDR="203.0.113.9")
    assert real.status_code == 200 and real.content.startswith(b"BEGIN:VCALENDAR")
    with time_machine.travel(timezone.now() + timedelta(seconds=61)):
        later = guesser.get(f"/feeds/bookings/{member_user.pk}-{'e' * 40}/mine.ics", REMOTE_ADDR="203.0.113.9")
        assert later.status_code == 404  # a minute later, guesses are answered again (and counted)
