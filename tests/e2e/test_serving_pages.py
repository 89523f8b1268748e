"""A member serves a model in a real browser: books the simulated pair,
serves the recommended plan from the plan page (the worker starts simulated
engines over SSH), sees it serving with live figures from the engines'
/metrics, measures it with the benchmarks app's runner, sees the measured
figure beside the plan's prediction and range, and stops it. Screenshots of
the serving pages (serving, starting, failed) at 1440 and 390 px."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from axe_playwright_python.sync_playwright import Axe
from django.db import connection
from django.utils import timezone
from playwright.sync_api import expect

from benchmarks.models import BenchmarkRun
from core.actor import Actor
from inventory.models import NodeGroup
from serving.models import Serving
from simfleet.serve_answers import (
    OLDER_DIGEST,
    OLDER_IMAGE_ID,
    REGISTRY_DIGEST,
    REGISTRY_IMAGE_ID,
    full_image_id,
    pull_lines,
)
from simfleet.simulator import SimNode
from telemetry.docker_start import pull_layers
from telemetry.models import SoftwareState
from telemetry.poll_round import poll_and_store
from telemetry.services import software_pins_set
from tests.conftest import make_user
from tests.e2e.conftest import sign_in
from tests.e2e.test_accessibility import check
from tests.serving.test_sim import free_base
from tests.support.figures import one_place
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab
from tests.tools import tool

fleet_key = django_sim.fleet_key
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SMALL = "llama-3.1-8b"
WIDTHS = (("desktop", 1440), ("phone", 390))


def shots(page, shot, name: str) -> None:
    for label, width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shot(f"{name}-{label}")
        scroll, client = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert scroll <= client, f"{name} at {width} px is {scroll} px wide"
    page.set_viewport_size({"width": 1440, "height": 900})


def in_thread(fn, **kwargs) -> None:
    """Run fn where asyncio.run may start a loop (Playwright's runs in the test's thread)."""

    def run() -> None:
        try:
            fn(**kwargs)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)


def busy(url: str, tokens: int) -> threading.Thread:
    """A client keeping one stream busy on the served URL."""

    def run() -> None:
        body = json.dumps({"model": SMALL, "prompt": "Tell a long story", "max_tokens": tokens}).encode()
        request = urllib.request.Request(f"{url}/completions", body, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                answer.read()
        except OSError:
            pass  # cut when the serving stops

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_member_books_serves_measures_and_stops(live_server, page, shot, fleet_key, tmp_path, settings):
    # The booking form books from a quarter hour (its step): the journey starts a minute after one,
    # and books from that quarter (inside the bookings' start grace).
    now = datetime.now(UTC)
    quarter = now.replace(minute=now.minute - now.minute % 15, second=0, microsecond=0) + timedelta(
        minutes=15, seconds=60
    )
    with time_machine.travel(quarter, tick=True):
        journey(live_server, page, shot, fleet_key, tmp_path, settings)


def serve_it_to_fail(page, plans: str) -> None:
    """Serve the recommended plan of the plan page at ``plans``; its serving fails."""
    page.goto(f"{plans}&context_tokens=8192&goal=latency")
    detail = page.locator("tr.plan-more.recommended details.plan-detail")
    detail.locator("summary").click()
    detail.get_by_role("button", name="Serve this plan").click()
    on_the_serving_page(page)
    expect(page.locator("#serving-status")).to_have_text("failed")


def read_software_again(*names: str) -> None:
    """A poll that reads these Sparks' software again (their last reading made a day older)."""
    SoftwareState.objects.filter(spark__name__in=names).update(read_at=timezone.now() - timedelta(days=1))
    in_thread(poll_and_store, spark_ids=ids(*names))


def on_the_serving_page(page) -> None:
    """Wait for the serving's page a serve request leads to; if it never
    comes, say where the browser is, what it shows, and which servings and
    bookings exist, before failing."""
    try:
        page.wait_for_url(re.compile(r"/serving/\d+/$"))
    except Exception:
        from bookings.models import Booking

        print("DEBUG at", page.url, "showing:", page.locator("main").inner_text()[:800])
        print("DEBUG servings:", list(Serving.objects.values_list("pk", "status", "error")))
        print("DEBUG bookings:", list(Booking.objects.values_list("pk", "start", "end", "status")))
        raise


def journey(live_server, page, shot, fleet_key, tmp_path, settings):
    settings.FLEET_SERVE_PORT = free_base()
    settings.FLEET_SERVE_READY_S = 20
    page.set_default_timeout(60_000)  # serving and measuring run in the request (Celery eager)
    make_user("member1", "member")
    nodes = [
        SimNode("serve-a", cabled_ports={"p0": ("serve-b", "p0")}),
        SimNode("serve-b", cabled_ports={"p0": ("serve-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="serve-a")
        in_thread(poll_and_store, spark_ids=ids("serve-a", "serve-b"))  # the cluster addresses Ray bootstraps on
        base = live_server.url
        sign_in(page, base, "member1", "member1-pass-123")

        # Book the pair, from now.
        page.goto(f"{base}/bookings/new/?group={group.pk}")
        local = timezone.localtime()
        this_quarter = local.replace(minute=local.minute - local.minute % 15)
        page.fill("#id_start", this_quarter.strftime("%Y-%m-%dT%H:%M"))
        page.fill("#id_purpose", "serve and measure")
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/bookings/\d+/$"))

        # Serve the recommended plan from the plan page.
        page.goto(f"{base}/plans/?model={SMALL}&group={group.pk}&context_tokens=8192&concurrency=8&goal=latency")
        detail = page.locator("tr.plan-more.recommended details.plan-detail")
        detail.locator("summary").click()
        serve_button = detail.get_by_role("button", name="Serve this plan")
        expect(serve_button).to_be_visible()
        serve_button.click()
        # the request starts the engines and waits for them (FLEET_SERVE_READY_S, 20 s, plus the SSH
        # steps): the page's own 60 s, not less, or a loaded machine fails a serving that worked
        on_the_serving_page(page)
        serving = Serving.objects.get()
        expect(page.locator("#serving-status")).to_have_text("serving")
        url = page.locator("#serving-url").inner_text()
        assert url == serving.url and url.startswith("http://127.0.0.1:")
        # the page's curl command, run as shown, gets the model's answer (and shellcheck finds nothing in it)
        snippet = page.locator("#call-curl").inner_text()
        checked = subprocess.run([tool("shellcheck"), "-s", "bash", "-"], input=snippet, capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout
        call = subprocess.run(["bash", "-c", snippet], capture_output=True, text=True, timeout=60)
        assert call.returncode == 0, call.stderr
        reply = json.loads(call.stdout)
        assert reply["model"] == SMALL and reply["choices"][0]["message"]["role"] == "assistant"
        assert reply["choices"][0]["message"]["content"] and reply["usage"]["completion_tokens"] == 32

        # Live figures: one stream busy, then its rate once the page refreshed.
        busy(url, 3000)
        page.wait_for_timeout(500)
        page.reload()
        figures = page.locator("#live-figures tbody tr").first
        expect(figures.locator("td").nth(1)).to_have_text("1")
        expect(figures).not_to_contain_text("measuring…", timeout=20_000)  # htmx reads again within 5 s
        rate = float(figures.locator("td").nth(3).inner_text())
        # one stream's tokens between two readings (the engine's pacing is checked in tests/simfleet)
        assert 0 < rate <= 1.1 * serving.plan["decode_tps"]
        page.goto(f"{base}/serving/")
        row = page.locator(f"#serving-{serving.pk}")
        expect(row.locator('[data-label="Running"]')).to_have_text("1")
        shots(page, shot, "serving-list-serving")

        # axe-core finds nothing serious on the serving pages, at either width
        axe, problems = Axe(), []
        for _label, width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for path in ("/serving/", f"/serving/{serving.pk}/"):
                problems += check(page, axe, base, path, width)
        assert not problems, "\n".join(problems)
        page.set_viewport_size({"width": 1440, "height": 900})

        # Measure it: the runner's figure beside the plan's prediction and range.
        page.goto(f"{base}/serving/{serving.pk}/")
        page.click("#measure")
        page.wait_for_url(re.compile(rf"/serving/{serving.pk}/$"))
        run = BenchmarkRun.objects.get(source="measured")
        assert run.status == "done", run.error
        measured = page.locator(f"#measured-{run.pk}")
        expect(measured.locator(".measured-tps")).to_have_text(one_place(run.decode_tps))
        low, high = serving.plan["aggregate_tps_range"]
        expect(measured).to_contain_text(f"({one_place(low)} to {one_place(high)})")
        shots(page, shot, "serving-detail-measured")
        # a run at other streams than the plan's, and one whose server drafted tokens, are compared with nothing
        fields = {f: getattr(run, f) for f in ("source", "status", "group", "topology_kind", "node_count")}
        fields |= {"model_name": run.model_name, "serve_url": run.serve_url, "decode_tps": run.decode_tps * 1.6}
        other = BenchmarkRun.objects.create(**fields, concurrency=run.concurrency * 2)
        drafted = BenchmarkRun.objects.create(
            **fields, concurrency=run.concurrency, speculative="mtp", acceptance_length=2.6, acceptance_rate=58.0
        )
        page.reload()
        expect(page.locator(f"#measured-{other.pk} .not-compared")).to_have_text(
            f"– the plan predicts {run.concurrency} streams, not {run.concurrency * 2}"
        )
        expect(page.locator(f"#measured-{drafted.pk} .not-compared")).to_have_text(
            "– MTP speculative decoding: not predicted, the plan predicts plain decoding"
        )
        expect(page.locator(f"#measured-{drafted.pk} .badge.speculative")).to_have_text("MTP")
        for row in (other, drafted):  # neither is "outside the range"
            expect(page.locator(f"#measured-{row.pk} .badge.bad")).to_have_count(0)
        shots(page, shot, "serving-detail-compared")
        BenchmarkRun.objects.filter(pk__in=[other.pk, drafted.pk]).delete()
        # the engines' own NCCL said which network each rank chose once they answered: RoCE on both
        expect(page.locator("#serving-networks")).to_contain_text("RoCE on serve-a, serve-b")
        # had the group's latest verification seen NCCL on TCP sockets, the page says what the prediction missed,
        # and had the ranks' own NCCL chosen sockets, that is said and the runs are recorded over them
        warning = (
            "The latest fabric verification #7 saw NCCL on serve-a fall back to TCP sockets: this figure prices "
            "tensor parallelism's messages at its measured 5.6 GB/s but each all-reduce's latency as RoCE's, which "
            "sockets do not reach (no published Spark run measures it), so it is optimistic. Fix RoCE (the "
            "verification's fabric-socket finding) and verify the group again."
        )
        sockets = [
            {**st, "networks": {st["node"]: "Socket"}} if st.get("reads") == "nccl" else st for st in serving.steps
        ]
        Serving.objects.filter(pk=serving.pk).update(plan={**serving.plan, "fabric_warning": warning}, steps=sockets)
        page.reload()
        expect(page.locator("#serving-fabric")).to_have_text(warning)
        expect(page.locator("#serving-networks")).to_contain_text(
            "TCP sockets on serve-a, serve-b: NCCL fell back from RoCE there"
        )
        expect(page.locator("#measured")).to_contain_text("recorded over TCP sockets (as the engines' own NCCL said)")
        shots(page, shot, "serving-detail-sockets")
        Serving.objects.filter(pk=serving.pk).update(plan=serving.plan, steps=serving.steps)
        # and on the plan page, beside the plans for the same inputs
        page.goto(f"{base}/plans/?model={SMALL}&group={group.pk}&context_tokens=8192&concurrency=8&goal=latency")
        detail = page.locator("tr.plan-more.recommended details.plan-detail")
        detail.locator("summary").click()
        expect(detail.locator(".serve-measured")).to_contain_text(f"measured {one_place(run.decode_tps)} tok/s")
        detail.scroll_into_view_if_needed()
        shots(page, shot, "plan-measured")
        page.goto(f"{base}/serving/{serving.pk}/")

        # Stop it: the engines stop, the Sparks are free.
        page.click("#stop")
        page.wait_for_url(re.compile(rf"/serving/{serving.pk}/$"))
        expect(page.locator("#serving-status")).to_have_text("stopped")
        assert fleet.fleet.serving("serve-a").containers == {}

        # A node that fails to start: the failed step and its output.
        fleet.set_faults("serve-a", {"serve-fail"})
        serve_it_to_fail(page, f"{base}/plans/?model={SMALL}&group={group.pk}&concurrency=8")
        expect(page.locator("#serving-failed")).to_contain_text(
            "Failed at ray head on serve-a: its container could not start: Docker on serve-a cannot give containers "
            "the GPU (no NVIDIA runtime); install the NVIDIA Container Toolkit there and restart Docker (exited "
            "with status 125)"
        )
        expect(page.locator(".step-failed").first).to_be_visible()
        shots(page, shot, "serving-detail-failed")
        failed = Serving.objects.exclude(pk=serving.pk).get()

        # A gated model without a token on serve-b: its weights step fails in
        # huggingface_hub's words, serve-a's download ends, no engine starts.
        # (serve-b's cache emptied since its first download: a cached snapshot would be used)
        fleet.set_faults("serve-a", set())
        fleet.set_faults("serve-b", {"weights-gated"})
        fleet.fleet.serving("serve-b").weights.clear()
        serve_it_to_fail(page, f"{base}/plans/?model={SMALL}&group={group.pk}&concurrency=8")
        expect(page.locator("#serving-failed")).to_contain_text(
            "Failed at weights on serve-b: the weights could not be downloaded: meta-llama/Llama-3.1-8B-Instruct is "
            "gated on Hugging Face: accept its terms there with the lab's account, and give the fleet user on "
            "serve-b an HF_TOKEN that may read it"
        )
        expect(page.locator("#step-4")).to_have_class(re.compile(r"\bstep-failed\b"))
        expect(page.locator("#step-4")).to_contain_text("GatedRepoError: 401 Client Error")
        expect(page.locator("#step-3")).to_contain_text("done")
        page.locator("#step-4").scroll_into_view_if_needed()
        shots(page, shot, "serving-detail-weights-gated")
        fleet.set_faults("serve-b", set())

        # The lab pins the image to an older build, which both Sparks held at
        # their last software reading; serve-a has pulled the tag again since
        # (its current build): its image step fails, naming what it holds and
        # the pull that brings the pinned build back; no engine starts.
        vllm = failed.steps[0]["image"]
        software_pins_set(actor=Actor(source="command"), values={f"image:{vllm}": OLDER_DIGEST})
        for name in ("serve-a", "serve-b"):
            fleet.fleet.set_software(name, {"image_digest": OLDER_DIGEST, "image_id": OLDER_IMAGE_ID})
        read_software_again("serve-a", "serve-b")
        fleet.fleet.set_software("serve-a", {})
        serve_it_to_fail(page, f"{base}/plans/?model={SMALL}&group={group.pk}&concurrency=8")
        pull = f"{vllm.rsplit(':', 1)[0]}@{OLDER_DIGEST}"
        expect(page.locator("#serving-failed")).to_contain_text(
            f"Failed at image on serve-a: serve-a holds {vllm} as 4f4f4f4f4f4f, not the build the lab pins "
            f"(3c3c3c3c3c3c): run `docker pull {pull} && docker tag {pull} {vllm}` there, or move the pin on the "
            "software page, and serve again"
        )
        expect(page.locator(".step-failed")).to_contain_text(
            f"repo digests: {vllm.rsplit(':', 1)[0]}@{REGISTRY_DIGEST}"
        )
        shots(page, shot, "serving-detail-off-pin")
        software_pins_set(actor=Actor(source="command"), values={f"image:{vllm}": ""})
        fleet.fleet.set_software("serve-b", {})
        read_software_again("serve-a", "serve-b")
        # how a start looks while it runs (the page polls its steps)
        steps = [dict(s, status="waiting", output="") for s in failed.steps]
        steps[0]["status"], steps[1]["status"] = "done", "running"
        # the image steps side by side: serve-a has it, serve-b is downloading it
        assert [(s["label"], s["node"]) for s in steps[:2]] == [("image", "serve-a"), ("image", "serve-b")]
        image = steps[0]["image"]
        steps[0]["output"] = f"{image} is already on this Spark\nimage id: {full_image_id(REGISTRY_IMAGE_ID)}\n"
        steps[1]["output"] = pull_lines(image, 2)
        steps[1]["layers"] = pull_layers(steps[1]["output"])
        Serving.objects.filter(pk=failed.pk).update(
            status="starting", steps=steps, failed_step="", error="", stopped_at=None
        )
        page.goto(f"{base}/serving/{failed.pk}/")
        expect(page.locator("#serving-steps")).to_have_attribute("hx-trigger", "every 2s")
        expect(page.locator("#step-2 .pull-progress")).to_have_text("2 of 5 layers ready")
        expect(page.get_by_role("progressbar", name=f"layers of {image} ready on serve-b")).to_have_attribute(
            "value", "2"
        )
        expect(page.locator("#step-1 .pull-progress")).to_have_count(0)
        shots(page, shot, "serving-detail-starting")
        # then the weights, side by side: the bytes in each node's cache against the plan's weights
        assert [(s["label"], s["node"]) for s in steps[2:4]] == [("weights", "serve-a"), ("weights", "serve-b")]
        repo, size = steps[2]["weights"], steps[2]["expected_bytes"]
        steps[1]["status"], steps[1]["output"] = "done", pull_lines(image, 5)
        steps[1]["layers"] = pull_layers(steps[1]["output"])
        for index, got in ((2, 9_637_000_000), (3, 2_410_000_000)):
            steps[index]["status"] = "running"
            steps[index]["output"] = f"weights on disk: 0 bytes\nweights on disk: {got} bytes\n"
            steps[index]["on_disk"] = got
        Serving.objects.filter(pk=failed.pk).update(steps=steps)
        page.goto(f"{base}/serving/{failed.pk}/")
        expect(page.locator("#step-4 .pull-progress")).to_contain_text(
            f"{repo}: 2.4 GB of about {size / 1e9:.1f} GB on disk (expected: the plan's weights)"
        )
        expect(page.get_by_role("progressbar", name=f"weights of {repo} on serve-a")).to_have_attribute(
            "value", "9637000000"
        )
        page.locator("#step-3").scroll_into_view_if_needed()
        shots(page, shot, "serving-detail-weights")
        page.goto(f"{base}/serving/")
        shots(page, shot, "serving-list-mixed")
        # the navigation bar, with Serving, from the width it shows on (the menu below)
        page.set_viewport_size({"width": 1440, "height": 900})
        expect(page.locator("nav.mainnav.wide-only")).to_be_visible()
        heights = page.evaluate(
            "[...document.querySelectorAll('.topbar nav.wide-only a, .topbar .who a')]"
            ".map(a => a.getBoundingClientRect().height)"
        )
        assert max(heights) < 30, heights  # every link on one line
        shot("serving-list-nav-1440")
        for width in (1439, 1440, 1536):  # the menu up to 1439 px, the bar from 1440: neither scrolls sideways
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{base}/")
            scroll, client = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert scroll <= client, f"/ at {width} px is {scroll} px wide"
        Serving.objects.filter(pk=failed.pk).update(status="failed")

        # An engine that ends while it loads the model (its KV cache too small): the serving fails
        # at once, with vLLM's own error line, and the wait step shows the container's last lines.
        from django.contrib.auth import get_user_model

        from serving import runner
        from tests.conftest import ApiClient

        for name in ("serve-a", "serve-b"):
            fleet.set_faults(name, {"load-fail"})
        watch_s, runner.ENGINE_WATCH_S = runner.ENGINE_WATCH_S, 0.2
        try:
            member = ApiClient(get_user_model().objects.get(username="member1"))
            in_thread(member.post, path="/api/serving", body={"group": group.pk, "model": SMALL, "plan": 0})
        finally:
            runner.ENGINE_WATCH_S = watch_s
        ended = Serving.objects.latest("pk")
        assert ended.plan["label"] == "1 node" and ended.status == "failed", (ended.status, ended.error)
        (node,) = ended.plan["nodes"]
        page.goto(f"{base}/serving/{ended.pk}/")
        expect(page.locator("#serving-failed")).to_contain_text(
            f"Failed at wait for the engine on {node}: the engine's container spark-fleet-{ended.pk}-1-0 on "
            f"{node} ended (exit code 1) before it answered: ValueError: To serve at least one request with the "
            "model's max seq len (131072)"
        )
        expect(page.locator(".step-failed")).to_contain_text("is exited; its last lines (docker logs):")
        shots(page, shot, "serving-detail-load-failed")
