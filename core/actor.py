"""Who makes a change and through which door: every service that writes takes
an ``Actor`` and records it in the change log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Source = Literal["page", "api", "import", "admin", "command", "cabling"]


@dataclass(frozen=True)
class Actor:
    """Who makes a change and through which door (page, api, import, admin, command)."""

    user: Any = None
    source: str = "page"

    @classmethod
    def from_request(cls, request: Any, source: Source) -> Actor:
        return cls(user=getattr(request, "user", None), source=source)

    @property
    def username(self) -> str:
        return getattr(self.user, "username", "") or ""
