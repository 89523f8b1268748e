"""The one reader of the project's configuration.

- ``env(name, default, cast)``: the environment alone, for ``fleet/settings.py``
  (Django's own settings and the few of the project's that settings need);
- ``setting(name, default, cast)``: for the apps (their ``conf.py`` modules):
  Django settings first (tests override them there), then the environment,
  then the default, which lives in that one call.

Empty values count as unset. A value that does not read as its type raises
``ImproperlyConfigured`` with the variable's name, never a bare ValueError
from deep inside. Settings in ``fleet/settings.py`` are read as Django starts;
the apps' readers are marked ``@read_at_start`` and called by the system check
``core.E001`` (``manage.py check``, migrate, runserver), so a mistyped value
stops start-up rather than the first page or task that reads it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")
R = TypeVar("R", bound=Callable[[], object])

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


def whole(minimum: int = 0, maximum: int | None = None) -> Callable[[Any], int]:
    """A cast to a whole number within bounds ("3", 3; not "3.5", "three" or True)."""
    words = (
        f"a whole number from {minimum} to {maximum}"
        if maximum is not None
        else f"a whole number of at least {minimum}"
    )

    def cast(value: Any) -> int:
        if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
            raise ValueError(f"expected {words}")
        try:
            number = int(value) if isinstance(value, int | float) else int(str(value).strip())
        except ValueError:
            raise ValueError(f"expected {words}") from None
        if number < minimum or maximum is not None and number > maximum:
            raise ValueError(f"expected {words}")
        return number

    return cast


def number(minimum: float = 0.0, *, above: bool = False) -> Callable[[Any], float]:
    """A cast to a finite number, at least ``minimum`` (greater than it with ``above``)."""
    words = f"a number {'greater than' if above else 'of at least'} {minimum:g}"

    def cast(value: Any) -> float:
        if isinstance(value, bool):
            raise ValueError(f"expected {words}")
        try:
            figure = float(value) if isinstance(value, int | float) else float(str(value).strip())
        except ValueError:
            raise ValueError(f"expected {words}") from None
        if not math.isfinite(figure) or figure < minimum or above and figure == minimum:
            raise ValueError(f"expected {words}")
        return figure

    return cast


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
    return setting("FLEET_SITE_URL", DEFAULT_SITE_URL, as_site_url)


def site_host() -> str:
    """The host of FLEET_SITE_URL (no port): the domain of email Message-IDs and calendar UIDs,
    the same whatever Host header a request came with."""
    from urllib.parse import urlsplit

    return urlsplit(site_url()).hostname or "spark-fleet"


def as_site_url(value: Any) -> str:
    """An http(s) address with a host, without its trailing slash."""
    from urllib.parse import urlsplit

    text = str(value).strip().rstrip("/")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError("expected an http(s) address such as https://fleet.lab.example.org")
    return text


# The apps' settings readers, called by the system check core.E001.
_AT_START: list[Callable[[], object]] = []


def read_at_start(reader: R) -> R:
    """Mark a settings reader (no arguments) that start-up calls: a value it
    cannot read stops ``manage.py check``, migrate and runserver with the
    variable's name and what is expected."""
    _AT_START.append(reader)
    return reader


read_at_start(site_url)


def at_start_readers() -> tuple[Callable[[], object], ...]:
    return tuple(_AT_START)


def unreadable_settings() -> list[str]:
    """What each marked reader says of a value it cannot read, once each."""
    problems: dict[str, None] = {}
    for reader in _AT_START:
        try:
            reader()
        except ImproperlyConfigured as exc:
            problems[str(exc)] = None
    return list(problems)
