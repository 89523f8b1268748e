"""Netplan files of the demo lab's groups, downloaded per group (zip) and per
Spark (page and API), parsed back as YAML and checked against the rules: one
subnet per twin per link, MTU 9000, both ends of a link in its subnet, no two
twins in one subnet; addresses telemetry saw are kept when they follow them.

    demo: a direct pair (spark-01/02), a 4-ring (spark-03..06), eight Sparks on
    sw-804 through breakouts (spark-07..14), a 100G pair (spark-15/16), a single.
"""

from __future__ import annotations

import io
import ipaddress
import zipfile

import pytest
import yaml

from fabric.netplan import TWIN_IFACES, check_netplans, segments_from_links
from inventory.models import NodeGroup, Spark
from placement.selectors import groupspec_for
from simfleet.simulator import load_scenario, render_poll_output
from telemetry.parsers import parse_poll_output

pytestmark = pytest.mark.django_db


def cabled_groups():
    return [
        g
        for g in NodeGroup.objects.filter(retired_at__isnull=True, parent__isnull=True).order_by("name")
        if g.members.count() > 1
    ]


def segments_of(group):
    planned = groupspec_for(group)
    return segments_from_links(
        [(link.a, link.b) for link in planned.topology.links], [n.name for n in planned.spec.nodes]
    )


def test_every_demo_group_downloads_files_that_follow_the_rules(import_lab, client, viewer_user, api_viewer):
    import_lab("demo.yaml")
    client.force_login(viewer_user)
    groups = cabled_groups()
    assert {g.kind for g in groups} >= {"direct", "ring", "switched"}
    for group in groups:
        response = client.get(f"/groups/{group.pk}/netplan.zip")
        assert response.status_code == 200 and response["Content-Type"] == "application/zip"
        archive = zipfile.ZipFile(io.BytesIO(response.content))
        files = {name.split("/")[0]: archive.read(name).decode() for name in archive.namelist()}
        members = set(group.members.values_list("spark__name", flat=True))
        assert set(files) == members, group.name
        segments = segments_of(group)
        assert check_netplans(files, segments) == [], group.name
        seen: dict[ipaddress.IPv4Network, str] = {}
        for segment in segments:
            for index in (0, 1):
                ends = []
                for node, port in segment.ends:
                    conf = yaml.safe_load(files[node])["network"]["ethernets"][TWIN_IFACES[port][index]]
                    assert conf["mtu"] == 9000
                    ends.append(ipaddress.IPv4Interface(conf["addresses"][0]))
                (net,) = {e.network for e in ends}
                assert net not in seen, f"{segment.key} twin {index} shares {net} with {seen.get(net)}"
                seen[net] = f"{segment.key} twin {index}"
        api = api_viewer.get(f"/api/groups/{group.pk}/netplan").json()
        assert api["files"] == files
        one = sorted(files)[0]
        assert api_viewer.get(f"/api/sparks/{one}/netplan").content.decode() == files[one]
        assert client.get(f"/sparks/{one}/netplan.yaml").content.decode() == files[one]


def test_switch_sparks_share_the_switch_subnets_and_the_ring_has_four_twins(import_lab, api_viewer):
    import_lab("demo.yaml")
    switched = NodeGroup.objects.get(retired_at__isnull=True, parent__isnull=True, members__spark__name="spark-07")
    files = api_viewer.get(f"/api/groups/{switched.pk}/netplan").json()["files"]
    nets = {
        str(ipaddress.IPv4Interface(yaml.safe_load(t)["network"]["ethernets"]["enp1s0f0np0"]["addresses"][0]).network)
        for t in files.values()
    }
    assert len(files) == 8 and len(nets) == 1
    ring = api_viewer.get("/api/sparks/spark-04/netplan").content.decode()
    assert set(yaml.safe_load(ring)["network"]["ethernets"]) == set(TWIN_IFACES["p0"] + TWIN_IFACES["p1"])


def test_addresses_telemetry_saw_are_kept(import_lab, api_viewer):
    """The simulated pair is addressed 192.168.x.0/24 per twin, as NVIDIA's guides do: polls store it,
    and the files keep it instead of renumbering a working link."""
    from django.utils import timezone

    from telemetry.sample import PollResult
    from telemetry.selectors import latest_samples
    from telemetry.services import results_store

    import_lab("pair.yaml")
    names = sorted(Spark.objects.values_list("name", flat=True))
    nodes = load_scenario({"nodes": names, "cabling": [[f"{names[0]}:p0", f"{names[1]}:p0"]]})
    results = [
        PollResult(
            n, timezone.now(), True, parse_poll_output(render_poll_output(nodes, n)), "", "ssh-ed25519 AAAA", "ok", 5.0
        )
        for n in names
    ]
    results_store(results=results)
    group = NodeGroup.objects.get(retired_at__isnull=True, members__spark__name=names[0])
    body = api_viewer.get(f"/api/groups/{group.pk}/netplan").json()
    assert list(body["sources"].values()) == ["observed"]
    seen = {t["name"]: t["addresses"] for t in latest_samples([names[0]])[names[0]].twin_list}
    first = yaml.safe_load(body["files"][names[0]])["network"]["ethernets"]["enp1s0f0np0"]["addresses"][0]
    assert first in seen["enp1s0f0np0"]


def test_unknown_or_uncabled_sparks_are_named(import_lab, api_viewer):
    import_lab("demo.yaml")
    missing = api_viewer.get("/api/sparks/nope/netplan")
    assert missing.status_code == 404 and "no Spark is named 'nope'" in missing.json()["message"]
    single = api_viewer.get("/api/sparks/spark-17/netplan")
    assert single.status_code == 400 and "spark-17" in single.json()["message"]
