"""Create and check personal API tokens. The token itself is returned once
and never stored; the database keeps its SHA-256 digest."""

from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING

from django.utils import timezone

from .models import ApiToken

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TOKEN_PREFIX = "sfk_"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    name = (name or "").strip()[:60] or "token"
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(user=user, name=name, prefix=token[:10], digest=_digest(token))
    return row, token


def token_user(token: str) -> User | None:
    if not token or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    row = ApiToken.objects.select_related("user").filter(digest=_digest(token)).first()
    if row is None or not row.user.is_active:
        return None
    ApiToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
    return row.user


def token_revoke(*, user: User, token_id: int) -> bool:
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return deleted > 0
