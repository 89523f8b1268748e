"""The serving pages: the Serve button on the plan page for who may serve
(and the reason for who may not), serving and stopping from the page with
CSRF enforced, the list's live figures read from real simulated engines (an
engine that does not answer shows "no answer", never an error), a serving's
steps with the failed one highlighted, and Measure queueing the benchmarks
app's runner against the served URL."""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import UTC
from urllib.parse import urlencode

import pytest

from benchmarks.lab_runs import lab_runs
from benchmarks.models import BenchmarkRun
from inventory.models import NodeGroup
from placement.lab_calibration import lab_calibration
from placement.perfmodel import default_constants
from serving.models import Serving
from serving.services import serving_release
from serving.views import served_layout
from simfleet.engine import SimEngine, per_stream_tps
from simfleet.simulator import SimNode
from tests.benchmarks.test_django_runs import tasks_inline  # noqa: F401 - fixture
from tests.conftest import ApiClient, make_user
from tests.serving.conftest import SMALL, book, committed
from tests.serving.test_sim import (
    TWO_COPIES,
    lab,  # noqa: F401 - fixture
)
from tests.support.figures import one_place
from tests.telemetry import django_sim
from tests.telemetry.django_sim import sim_lab

fleet_key = django_sim.fleet_key

pytestmark = pytest.mark.django_db
FORM = "application/x-www-form-urlencoded"
HTMX_TABLE = {"HX-Request": "true", "HX-Target": "serving-table"}


def plan_url(group) -> str:
    return f"/plans/?model={SMALL}&group={group.pk}&context_tokens=8192&concurrency=4&goal=latency"


def serve_form(client, group, plan=0, **extra):
    data = {
        "group": group.pk,
        "model": SMALL,
        "plan": plan,
        "context_tokens": 8192,
        "concurrency": 4,
        "goal": "latency",
        "back": plan_url(group),
        **extra,
    }
    return client.post("/serving/start/", urlencode(data), content_type=FORM)


class Engines:
    """Simulated engines served by an asyncio loop in a thread (as the simulator serves them)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.engines: list[SimEngine] = []

    def start(self, engine: SimEngine) -> int:
        self.engines.append(engine)
        return asyncio.run_coroutine_threadsafe(engine.start(), self.loop).result(timeout=10)

    def run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def close(self) -> None:
        for engine in self.engines:
            self.run(engine.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture
def engines():
    running = Engines()
    yield running
    running.close()


def test_the_plan_page_offers_serve_to_the_booking_holder_and_says_why_to_others(
    booked_pair, member_user, admin_user, viewer_user
):
    holder = ApiClient(member_user, session=True)
    page = holder.get(plan_url(booked_pair)).content.decode()
    assert page.count('action="/serving/start/"') >= 1
    assert 'name="plan" value="0"' in page
    other = ApiClient(make_user("member2", "member"), session=True).get(plan_url(booked_pair)).content.decode()
    assert 'action="/serving/start/"' not in other
    assert f"Serve: book {booked_pair.name} first: a member serves only on a group booked for them now." in other
    viewer = ApiClient(viewer_user, session=True).get(plan_url(booked_pair)).content.decode()
    assert "Serve: serving a model needs the member or lab admin role." in viewer
    admin = ApiClient(admin_user, session=True).get(plan_url(booked_pair)).content.decode()
    assert 'action="/serving/start/"' in admin


def test_a_saved_plans_serve_button_says_what_its_sparks_lack_for_docker(booked_pair, member_user, settings):
    """The saved plan's page has no launch section: beside its Serve button, a
    note names the Sparks whose last software reading found no Docker or not
    the image; a Spark never read, or with everything, is not named."""
    from core.actor import Actor
    from placement.api import PlanIn, planning_for
    from placement.models import LlmModel
    from placement.services import saved_plan_create
    from tests.support.software import store_software

    image = "nvcr.io/nvidia/vllm:26.05-py3"
    settings.FLEET_VLLM_IMAGE = image
    planning = planning_for(PlanIn(model=SMALL, group=booked_pair.pk, concurrency=4))
    kept = saved_plan_create(
        actor=Actor(user=member_user), model=LlmModel.objects.get(slug=SMALL), planning=planning, index=TWO_COPIES
    )
    first, second = kept.nodes
    holder = ApiClient(member_user, session=True)
    page = holder.get(f"/plans/saved/{kept.pk}/").content.decode()
    assert 'action="/serving/start/"' in page and "serve-before" not in page  # never read: nothing said
    at = store_software({first: ({}, {"docker-denied"}), second: ({"image_digest": "absent"}, ())}, [image])
    page = holder.get(f"/plans/saved/{kept.pk}/").content.decode()
    read = f"(software read at {at.astimezone(UTC).strftime('%Y-%m-%d %H:%M')} UTC)"
    note = page.split('<p class="small warn serve-before" role="note">')[1].split("</p>")[0]
    assert note == (
        f"Serving runs the engine under Docker: the fleet&#x27;s SSH user could not use Docker on {first} {read}; "
        f"{image} was not pulled on {second} {read}: the first start downloads it."
    )
    # mended, the note goes
    store_software({first: ({}, ()), second: ({}, ())}, [image])
    assert "serve-before" not in holder.get(f"/plans/saved/{kept.pk}/").content.decode()


def test_serve_from_the_page_then_list_it_and_stop_it(booked_pair, member_user, settings):
    settings.FLEET_SERVE_PORT = 9200
    holder = ApiClient(member_user, session=True)
    response = serve_form(holder, booked_pair)
    serving = Serving.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/serving/{serving.pk}/"
    assert (serving.status, serving.owner_name, serving.plan["label"]) == ("starting", "member1", "1 node")
    listing = holder.get("/serving/").content.decode()
    assert f'id="serving-{serving.pk}"' in listing and ">starting<" in listing and "booking " in listing
    detail = holder.get(f"/serving/{serving.pk}/").content.decode()
    assert 'id="serving-steps"' in detail and 'hx-trigger="every 2s"' in detail  # polled while it starts
    assert f'action="/serving/{serving.pk}/stop/"' in detail
    # another member neither sees Stop nor may stop it
    other = ApiClient(make_user("member2", "member"), session=True)
    assert 'id="stop"' not in other.get(f"/serving/{serving.pk}/").content.decode()
    assert other.post(f"/serving/{serving.pk}/stop/", "", content_type=FORM).status_code == 403
    assert Serving.objects.get().status == "starting"
    stopped = holder.post(f"/serving/{serving.pk}/stop/", "", content_type=FORM)
    assert stopped.status_code == 302 and Serving.objects.get().status == "stopping"


def test_a_refused_serve_goes_back_with_its_reason_and_writes_nothing(pair, member_user, viewer_user):
    holder = ApiClient(member_user, session=True)
    refused = serve_form(holder, pair)  # not booked
    assert refused.status_code == 302 and refused["Location"] == plan_url(pair)
    page = holder.get(refused["Location"]).content.decode()
    assert f"Not served: book {pair.name} first" in page
    book(member_user, pair)
    bad = serve_form(holder, pair, plan="first")
    assert bad.status_code == 302
    told = holder.get(bad["Location"]).content.decode()
    assert "Not served: plan must be a whole number, not &#x27;first&#x27;" in told
    # a context too large for the plan is said so by the plan's own limit (it said "must be a whole number")
    huge = serve_form(holder, pair, context_tokens=9_999_999_999)
    told = holder.get(huge["Location"]).content.decode()
    assert re.search(r"Not served: [^<]*must be a whole number from 1 to 4,194,304</div>", told)
    far = serve_form(holder, pair, context_tokens="9" * 30)
    assert "Not served: context_tokens is far too large" in holder.get(far["Location"]).content.decode()
    assert serve_form(ApiClient(viewer_user, session=True), pair).status_code == 403
    assert serve_form(ApiClient(member_user, session=True, csrf=False), pair).status_code == 403
    # a form without its group (a hand-made post, or the only field): back with the reason, not a 500
    for data in ({}, {"model": SMALL}, {"group": "", "model": SMALL, "back": plan_url(pair)}):
        nameless = holder.post("/serving/start/", urlencode(data), content_type=FORM)
        assert nameless.status_code == 302, data
        told = holder.get(nameless["Location"]).content.decode()
        assert "Not served: group is required: name the group to serve on" in told
    assert Serving.objects.count() == 0


def _serving_now(holder, group, settings, engines_urls):
    """A serving the worker brought up: its engines at the given URLs."""
    settings.FLEET_SERVE_PORT = 9300
    assert serve_form(holder, group).status_code == 302
    serving = Serving.objects.get()
    serving.status = Serving.Status.SERVING
    serving.endpoints = [{"node": n, "url": u} for n, u in engines_urls]
    serving.url = engines_urls[0][1]
    serving.save()
    return serving


def test_live_figures_come_from_each_engine_and_a_silent_one_says_no_answer(
    booked_pair, member_user, settings, engines
):
    engine = SimEngine(SMALL, 50.0, max_streams=1)
    port = engines.start(engine)
    holder = ApiClient(member_user, session=True)
    serving = _serving_now(holder, booked_pair, settings, [("pair-a", f"http://127.0.0.1:{port}/v1")])
    first = holder.get("/serving/").content.decode()
    assert "reading…" in first and 'hx-trigger="load, every 5s"' in first  # the figures come by htmx
    # two requests: one runs, one waits (max_streams=1)
    for _ in range(2):
        engine._submit(8, 400)
    engines.run(asyncio.sleep(0.3))
    table = holder.get("/serving/", headers=HTMX_TABLE)
    assert table.status_code == 200
    row = table.content.decode().split(f'id="serving-{serving.pk}"')[1].split("</tr>")[0]
    assert '<td class="num" data-label="Running">1</td>' in row
    assert '<td class="num" data-label="Waiting">1</td>' in row
    assert "measuring…" in row  # the first reading has no rate yet
    engines.run(asyncio.sleep(1.0))
    again = holder.get("/serving/", headers=HTMX_TABLE).content.decode()
    rate = again.split(f'id="serving-{serving.pk}"')[1].split('data-label="tok/s">')[1].split("<")[0]
    assert 40.0 <= float(rate) <= 52.0  # one stream decoding at 50 tok/s between the two readings
    engines.run(engine.stop())
    silent = holder.get("/serving/", headers=HTMX_TABLE)
    assert silent.status_code == 200
    assert "no answer" in silent.content.decode() and "pair-a: no answer:" in silent.content.decode()


def test_something_else_on_an_engines_port_is_no_answer(booked_pair, member_user, settings, tmp_path):
    """A port that answers but not HTTP (here an SSH server's banner) is "no answer", never an error page."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]

    def banner() -> None:
        conn, _ = server.accept()
        conn.sendall(b"SSH-2.0-AsyncSSH_2.24.1\r\n")
        conn.close()

    thread = threading.Thread(target=banner, daemon=True)
    thread.start()
    holder = ApiClient(member_user, session=True)
    serving = _serving_now(holder, booked_pair, settings, [("pair-a", f"http://127.0.0.1:{port}/v1")])
    response = holder.get(f"/serving/{serving.pk}/")
    thread.join(5)
    server.close()
    assert response.status_code == 200
    assert "pair-a" in response.content.decode() and "no answer: " in response.content.decode()


def test_a_hung_engine_costs_the_page_its_timeout_only(booked_pair, member_user, settings, engines):
    settings.FLEET_SERVE_METRICS_TIMEOUT_S = 0.5
    port = engines.start(SimEngine(SMALL, 50.0, fault="hang"))
    holder = ApiClient(member_user, session=True)
    serving = _serving_now(holder, booked_pair, settings, [("pair-a", f"http://127.0.0.1:{port}/v1")])
    response = holder.get(f"/serving/{serving.pk}/")
    assert response.status_code == 200
    assert "no answer" in response.content.decode() and "timed out" in response.content.decode()


def test_a_failed_serving_shows_the_failed_step_and_its_output(booked_pair, member_user, settings):
    settings.FLEET_SERVE_PORT = 9400
    holder = ApiClient(member_user, session=True)
    serve_form(holder, booked_pair)
    serving = Serving.objects.get()
    steps = serving.steps
    assert [s["label"] for s in steps[:3]] == ["image", "weights", "engine"]
    steps[0].update(status="done", output="image ready\n")
    steps[1].update(status="done", output="weights on disk: 16060000000 bytes\n", on_disk=16_060_000_000)
    steps[2].update(status="failed", output="docker: Error response from daemon: no such image\n")
    Serving.objects.filter(pk=serving.pk).update(steps=steps)
    serving_release(serving.pk, status="failed", error="exited with status 125", failed_step="engine on pair-a")
    polled = holder.get(f"/serving/{serving.pk}/", headers={"HX-Request": "true", "HX-Target": "serving-steps"})
    assert polled.status_code == 200 and polled["HX-Refresh"] == "true"  # no longer starting: the page reloads
    page = holder.get(f"/serving/{serving.pk}/").content.decode()
    assert "<strong>Failed at engine on pair-a:</strong> exited with status 125" in page
    assert 'class="step step-done" id="step-1"' in page
    assert 'class="step step-done" id="step-2"' in page
    assert "16.1 GB of about 16.1 GB on disk" in page  # the weights, against the plan's
    assert 'class="step step-failed step-failed" id="step-3"' in page
    assert "docker: Error response from daemon: no such image" in page
    assert 'hx-trigger="every 2s"' not in page  # nothing polls a failed serving


def test_measure_runs_the_benchmark_through_the_served_url_and_shows_it_beside_the_prediction(
    member_user,
    fleet_key,
    tmp_path,
    settings,
    tasks_inline,  # noqa: F811
):
    nodes = [
        SimNode("serve-a", cabled_ports={"p0": ("serve-b", "p0")}),
        SimNode("serve-b", cabled_ports={"p0": ("serve-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="serve-a")
        book(member_user, group)
        holder = ApiClient(member_user, session=True)
        engine = SimEngine(SMALL, 50.0)
        port = fleet._run(engine.start())
        try:
            serving = _serving_now(holder, group, settings, [("serve-a", f"http://127.0.0.1:{port}/v1")])
            other = ApiClient(make_user("member2", "member"), session=True)
            assert other.post(f"/serving/{serving.pk}/measure/", "", content_type=FORM).status_code == 403
            response = committed(lambda: holder.post(f"/serving/{serving.pk}/measure/", "", content_type=FORM))
            assert response.status_code == 302
        finally:
            fleet._run(engine.stop())
    run = BenchmarkRun.objects.get(source="measured")
    assert run.status == "done", run.error
    assert (run.serve_url, run.concurrency, run.engine, run.tp, run.nodes, run.node_count) == (
        f"http://127.0.0.1:{port}",
        4,
        "vllm",
        1,
        ["serve-a"],
        1,
    )
    assert f"--base-url http://127.0.0.1:{port} " in run.command and "--max-concurrency 4" in run.command
    # the variant served, in the mode its plan launched the engine in
    assert (run.quantization, run.mode) == (serving.quantization, "graphs") and run.quantization
    # and the checkpoint the plan's engines loaded, as the plan named it
    assert run.checkpoint == serving.plan["checkpoint"] and "/" in run.checkpoint
    each = per_stream_tps(50.0, 4)  # the engine's rate for each of 4 streams
    assert run.stream_decode_tps == pytest.approx(each, rel=0.05)
    assert engine.generation_tokens_total == 10 * 128  # the runner's requests, all through the served URL
    page = holder.get(f"/serving/{serving.pk}/").content.decode()
    row = page.split(f'id="measured-{run.pk}"')[1].split("</tr>")[0]
    assert f'<strong class="measured-tps">{one_place(run.decode_tps)}</strong>' in row
    predicted = serving.plan["aggregate_tps"]
    low, high = serving.plan["aggregate_tps_range"]
    assert f'{one_place(predicted)} <span class="range">({one_place(low)} to {one_place(high)})</span>' in row
    # the planner's lab calibration reads it, for vLLM on one node
    assert [(r.key, r.layout.engine, r.layout.tp) for r in lab_runs()] == [
        (f"run {run.pk}: {SMALL} on 1 node(s), vllm", "vllm", 1)
    ]
    # a plan of several copies is measured through its router, all copies together: recorded so, and not re-fitted on
    serving.plan = {**serving.plan, "replicas": 2, "instances": [["serve-a"], ["serve-b"]], "tp": 1}
    layout = served_layout(serving)
    assert (layout.copies, layout.nodes, layout.tp) == (2, ["serve-a"], 1)
    assert "through its router in front of 2 copies" in layout.notes
    BenchmarkRun.objects.filter(pk=run.pk).update(copies=2)
    assert [(r.copies, r.not_fitted) for r in lab_runs()] == [
        (2, "2 copies measured together through their router, not one instance")
    ]
    assert lab_calibration().constants == default_constants()  # shown beside plans of two copies, not re-fitted on
    # a TP2 plan served while the group's latest verification saw NCCL on TCP sockets: its runs say so,
    # and the planner does not re-fit on them; the page says what the prediction did not know
    warning = "The latest fabric verification #9 saw NCCL on serve-a, serve-b fall back to TCP sockets: ..."
    serving.plan = {
        **serving.plan,
        "replicas": 1,
        "instances": [["serve-a", "serve-b"]],
        "tp": 2,
        "collective_backend": "nccl",
        "fabric_warning": warning,
    }
    layout = served_layout(serving)
    assert (layout.backend, layout.tp, layout.nodes) == ("socket", 2, ["serve-a", "serve-b"])
    assert "NCCL over TCP sockets, as the group's latest fabric verification saw" in layout.notes
    serving.save(update_fields=["plan"])
    assert warning in holder.get(f"/serving/{serving.pk}/").content.decode()
    serving.plan = {**serving.plan, "fabric_warning": ""}
    assert served_layout(serving).backend == "nccl"


def test_measuring_two_copies_goes_through_their_router_and_is_recorded_as_copies(lab, member_user):  # noqa: F811
    """The runner measures the real vLLM router in front of two simulated engines; the record says two copies."""
    fleet, group = lab
    client = ApiClient(member_user)
    plans = client.post("/api/plans", {"group": group.pk, "model": SMALL, "concurrency": 8}).json()["plans"]
    index = next(i for i, p in enumerate(plans) if p["label"] == "2 one-node copies")
    answer = committed(
        lambda: client.post("/api/serving", {"group": group.pk, "model": SMALL, "plan": index, "concurrency": 8})
    )
    assert answer.status_code == 202, answer.json()
    serving = Serving.objects.get()
    assert serving.status == "serving", (serving.failed_step, serving.error)
    holder = ApiClient(member_user, session=True)
    try:
        response = committed(lambda: holder.post(f"/serving/{serving.pk}/measure/", "", content_type=FORM))
        assert response.status_code == 302
        run = BenchmarkRun.objects.get(source="measured")
        engines = [c.engine for name in ("serve-a", "serve-b") for c in fleet.fleet.serving(name).containers.values()]
    finally:
        committed(lambda: client.post(f"/api/serving/{serving.pk}/stop"))
    assert run.status == "done", run.error
    assert (run.copies, run.concurrency, run.tp, run.nodes) == (2, 8, 1, ["serve-a"])
    assert run.serve_url == serving.url.removesuffix("/v1") == f"http://127.0.0.1:{serving.plan['router_port']}"
    # round robin: each engine decoded half of the 16 requests, four streams at a time
    assert [e.generation_tokens_total for e in engines] == [8 * 128, 8 * 128]
    assert run.stream_decode_tps == pytest.approx(per_stream_tps(engines[0].decode_tps, 4), rel=0.10)
    # all copies together: shown beside the plan of two copies, and the planner does not re-fit on it
    assert [(r.copies, r.aggregate_tps) for r in lab_runs() if not r.not_fitted] == []
    again = client.post("/api/plans", {"group": group.pk, "model": SMALL, "concurrency": 8}).json()["plans"]
    assert [m["tps"] for m in again[index]["lab_runs"]] == [run.decode_tps]
    assert (
        again[index]["lab_runs"][0]["not_fitted"] == "2 copies measured together through their router, not one instance"
    )
    assert all(p["lab_runs"] == [] for i, p in enumerate(again) if i != index)


def test_each_measured_run_is_set_beside_the_prediction_for_its_own_streams_or_beside_none(
    booked_pair, member_user, settings
):
    """A run at the plan's streams meets the all-streams prediction, one at a
    single stream the one-stream prediction; a run at other streams, or one
    whose server drafted tokens, is compared with nothing, and says why."""
    holder = ApiClient(member_user, session=True)
    serving = _serving_now(holder, booked_pair, settings, [("serve-a", "http://127.0.0.1:9301/v1")])
    plan = serving.plan
    assert plan["concurrency"] == 4
    common = {
        "source": "measured",
        "status": "done",
        "group": booked_pair,
        "topology_kind": booked_pair.kind,
        "node_count": 1,
        "model_name": SMALL,
        "serve_url": "http://127.0.0.1:9301",
    }
    at_plan = BenchmarkRun.objects.create(**common, concurrency=4, decode_tps=1.0)
    one = BenchmarkRun.objects.create(**common, concurrency=1, decode_tps=plan["decode_tps"] * 0.99)
    eight = BenchmarkRun.objects.create(**common, concurrency=8, decode_tps=plan["aggregate_tps"] * 1.5)
    drafted = BenchmarkRun.objects.create(
        **common, concurrency=4, decode_tps=plan["aggregate_tps"] * 3, speculative="mtp", acceptance_length=2.4
    )
    page = holder.get(f"/serving/{serving.pk}/").content.decode()

    def row(run):
        return page.split(f'id="measured-{run.pk}"')[1].split("</tr>")[0]

    low, high = plan["aggregate_tps_range"]
    assert f'{one_place(plan["aggregate_tps"])} <span class="range">({one_place(low)} to {one_place(high)})</span>' in (
        row(at_plan)
    )
    assert '<span class="badge bad">outside the range</span>' in row(at_plan)  # 1 tok/s: far below
    low, high = plan["decode_tps_range"]
    assert f'{one_place(plan["decode_tps"])} <span class="range">({one_place(low)} to {one_place(high)})</span>' in (
        row(one)
    )
    assert "outside the range" not in row(one)
    assert '<span class="muted small not-compared">– the plan predicts 4 streams, not 8</span>' in row(eight)
    assert "outside the range" not in row(eight) and 'class="range"' not in row(eight)
    assert (
        '<span class="muted small not-compared">– MTP speculative decoding: not predicted, the plan predicts plain '
        "decoding</span>"
    ) in row(drafted)
    assert 'class="badge warn speculative" title="MTP speculative decoding (2.40 tokens a step)' in row(drafted)
    assert "outside the range" not in row(drafted)
    # the plan page's serve button says the same of the newest finished run (here the drafted one)
    button = holder.get(plan_url(booked_pair)).content.decode().split('class="serve-measured"')[1].split("</p>")[0]
    assert f"measured <strong>{one_place(drafted.decode_tps)} tok/s</strong>" in button
    assert "at 4 streams; MTP speculative decoding: not predicted, the plan predicts plain decoding." in button
    drafted.delete()
    eight.delete()
    button = holder.get(plan_url(booked_pair)).content.decode().split('class="serve-measured"')[1].split("</p>")[0]
    low, high = plan["decode_tps_range"]
    assert f"at 1 stream; predicted {one_place(plan['decode_tps'])} ({one_place(low)} to {one_place(high)})." in button


@pytest.mark.parametrize(
    "stored",
    [
        {"decode_tps": "fast", "decode_tps_range": ["a", None], "concurrency": "many", "aggregate_tps": [1]},
        {"decode_tps": -5, "decode_tps_range": [9.0, 1.0], "concurrency": True, "aggregate_tps_range": 3},
        {"decode_tps": None, "concurrency": 0, "label": None, "aggregate_tps": None},
        {"decode_tps": 10**400, "decode_tps_range": [1, 10**400], "aggregate_tps": 10**400},
    ],
    ids=["words", "odd-numbers", "nothing", "beyond-a-float"],
)
def test_a_servings_pages_survive_whatever_its_stored_plan_holds(booked_pair, member_user, settings, stored):
    """The plan a serving keeps is JSON: whatever it holds, its page, the list
    and the serve button answer, and a figure that is not a number is none."""
    holder = ApiClient(member_user, session=True)
    serving = _serving_now(holder, booked_pair, settings, [("serve-a", "http://127.0.0.1:9302/v1")])
    common = {"source": "measured", "status": "done", "group": booked_pair, "topology_kind": booked_pair.kind}
    common |= {"node_count": 1, "model_name": SMALL, "serve_url": "http://127.0.0.1:9302"}
    one = BenchmarkRun.objects.create(**common, concurrency=1, decode_tps=40.0)
    many = BenchmarkRun.objects.create(**common, concurrency=4, decode_tps=120.0)
    Serving.objects.filter(pk=serving.pk).update(plan={**serving.plan, **stored})
    page = holder.get(f"/serving/{serving.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    for run in (one, many):
        row = text.split(f'id="measured-{run.pk}"')[1].split("</tr>")[0]
        assert "outside the range" not in row and 'class="range"' not in row
    assert holder.get("/serving/").status_code == 200
    assert holder.get(plan_url(booked_pair)).status_code == 200
