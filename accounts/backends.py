"""Personal API tokens as a Django authentication backend, so the API's
authentication (core.api) finds a token's user without importing this app."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from .tokens import token_user


class TokenBackend:
    def authenticate(self, request: HttpRequest | None, api_token: str | None = None) -> Any | None:
        return token_user(api_token or "")

    def get_user(self, user_id: int) -> Any | None:
        # Tokens make no session: nothing to restore from one.
        return None
