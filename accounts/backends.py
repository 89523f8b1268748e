"""Personal API tokens as a Django authentication backend, so the API's
authentication (core.api) finds a token's user without importing this app."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from .throttle import wrong_secret
from .tokens import token_user


class TokenBackend:
    def authenticate(self, request: HttpRequest | None, api_token: str | None = None) -> Any | None:
        """A valid token's user, always; a wrong one is counted against its
        address (``accounts.throttle``), and refused with 429 while paused."""
        user = token_user(api_token or "")
        if user is None and api_token is not None:
            wrong_secret(request, "token", api_token)
        return user

    def get_user(self, user_id: int) -> Any | None:
        # Tokens make no session: nothing to restore from one.
        return None
