"""The API root: authentication (browser session with CSRF, or a personal
bearer token), role checks and one JSON shape for every error:
``{"message": ..., "errors": [{"path": ..., "message": ...}]}``."""
from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer, SessionAuth

from accounts.roles import can_book, can_edit_inventory, can_read
from accounts.tokens import token_user
from inventory.errors import InventoryError, NotFound
from inventory.labdoc import DocumentError


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Any:
        user = token_user(token)
        if user is not None:
            request.user = user
        return user


class Forbidden(Exception):
    pass


class Conflict(Exception):
    def __init__(self, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []


api = NinjaAPI(
    title="Spark Fleet API",
    version="1",
    description="Inventory, topology, telemetry, placement and reservations for DGX Spark clusters.",
    auth=[SessionAuth(), BearerToken()],
    urls_namespace="api",
)


def require_read(request: HttpRequest) -> None:
    if not can_read(request.user):
        raise Forbidden("you need to be signed in")


def require_admin(request: HttpRequest) -> None:
    if not can_edit_inventory(request.user):
        raise Forbidden("this needs the lab admin role")


def require_booker(request: HttpRequest) -> None:
    if not can_book(request.user):
        raise Forbidden("this needs the member or lab admin role")


def _error(request: HttpRequest, status: int, message: str, errors: list[dict[str, Any]] | None = None) -> Any:
    return api.create_response(request, {"message": message, "errors": errors or []}, status=status)


@api.exception_handler(NotFound)
def _not_found(request: HttpRequest, exc: NotFound) -> HttpResponse:
    return _error(request, 404, str(exc), exc.as_list())


@api.exception_handler(InventoryError)
def _bad_input(request: HttpRequest, exc: InventoryError) -> HttpResponse:
    return _error(request, 400, "the request was not applied: " + str(exc), exc.as_list())


@api.exception_handler(DocumentError)
def _bad_document(request: HttpRequest, exc: DocumentError) -> HttpResponse:
    status = 413 if any("limit is" in m for _, m in exc.errors) else 400
    return _error(request, status, "the document was not imported: " + str(exc),
                  [{"path": p, "message": m} for p, m in exc.errors])


@api.exception_handler(Forbidden)
def _forbidden(request: HttpRequest, exc: Forbidden) -> HttpResponse:
    return _error(request, 403, str(exc))


@api.exception_handler(Conflict)
def _conflict(request: HttpRequest, exc: Conflict) -> HttpResponse:
    return _error(request, 409, str(exc), exc.errors)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(request, 401, "sign in, or send a personal API token as 'Authorization: Bearer <token>'")


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = []
    for err in exc.errors:
        loc = [str(x) for x in err.get("loc", []) if x not in ("body", "payload", "query", "path")]
        errors.append({"path": ".".join(loc), "message": err.get("msg", "invalid")})
    text = "; ".join(f"{e['path']}: {e['message']}" for e in errors)
    return _error(request, 422, "the request was not applied: " + text, errors)


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return _error(request, exc.status_code, str(exc))


def register_routers() -> None:
    # Imported here: each app's router imports the helpers above.
    from bookings.api import router as bookings_router
    from inventory.api import router as inventory_router
    from inventory.topology_api import router as topology_router
    from placement.api import router as placement_router
    from telemetry.api import router as telemetry_router

    for router in (inventory_router, topology_router, telemetry_router, placement_router, bookings_router):
        api.add_router("", router)


register_routers()
