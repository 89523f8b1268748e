"""The serving API as real clients use it (a token alone, or a session with
CSRF enforced): who may serve and stop, what is refused and why, and bad
input answered with the field named and nothing written. The worker's task
is not run here (no commit): tests/serving/test_sim.py runs it."""

from __future__ import annotations

import pytest

from bookings.models import Booking
from placement.selectors import vllm_image
from serving.models import Serving, ServingEvent, ServingNode, ServingPort
from tests.conftest import ApiClient
from tests.serving.conftest import SMALL, book

pytestmark = pytest.mark.django_db
ONE_NODE, TWO_COPIES, TP2 = 0, 1, 3  # the plans of SMALL on the pair, in the planner's order
NO_WEIGHTS = {"weights": None, "weights_bytes": None}


def rows() -> tuple[int, int, int, int]:
    return (
        Serving.objects.count(),
        ServingNode.objects.count(),
        ServingPort.objects.count(),
        ServingEvent.objects.count(),
    )


def serve(client, group, plan=ONE_NODE, **fields):
    return client.post("/api/serving", {"group": group.pk, "model": SMALL, "plan": plan, **fields})


def test_member_serves_on_own_booking_and_reads_it_back(api_member, booked_pair, settings):
    settings.FLEET_SERVE_PORT = 9100
    response = serve(api_member, booked_pair)
    assert response.status_code == 202, response.json()
    body = response.json()
    assert (body["status"], body["model"], body["owner"], body["nodes"]) == ("starting", SMALL, "member1", ["pair-a"])
    assert body["url"] == "" and body["endpoints"] == []  # only once it serves
    assert body["booking"]["id"] == Booking.objects.get().pk and body["booking_end"] == body["booking"]["end"]
    assert [(s["node"], s["label"], s["status"]) for s in body["steps"]] == [
        ("pair-a", "image", "waiting"),
        ("pair-a", "weights", "waiting"),
        ("pair-a", "engine", "waiting"),
        ("pair-a", "wait for the engine", "waiting"),
    ]
    assert body["plan"]["label"] == "1 node" and body["plan"]["ports"] == [9100]
    serving = Serving.objects.get()
    assert serving.steps[0]["image"] == vllm_image() and "docker pull" in serving.steps[0]["script"]
    weights = serving.steps[1]
    repo = "meta-llama/Llama-3.1-8B-Instruct"  # the bf16 variant's reference
    assert body["steps"][1]["weights"] == weights["weights"] == repo
    assert weights["expected_bytes"] == 16_060_000_000 and body["steps"][1]["weights_bytes"] is None
    assert f"--label spark-fleet.serving={serving.pk}" in weights["script"]
    assert f"-e SPARK_FLEET_REPO={repo}" in weights["script"] and vllm_image() in weights["script"]
    script = serving.steps[2]["script"]
    assert f"--label spark-fleet.serving={serving.pk}" in script and "--port 9100" in script
    assert f"--name spark-fleet-{serving.pk}-1-0" in script and "docker run -d" in script
    assert f"# predicted decode: {serving.plan['decode_tps']:.2f} tok/s per stream" in script
    assert serving.plan["url"] == "http://10.20.1.11:9100/v1"
    assert api_member.get(f"/api/serving/{serving.pk}").json() == body
    listed = api_member.get(f"/api/serving?group={booked_pair.name}&status=starting").json()
    assert listed["count"] == 1 and listed["items"][0]["id"] == serving.pk
    assert api_member.get("/api/serving?status=stopped").json()["count"] == 0


def test_two_copies_get_a_router_on_the_first_node(api_member, booked_pair, settings):
    settings.FLEET_SERVE_PORT = 9100
    response = serve(api_member, booked_pair, TWO_COPIES)
    assert response.status_code == 202, response.json()
    serving = Serving.objects.get()
    assert [(s["node"], s["label"]) for s in serving.steps] == [
        ("pair-a", "image"),
        ("pair-b", "image"),
        ("pair-a", "weights"),
        ("pair-b", "weights"),
        ("pair-a", "engine"),
        ("pair-b", "engine"),
        ("pair-a", "wait for the engine"),
        ("pair-b", "wait for the engine"),
        ("pair-a", "router"),
        ("pair-a", "wait for the router"),
    ]
    router = serving.steps[8]["script"]
    workers = "http://10.20.1.11:9100 http://10.20.1.12:9100"
    assert f"vllm-router --host 0.0.0.0 --port 9101 --worker-urls {workers}" in router
    assert "--policy round_robin --prometheus-host 0.0.0.0 --prometheus-port 9102" in router
    assert serving.plan["url"] == "http://10.20.1.11:9101/v1"
    assert sorted(ServingPort.objects.values_list("host", "port", "kind")) == [
        ("10.20.1.11", 9100, "engine"),
        ("10.20.1.11", 9101, "router"),
        ("10.20.1.11", 9102, "metrics"),
        ("10.20.1.12", 9100, "engine"),
    ]


def test_a_second_serve_on_busy_nodes_is_refused(api_member, api_admin, booked_pair):
    assert serve(api_member, booked_pair).status_code == 202
    before = rows()
    for client in (api_member, api_admin):
        response = serve(client, booked_pair, TWO_COPIES)
        assert response.status_code == 409, response.json()
        first = Serving.objects.get()
        assert response.json()["errors"] == [
            {"path": "group", "message": f"busy: pair-a serves {SMALL} (serving {first.pk}, member1)"}
        ]
    assert rows() == before


def test_roles_as_for_bookings(api_member, api_viewer, api_admin, member2_client, pair, member_user):
    # nobody holds the pair: a member is sent to book it, an admin told it is not booked
    for client, status in ((api_viewer, 403), (api_member, 403), (api_admin, 409)):
        assert serve(client, pair).status_code == status
    assert rows() == (0, 0, 0, 0)
    book(member_user, pair)
    assert serve(api_viewer, pair).status_code == 403
    assert serve(member2_client, pair).status_code == 403  # another member's booking
    response = serve(api_admin, pair)  # a lab admin serves on any booked group
    assert response.status_code == 202, response.json()
    sid = response.json()["id"]
    assert api_viewer.get(f"/api/serving/{sid}").status_code == 200
    for client, status in ((api_viewer, 403), (api_member, 403), (member2_client, 403)):
        assert client.post(f"/api/serving/{sid}/stop").status_code == status
    assert Serving.objects.get().status == "starting"
    stopped = api_admin.post(f"/api/serving/{sid}/stop")
    assert stopped.status_code == 202 and stopped.json()["status"] == "stopping"
    assert api_admin.post(f"/api/serving/{sid}/stop").status_code == 409  # already stopping


def test_the_owner_stops_through_a_session_with_csrf(member_user, booked_pair):
    browser = ApiClient(member_user, session=True)
    response = serve(browser, booked_pair)
    assert response.status_code == 202, response.json()
    sid = response.json()["id"]
    forged = ApiClient(member_user, session=True, csrf=False)
    assert forged.post(f"/api/serving/{sid}/stop").status_code == 403
    assert serve(forged, booked_pair, TWO_COPIES).status_code == 403
    assert browser.post(f"/api/serving/{sid}/stop").status_code == 202
    assert Serving.objects.get().status == "stopping"
    assert ApiClient(None).get("/api/serving").status_code == 401


BAD = [
    ({"model": "no-such-model"}, 400, "model"),
    ({"plan": 9}, 400, "plan"),
    ({"launcher": "sglang"}, 400, "launcher"),
    ({"launcher": "vllm-ray"}, 400, "launcher"),
    ({"variant": "q9"}, 400, "variant"),
    ({"context_tokens": 0}, 422, "context_tokens"),
    ({"concurrency": 5000}, 422, "concurrency"),
    ({"plan": -1}, 422, "plan"),
    ({"plan": "one"}, 422, "plan"),
    ({"group": [1]}, 422, "group"),
    ({"group": "no-such-group"}, 400, "group"),
    ({"saved_plan": 999}, 400, "saved_plan"),
    ({"model": None}, 400, "model"),
    # JSON's true and 1.0 are not ids or counts (true once served group 1 with plan 1)
    ({"group": True}, 422, "group"),
    ({"group": 1.0}, 422, "group"),
    ({"group": 0}, 422, "group"),
    ({"group": "a\x00"}, 422, "group"),
    ({"plan": True}, 422, "plan"),
    ({"concurrency": True}, 422, "concurrency"),
    ({"context_tokens": 8192.0}, 422, "context_tokens"),
    ({"model": "llama\x00"}, 422, "model"),
]


@pytest.mark.parametrize(("change", "status", "path"), BAD)
def test_bad_input_names_the_field_and_writes_nothing(api_member, booked_pair, change, status, path):
    before = rows()
    body = {"group": booked_pair.pk, "model": SMALL, "plan": ONE_NODE, **change}
    response = api_member.post("/api/serving", body)
    assert response.status_code == status, response.json()
    assert {e["path"] for e in response.json()["errors"]} == {path}  # the field alone, no validator's name
    assert rows() == before


def test_refusals_of_an_id_or_a_name_say_what_a_person_can_act_on(api_member, booked_pair):
    def said(group):
        response = api_member.post("/api/serving", {"group": group, "model": SMALL})
        assert response.status_code == 422
        return response.json()["errors"]

    assert said(True) == [{"path": "group", "message": "give an id (a whole number) or a name, not True"}]
    assert said(0) == [{"path": "group", "message": "an id is a whole number from 1 to 9223372036854775807"}]
    assert said("a\x00b") == [{"path": "group", "message": "contains a NUL byte (one line only); remove it"}]
    assert said("x" * 64) == [{"path": "group", "message": "a name is 1 to 63 characters, not 64"}]
    nul = api_member.post("/api/serving", {"group": booked_pair.pk, "model": "llama\x00"}).json()["errors"]
    assert nul == [{"path": "model", "message": "Value error, contains a NUL byte (one line only); remove it"}]


def test_tp2_waits_for_telemetry_addresses(api_member, booked_pair):
    response = serve(api_member, booked_pair, TP2)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "plan", "message": "pair-a's bootstrap address is not known yet: let telemetry poll the group first"}
    ]
    assert rows() == (0, 0, 0, 0)


def test_a_saved_plan_is_served_as_it_was_kept(api_member, booked_pair, member_user):
    from core.actor import Actor
    from placement.api import PlanIn, planning_for
    from placement.models import LlmModel
    from placement.services import saved_plan_create

    planning = planning_for(PlanIn(model=SMALL, group=booked_pair.pk, concurrency=4))
    kept = saved_plan_create(
        actor=Actor(user=member_user), model=LlmModel.objects.get(slug=SMALL), planning=planning, index=TWO_COPIES
    )
    response = api_member.post("/api/serving", {"group": booked_pair.name, "saved_plan": kept.pk})
    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["plan"]["saved_plan"] == kept.pk and body["plan"]["label"] == kept.label == "2 one-node copies"
    assert body["plan"]["concurrency"] == 4 and body["model"] == SMALL and body["variant"] == kept.quantization


def test_drift_refuses_with_the_finding_but_not_an_image_serving_pulls_or_never_starts(
    api_member, member_user, booked_pair
):
    """Software drift the run cares about refuses, in the finding's own words
    (a driver that differs); a launch image missing on a node does not (the
    serving's image step pulls it), nor does another image that differs (the
    run never starts it), though both are findings on the software page."""
    from telemetry.selectors import software_drift_of
    from telemetry.services import software_drift_sync
    from tests.support.software import store_software

    image, other = vllm_image(), "nvcr.io/nvidia/sglang:26.05-py3"
    store_software({"pair-a": ({}, ()), "pair-b": ({"image_digest": "absent"}, ())}, [image, other])
    software_drift_sync()
    assert [name for name, _ in software_drift_of(["pair-a", "pair-b"])] == ["pair-b"]  # the finding stands
    # the plan page says the finding, and that serving may go ahead over it
    plans = f"/plans/?group={booked_pair.pk}&model={SMALL}"
    browser = ApiClient(member_user, session=True)
    page = browser.get(plans).content.decode()
    assert "Software drift: pair-b runs other software than the rest. Fix it before using the launch commands:" in page
    assert f"Serving can go ahead: none of this is what it uses. It pulls <code>{image}</code> on a Spark" in page
    # with the image pinned (pair-a's build), the page says that build is what serving pulls
    from core.actor import Actor
    from telemetry.services import software_pins_set

    software_pins_set(actor=Actor(source="command"), values={f"image:{image}": "sha256:" + "4f" * 32})
    page = browser.get(plans).content.decode()
    assert (
        f"It pulls <code>{image}</code>, the build the lab pins (<code>sha256:4f4f4f4f4f4f</code>), on a Spark "
        "without it and checks that a multi-node instance's nodes hold one build; the launch commands run that "
        "build by its digest."
    ) in page
    assert f"nvcr.io/nvidia/vllm@sha256:{'4f' * 32}" in page  # the plan's launch commands run it
    before = rows()
    response = serve(api_member, booked_pair)
    assert response.status_code == 202, response.json()
    api_member.post(f"/api/serving/{response.json()['id']}/stop")
    # a driver that differs: refused, the finding's words for the driver alone
    store_software({"pair-a": ({}, ()), "pair-b": ({"driver": "580.82.09", "image_digest": "absent"}, ())}, [image])
    message = (
        "pair-b runs other software than the rest in group-pair-a: GPU driver 580.82.09 (580.95.05 on pair-a). "
        "Fix: update pair-b's driver to 580.95.05, as on pair-a."
    )
    page = browser.get(plans).content.decode()
    assert "Software drift: pair-b runs" in page and "Serving can go ahead" not in page
    assert "Fix it before running a model across them:" in page
    before = rows()
    response = serve(api_member, booked_pair)
    assert response.status_code == 409
    assert response.json()["errors"] == [
        {"path": "group", "message": f"software drift in {booked_pair.name} (fix it first): {message}"}
    ]
    assert rows() == before


def test_a_failed_serving_reads_the_same_in_the_api_and_on_its_page_whatever_its_steps_hold(
    api_member, member_user, booked_pair
):
    """The steps and engines are read in one place (``Serving.step_rows``,
    ``Serving.engines``): stored rows of another shape read as blanks, a
    download count that is not [ready <= total] is not shown, and a serving
    that ended lists no engine address (it was handed back)."""
    response = serve(api_member, booked_pair)
    assert response.status_code == 202, response.json()
    serving = Serving.objects.get()
    serving.status = Serving.Status.FAILED
    serving.endpoints = [{"node": "pair-a", "url": "http://10.20.1.11:9100/v1"}, "junk"]
    serving.steps = [
        {"node": "pair-a", "label": "image", "status": "failed", "image": "img:1", "layers": [3, 5], "output": "x"},
        {"node": "pair-a", "label": "weights", "status": "failed"}
        | {"weights": "org/m", "on_disk": 7}
        | {"expected_bytes": 9},
        {"node": "pair-a", "label": "weights", "status": "waiting"} | {"weights": "org/m", "on_disk": "7"},
        {"node": "pair-a", "label": "engine", "status": "waiting", "layers": [6, 5]},
        {"node": "pair-a", "label": "wait", "status": "waiting", "layers": ["1", 2]},
        "not a step",
        {"label": 7},
    ]
    serving.save()
    body = api_member.get(f"/api/serving/{serving.pk}").json()
    assert body["endpoints"] == []
    assert body["steps"] == [
        {"node": "pair-a", "label": "image", "status": "failed", "output": "x", "image": "img:1", "layers": [3, 5]}
        | NO_WEIGHTS,
        {"node": "pair-a", "label": "weights", "status": "failed", "output": "", "image": None, "layers": None}
        | {"weights": "org/m", "weights_bytes": [7, 9]},
        {"node": "pair-a", "label": "weights", "status": "waiting", "output": "", "image": None, "layers": None}
        | {"weights": "org/m", "weights_bytes": None},
        {"node": "pair-a", "label": "engine", "status": "waiting", "output": "", "image": None, "layers": None}
        | NO_WEIGHTS,
        {"node": "pair-a", "label": "wait", "status": "waiting", "output": "", "image": None, "layers": None}
        | NO_WEIGHTS,
        {"node": "", "label": "7", "status": "", "output": "", "image": None, "layers": None} | NO_WEIGHTS,
    ]
    page = ApiClient(member_user, session=True).get(f"/serving/{serving.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "10.20.1.11:9100" not in html and '<span class="muted" id="serving-engines-none">none: failed</span>' in html
    assert html.count("<progress ") == 2 and 'max="5" value="3"' in html and 'max="9" value="7"' in html
    serving.status = Serving.Status.SERVING
    serving.save()
    assert api_member.get(f"/api/serving/{serving.pk}").json()["endpoints"] == [
        {"node": "pair-a", "url": "http://10.20.1.11:9100/v1"}
    ]
