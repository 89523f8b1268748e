"""Who asks, typed: the request of a signed-in user, and any request's user.

Every page but sign-in, the calendar feeds, /health/ and /metrics is reached
only signed in (``fleet.middleware``), and the API's auth classes admit a
signed-in user or a token's; a view or operation that reads ``request.user``
as a ``User`` takes an ``AuthedRequest``. ``Visitor`` is whoever sent a
request, signed in or not: what the role checks (``core.roles``) and an
``Actor`` accept.

    def profile(request: AuthedRequest) -> HttpResponse:
        return render(request, "accounts/profile.html", {"email": request.user.email})
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest

Visitor = User | AnonymousUser


class AuthedRequest(HttpRequest):
    """A request from a signed-in user."""

    user: User


def signed_in(user: Visitor | None) -> User | None:
    """``user`` when it is a signed-in user (a saved account), else None."""
    return user if isinstance(user, User) and user.pk is not None else None
