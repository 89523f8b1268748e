"""Roles: lab admin (edits inventory and catalogue), member (reads, books node
groups), viewer (reads). A role is a Django group; superusers are lab admins.
Pages and API both ask these functions, so the rules live in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from core.types import Visitor

ADMIN = "lab-admin"
MEMBER = "member"
VIEWER = "viewer"
ROLES = (ADMIN, MEMBER, VIEWER)
ROLE_LABELS = {ADMIN: "Lab admin", MEMBER: "Member", VIEWER: "Viewer"}
_CACHE = "_fleet_role"


def role_of(user: Visitor | None) -> str | None:
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.is_superuser:
        return ADMIN
    # Cached on the instance: one query per request, however often its user is asked about.
    cached = user.__dict__.get(_CACHE)
    if cached is not None:
        return str(cached)
    names = set(user.groups.values_list("name", flat=True))
    role = next((r for r in ROLES if r in names), VIEWER)
    user.__dict__[_CACHE] = role
    return role


def is_admin(user: Visitor | None) -> bool:
    return role_of(user) == ADMIN


def can_read(user: Visitor | None) -> bool:
    return role_of(user) is not None


def can_edit_inventory(user: Visitor | None) -> bool:
    return is_admin(user)


def can_book(user: Visitor | None) -> bool:
    return role_of(user) in (ADMIN, MEMBER)


def set_role(user: User, role: str) -> None:
    from django.contrib.auth.models import Group

    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    user.__dict__[_CACHE] = role
