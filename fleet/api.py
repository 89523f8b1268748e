"""The API root: it assembles the apps' routers and answers every error in
one JSON shape: ``{"message": ..., "errors": [{"path": ..., "message": ...}]}``.

Who may call what is declared on each router and operation (``core.api``:
``READ``, ``BOOK``, ``ADMIN``); any ``core.errors.FleetError`` an app raises
is answered here with its own status.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja.errors import AuthenticationError, HttpError, ValidationError

from benchmarks.api import router as benchmarks_router
from bookings.api import router as bookings_router
from bookings.api import router_deprecated as reservations_router
from core.api import READ, fleet_error_response
from core.errors import FleetError, envelope
from core.openapi import BODY_ERROR, EdgeParser, FleetAPI
from design.api import router as design_router
from fabric.api import router as fabric_router
from inventory.api import router as inventory_router
from placement.api import router as placement_router
from serving.api import router as serving_router
from telemetry.api import router as telemetry_router
from topology.api import router as topology_router

api = FleetAPI(
    title="Spark Fleet API",
    version="1",
    description="Inventory, topology, telemetry, placement and bookings for DGX Spark clusters.",
    auth=READ,
    urls_namespace="api",
    parser=EdgeParser(),
)


def _error(
    request: HttpRequest, status: int, message: str, errors: list[tuple[str, str]] | None = None
) -> HttpResponse:
    return api.create_response(request, envelope(message, errors or ()), status=status)


api.add_exception_handler(FleetError, fleet_error_response)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(request, 401, "sign in, or send a personal API token as 'Authorization: Bearer <token>'")


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = []
    for err in exc.errors:
        loc = [str(x) for x in err.get("loc", []) if x not in ("body", "payload", "query", "path")]
        message = str(err.get("msg", "invalid"))
        where = tuple(err.get("loc", ()))
        raw = request.GET.get(str(where[-1])) if where[:1] == ("query",) else None
        if isinstance(raw, str) and " " in raw and "date" in message:
            # 2026-12-01T09:00:00+01:00 unencoded: the '+' arrives as a space
            message += "; a '+' in a query string reads as a space: send it as %2B"
        # a body that is no object at all (null, [], "x", 1) has no field to name: it is the body's
        errors.append((".".join(loc) or "body", message))
    text = "; ".join(f"{path}: {message}" for path, message in errors)
    return _error(request, 422, "the request was not applied: " + text, errors)


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    unread = getattr(request, BODY_ERROR, "")
    if exc.status_code == 400 and unread:
        return _error(
            request, 400, f"the body is not JSON the API takes: {unread}; nothing was changed", [("body", unread)]
        )
    return _error(request, exc.status_code, str(exc))


for router in (
    inventory_router,
    topology_router,
    telemetry_router,
    placement_router,
    benchmarks_router,
    fabric_router,
    bookings_router,
    reservations_router,
    design_router,
    serving_router,
):
    api.add_router("", router)
