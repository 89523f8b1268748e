"""Notification settings, from Django settings first and the environment second
(``core.config.setting``).

``FLEET_ALERT_WEBHOOKS``: a JSON list, each entry
``{"name": "ops", "url": "https://...", "format": "json" | "slack",
"min_severity": "warning", "groups": ["ring-1"], "secret": "..."}`` (format,
min_severity, groups and secret optional; ``secret_file`` names a file that
holds the secret instead). URLs and secrets live only here, never in the
database, a page or a log. A webhook with a secret gets every body signed
(``notifications.signing``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from core import config
from core.config import number, read_at_start, setting, whole
from inventory.validators import check_name
from notifications.models import SEVERITIES


def _get(name: str, default: Any) -> Any:
    return setting(name, default, lambda value: value)


@read_at_start
def quiet_s() -> float:
    """After an alert's opening was announced, the same alert (node, code, objects)
    opening again within this many seconds is not announced (nor its closing):
    a flapping link does not spam (FLEET_ALERT_QUIET_S, default 15 minutes)."""
    return setting("FLEET_ALERT_QUIET_S", 900.0, number(0))


@read_at_start
def max_retries() -> int:
    return setting("FLEET_NOTIFY_RETRIES", 6, whole(0))


@read_at_start
def retry_base_s() -> float:
    """First retry after this many seconds, doubling each time (capped at 10 minutes)."""
    return setting("FLEET_NOTIFY_RETRY_S", 10.0, number(0))


def site_url() -> str:
    return config.site_url()


@dataclass(frozen=True)
class Webhook:
    name: str
    url: str
    format: str  # "json" or "slack"
    min_severity: str
    groups: tuple[str, ...]  # empty: every Spark
    secret: str = ""  # signs each body (HMAC-SHA256); empty: unsigned


@read_at_start
def webhooks() -> list[Webhook]:
    raw = _get("FLEET_ALERT_WEBHOOKS", [])
    try:
        entries = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as exc:
        raise ImproperlyConfigured(f"FLEET_ALERT_WEBHOOKS: not JSON ({exc.msg} at {exc.pos})") from exc
    if not isinstance(entries, list):
        raise ImproperlyConfigured("FLEET_ALERT_WEBHOOKS: must be a JSON list of webhooks")
    out, names = [], set()
    for i, entry in enumerate(entries):
        where = f"FLEET_ALERT_WEBHOOKS[{i}]"
        if not isinstance(entry, dict):
            raise ImproperlyConfigured(f"{where}: must be an object")
        name, url = entry.get("name"), entry.get("url")
        if not isinstance(name, str) or not name.strip() or name in names:
            raise ImproperlyConfigured(f"{where}.name: a unique, non-empty name is required")
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
            raise ImproperlyConfigured(f"{where}.url: an http(s) URL is required")
        fmt = entry.get("format", "json")
        if fmt not in ("json", "slack"):
            raise ImproperlyConfigured(f"{where}.format: 'json' or 'slack', not {fmt!r}")
        severity = entry.get("min_severity", "warning")
        if severity not in SEVERITIES:
            raise ImproperlyConfigured(f"{where}.min_severity: one of {', '.join(SEVERITIES)}, not {severity!r}")
        groups = entry.get("groups", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise ImproperlyConfigured(f"{where}.groups: a list of group names")
        for j, group in enumerate(groups):  # a '"' in one broke the matcher Alertmanager reads
            if (problem := check_name(group)) is not None:
                raise ImproperlyConfigured(f"{where}.groups[{j}]: {problem}")
        secret = _secret(entry, where)
        names.add(name)
        out.append(Webhook(name, url, fmt, severity, tuple(groups), secret))
    return out


def _secret(entry: dict[str, Any], where: str) -> str:
    secret, secret_file = entry.get("secret", ""), entry.get("secret_file", "")
    if secret and secret_file:
        raise ImproperlyConfigured(f"{where}: give secret or secret_file, not both")
    if not isinstance(secret, str) or not isinstance(secret_file, str):
        raise ImproperlyConfigured(f"{where}.secret: a string")
    if secret_file:
        try:
            secret = Path(secret_file).read_text()
        except OSError as exc:
            raise ImproperlyConfigured(f"{where}.secret_file: cannot be read ({exc.strerror})") from exc
    secret = secret.strip()
    if secret and len(secret) < 16:
        raise ImproperlyConfigured(f"{where}.secret: at least 16 characters (it signs every body)")
    return secret


@read_at_start
def monitoring_email() -> list[str]:
    """FLEET_MONITORING_EMAIL: comma-separated addresses Alertmanager emails Prometheus's alerts to."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    raw = str(_get("FLEET_MONITORING_EMAIL", ""))
    addresses = [address.strip() for address in raw.split(",") if address.strip()]
    for address in addresses:
        try:
            validate_email(address)
        except ValidationError:
            raise ImproperlyConfigured(f"FLEET_MONITORING_EMAIL: {address!r} is not an email address") from None
    return addresses
