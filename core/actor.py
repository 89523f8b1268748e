"""Who makes a change and through which door: every service that writes takes
an ``Actor`` and records it in the change log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest

    from core.types import Visitor

Source = Literal["page", "api", "import", "admin", "command", "cabling"]


@dataclass(frozen=True)
class Actor:
    """Who makes a change and through which door (page, api, import, admin, command)."""

    user: Visitor | None = None
    source: str = "page"

    @classmethod
    def from_request(cls, request: HttpRequest, source: Source) -> Actor:
        return cls(user=getattr(request, "user", None), source=source)

    @property
    def username(self) -> str:
        return self.user.username if self.user is not None else ""

    @property
    def known_user(self) -> User | None:
        """The signed-in user behind the change; None for a command or an anonymous visitor."""
        from core.types import signed_in

        return signed_in(self.user)

    @property
    def user_id(self) -> int | None:
        """The signed-in user's id; None for a command or an anonymous visitor."""
        user = self.known_user
        return None if user is None else user.pk
