"""The catalogue and the role groups survive a flush (what a transactional
test's teardown and `manage.py flush` do): they are seeded after every
migrate, as Django does for permissions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from inventory import hardware_catalogue as c
from inventory.models import CatalogueEntry


def slugs(rows: list[tuple]) -> set[str]:
    return {row[0] for row in rows}


@pytest.mark.django_db(transaction=True)
def test_flush_puts_the_catalogue_and_roles_back():
    call_command("flush", "--noinput", verbosity=0)
    by_kind = {kind: set(CatalogueEntry.objects.filter(kind=kind).values_list("slug", flat=True))
               for kind in ("spark", "switch", "cable")}  # fmt: skip
    assert by_kind == {"spark": slugs(c.SPARKS), "switch": slugs(c.SWITCHES), "cable": slugs(c.CABLES)}
    assert CatalogueEntry.objects.filter(slug="mikrotik-crs804-ddq", port_count=4, breakout=True).exists()
    assert set(Group.objects.values_list("name", flat=True)) >= {"lab-admin", "member", "viewer"}
