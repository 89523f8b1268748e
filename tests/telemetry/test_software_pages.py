"""What each Spark runs, shown: the Spark API's ``software``, the fleet's software
page (odd values marked, filtered by group), the Spark page's box and history,
the expected versions (lab admin only, page and API alike) and the notes the
plan, launch and fabric pages give before they start."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from inventory.models import Change, NodeGroup, Spark
from telemetry.models import Alert, SoftwarePin
from telemetry.services import software_drift_sync
from tests.conftest import ApiClient
from tests.support.software import store_software

VLLM = "nvcr.io/nvidia/vllm:26.05-py3"
RING = ("ring-1", "ring-2", "ring-3", "ring-4")


def _read(versions: dict[str, dict[str, str]], at=None, faults=frozenset()):
    """Store a software reading per Spark, as a poll with these versions would."""
    store_software({name: (sw, faults) for name, sw in versions.items()}, [VLLM], at)
    return software_drift_sync()


@pytest.fixture
def ring(import_lab):
    import_lab("ring4.yaml")
    start = timezone.now() - timedelta(hours=3)
    _read({n: {} for n in RING}, at=start)
    # ring-4 took an older driver and its own image build since
    _read({"ring-4": {"driver": "580.82.09", "image_digest": "sha256:" + "ab" * 32}}, at=start + timedelta(hours=1))
    return NodeGroup.objects.get(auto=True, members__spark__name="ring-1")


@pytest.mark.django_db
def test_the_api_carries_each_sparks_software_with_when_it_was_read(ring, api_viewer):
    body = api_viewer.get("/api/sparks/ring-4").json()
    sw = body["software"]
    assert set(sw) >= {"dgx_os", "kernel", "driver", "cuda", "connectx_firmware", "nccl", "images"}
    assert sw["driver"]["value"] == "580.82.09" and sw["driver"]["read_at"] and sw["driver"]["since"]
    assert sw["driver"]["since"] > sw["kernel"]["since"]  # the driver changed an hour after the first reading
    (image,) = [i for i in sw["images"]["value"] if i["launch"]]
    assert image["ref"] == VLLM and image["digest"] == "sha256:" + "ab" * 32 and image["nccl"] == "2.27.7"
    # NVIDIA's way: vLLM in a container, none on the fleet user's PATH (what the benchmark client will use)
    assert sw["vllm"] == {
        "value": "absent",
        "path": None,
        "version": None,
        "python": None,
        "ray": None,
        "read_at": sw["driver"]["read_at"],
    }
    listed = {s["name"]: s["software"] for s in api_viewer.get("/api/sparks").json()["items"]}
    assert listed["ring-1"]["driver"]["value"] == "580.95.05"

    rows = {r["name"]: r for r in api_viewer.get(f"/api/software?group={ring.name}").json()}
    assert set(rows) == set(RING)
    assert rows["ring-4"]["versions"]["driver"] == {"value": "580.82.09", "odd": True, "target": "580.95.05"}
    assert rows["ring-1"]["versions"]["driver"]["odd"] is False and rows["ring-1"]["drift"] == ""
    assert "update ring-4's driver to 580.95.05, as on ring-1 to ring-3" in rows["ring-4"]["drift"]
    # by its id too, as the other filters take a group (it once wanted the name alone)
    by_id = {r["name"]: r for r in api_viewer.get(f"/api/software?group={ring.pk}").json()}
    assert by_id == rows
    missing = api_viewer.get("/api/software?group=nope")
    assert missing.status_code == 400 and missing.json()["errors"][0]["path"] == "group"
    assert api_viewer.get("/api/software?group=999999").status_code == 400


@pytest.mark.django_db
def test_a_bare_metal_launch_notes_the_fleet_users_vllm_versions_when_they_differ(ring, api_viewer):
    """Ray runs one vLLM across the nodes: when the Sparks' own vllm packages,
    the Ray beside them or their Python are not one version, the bare-metal
    launches say which has which; the
    Spark's API and page carry the version; not a drift (containers do not
    run it) and a single version says nothing."""
    from telemetry.software_store import launch_readiness

    own = "/home/fleet/.venv/bin/vllm"
    _read(
        {
            "ring-1": {"vllm": own, "vllm_version": "0.11.1"},
            "ring-2": {"vllm": own, "vllm_version": "0.11.1"},
            "ring-3": {"vllm": own, "vllm_version": "0.10.2", "vllm_python": "3.11", "vllm_ray": "2.48.0"},
            "ring-4": {"driver": "580.82.09", "image_digest": "sha256:" + "ab" * 32},
        }
    )
    needs = launch_readiness(RING, image=VLLM)
    read = Spark.objects.get(name="ring-1").software.read_at.strftime("%Y-%m-%d %H:%M")
    assert needs["vllm"] == [
        f"the fleet user's SSH shell found no vllm on ring-4 (software read at {read} UTC): install vLLM there, or "
        "use the container recipe",
        "the fleet user's vllm is not one version everywhere (0.10.2 on ring-3, 0.11.1 on ring-1 and ring-2): "
        "install one on all",
        "Ray beside it is not one version everywhere (2.48.0 on ring-3, 2.49.1 on ring-1 and ring-2): install one "
        "on all",
        "their Python is not one version everywhere (3.11 on ring-3, 3.12 on ring-1 and ring-2): install one on all",
    ]
    assert launch_readiness(["ring-1", "ring-2"], image=VLLM)["vllm"] == []
    sw = api_viewer.get("/api/sparks/ring-3").json()["software"]
    assert (sw["vllm"]["value"], sw["vllm"]["path"], sw["vllm"]["version"]) == ("present", own, "0.10.2")
    assert (sw["vllm"]["python"], sw["vllm"]["ray"]) == ("3.11", "2.48.0")
    # not a drift: ring-3's own vllm differs, and nothing else
    rows = {r["name"]: r for r in api_viewer.get(f"/api/software?group={ring.name}").json()}
    assert rows["ring-3"]["drift"] == "" and "vllm" not in rows["ring-3"]["versions"]


@pytest.mark.django_db
def test_the_finding_reaches_alerts_the_group_page_and_metrics(ring, admin_client, settings):
    (alert,) = Alert.objects.filter(code="software-drift", ended_at=None)
    assert alert.spark.name == "ring-4" and alert.severity == "warning"
    page = admin_client.get(f"/groups/{ring.pk}/").content.decode()
    assert "software-drift" in page and "GPU driver 580.82.09 (580.95.05 on ring-1 to ring-3)" in page
    settings.FLEET_METRICS_TOKEN = ""
    metrics = admin_client.get("/metrics").content.decode()
    assert 'fleet_alerts_open{code="software-drift",severity="warning"} 1.0' in metrics
    # the same reading again changes nothing; the fix closes it
    assert _read({"ring-4": {"driver": "580.82.09", "image_digest": "sha256:" + "ab" * 32}}).opened == 0
    assert _read({"ring-4": {}}).closed == 1
    assert not Alert.objects.filter(code="software-drift", ended_at=None).exists()


@pytest.mark.django_db
def test_the_fleet_page_marks_the_odd_ones_and_filters_by_group(ring, import_lab, client, admin_user):
    import_lab("pair.yaml")
    client.force_login(admin_user)
    page = client.get("/software/").content.decode()
    assert 'href="/software/"' in page and 'id="sw-ring-4"' in page and 'class="sw-drift"' in page
    assert 'nowrap sw-odd">580.82.09<span class="sw-want">≠ 580.95.05</span>' in page
    assert "1 Spark runs other software than its group or the lab expects" in page
    only = client.get(f"/software/?group={ring.name}").content.decode()
    pair = Spark.objects.exclude(name__in=RING).values_list("name", flat=True)[0]
    assert f'id="sw-{pair}"' in page and f'id="sw-{pair}"' not in only
    partial = client.get(
        f"/software/?group={ring.name}", headers={"HX-Request": "true", "HX-Target": "software-table"}
    ).content.decode()
    assert partial.lstrip().startswith('<div id="software-table">') and f'id="sw-{pair}"' not in partial
    spark_page = client.get("/sparks/ring-4/").content.decode()
    assert 'id="spark-software"' in spark_page and "GPU driver 580.95.05 → 580.82.09" in spark_page
    assert 'id="spark-software-drift"' in spark_page
    assert (
        '<td>vLLM on the host</td><td colspan="2">not on the fleet user\'s PATH <span class="small muted">'
        "(benchmarks run the client in the launch image)</span>"
    ) in spark_page
    _read({"ring-4": {"vllm": "/home/fleet/.local/bin/vllm"}})
    own = client.get("/sparks/ring-4/").content.decode()
    assert (
        '<td colspan="2">/home/fleet/.local/bin/vllm <span class="vllm-version">0.11.0</span> '
        '<span class="small muted">(Python 3.12; Ray 2.49.1; benchmarks use it)</span>'
    ) in own


@pytest.mark.django_db
def test_expected_versions_are_a_lab_admins_in_page_and_api(ring, client, viewer_user, admin_user):
    viewer, admin = ApiClient(viewer_user), ApiClient(admin_user)
    assert viewer.post("/api/software/expected", {"pins": {"driver": "580.126.09"}}).status_code == 403
    nocsrf = ApiClient(admin_user, session=True, csrf=False)
    assert nocsrf.post("/api/software/expected", {"pins": {"driver": "580.126.09"}}).status_code == 403
    bad = admin.post("/api/software/expected", {"pins": {"driver": "580.126.09", "bios": "1"}})
    assert bad.status_code == 400 and bad.json()["errors"][0]["path"] == "bios"
    bad = admin.post("/api/software/expected", {"pins": {"kernel": "6.17; reboot"}})
    assert bad.status_code == 400 and bad.json()["errors"][0]["path"] == "kernel"
    # a launch image is pinned to a build, by its registry digest (what serving pulls), not to a tag
    image = "image:nvcr.io/nvidia/vllm:26.05-py3"
    bad = admin.post("/api/software/expected", {"pins": {image: "26.05-py3"}})
    assert bad.status_code == 400 and bad.json()["errors"][0] == {
        "path": image,
        "message": "'26.05-py3' is not a registry digest (sha256: and 64 hex digits, as the software page shows a "
        "launch image)",
    }
    assert not SoftwarePin.objects.exists()
    digest = "sha256:" + "3c" * 32
    assert admin.post("/api/software/expected", {"pins": {image: f" {digest} "}}).json() == {"pins": {image: digest}}
    assert admin.post("/api/software/expected", {"pins": {image: ""}}).json() == {"pins": {}}
    ok = ApiClient(admin_user, session=True).post("/api/software/expected", {"pins": {"kernel": "6.17.0-1026-nvidia"}})
    assert ok.status_code == 200 and ok.json() == {"pins": {"kernel": "6.17.0-1026-nvidia"}}
    assert admin.get("/api/software/expected").json() == {"pins": {"kernel": "6.17.0-1026-nvidia"}}
    assert Change.objects.filter(object_type="software").count() == 3  # the image pinned, unpinned, the kernel

    client.force_login(viewer_user)
    assert client.post("/software/expected/", {"driver": "580.126.09"}).status_code == 403
    assert 'action="/software/expected/"' not in client.get("/software/").content.decode()
    client.force_login(admin_user)
    answer = client.post("/software/expected/", {"driver": "580.126.09", "kernel": "6.17.0-1026-nvidia"})
    assert answer.status_code == 302
    drift = dict(Alert.objects.filter(code="software-drift", ended_at=None).values_list("spark__name", "message"))
    assert set(drift) == set(RING)  # every Spark differs from the pinned driver, the whole ring agreeing or not
    assert "GPU driver 580.95.05 (the lab expects 580.126.09)" in drift["ring-1"]
    page = client.get("/software/").content.decode()
    assert 'value="580.126.09"' in page and "4 Sparks run other software than their group" in page


@pytest.mark.django_db
def test_plans_launches_and_verifications_say_so_before_they_start(ring, admin_client, api_admin):
    from django.template import Context, Template

    note = Template('{% load telemetry_tags %}{% software_drift_note target "launching" %}')
    text = note.render(Context({"target": list(RING)}))
    assert "Software drift: ring-4 runs other software than the rest. Fix it before launching" in text
    assert "update ring-4&#x27;s driver to 580.95.05" in text
    assert note.render(Context({"target": ["ring-1"]})).strip() == ""
    fabric = admin_client.get(f"/groups/{ring.pk}/").content.decode()
    assert "Fix it before verifying the fabric" in fabric
    plans = admin_client.get(f"/plans/?group={ring.pk}").content.decode()
    assert "Fix it before running a model across them" in plans
    started = api_admin.post(f"/api/groups/{ring.pk}/verify")
    assert started.status_code == 202, started.content
    (said,) = started.json()["software_drift"]
    assert said["node"] == "ring-4" and "GPU driver 580.82.09" in said["message"]
    planned = api_admin.post("/api/plans", {"model": "qwen3-8b", "group": ring.pk})
    assert planned.status_code == 200, planned.content
    (said,) = planned.json()["software_drift"]
    assert said["node"] == "ring-4" and "update ring-4's driver to 580.95.05" in said["message"]


@pytest.mark.django_db
def test_the_stale_check_judges_the_drift_again_for_changes_outside_a_poll(ring):
    from telemetry.tasks import check_stale

    assert Alert.objects.filter(code="software-drift", ended_at=None).count() == 1
    Spark.objects.filter(name="ring-4").update(status=Spark.Status.MAINTENANCE)  # out of the fleet: not compared
    report = check_stale()
    assert report["software_drift"]["closed"] == 1
    assert not Alert.objects.filter(code="software-drift", ended_at=None).exists()


def test_a_fleet_read_at_once_spreads_its_next_readings_over_the_interval():
    from telemetry.software_store import period_s

    periods = [period_s(i, 3600) for i in range(1, 1001)]
    assert min(periods) >= 1800 and max(periods) < 5400
    assert 3400 < sum(periods) / len(periods) < 3800  # the interval on average
    # in any one 30 s round of the hour after a fleet-wide reading, few Sparks come due
    rounds = [sum(1 for p in periods if t <= p < t + 30) for t in range(1800, 5400, 30)]
    assert max(rounds) <= 25
