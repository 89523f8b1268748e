"""Errors users can cause, for every app: one base that carries its HTTP
status and (path, message) pairs naming the spot (a form field such as
``ssh_host`` or a document path such as ``cables[2].ends[1]``).

The API root answers any ``FleetError`` as ``{"message", "errors": [{"path",
"message"}]}`` with ``status``; pages show ``text`` or the pairs next to their
fields. Nothing has been written when one is raised. No Django import: pure
modules (the lab document, the planner) raise these too.

``envelope`` builds that JSON body, the one error shape of the whole API
(and of the middleware and sign-in throttling that answer before it): every
error answer goes through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Pairs = list[tuple[str, str]]


ErrorItems = Iterable[tuple[str, str] | Mapping[str, Any]]


def envelope(message: str, errors: ErrorItems = ()) -> dict[str, Any]:
    """The JSON error body: ``message`` for people, ``errors`` each with its
    ``path`` and ``message`` (a mapping may add details, e.g. a clash's booking)."""
    return {"message": message, "errors": error_items(errors)}


def error_items(errors: ErrorItems) -> list[dict[str, Any]]:
    """The ``errors`` list of the envelope, also where an answer lists problems without failing."""
    return [dict(e) if isinstance(e, Mapping) else {"path": e[0], "message": e[1]} for e in errors]


class FleetError(Exception):
    """Base of every error a user can cause. ``errors`` holds (path, message) pairs."""

    status = 400
    prefix = ""  # put before the message in the API's answer

    def __init__(self, errors: Pairs | str, path: str = "") -> None:
        if isinstance(errors, str):
            errors = [(path, errors)]
        self.errors = errors
        super().__init__("; ".join(f"{p}: {m}" if p else m for p, m in errors))

    @property
    def path(self) -> str:
        return self.errors[0][0] if self.errors else ""

    @property
    def text(self) -> str:
        """The messages without their paths (for a page's message bar)."""
        return "; ".join(message for _, message in self.errors)

    def answer(self) -> tuple[int, dict[str, Any]]:
        """The HTTP status and JSON body the API answers with."""
        return self.status, envelope(self.prefix + str(self), self.errors)


class BadInput(FleetError):
    """The input breaks a rule (400)."""

    status = 400
    prefix = "the request was not applied: "


class NotFound(FleetError):
    """The named object does not exist (404)."""

    status = 404


class Forbidden(FleetError):
    """The signed-in person's role does not allow this (403)."""

    status = 403

    def answer(self) -> tuple[int, dict[str, Any]]:
        return self.status, envelope(self.text, [(p, m) for p, m in self.errors if p])


class Conflict(FleetError):
    """The request clashes with what is stored (409)."""

    status = 409
    prefix = "the request was not applied: "


class TooManyRequests(FleetError):
    """Refused for a while (429); ``retry_after`` seconds go in the Retry-After header."""

    status = 429

    def __init__(self, errors: Pairs | str, path: str = "", *, retry_after: int) -> None:
        super().__init__(errors, path)
        self.retry_after = retry_after


class Unavailable(FleetError):
    """A service the request needs (the database, the task queue) is down (503);
    ``retry_after`` seconds go in the Retry-After header. Nothing was changed."""

    status = 503

    def __init__(self, errors: Pairs | str, path: str = "", *, retry_after: int = 10) -> None:
        super().__init__(errors, path)
        self.retry_after = retry_after
