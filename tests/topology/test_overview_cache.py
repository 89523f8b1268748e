"""The analysed fleet is read once per inventory version: a group page then
costs its own group, and every write (through the services or behind their
back) is seen at once; telemetry's findings are never cached."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.actor import Actor
from inventory.models import Cable, NodeGroup
from topology import selectors
from topology import services as svc

pytestmark = pytest.mark.django_db


def group_of(node: str) -> NodeGroup:
    return NodeGroup.objects.get(members__spark__name=node, auto=True, retired_at__isnull=True)


def queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(path).status_code == 200, path
    return len(ctx)


def test_a_group_page_reuses_the_analysed_fleet_until_the_inventory_changes(admin_client, import_lab):
    import_lab("demo.yaml")
    switched = group_of("spark-07")
    first = queries(admin_client, f"/groups/{switched.pk}/")
    again = queries(admin_client, f"/groups/{switched.pk}/")
    assert again < first  # no lab read, no group rows: the version query instead

    svc.group_rename(actor=Actor(source="command"), group=group_of("spark-15"), name="renamed-ring")
    assert "renamed-ring" in admin_client.get("/topology/").content.decode()

    pair = group_of("spark-01")
    before = next(v for v in selectors.groups_overview().groups if v.id == pair.pk)
    assert before.result.links
    Cable.objects.filter(label="pair-a").delete()  # behind the services' back: nothing logged
    after = selectors.groups_overview()
    assert all(v.id != pair.pk or not v.result.links for v in after.groups)


def test_findings_from_telemetry_are_read_fresh(admin_client, import_lab):
    import_lab("demo.yaml")
    calls = []

    def provider(group, nodes):
        calls.append(len(nodes))
        return []

    with svc.GROUP_FINDING_PROVIDERS.added(provider):
        selectors.groups_overview()
        selectors.groups_overview()
    assert len(calls) == 2  # asked on every read, cached analysis or not
