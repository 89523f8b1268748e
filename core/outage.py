"""What a request gets when something it needs is down, and every other
answer Django gives on its own (400, 500): the API's JSON error shape on
``/api/``, a short page elsewhere.

While PostgreSQL or the broker is unavailable (restarting, unreachable), a
request that needs it answers ``503`` with ``Retry-After`` saying which one,
instead of Django's "Server Error (500)"; the next request after it is back
works again (each request opens its connection anew, or checks a kept one:
``CONN_HEALTH_CHECKS``). Registered as ``handler500`` and ``handler400`` in
``fleet/urls.py``, so it catches the error wherever it was raised (a view, a
middleware reading the session, the API's authentication).
"""

from __future__ import annotations

import sys
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views import defaults

from .errors import envelope

RETRY_AFTER_S = 10
WHAT = {
    "database": "the database is unavailable",
    "broker": "the task queue (broker) is unavailable",
}


def _broker_errors() -> tuple[type[BaseException], ...]:
    kinds: list[type[BaseException]] = []
    try:
        from kombu.exceptions import OperationalError as KombuOperationalError

        kinds.append(KombuOperationalError)
    except ImportError:  # pragma: no cover
        pass
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        kinds += [RedisConnectionError, RedisTimeoutError]
    except ImportError:  # pragma: no cover
        pass
    try:
        from amqp.exceptions import ConnectionError as AmqpConnectionError

        kinds.append(AmqpConnectionError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(kinds)


def service_down(exc: BaseException | None) -> str | None:
    """``"database"`` or ``"broker"`` when ``exc`` (or what caused it) says that
    service cannot be reached; None for any other error."""
    broker = _broker_errors()
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OperationalError | InterfaceError):
            return "database"
        if isinstance(exc, DatabaseError) and "connection" in str(exc).lower():
            return "database"
        if broker and isinstance(exc, broker):
            return "broker"
        exc = exc.__cause__ or exc.__context__
    return None


def unavailable(request: HttpRequest, which: str, *, retry_after: int = RETRY_AFTER_S) -> HttpResponse:
    """503 with Retry-After naming the service that is down."""
    what = WHAT.get(which, f"the {which} is unavailable")
    message = f"{what}; nothing was changed. Try again in a few seconds"
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(envelope(message, [(which, what)]), status=503)
    else:
        # No request context: its processors read the session and the user, from the database.
        page = render_to_string("503.html", {"what": what, "retry_after": retry_after, "path": request.path})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(retry_after)
    return response


def server_error(request: HttpRequest, template_name: str = "500.html") -> HttpResponse:
    """``handler500``: a service that is down is a 503; anything else a 500, in JSON on the API."""
    which = service_down(sys.exc_info()[1])
    if which is not None:
        return unavailable(request, which)
    if request.path.startswith("/api/"):
        return JsonResponse(envelope("server error: the request failed; it has been logged"), status=500)
    return defaults.server_error(request, template_name)


def bad_request(request: HttpRequest, exception: Any, template_name: str = "400.html") -> HttpResponse:
    """``handler400`` (a body Django refuses to read, a malformed request): JSON on the API."""
    if request.path.startswith("/api/"):
        reason = str(exception) or "the request is malformed"
        return JsonResponse(envelope(f"the request was not applied: {reason}", [("body", reason)]), status=400)
    return defaults.bad_request(request, exception, template_name)


__all__ = ["bad_request", "server_error", "service_down", "unavailable"]
