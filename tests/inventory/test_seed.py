"""The catalogue and the role groups survive a flush (transactional tests,
`manage.py flush`): they are seeded after every migrate, as Django does for
permissions."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from inventory.models import CatalogueEntry


@pytest.mark.django_db(transaction=True)
def test_flush_puts_the_catalogue_and_roles_back():
    call_command("flush", "--noinput", verbosity=0)
    assert CatalogueEntry.objects.filter(slug="mikrotik-crs804-ddq", port_count=4, breakout=True).exists()
    assert CatalogueEntry.objects.count() == 16
    assert set(Group.objects.values_list("name", flat=True)) >= {"lab-admin", "member", "viewer"}


@pytest.mark.django_db
def test_a_test_after_a_transactional_one_still_has_the_catalogue():
    assert CatalogueEntry.objects.filter(kind="cable").count() == 5
