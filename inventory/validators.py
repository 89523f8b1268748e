"""Pure checks on names and SSH endpoints. Names and hosts later reach SSH
and launch commands, so only a conservative character set is accepted."""

from __future__ import annotations

import ipaddress
import re

NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
HOSTNAME_RE = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?")
USER_RE = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
SERIAL_RE = re.compile(r"[A-Za-z0-9._/-]{0,64}")
LABEL_RE = re.compile(r"[A-Za-z0-9._/ -]{0,64}")


def check_name(value: object) -> str | None:
    if value is None or value == "":
        return "a name is required: 1 to 63 lower-case letters, digits and '-', starting with a letter or digit"
    if not isinstance(value, str) or not NAME_RE.fullmatch(value):
        return (
            f"{_show(value)} is not a valid name: use 1 to 63 lower-case letters, digits and '-', "
            "starting with a letter or digit"
        )
    return None


def check_host(value: object) -> str | None:
    if not isinstance(value, str) or not value:
        return "the SSH host is required"
    try:
        ipaddress.ip_address(value)
        return None
    except ValueError:
        pass
    if HOSTNAME_RE.fullmatch(value):
        return None
    return f"{_show(value)} is not a valid host name or IP address"


def check_user(value: object) -> str | None:
    if not isinstance(value, str) or not USER_RE.fullmatch(value):
        return f"{_show(value)} is not a valid SSH user name (lower-case letters, digits, '_' and '-')"
    return None


def check_tcp_port(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        return f"{_show(value)} is not a TCP port: use a whole number from 1 to 65535"
    return None


def check_serial(value: object) -> str | None:
    if not isinstance(value, str) or not SERIAL_RE.fullmatch(value):
        return f"{_show(value)} is not a valid serial: letters, digits and . _ / - only, up to 64"
    return None


def check_label(value: object) -> str | None:
    if not isinstance(value, str) or not LABEL_RE.fullmatch(value):
        return f"{_show(value)} is not a valid label: letters, digits, spaces and . _ / - only, up to 64"
    return None


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
