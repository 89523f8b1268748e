"""Throttling of wrong credentials, so that it cannot be turned against anyone.

Sign-in with a password (the login page and the admin) goes through
django-axes: after ``FLEET_LOGIN_FAILURE_LIMIT`` wrong passwords for one user
name from one address, that pair is paused for ``FLEET_LOGIN_COOLOFF_MINUTES``;
a sign-in during the pause is refused and does not move its end.

Secrets a script or a calendar app sends (API tokens, calendar-feed tokens)
are throttled here, never by axes: a valid secret is always admitted, whoever
else sent wrong ones from the same address (a NAT, a proxy). Only wrong ones
are counted, per secret (its SHA-256) and address, and for the address as a
whole:

- the same wrong secret ``FLEET_TOKEN_FAILURE_LIMIT`` times (5) from one
  address within the cool-off: that secret is answered 429 from there for
  ``FLEET_LOGIN_COOLOFF_MINUTES`` (a script polling with a revoked token);
- ``FLEET_TOKEN_ADDRESS_LIMIT`` wrong secrets (30) from one address within a
  minute: every wrong secret from there is answered 429 until the minute is
  over (a guesser).

A refused request is not counted again, so a pause never extends itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_client_ip_address
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.config import as_bool, number, read_at_start, setting, whole
from core.errors import TooManyRequests, envelope


class ThrottledSignIn(AxesStandaloneBackend):  # type: ignore[misc]  # django-axes ships no types
    """django-axes for password sign-in only. Code that authenticates without a
    request (a shell, Django's test client ``login()``) has no address to count
    and is left to the next backend; tokens are throttled below."""

    def authenticate(
        self, request: Any, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        if request is None or "api_token" in kwargs:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def not_a_password(request: Any, credentials: dict[str, Any] | None = None) -> bool:
    """``AXES_WHITELIST_CALLABLE``: axes neither counts nor pauses token attempts
    (a wrong token would otherwise count as a failed sign-in of "no user" from
    the address, and pause every script behind it)."""
    return bool(credentials) and "api_token" in (credentials or {})


@dataclass(frozen=True)
class Rule:
    key: str  # "secret" (per wrong secret) or "*" (the address)
    limit: int
    window: timedelta
    pause: timedelta


@read_at_start
def _rules() -> list[Rule]:
    cooloff = timedelta(minutes=setting("FLEET_LOGIN_COOLOFF_MINUTES", 15.0, number(0, above=True)))
    minute = timedelta(minutes=1)
    return [
        Rule("secret", setting("FLEET_TOKEN_FAILURE_LIMIT", 5, whole(1)), cooloff, cooloff),
        Rule("*", setting("FLEET_TOKEN_ADDRESS_LIMIT", 30, whole(1)), minute, minute),
    ]


def _enabled() -> bool:
    return setting("AXES_ENABLED", True, as_bool)


def _address(request: Any) -> str:
    # axes' reading of the client address: REMOTE_ADDR, or X-Forwarded-For with FLEET_BEHIND_PROXY
    return (get_client_ip_address(request) or "unknown")[:45]


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def wrong_secret(request: Any, kind: str, secret: str) -> None:
    """Call when ``secret`` turned out wrong: raises ``TooManyRequests`` (429,
    with Retry-After) while this secret or this address is paused; otherwise
    counts the failure (which may start a pause for the next ones) and returns,
    so the caller answers its usual 401 or 404."""
    if request is None or not _enabled():
        return
    from .models import Refusal

    now = timezone.now()
    address = _address(request)
    keys = {"secret": _digest(secret), "*": "*"}
    paused = Refusal.objects.filter(kind=kind, address=address, key__in=keys.values(), paused_until__gt=now)
    until = max((r.paused_until for r in paused if r.paused_until), default=None)
    if until is not None:
        wait = max(1, int((until - now).total_seconds() + 0.999))
        what = "this token" if kind == "token" else "this calendar link"
        raise TooManyRequests(
            f"{what} was refused too often from this address; wrong ones are paused for {wait} s "
            "(a valid one is always accepted)",
            "Authorization" if kind == "token" else "token",
            retry_after=wait,
        )
    for rule in _rules():
        _count(Refusal, kind, address, keys[rule.key], rule, now)


def _count(model: Any, kind: str, address: str, key: str, rule: Rule, now: Any) -> None:
    for _ in range(2):  # a concurrent first failure may create the row between our read and insert
        try:
            with transaction.atomic():
                row = model.objects.select_for_update().filter(kind=kind, address=address, key=key).first()
                if row is None:
                    row = model(kind=kind, address=address, key=key, count=0, window_start=now)
                if row.window_start < now - rule.window:
                    row.count, row.window_start = 0, now
                row.count += 1
                if row.count >= rule.limit:
                    row.paused_until = now + rule.pause
                    row.count, row.window_start = 0, now
                row.save()
                return
        except IntegrityError:
            continue


def forget_old(*, older_than: timedelta = timedelta(days=1)) -> int:
    """Drop refusal counts nobody has added to for a day (run daily by beat)."""
    from .models import Refusal

    cutoff = timezone.now() - older_than
    deleted, _ = Refusal.objects.filter(window_start__lt=cutoff).exclude(paused_until__gt=timezone.now()).delete()
    return deleted


def lockout_response(request: Any, original_response: Any = None, credentials: Any = None) -> Any:
    """What a paused password sign-in gets: the API answers in its JSON error shape, pages with a page."""
    from django.conf import settings
    from django.http import HttpResponse, JsonResponse
    from django.shortcuts import render

    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    response: HttpResponse
    if request.path.startswith("/api/"):
        message = f"too many failed sign-ins from this address; try again in {minutes} minutes"
        response = JsonResponse(envelope(message), status=429)
    else:
        response = render(request, "accounts/locked.html", {"minutes": minutes}, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response
