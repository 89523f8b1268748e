"""GET /health/: can this web process serve? It asks the database (``SELECT
1``) and the broker (a connection), each bounded by a short timeout, and
answers 200 with each check's result and time, or 503 with ``Retry-After``
and the API's error shape naming what is down (``{"message", "errors":
[{"path": "database", "message": ...}]}``) beside the same checks.

Open to anyone (load balancers and ``docker compose``'s healthcheck carry no
session) and cheap; it says nothing secret: an error is its kind and a
sentence, with any password in a URL masked.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.outage import RETRY_AFTER_S, WHAT

BROKER_TIMEOUT_S = 3
_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")


def _database() -> None:
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def broker_url() -> str:
    """The broker the app sends tasks to."""
    from fleet.celery import app

    return str(app.conf.broker_write_url or app.conf.broker_url)


def _broker() -> None:
    # A connection of its own (not the app's producer pool), opened and closed here.
    from fleet.celery import app

    with app.connection_for_write(url=broker_url(), connect_timeout=BROKER_TIMEOUT_S) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_S)


# The same words and Retry-After as any request refused during an outage (core.outage).
CHECKS: dict[str, tuple[Callable[[], None], str]] = {
    "database": (_database, WHAT["database"]),
    "broker": (_broker, WHAT["broker"]),
}


def run_checks() -> dict[str, dict[str, Any]]:
    """Each check's outcome: ``{"status": "ok" | "down", "ms": ..., "error": ...}``."""
    results: dict[str, dict[str, Any]] = {}
    for name, (check, _) in CHECKS.items():
        start = time.perf_counter()
        try:
            check()
        except Exception as exc:  # noqa: BLE001 - any failure of a dependency is "down", said in words
            error = _PASSWORD.sub(r"\1***@", f"{type(exc).__name__}: {exc}")[:300]
            results[name] = {"status": "down", "ms": round((time.perf_counter() - start) * 1000, 1), "error": error}
        else:
            results[name] = {"status": "ok", "ms": round((time.perf_counter() - start) * 1000, 1)}
    return results


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    checks = run_checks()
    down = [name for name, result in checks.items() if result["status"] != "ok"]
    if not down:
        return JsonResponse({"status": "ok", "checks": checks})
    errors = [{"path": name, "message": f"{CHECKS[name][1]}: {checks[name]['error']}"} for name in down]
    body = {
        "status": "unavailable",
        "message": "; ".join(CHECKS[name][1] for name in down) + f". Try again in {RETRY_AFTER_S} seconds",
        "errors": errors,
        "checks": checks,
    }
    response = JsonResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response
