"""Node groups on the Django side: auto groups follow the cabling with stable
ids, sub-groups split switched groups only, the API answers in exactly the
documented shape, every role gets what it may, and bad sub-group requests get
a clear 4xx and change nothing."""

from __future__ import annotations

import io

import pytest

from core.actor import Actor
from core.roles import ADMIN, MEMBER, VIEWER
from inventory.models import Cable, Change, NodeGroup, NodeGroupMember, Spark
from inventory.services import cable_create, cable_delete, spark_create, spark_delete, spark_update
from tests.conftest import ApiClient, db_state
from topology import services as svc

pytestmark = pytest.mark.django_db

ADMIN_ACTOR = Actor(source="command")


def group_of(node: str) -> NodeGroup:
    return NodeGroup.objects.get(members__spark__name=node, auto=True, retired_at__isnull=True)


def members(group: NodeGroup) -> list[str]:
    return sorted(group.members.values_list("spark__name", flat=True))


def groups_state() -> dict:
    return {
        **db_state(),
        "groups": NodeGroup.objects.count(),
        "members": NodeGroupMember.objects.count(),
        "live": sorted(NodeGroup.objects.filter(retired_at__isnull=True).values_list("name", flat=True)),
    }


# ---------------------------------------------------------------- sync


@pytest.mark.parametrize(
    "lab, expected",
    [
        ("pair.yaml", {"group-pair-a": ("direct", ["pair-a", "pair-b"])}),
        ("ring4.yaml", {"group-ring-1": ("ring", ["ring-1", "ring-2", "ring-3", "ring-4"])}),
        ("lab8-crs804.yaml", {"group-node-01": ("switched", [f"node-0{i}" for i in range(1, 9)])}),
        (
            "demo.yaml",
            {
                "group-spark-01": ("direct", ["spark-01", "spark-02"]),
                "group-spark-03": ("ring", ["spark-03", "spark-04", "spark-05", "spark-06"]),
                "group-spark-07": ("switched", [f"spark-{i:02d}" for i in range(7, 15)]),
                "group-spark-15": ("direct", ["spark-15", "spark-16"]),
                "group-spark-17": ("single", ["spark-17"]),
            },
        ),
    ],
)
def test_every_cabled_component_becomes_a_group_of_its_kind(import_lab, lab, expected):
    import_lab(lab)
    found = {g.name: (g.kind, members(g)) for g in NodeGroup.objects.filter(retired_at__isnull=True)}
    assert found == expected


def test_ids_survive_unrelated_edits(import_lab):
    import_lab("demo.yaml")
    before = {g.name: g.pk for g in NodeGroup.objects.all()}
    spark_update(actor=ADMIN_ACTOR, spark=Spark.objects.get(name="spark-08"), serial="NEW-08")
    import_lab("pair.yaml")  # a new pair elsewhere in the lab
    after = {g.name: g.pk for g in NodeGroup.objects.filter(retired_at__isnull=True)}
    assert {k: after[k] for k in before} == before
    assert set(after) - set(before) == {"group-pair-a"}


def test_adding_and_removing_a_node_keeps_the_switched_group(import_lab):
    import_lab("pair.yaml")
    spark_create(actor=ADMIN_ACTOR, name="gen-1", hardware="dgx-spark-128", ssh_host="10.0.0.1")
    spark_create(actor=ADMIN_ACTOR, name="gen-2", hardware="dgx-spark-128", ssh_host="10.0.0.2")
    from inventory.services import switch_create

    switch_create(actor=ADMIN_ACTOR, name="sw-32", hardware="generic-qsfp112-switch-32")
    cable_create(actor=ADMIN_ACTOR, type="qsfp112-dac", ends=["gen-1:p0", "sw-32:1"])
    cable_create(actor=ADMIN_ACTOR, type="qsfp112-dac", ends=["gen-2:p0", "sw-32:2"])
    group = group_of("gen-1")
    assert group.kind == "switched" and members(group) == ["gen-1", "gen-2"]

    spark_create(actor=ADMIN_ACTOR, name="gen-0", hardware="dgx-spark-64", ssh_host="10.0.0.3")
    cable_create(actor=ADMIN_ACTOR, type="qsfp112-dac", ends=["gen-0:p0", "sw-32:3"])
    assert group_of("gen-0").pk == group.pk  # even though gen-0 is now the smallest name
    assert members(NodeGroup.objects.get(pk=group.pk)) == ["gen-0", "gen-1", "gen-2"]
    assert NodeGroup.objects.get(pk=group.pk).name == "group-gen-1"

    spark_delete(actor=ADMIN_ACTOR, spark=Spark.objects.get(name="gen-1"))
    assert group_of("gen-2").pk == group.pk
    assert members(NodeGroup.objects.get(pk=group.pk)) == ["gen-0", "gen-2"]


def test_a_group_whose_cabling_is_gone_is_retired_and_kept(import_lab):
    import_lab("pair.yaml")
    pair = group_of("pair-a")
    for name in ("pair-a", "pair-b"):
        spark_delete(actor=ADMIN_ACTOR, spark=Spark.objects.get(name=name))
    pair.refresh_from_db()
    assert pair.retired_at is not None  # the row stays for the bookings that name it
    log = Change.objects.filter(object_type="group", action="delete").get()
    assert log.object_name == "group-pair-a" and log.source == "cabling"
    assert "cabling is gone" in str(log.diff)
    # The name is free again for a new live group.
    import_lab("pair.yaml")
    assert group_of("pair-a").name == "group-pair-a" and group_of("pair-a").pk != pair.pk


def test_unplugging_a_pair_keeps_the_id_on_one_half(import_lab):
    import_lab("pair.yaml")
    pair = group_of("pair-a")
    cable_delete(actor=ADMIN_ACTOR, cable=Cable.objects.get())
    assert group_of("pair-a").pk == pair.pk and group_of("pair-a").kind == "single"
    assert group_of("pair-b").pk != pair.pk
    cable_create(actor=ADMIN_ACTOR, type="qsfp112-dac", ends=["pair-a:p0", "pair-b:p0"])
    assert group_of("pair-b").pk == pair.pk and group_of("pair-a").kind == "direct"


def test_sync_is_idempotent_and_logs_nothing_when_nothing_changed(import_lab):
    import_lab("demo.yaml")
    changes = Change.objects.count()
    assert svc.groups_sync() is False
    assert Change.objects.count() == changes


def test_a_subgroup_is_retired_when_its_nodes_leave_the_parent(import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    sub = svc.subgroup_create(actor=ADMIN_ACTOR, parent=parent, name="exp-a", nodes=["node-01", "node-02"])
    keep = svc.subgroup_create(actor=ADMIN_ACTOR, parent=parent, name="exp-b", nodes=["node-05"])
    cable_delete(actor=ADMIN_ACTOR, cable=Cable.objects.get(label="bo-1"))  # node-01 and -02 leave the switch
    sub.refresh_from_db()
    keep.refresh_from_db()
    assert sub.retired_at is not None and keep.retired_at is None
    log = Change.objects.get(object_type="group", object_name="exp-a", action="delete")
    assert "left the parent group" in str(log.diff)


def test_reads_never_write_and_groups_sync_catches_up_rows_written_around_the_services(api_admin, import_lab):
    import_lab("pair.yaml")
    from django.core.management import call_command

    from inventory.models import CatalogueEntry

    Spark.objects.create(name="raw-1", hardware=CatalogueEntry.objects.get(slug="dgx-spark-64"), ssh_host="10.9.0.1")
    before = (db_state(), NodeGroup.objects.count(), NodeGroupMember.objects.count())
    names = {g["name"]: g["kind"] for g in api_admin.get("/api/groups").json()["items"]}
    assert names == {"group-pair-a": "direct"}  # a read shows what is stored
    assert (db_state(), NodeGroup.objects.count(), NodeGroupMember.objects.count()) == before
    call_command("groups_sync", stdout=io.StringIO())
    names = {g["name"]: g["kind"] for g in api_admin.get("/api/groups").json()["items"]}
    assert names == {"group-pair-a": "direct", "group-raw-1": "single"}


# ---------------------------------------------------------------- API shapes

GROUP_KEYS = {
    "id",
    "name",
    "kind",
    "nodes",
    "switches",
    "health",
    "links",
    "slowest_gbps",
    "slowest_source",
    "exchange_gbs",
    "exchange_source",
    "measured_gbs",
    "measured_run",
    "measured_at",
    "measured_socket_hosts",
    "memory",
    "findings",
}
LINK_KEYS = {"a", "b", "cable", "gbps", "expected_gbps", "observed_gbps", "state", "why", "measured_gbps"}


def assert_group_shape(g: dict) -> None:
    assert set(g) == GROUP_KEYS
    assert set(g["health"]) == {"status", "why", "unhealthy"}
    assert all(set(link) == LINK_KEYS for link in g["links"])
    assert set(g["memory"]) == {
        "local_gb",
        "pooled_gb",
        "symmetric_gb",
        "bandwidth_gbs",
        "usable_gb_per_node",
        "usable_source_per_node",
        "left_out",
    }
    assert all(isinstance(name, str) for name in g["memory"]["left_out"])  # the group's down Sparks, by name
    assert all(set(f) == {"code", "severity", "message", "objects"} for f in g["findings"])


def test_api_lists_and_reads_groups_in_exactly_the_documented_shape(api_viewer, import_lab):
    import_lab("demo.yaml")
    items = api_viewer.get("/api/groups").json()["items"]
    assert [g["kind"] for g in items] == ["direct", "ring", "switched", "direct", "single"]
    for g in items:
        assert_group_shape(g)
    ring = items[1]
    assert ring["nodes"] == ["spark-03", "spark-04", "spark-05", "spark-06"] and ring["switches"] == []
    # never polled: the cabling's speed, unobserved
    assert {
        "a": "spark-05:p1",
        "b": "spark-06:p0",
        "cable": "ring-3",
        "gbps": 100,
        "expected_gbps": 100,
        "observed_gbps": None,
        "state": "unobserved",
        "measured_gbps": None,
        "why": "no fresh sample of spark-05; no fresh sample of spark-06: speed from the cabling",
    } in ring["links"]
    assert ring["health"]["status"] == "new" and ring["slowest_source"] == "expected"
    slow = [f for f in ring["findings"] if f["code"] == "slow-cable"]
    assert slow and "replace it with a QSFP112 or QSFP56 DAC" in slow[0]["message"]
    switched = items[2]
    assert switched["switches"] == ["sw-804"] and len(switched["links"]) == 8
    # nothing measured: 130.7 GB MemTotal of a 128 GB Spark minus the 4 GB OS reserve, expected
    per_node = {f"spark-{i:02d}": 126.7 for i in range(7, 15)}
    assert switched["memory"] == {
        "local_gb": 126.7,
        "pooled_gb": 1013.6,
        "symmetric_gb": 1013.6,
        "bandwidth_gbs": 8 * 273.0,
        "usable_gb_per_node": per_node,
        "usable_source_per_node": dict.fromkeys(per_node, "expected"),
        "left_out": [],  # no Spark of it is down
    }
    assert api_viewer.get(f"/api/groups/{switched['id']}").json() == switched
    direct = api_viewer.get("/api/groups?kind=direct").json()
    assert direct["count"] == 2 and [g["name"] for g in direct["items"]] == ["group-spark-01", "group-spark-15"]
    # a page at a time, as every list of the API: count is all of them, items the page
    every = api_viewer.get("/api/groups").json()
    second = api_viewer.get("/api/groups?limit=1&offset=1").json()
    assert second == {"count": every["count"], "items": every["items"][1:2]}
    assert api_viewer.get(f"/api/groups?offset={every['count']}").json() == {"count": every["count"], "items": []}
    refused = api_viewer.get("/api/groups?limit=1001")
    assert refused.status_code == 422 and "limit" in refused.content.decode()


def test_a_subgroup_without_a_name_says_one_is_required(api_admin, import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    response = api_admin.post(f"/api/groups/{parent.pk}/subgroups", {"nodes": ["node-03"]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "path": "name",
            "message": "a name is required: 1 to 63 lower-case letters, digits and '-', "
            "starting with a letter or digit",
        }
    ]


def test_subgroups_are_listed_unless_asked_not_to(api_admin, import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    response = api_admin.post(f"/api/groups/{parent.pk}/subgroups", {"name": "exp-a", "nodes": ["node-03", "node-04"]})
    assert response.status_code == 201, response.content
    sub = response.json()
    assert_group_shape(sub)
    assert sub["kind"] == "switched" and sub["nodes"] == ["node-03", "node-04"] and sub["switches"] == ["sw-804"]
    assert [link["cable"] for link in sub["links"]] == ["bo-2", "bo-2"]
    assert sub["memory"]["pooled_gb"] == 253.4
    assert [g["name"] for g in api_admin.get("/api/groups").json()["items"]] == ["group-node-01", "exp-a"]
    assert [g["name"] for g in api_admin.get("/api/groups?include_subgroups=false").json()["items"]] == [
        "group-node-01"
    ]


def test_rename_and_delete(api_admin, import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    sub_id = api_admin.post(f"/api/groups/{parent.pk}/subgroups", {"name": "exp-a", "nodes": ["node-01"]}).json()["id"]
    assert api_admin.patch(f"/api/groups/{sub_id}", {"name": "exp-b"}).json()["name"] == "exp-b"
    assert api_admin.patch(f"/api/groups/{parent.pk}", {"name": "rack-a"}).json()["name"] == "rack-a"
    assert api_admin.delete(f"/api/groups/{sub_id}").json() == {"deleted": sub_id, "name": "exp-b"}
    gone = api_admin.get(f"/api/groups/{sub_id}")
    assert gone.status_code == 404 and "retired" in gone.json()["message"]
    log = list(Change.objects.filter(object_type="group").order_by("id").values_list("action", "object_name"))
    assert log == [("create", "exp-a"), ("update", "exp-b"), ("update", "rack-a"), ("delete", "exp-b")]


@pytest.fixture
def alert_provider():
    """A telemetry-like provider appended to the real hook list, removed afterwards."""
    from topology.engine import Finding

    alert = Finding(
        "half-speed-port", "warning", "spark-09:p0 runs on one twin only; bring up its twin.", ("spark-09:p0",)
    )
    calls: list[list[str]] = []

    def provider(group, nodes):
        calls.append(list(nodes))
        return [alert] if "spark-09" in nodes else []

    with svc.GROUP_FINDING_PROVIDERS.added(provider):
        yield calls


def test_provider_findings_reach_the_api_and_the_pages(api_viewer, admin_client, import_lab, alert_provider):
    import_lab("demo.yaml")
    switched = group_of("spark-07")
    codes = [f["code"] for f in api_viewer.get(f"/api/groups/{switched.pk}").json()["findings"]]
    assert "half-speed-port" in codes
    listed = api_viewer.get("/api/groups").json()["items"]
    assert [g["id"] for g in listed if "half-speed-port" in str(g["findings"])] == [switched.pk]
    assert len(alert_provider) == 2  # asked once per request for the whole fleet, not once per group
    assert "bring up its twin" in admin_client.get(f"/groups/{switched.pk}/").content.decode()
    assert "2 warnings" in admin_client.get("/topology/").content.decode()  # uncoded cable + the alert


# ---------------------------------------------------------------- roles

ROLES = [ADMIN, MEMBER, VIEWER, None]


def _actions(parent: int, sub: int) -> list[tuple[str, str, str, dict | None, bool]]:
    return [
        ("list", "get", "/api/groups", None, False),
        ("read", "get", f"/api/groups/{parent}", None, False),
        ("create sub-group", "post", f"/api/groups/{parent}/subgroups", {"name": "exp-z", "nodes": ["node-08"]}, True),
        ("rename", "patch", f"/api/groups/{sub}", {"name": "exp-y"}, True),
        ("delete sub-group", "delete", f"/api/groups/{sub}", None, True),
    ]


@pytest.mark.parametrize("role", ROLES, ids=lambda r: r or "anonymous")
@pytest.mark.parametrize("index", range(5), ids=["list", "read", "create", "rename", "delete"])
def test_role_matrix(role, index, users, import_lab):
    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    sub = svc.subgroup_create(actor=ADMIN_ACTOR, parent=parent, name="exp-a", nodes=["node-01"])
    _, method, path, body, is_write = _actions(parent.pk, sub.pk)[index]
    client = ApiClient(users[role] if role else None)
    before = groups_state()
    response = getattr(client, method)(path, body) if body is not None else getattr(client, method)(path)
    if role is None:
        assert response.status_code == 401
    elif is_write and role != ADMIN:
        assert response.status_code == 403 and "lab admin" in response.json()["message"]
    else:
        assert response.status_code == (201 if index == 2 else 200), response.content  # a new sub-group: 201
        assert (groups_state() != before) == is_write
        return
    assert groups_state() == before


# ---------------------------------------------------------------- bad input

CHAIN = {
    "sparks": [{"name": f"c-{i}", "hardware": "dgx-spark-128", "ssh": {"host": f"10.7.0.{i}"}} for i in (1, 2, 3)],
    "cables": [
        {"type": "qsfp112-dac", "ends": ["c-1:p1", "c-2:p0"]},
        {"type": "qsfp112-dac", "ends": ["c-2:p1", "c-3:p0"]},
    ],
}

BAD = [
    # (what, group (node in it), body, status, path, words)
    ("unknown node", "node-01", {"name": "exp-x", "nodes": ["node-99"]}, 400, "nodes[0]", "no Spark is named"),
    (
        "node outside the group",
        "node-01",
        {"name": "exp-x", "nodes": ["ring-1"]},
        400,
        "nodes[0]",
        "is not in group group-node-01",
    ),
    (
        "node already in a sub-group",
        "node-01",
        {"name": "exp-x", "nodes": ["node-05", "node-01"]},
        400,
        "nodes[1]",
        "already in sub-group exp-a",
    ),
    ("node named twice", "node-01", {"name": "exp-x", "nodes": ["node-05", "node-05"]}, 400, "nodes[1]", "twice"),
    ("no nodes", "node-01", {"name": "exp-x", "nodes": []}, 400, "nodes", "at least one Spark"),
    ("nodes not a list", "node-01", {"name": "exp-x", "nodes": "node-05"}, 400, "nodes", "a list of Spark names"),
    ("empty name", "node-01", {"name": "", "nodes": ["node-05"]}, 400, "name", "a name is required"),
    ("missing name", "node-01", {"nodes": ["node-05"]}, 400, "name", "a name is required"),
    ("bad name", "node-01", {"name": "Exp A<b>", "nodes": ["node-05"]}, 400, "name", "not a valid name"),
    ("duplicate name", "node-01", {"name": "exp-a", "nodes": ["node-05"]}, 400, "name", "already exists"),
    ("name of an auto group", "node-01", {"name": "group-ring-1", "nodes": ["node-05"]}, 400, "name", "already exists"),
    ("split a ring", "ring-1", {"name": "exp-x", "nodes": ["ring-1", "ring-2"]}, 409, "id", "is a ring"),
    ("split a direct pair", "pair-a", {"name": "exp-x", "nodes": ["pair-a"]}, 409, "id", "is a direct pair"),
    ("split a chain", "c-1", {"name": "exp-x", "nodes": ["c-1"]}, 409, "id", "is a chain"),
    ("split a sub-group", "exp-a", {"name": "exp-x", "nodes": ["node-01"]}, 400, "parent", "is itself a sub-group"),
    ("unknown group", None, {"name": "exp-x", "nodes": ["node-05"]}, 404, "id", "no group with id"),
]


@pytest.fixture
def bad_input_lab(import_lab, admin_user):
    import_lab("lab8-crs804.yaml", "ring4.yaml", "pair.yaml")
    from inventory.labio import lab_import

    lab_import(actor=ADMIN_ACTOR, data=CHAIN)
    svc.subgroup_create(actor=ADMIN_ACTOR, parent=group_of("node-01"), name="exp-a", nodes=["node-01", "node-02"])


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_subgroup_requests_get_a_clear_4xx_and_change_nothing(case, api_admin, bad_input_lab):
    _, owner, body, status, path, words = case
    if owner is None:
        gid = 999_999
    elif owner.startswith("exp-"):
        gid = NodeGroup.objects.get(name=owner).pk
    else:
        gid = group_of(owner).pk
    before = groups_state()
    response = api_admin.post(f"/api/groups/{gid}/subgroups", body)
    assert response.status_code == status, response.content
    data = response.json()
    assert set(data) == {"message", "errors"}
    assert any(e["path"] == path and words in e["message"] for e in data["errors"]), data
    if status == 409:
        assert data["errors"][0]["code"] == "ring-not-splittable"
    assert groups_state() == before


def test_bad_rename_and_delete_change_nothing(api_admin, bad_input_lab):
    parent = group_of("node-01")
    before = groups_state()
    for body, words in (
        ({"name": ""}, "a name is required"),
        ({"name": "group-ring-1"}, "already exists"),
        ({"name": "x" * 64}, "not a valid name"),
        ({}, "send the new name"),
    ):
        response = api_admin.patch(f"/api/groups/{parent.pk}", body)
        assert response.status_code == 400 and words in response.json()["message"], (body, response.content)
    response = api_admin.delete(f"/api/groups/{parent.pk}")
    assert response.status_code == 400 and "follows the cabling" in response.json()["message"]
    assert api_admin.delete("/api/groups/999999").status_code == 404
    assert api_admin.get("/api/groups?kind=star").status_code == 400
    assert groups_state() == before


@pytest.mark.django_db(transaction=True)
def test_sub_groups_made_at_once_of_the_same_sparks_leave_one(import_lab):
    """Six admins name node-05 and node-06 a sub-group at the same moment: one is
    made, five are refused naming it (both had been taken, each with the Sparks)."""
    import threading

    from django.db import connection

    from tests.conftest import make_user

    import_lab("lab8-crs804.yaml")
    parent = group_of("node-01")
    clients = [ApiClient(make_user(f"sub-admin{i}", ADMIN)) for i in range(6)]
    go = threading.Barrier(len(clients))
    results: list = [None] * len(clients)

    def make(i: int) -> None:
        try:
            go.wait()
            r = clients[i].post(
                f"/api/groups/{parent.pk}/subgroups", {"name": f"sub-c{i}", "nodes": ["node-05", "node-06"]}
            )
            results[i] = (r.status_code, r.json())
        except Exception as exc:
            results[i] = (599, {"message": repr(exc)})
        finally:
            connection.close()

    threads = [threading.Thread(target=make, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    codes = sorted(code for code, _ in results)
    assert codes == [201] + [400] * 5, results
    (winner,) = [body["name"] for code, body in results if code == 201]
    for code, body in results:
        if code == 400:
            assert body["errors"][0]["message"] == f"node-05 is already in sub-group {winner} of {parent.name}"
    holders = NodeGroupMember.objects.filter(group__parent=parent, group__retired_at=None, spark__name="node-05")
    assert holders.count() == 1
