"""One reader for the project's own settings: Django settings first (tests
override them there), then the environment, then the default."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings

T = TypeVar("T")

TRUE = {"1", "true", "yes", "on"}


def as_bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in TRUE


def setting(name: str, default: T, cast: Callable[[Any], T]) -> T:
    """``name`` from Django settings, else the environment, else ``default``;
    empty values count as unset."""
    value = getattr(settings, name, None)
    if value not in ("", None):
        return cast(value)
    raw = os.environ.get(name, "")
    return cast(raw) if raw.strip() else default


DEFAULT_SITE_URL = "http://127.0.0.1:8000"


def site_url() -> str:
    """FLEET_SITE_URL without its trailing slash: where links in emails, webhooks and feeds point."""
    return str(setting("FLEET_SITE_URL", DEFAULT_SITE_URL, str)).rstrip("/")


def site_host() -> str:
    """The host of FLEET_SITE_URL (no port): the domain of email Message-IDs and calendar UIDs,
    the same whatever Host header a request came with."""
    from urllib.parse import urlsplit

    return urlsplit(site_url()).hostname or "spark-fleet"
