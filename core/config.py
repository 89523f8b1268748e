"""The one reader of the project's configuration.

- ``env(name, default, cast)``: the environment alone, for ``fleet/settings.py``
  (Django's own settings and the few of the project's that settings need);
- ``setting(name, default, cast)``: for the apps (their ``conf.py`` modules):
  Django settings first (tests override them there), then the environment,
  then the default, which lives in that one call.

Empty values count as unset. A value that does not read as its type stops
start-up with the variable's name (``ImproperlyConfigured``), never a bare
ValueError from deep inside.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}


def as_bool(value: Any) -> bool:
    """true/yes/on/1 or false/no/off/0 (any case); anything else is refused."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in TRUE | FALSE:
        raise ValueError("expected one of 1, true, yes, on, 0, false, no, off")
    return text in TRUE


def as_list(value: Any) -> list[str]:
    """Comma-separated items, blanks dropped."""
    if isinstance(value, list | tuple):
        return [str(item) for item in value]
    return [item.strip() for item in str(value).split(",") if item.strip()]


def _cast(name: str, value: Any, cast: Callable[[Any], T]) -> T:
    try:
        return cast(value)
    except (TypeError, ValueError) as exc:
        raise ImproperlyConfigured(f"{name}={value!r} cannot be read: {exc}") from None


def env(name: str, default: T, cast: Callable[[Any], T] = str) -> T:  # type: ignore[assignment]
    """``name`` from the environment, cast; ``default`` when unset or blank."""
    raw = os.environ.get(name, "")
    return _cast(name, raw, cast) if raw.strip() else default


def setting(name: str, default: T, cast: Callable[[Any], T]) -> T:
    """``name`` from Django settings, else the environment, else ``default``;
    empty values count as unset."""
    value = getattr(settings, name, None)
    if value not in ("", None):
        return _cast(name, value, cast)
    return env(name, default, cast)


DEFAULT_SITE_URL = "http://127.0.0.1:8000"


def site_url() -> str:
    """FLEET_SITE_URL without its trailing slash: where links in emails, webhooks and feeds point."""
    return str(setting("FLEET_SITE_URL", DEFAULT_SITE_URL, str)).rstrip("/")


def site_host() -> str:
    """The host of FLEET_SITE_URL (no port): the domain of email Message-IDs and calendar UIDs,
    the same whatever Host header a request came with."""
    from urllib.parse import urlsplit

    return urlsplit(site_url()).hostname or "spark-fleet"
