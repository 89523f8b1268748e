"""What every router of the API shares: who may call an operation, and how an
error is answered.

Routers and operations declare their requirement with ``auth=``:
``Router(auth=READ)`` and ``@router.post(..., auth=ADMIN)``. Each requirement
tries, in order, a personal bearer token (``Authorization: Bearer sfk_...``,
no CSRF: a script has no cookie) and then the browser session (with Django's
CSRF check on writes). Nobody signed in: 401; signed in without the role: 403.

Tokens are checked by the authentication backends in settings (accounts'
``TokenBackend``), so this floor imports no app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.http import HttpRequest, JsonResponse
from ninja.security import HttpBearer
from ninja.security.apikey import APIKeyCookie

from .errors import Forbidden
from .roles import can_book, can_edit_inventory, can_read

if TYPE_CHECKING:
    from core.types import Visitor

Rule = Callable[[Any], bool]


class Role:
    """A role requirement: the rule a user must pass and what a refusal says."""

    def __init__(self, rule: Rule, refusal: str) -> None:
        self.rule = rule
        self.refusal = refusal

    def admit(self, user: Visitor) -> Visitor:
        if not self.rule(user):
            raise Forbidden(self.refusal)
        return user


class BearerToken(HttpBearer):
    """A personal API token; never needs CSRF (there is no cookie to forge)."""

    def __init__(self, role: Role) -> None:
        super().__init__()
        self.role = role

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        user = authenticate(request, api_token=token)
        if user is None:
            return None
        request.user = user
        return self.role.admit(user)


class Session(APIKeyCookie):
    """The browser's session; writes need Django's CSRF token. An anonymous
    request is not refused here (so it gets 401, not a CSRF complaint)."""

    param_name: str = settings.SESSION_COOKIE_NAME

    def __init__(self, role: Role) -> None:
        super().__init__(csrf=True)
        self.role = role

    def _get_key(self, request: HttpRequest) -> str | None:
        if not request.user.is_authenticated:
            return None
        return super()._get_key(request)

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        if not request.user.is_authenticated:
            return None
        return self.role.admit(request.user)


def requires(role: Role) -> list[Any]:
    """The ``auth=`` value for an operation or router that needs ``role``."""
    return [BearerToken(role), Session(role)]


READ = requires(Role(can_read, "you need to be signed in"))
BOOK = requires(Role(can_book, "this needs the member or lab admin role"))
ADMIN = requires(Role(can_edit_inventory, "this needs the lab admin role"))


def fleet_error_response(request: HttpRequest, exc: Any) -> JsonResponse:
    """The one answer for every ``FleetError`` a user can cause (registered on the API root)."""
    status, body = exc.answer()
    response = JsonResponse(body, status=status)
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


__all__ = ["ADMIN", "BOOK", "READ", "Role", "fleet_error_response", "requires"]
