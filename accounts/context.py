"""Template context: the signed-in user's role."""

from __future__ import annotations

from django.http import HttpRequest

from core.roles import ROLE_LABELS, can_book, can_edit_inventory, role_of


def role(request: HttpRequest) -> dict[str, object]:
    user = getattr(request, "user", None)
    r = role_of(user)
    return {
        "role": r,
        "role_label": ROLE_LABELS.get(r or "", ""),
        "can_edit": can_edit_inventory(user),
        "can_book": can_book(user),
    }
