"""A member plans a model on the demo lab's switched group in a real browser:
the plans update live as the model and the context change (no navigation),
a context beyond the model's limit is named, the recommended plan's launch
commands come with copy buttons; then the group's benchmark page shows the
scaling chart and the leaderboard ranks the published and measured runs."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import CatalogueEntry, NodeGroup
from placement.models import LlmModel
from tests.conftest import lab_data, make_user
from tests.e2e.conftest import SHOTS, fits_a_phone, no_sideways_scroll, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def lab() -> dict[str, int]:
    # the catalogues come back after each transactional flush (post_migrate seeding)
    assert CatalogueEntry.objects.exists() and LlmModel.objects.exists()
    lab_import(actor=Actor(source="import"), data=lab_data("demo.yaml"))
    # launch commands load a model by its real repository, never by its slug:
    # the seed catalogue names the published builds (docs/figures.md)
    live = NodeGroup.objects.filter(retired_at__isnull=True)
    return {
        "switched": live.get(members__spark__name="spark-07").pk,
        "ring": live.get(members__spark__name="spark-03").pk,
        "single": live.get(kind="single").pk,
    }


def results_text(page) -> str:
    return page.locator("#results").inner_text()


def open_plans_as_a_member(live_server, page, query: str) -> None:
    """A member signed in, at desk width, on the plans page for ``query``."""
    make_user("member", "member")
    sign_in(page, live_server.url, "member", "member-pass-123")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/plans/?{query}")


def opened_details(page, row):
    """A plan row's details, opened as a member clicks them."""
    details = page.locator(f"#plan-more-{row.get_attribute('id').removeprefix('plan-')}")
    details.locator("summary").click()
    return details


def test_member_plans_live_and_reads_benchmarks(live_server, page, shot, lab):
    make_user("member", "member")
    base = live_server.url
    sign_in(page, base, "member", "member-pass-123")

    page.goto(f"{base}/plans/")
    assert page.locator("#id_group").input_value() == str(lab["switched"])  # the largest group first
    assert "Qwen3.8-27B on group-spark-07" in results_text(page)
    # one table, the recommended plan first and marked, a chart of the fitting plans
    first = page.locator("#plans tbody tr.plan").first
    assert "recommended" in first.get_attribute("class") and "recommended" in first.inner_text()
    assert page.locator("#plans tr.plan.runner-up").count() == 1
    assert page.locator("svg.plan-chart rect").count() >= 3
    # the launch commands are behind the row's disclosure, loaded when opened
    page.locator("tr.plan-more.recommended summary").click()
    page.wait_for_selector("tr.plan-more.recommended .launch .copy")
    assert page.locator("tr.plan-more.recommended .copy").count() >= 2
    # every figure carries its range and a multi-node plan names its backend, at desk and phone width
    assert "NCCL over RoCE" in first.inner_text()
    assert re.fullmatch(r"\d+\.\d \(\d+\.\d to \d+\.\d\)", " ".join(first.locator("td.num").first.inner_text().split()))
    shot("placement-plans")
    page.set_viewport_size({"width": 1440, "height": 900})
    shot("placement-plans-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, first.locator('td[data-label="Prefill, tok/s"]'))  # the figures on screen, not scrolled away
    # the reason, opened above, wraps its words inside the screen
    reason = "tr.plan-more.recommended p.reason"
    assert page.evaluate(f"(e => e.scrollWidth <= e.clientWidth)(document.querySelector('{reason}'))")
    assert page.locator(reason).bounding_box()["x"] + page.locator(reason).bounding_box()["width"] <= 390
    # the recommended plan's row on its own, legible at phone width
    first.screenshot(path=str(shot("placement-plans-390").with_name("placement-plans-390-row.png")))
    page.set_viewport_size({"width": 1366, "height": 900})

    # a marker on window survives only if the page is not reloaded
    page.evaluate("window.__still_here = true")
    page.select_option("#id_model", "glm-5.3")
    page.wait_for_function("() => document.querySelector('#results h2').innerText.includes('GLM-5.3')")
    assert page.evaluate("window.__still_here") is True
    text = results_text(page)
    assert "that do not fit" in text and "predicted" in text
    page.locator("#nofit-plans > summary").click()  # the plans that do not fit are folded away
    assert "GB short" in page.locator("#nofit-plans").inner_text()
    assert "weights 470.0 GB (published file size)" in text

    page.fill("#id_context_tokens", "1000000")
    page.wait_for_selector("#plan-errors")
    assert "context_tokens" in page.locator("#plan-errors").inner_text()
    assert "maximum context" in page.locator("#plan-errors").inner_text()
    shot("placement-plans-error")

    page.fill("#id_context_tokens", "65536")
    page.select_option("#id_goal", "throughput")
    page.fill("#id_concurrency", "8")
    # The form plans again on "change", which fires when the field loses focus:
    # leave it first (as a user clicking elsewhere does) and let that answer land,
    # so the copy button clicked below is not swapped out under the click.
    page.locator("#id_concurrency").blur()
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        "() => document.querySelector('#recommendation') && "
        "document.querySelector('#recommendation').innerText.includes('8 streams together')"
    )
    assert page.evaluate("window.__still_here") is True
    assert "context_tokens=65536" in page.url  # the inputs are in the address, for a link to share
    # GLM-5.3 has no repository in the catalogue: its launch says so; a model with one gets commands
    page.select_option("#id_model", "llama-3.3-70b")
    page.wait_for_function("() => document.querySelector('#results h2').innerText.includes('Llama-3.3-70B')")
    page.wait_for_load_state("networkidle")
    page.locator("tr.plan-more.recommended summary").click()
    page.wait_for_function(
        "() => (document.querySelector('tr.plan-more.recommended .launch') || {innerText: ''})"
        ".innerText.includes('NCCL_IB_HCA')"
    )
    launch = page.locator("tr.plan-more.recommended .launch").inner_text()
    assert "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0" in launch and "<ip of spark-07 on enp1s0f0np0>" in launch
    button = page.locator("tr.plan-more.recommended .copy").first
    button.click()
    page.wait_for_selector(".copy[data-copied]", state="attached")
    shot("placement-plans-glm")

    page.locator("#fit-table summary").click()
    assert "held out" in page.locator("#fit-table").inner_text().lower()
    page.locator("#fit-table").scroll_into_view_if_needed()
    shot("placement-fit-table")

    page.goto(f"{base}/benchmarks/groups/{lab['switched']}/")
    chart = page.locator("#chart svg:visible")
    assert chart.count() == 1
    assert "ideal" in chart.inner_html() and "predicted" in chart.inner_html()
    table = page.locator("#scaling").inner_text()
    assert "4.43x" in table and "published" in table
    assert "book group-spark-07 first" in page.locator("#why-not").inner_text().lower()
    shot("placement-group-benchmarks")

    page.select_option("select[name=model]", "gpt-oss-120b")
    page.wait_for_function("() => document.querySelector('#chart svg').textContent.includes('gpt-oss-120b')")
    shot("placement-group-benchmarks-gpt-oss")

    page.goto(f"{base}/benchmarks/")
    assert "Qwen3.8-27B" in page.locator("main").inner_text()
    assert "at concurrency 1, one stream" in page.locator("#board-basis").inner_text()
    shot("placement-leaderboard-one-stream")
    # the published copies ran at 64 streams: a member picks every concurrency
    page.select_option("select[name=concurrency]", "any")
    page.wait_for_url("**/benchmarks/?concurrency=any")
    expect(page.locator("#board-basis")).to_contain_text("at any concurrency (each bar says its streams")
    # published runs of two copies behind a router say so, on the bars and in the table
    board = page.locator("#board-gpt-oss-120b")
    assert "2 nodes 2 copies" in board.locator("svg").first.text_content()
    board.locator("details.runs-table summary").click()
    copies = board.locator("span.copies")
    assert copies.count() >= 1 and copies.first.inner_text() == "2 copies"
    # a long reference wraps in a column of its own width: the rows stay a few lines tall
    heights = board.locator("tbody tr").evaluate_all("rows => rows.map(r => r.getBoundingClientRect().height)")
    assert len(heights) == 8 and max(heights) < 200, heights
    shot("placement-leaderboard")
    page.set_viewport_size({"width": 390, "height": 844})
    copies.first.scroll_into_view_if_needed()
    no_sideways_scroll(page)  # the table scrolls in its card
    # every model's bar chart is drawn at phone width too (it scrolls inside its card)
    charts = page.locator(".chartcard svg.barchart")
    assert charts.count() >= 20 and all(
        box["width"] >= 300 for box in charts.evaluate_all("svgs => svgs.map(s => s.getBoundingClientRect().toJSON())")
    )
    shot("placement-leaderboard-390")
    page.set_viewport_size({"width": 1440, "height": 900})
    # a concurrency no finished run has is refused, with the levels there are
    refused = page.goto(f"{base}/benchmarks/?concurrency=3")
    assert refused is not None and refused.status == 400
    expect(page.locator("main")).to_contain_text("no finished run at concurrency '3': choose one of 1, 2, 4")
    shot("placement-leaderboard-refused")
    page.goto(f"{base}/models/")
    assert "GLM-5.3" in page.locator("#models").inner_text()
    shot("placement-models")


def test_a_run_over_tcp_sockets_is_its_own_series_at_desk_and_phone_width(live_server, page, shot, lab):
    """A member records two TP2 runs on the direct pair, one whose NCCL fell
    back to TCP sockets: the group's chart draws it apart from the RoCE run,
    and its row has no prediction beside it. Each row names its weights
    format and CUDA-graph mode, and the run the factors are measured
    against is marked: the one-node published run of the same engine and
    format (vLLM, NVFP4), not a faster one of another format."""
    from benchmarks import services as bench

    member = make_user("member", "member")
    pair = NodeGroup.objects.get(retired_at__isnull=True, members__spark__name="spark-01")
    for backend, decode in (("nccl", 6.4), ("socket", 3.1)):
        bench.benchmark_create(
            actor=Actor(user=member, source="api"),
            data={
                "model": "llama-3.3-70b",
                "group": pair.pk,
                "engine": "vllm",
                "backend": backend,
                "tp": 2,
                "concurrency": 1,
                "input_len": 256,
                "output_len": 128,
                "decode_tps": decode,
                "quantization": "NVFP4",
                "mode": "graphs",
            },
        )
    sign_in(page, live_server.url, "member", "member-pass-123")
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/benchmarks/groups/{pair.pk}/?model=llama-3.3-70b")
        chart = page.locator("#chart svg:visible")
        assert chart.get_attribute("class") == ("chart" if width == 1440 else "chart narrow")
        assert "direct (TCP sockets)" in chart.inner_html()
        # the whole chart shows inside its card: both node counts, no sideways scroll
        card = page.locator("#chart").bounding_box()
        box = chart.bounding_box()
        assert box["x"] >= card["x"] and box["x"] + box["width"] <= card["x"] + card["width"]
        rows = {r.locator("td").nth(2).inner_text(): r.inner_text() for r in page.locator("#scaling tbody tr").all()}
        assert "NCCL over TCP sockets" in rows["3.10"] and "TCP sockets: not modelled, not fitted on" in rows["3.10"]
        assert "predicted" not in rows["3.10"]
        assert "predicted" in rows["6.40"]
        assert "vLLM · NCCL · nvfp4 · CUDA graphs" in rows["6.40"]
        reference = page.locator("#scaling tbody tr", has=page.locator("span.badge", has_text="reference"))
        assert reference.count() == 1
        marked = reference.inner_text()
        assert "1.00x" in marked and "vLLM" in marked and "nvfp4" in marked
        no_sideways_scroll(page)
        shot(f"benchmarks-sockets-{width}")


def test_a_plan_says_what_the_model_missed_by_on_held_out_runs_of_its_kind(live_server, page, shot, lab):
    """Qwen3-32B on llama.cpp at 32 streams: llama.cpp's batching is fitted
    on two tables, and the held-out batch runs of a dense model near 32
    streams (gemma-3-4b's) are predicted far too fast. The one-node plan's
    row says so in a badge, its details in words, and the accuracy section
    gives each set collected after a model was frozen apart; at desk and
    phone width."""
    make_user("member", "member")
    base = live_server.url
    sign_in(page, base, "member", "member-pass-123")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{base}/plans/?model=qwen3-32b&group={lab['switched']}&engine=llama.cpp&concurrency=32&goal=throughput")
    one = page.locator('#plans tbody tr.plan[data-strategy="single"]')
    badge = one.locator(".held-out-badge")
    assert badge.inner_text() == "held-out: 27% too fast"
    details = opened_details(page, one)
    words = details.locator("p.held-out").inner_text()
    assert words.startswith(
        "On 2 held-out figures of all streams' decode of llama.cpp single runs of dense models at 16 to 32 streams"
    )
    assert words.endswith("the published fit predicted 23% to 30% too fast (median 27% too fast).")
    assert badge.get_attribute("title") == words
    shot("placement-held-out-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, details.locator("p.held-out"))  # the words wrap on screen
    shot("placement-held-out-390")
    page.locator("#fit-table summary").click()
    fresh = page.locator("p.fresh-set")
    assert fresh.count() == 15
    # each set as the page says it, in order: the day and commit it was frozen at, and whether the model
    # has changed since (the first, second, fourth and ninth: llama.cpp's batching fit, SGLang's prefill,
    # llama.cpp's recurrent-state passes, llama.cpp's own cost per expert slot) or never used it
    frozen = [
        ("2026-12-04", "f4e432a", True),
        ("2026-12-04b", "daa5b2a", True),
        ("2026-12-04c", "d61cd70", False),
        ("2026-12-04d", "2e5f5ce", True),
        ("2026-12-04e", "e7cebc4", False),
        ("2026-12-05", "39b6057", False),
        ("2026-12-05b", "9d1158a", False),
        ("2026-12-05c", "f6519e7", False),
        ("2026-12-05d", "276ef1a", True),
        ("2026-12-05e", "4393195", False),
        ("2026-12-05f", "067611f", False),
        ("2026-12-05g", "7731663", False),
        ("2026-12-05h", "b1459d6", False),
        ("2026-12-05i", "b7bbb58", False),
        ("2026-12-05j", "ebb67e2", False),
    ]
    for i, (day, commit, seen) in enumerate(frozen):
        text = fresh.nth(i).inner_text()
        assert f"collected on {day}, after the model was frozen (at {commit})" in text
        assert ("The model has changed since" if seen else "never used to change it") in text
    fourteenth = fresh.nth(13).inner_text()
    assert "the 1 figure of 1 experiment collected on 2026-12-05i" in fourteenth
    assert "(at b7bbb58), was predicted once and never used to change it" in fourteenth
    # the table of held-out runs stacks each run into a block at phone width: nothing scrolls sideways
    table = "document.querySelector('#holdout-errors').closest('.tablewrap')"
    assert page.evaluate(f"(w => w.scrollWidth <= w.clientWidth)({table})")
    unseen = (
        9 + 5 + 28 + 34 + 22 + 9 + 48 + 21 + 20 + 1 + 8
    )  # the unseen sets' figures (third, fifth to eighth, tenth on)
    assert page.locator("#holdout-errors tr.fresh").count() == unseen
    fresh.first.scroll_into_view_if_needed()
    shot("placement-fresh-390")
    page.set_viewport_size({"width": 1440, "height": 900})
    fresh.first.scroll_into_view_if_needed()
    shot("placement-fresh-1440")


def test_a_plan_batching_past_every_published_run_says_it_is_extrapolated(live_server, page, shot, lab):
    """Qwen3.6-35B-A3B on llama.cpp at 64 streams on four nodes: llama.cpp's
    batching is fitted on runs of at most 32 streams an instance, so the
    plans that keep more in one instance are named beside the recommendation,
    at desk and phone width; the copies that split the streams are not."""
    open_plans_as_a_member(
        live_server,
        page,
        f"model=qwen3.6-35b-a3b&group={lab['switched']}&engine=llama.cpp&concurrency=64&goal=throughput",
    )
    note = page.locator("p.plan-extrapolated")
    assert note.count() == 1
    words = note.inner_text()
    assert words.startswith("extrapolated 1 node, PP2 on 2 nodes,")
    assert "than the 32 of the most-loaded published llama.cpp run the model's batching is fitted on" in words
    assert "one-node copies" not in words
    shot("placement-extrapolated-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, note)
    shot("placement-extrapolated-390")


def test_an_eager_tensor_parallel_plan_says_held_out_runs_of_its_kind_ran_far_slower(live_server, page, shot, lab):
    """Qwen3.6-35B-A3B on vLLM in eager mode, one stream, on the switched
    group: the sixth fresh set's two-node TP=2 runs in eager mode decoded a
    third to a half of what the model predicted, so every tensor-parallel
    plan's row carries the badge (three figures of any family: this hybrid
    has one of its own) and its details say it in words; the one-node plan
    has none. At desk and phone width."""
    open_plans_as_a_member(
        live_server,
        page,
        f"model=qwen3.6-35b-a3b&group={lab['switched']}&engine=vllm&mode=eager&concurrency=1&goal=latency",
    )
    tensor = page.locator('#plans tbody tr.plan[data-strategy="tp"]')
    assert tensor.count() >= 1
    badges = tensor.locator(".held-out-badge")
    assert badges.count() == tensor.count()
    assert {badges.nth(i).inner_text() for i in range(badges.count())} == {"held-out: 80% too fast"}
    assert page.locator('#plans tbody tr.plan[data-strategy="single"] .held-out-badge').count() == 0
    # the recommended plan is one of them, and the recommendation says so in its own words
    assert page.locator("#plans tbody tr.plan.recommended").get_attribute("data-strategy") == "tp"
    assert (
        page.locator("#recommendation")
        .inner_text()
        .endswith(
            "Held out of the fit, 3 published runs of its kind were predicted 80% too fast at the median: weigh its "
            "figure with that."
        )
    )
    first = tensor.first
    details = opened_details(page, first)
    words = details.locator("p.held-out").inner_text()
    assert words == (
        "On 3 held-out figures of one stream's decode of vllm tp runs in eager mode of any family (3 experiments; "
        "2 of them collected after the model was frozen and never used to change it), the published fit predicted "
        "from 10% too slow to 142% too fast (median 80% too fast)."
    )
    first.scroll_into_view_if_needed()
    shot("placement-eager-tp-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, details.locator("p.held-out"))
    details.scroll_into_view_if_needed()
    shot("placement-eager-tp-390")


def test_a_plan_lists_what_labs_published_for_its_very_configuration(live_server, page, shot, lab):
    """Qwen3.6-35B-A3B NVFP4 on vLLM, one stream, on the single group: the
    one-node plan's details list the four published runs of exactly that,
    slowest first, each linked to its source with the checkpoint it ran
    where the source names it, the fitted one marked, beside the
    prediction; the row carries a "checkpoints differ" badge and the details
    say which checkpoint the plan launches and which figures to expect. At
    desk and phone width."""
    open_plans_as_a_member(live_server, page, f"model=qwen3.6-35b-a3b&group={lab['single']}&engine=vllm&concurrency=1")
    single = page.locator('#plans tbody tr.plan[data-strategy="single"]')
    assert single.count() == 1
    details = opened_details(page, single)
    said = details.locator("p.published-runs")
    text = said.inner_text()
    assert text.startswith(
        "Published for this very configuration (the same format, engine, layout and mode, one stream; each at its "
        "own lengths): 42.6 (RedHatAI/Qwen3.6-35B-A3B-NVFP4, fitted on), 43.0 (RedHatAI/Qwen3.6-35B-A3B-NVFP4), "
        "75.2, 77.4 (nvidia/Qwen3.6-35B-A3B-NVFP4) tok/s, against "
    )
    assert text.endswith(" predicted.")
    links = said.locator("a")
    assert links.count() == 4
    assert all(links.nth(i).get_attribute("href").startswith("https://github.com/") for i in range(4))
    badge = single.locator(".checkpoint-badge")
    assert badge.inner_text() == "checkpoints differ"
    note = details.locator("p.checkpoint-note")
    assert note.inner_text() == (
        "checkpoint Published runs of this configuration differ by checkpoint: nvidia/Qwen3.6-35B-A3B-NVFP4 77.4; "
        "RedHatAI/Qwen3.6-35B-A3B-NVFP4 42.6 to 43.0 tok/s. The model predicts the weights format, not a checkpoint. "
        "This plan launches RedHatAI/Qwen3.6-35B-A3B-NVFP4: its published figures are the ones to expect."
    )
    assert badge.get_attribute("title") == note.inner_text().removeprefix("checkpoint ")
    said.scroll_into_view_if_needed()
    shot("placement-published-runs-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, said, note)
    said.scroll_into_view_if_needed()
    shot("placement-published-runs-390")


def record_one_stream(page, live_server, group: int, model: str, decode: str, **fields: str) -> None:
    """Fill the record form for one stream measured on vLLM on ``group``
    (its format, mode, checkpoint: ``fields``) and save it."""
    page.goto(f"{live_server.url}/benchmarks/new/?group={group}")
    page.select_option("#id_source", "measured")
    page.select_option("#id_group", str(group))
    page.select_option("#id_model", model)
    page.select_option("#id_engine", "vllm")
    page.select_option("#id_backend", "none")
    page.fill("#id_concurrency", "1")
    page.fill("#id_decode_tps", decode)
    for name, value in fields.items():
        if name == "mode":
            page.select_option("#id_mode", value)
        else:
            page.fill(f"#id_{name}", value)
    page.click("form button[type=submit]")


def test_a_record_naming_a_format_the_model_lacks_is_refused_beside_the_field(live_server, page, shot, lab):
    """A member records a run of Llama-3.3-70B in int4 on the single group:
    the form comes back with the error beside the format field, naming the
    variants the model has, nothing is stored, and the values typed stay.
    Then the same run in NVFP4 and eager mode is recorded, and the group's
    page shows it with its format and mode. At desk and phone width."""
    from benchmarks.models import BenchmarkRun

    open_plans_as_a_member(live_server, page, "")
    for width in (1440, 390):
        BenchmarkRun.objects.filter(source="measured").delete()
        page.set_viewport_size({"width": width, "height": 900})
        record_one_stream(page, live_server, lab["single"], "llama-3.3-70b", "3.9", quantization="int4", mode="eager")
        error = page.locator("#field-quantization .fielderror")
        assert error.inner_text() == (
            "Llama-3.3-70B has no 'int4' variant; one of nvfp4, fp8, Q4_K_M, bf16 (or blank: not stated)"
        )
        assert page.locator("#id_quantization").input_value() == "int4"
        assert not BenchmarkRun.objects.filter(source="measured").exists()
        no_sideways_scroll(page)
        error.scroll_into_view_if_needed()
        shot(f"benchmarks-record-bad-format-{width}")
        page.fill("#id_quantization", "NVFP4")
        page.click("form button[type=submit]")
        page.wait_for_url(f"**/benchmarks/groups/{lab['single']}/**")
        mine = page.locator("#scaling tbody tr", has=page.locator("span.badge", has_text="measured here"))
        assert "nvfp4 · eager (no CUDA graphs)" in mine.inner_text()
    assert BenchmarkRun.objects.get(source="measured").quantization == "nvfp4"


def test_a_recorded_runs_checkpoint_is_checked_and_the_plan_shows_the_run_beside_its_prediction(
    live_server, page, shot, lab
):
    """A member records one stream of Qwen3.6-35B-A3B NVFP4 on vLLM on the
    single group, naming its checkpoint: a command typed in the checkpoint
    field comes back refused beside it, nothing stored; NVIDIA's repository
    is taken, the group's page shows it beside the format, and the one-node
    plan lists the run in its details beside the prediction, marked not
    fitted on (the catalogue launches RedHat's checkpoint). At desk and
    phone width."""
    from benchmarks.models import BenchmarkRun

    open_plans_as_a_member(live_server, page, "")
    record_one_stream(
        page, live_server, lab["single"], "qwen3.6-35b-a3b", "71.5", quantization="nvfp4", checkpoint="nvidia/x; reboot"
    )
    error = page.locator("#field-checkpoint .fielderror")
    assert error.inner_text() == (
        "must be a Hugging Face repository (org/name, such as RedHatAI/Qwen3.6-35B-A3B-NVFP4) or an absolute path "
        "on the nodes; blank: not stated"
    )
    assert not BenchmarkRun.objects.filter(source="measured").exists()
    error.scroll_into_view_if_needed()
    shot("benchmarks-record-bad-checkpoint-1440")
    page.fill("#id_checkpoint", "nvidia/Qwen3.6-35B-A3B-NVFP4")
    page.click("form button[type=submit]")
    page.wait_for_url(f"**/benchmarks/groups/{lab['single']}/**")
    mine = page.locator("#scaling tbody tr", has=page.locator("span.badge", has_text="measured here"))
    assert mine.locator(".checkpoint").inner_text() == "nvidia/Qwen3.6-35B-A3B-NVFP4"
    mine.scroll_into_view_if_needed()
    shot("benchmarks-checkpoint-1440")
    page.goto(f"{live_server.url}/plans/?model=qwen3.6-35b-a3b&group={lab['single']}&engine=vllm&concurrency=1")
    details = opened_details(page, page.locator('#plans tbody tr.plan[data-strategy="single"]'))
    said = details.locator("p.lab-runs")
    text = said.inner_text()
    assert text.startswith(
        "Measured in this lab for this very configuration (one stream; each at its own lengths): 71.5 "
        "(nvidia/Qwen3.6-35B-A3B-NVFP4, not fitted on) tok/s, against "
    )
    # another checkpoint than the catalogue launches (RedHat's): shown, not fitted on, and the fit table says why
    page.locator("#fit-table summary").click()
    not_fitted = page.locator("#lab-not-fitted")
    assert "it ran nvidia/Qwen3.6-35B-A3B-NVFP4, and the catalogue's RedHatAI/Qwen3.6-35B-A3B-NVFP4 is what plans" in (
        not_fitted.inner_text()
    )
    not_fitted.scroll_into_view_if_needed()
    page.screenshot(path=str(shot("placement-lab-runs-1440").with_name("placement-lab-not-fitted-1440.png")))
    said.scroll_into_view_if_needed()
    shot("placement-lab-runs-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, said)
    said.scroll_into_view_if_needed()
    shot("placement-lab-runs-390")


def test_a_labs_moe_batches_refit_the_cost_per_expert_slot_and_the_plan_follows(live_server, page, shot, lab):
    """A member records one stream and two batches of Qwen3.6-35B-A3B NVFP4
    on vLLM on the single group, at 8 and 32 streams (the last through the
    plan's own "Record a run of this plan" link, the form filled with what
    the plan runs), as fast as a published
    lab measured them (where the published fit is 43% and 58% too slow at
    8 and 32 streams). The plans page at 32 streams then predicts the
    one-node plan within 10% of its run, lists the run beside it, and the
    fit table names what was re-fitted: vLLM's bandwidth efficiency and its
    cost per expert slot, not its cost per stream. At desk and phone
    width."""
    query = f"model=qwen3.6-35b-a3b&group={lab['single']}&engine=vllm&concurrency=32&context_tokens=512"
    open_plans_as_a_member(live_server, page, query)
    cell = '#plans tbody tr.plan[data-strategy="single"] td[data-label="32 streams together, tok/s"]'

    def predicted() -> float:
        return float(page.locator(cell).inner_text().split()[0].replace(",", ""))

    before = predicted()
    assert before < 0.6 * 671.1
    for streams, tps in (("1", "75.2"), ("8", "338.9")):
        record_one_stream(
            page, live_server, lab["single"], "qwen3.6-35b-a3b", tps, quantization="nvfp4", concurrency=streams
        )
        page.wait_for_url(f"**/benchmarks/groups/{lab['single']}/**")
    # the 32 streams through the plan's own link: the form comes filled with what the plan runs
    page.goto(f"{live_server.url}/plans/?{query}")
    details = opened_details(page, page.locator('#plans tbody tr.plan[data-strategy="single"]'))
    details.locator("p.record-run").scroll_into_view_if_needed()
    shot("placement-record-link-1440")
    details.locator("p.record-run a").click()
    page.wait_for_url("**/benchmarks/new/**")
    shot("benchmarks-record-prefilled-1440")
    names = ("group", "model", "engine", "quantization", "checkpoint", "concurrency")
    assert {name: page.input_value(f"#id_{name}") for name in names} == {
        "group": str(lab["single"]),
        "model": "qwen3.6-35b-a3b",
        "engine": "vllm",
        "quantization": "nvfp4",
        "checkpoint": "RedHatAI/Qwen3.6-35B-A3B-NVFP4",  # what the plan launches
        "concurrency": "32",
    }
    page.fill("#id_decode_tps", "671.1")
    page.click("form button[type=submit]")
    page.wait_for_url(f"**/benchmarks/groups/{lab['single']}/**")
    page.goto(f"{live_server.url}/plans/?{query}")
    after = predicted()
    assert abs(after - 671.1) < 0.1 * 671.1 < abs(before - 671.1)
    said = opened_details(page, page.locator('#plans tbody tr.plan[data-strategy="single"]')).locator("p.lab-runs")
    assert said.inner_text().startswith(
        "Measured in this lab for this very configuration (all 32 streams together; each at its own lengths): "
        "671.1 (RedHatAI/Qwen3.6-35B-A3B-NVFP4) tok/s, against "
    )
    page.locator("#fit-table summary").click()
    refit = page.locator("#lab-refit")
    assert re.fullmatch(
        r"Re-fitted: vLLM's bandwidth efficiency 0\.789 → 0\.\d{3} · vLLM's cost per expert slot 6\.00 µs → "
        r"\d\.\d\d µs\.",
        refit.inner_text(),
    )
    errors = page.locator("#lab-errors tbody tr")
    assert errors.count() == 3

    def section(name: str) -> None:
        # the page, and the lab's part of the fit table on its own (its runs, before and after, and the re-fit)
        refit.scroll_into_view_if_needed()
        path = shot(name)
        top, bottom = page.locator("#lab-errors").bounding_box(), refit.bounding_box()
        assert top is not None and bottom is not None
        clip = {"x": 0, "y": top["y"] - 40, "width": page.viewport_size["width"]}
        clip["height"] = bottom["y"] + bottom["height"] + 16 - clip["y"]
        page.screenshot(path=str(path.with_name(f"{name}-section.png")), clip=clip)

    section("placement-lab-slot-refit-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    # at phone width each run is a block of its figures, nothing hidden sideways
    wrap = "document.querySelector('#lab-errors').closest('.tablewrap')"
    assert page.evaluate(f"(w => w.scrollWidth <= w.clientWidth)({wrap})")
    section("placement-lab-slot-refit-390")


def test_a_member_records_a_plan_of_copies_through_its_link_and_it_shows_beside_that_plan(live_server, page, shot, lab):
    """Qwen3-32B on vLLM on the switched group at 8 streams: the plan of
    eight one-node copies links to the record form filled with its copies;
    the member types the figure of all copies together, and the plan shows
    it beside its prediction, marked as not fitted on. At desk and phone
    width."""
    query = f"model=qwen3-32b&group={lab['switched']}&engine=vllm&concurrency=8&context_tokens=1024"
    open_plans_as_a_member(live_server, page, query)
    row = page.locator("#plans tbody tr.plan").filter(has_text="8 one-node copies")
    details = opened_details(page, row)
    link = details.locator("p.record-run")
    assert "copies and streams; the copies' figure together is shown beside this plan" in link.inner_text()
    link.scroll_into_view_if_needed()
    shot("placement-record-copies-link-1440")
    link.locator("a").click()
    page.wait_for_url("**/benchmarks/new/**")
    names = ("group", "model", "tp", "pp", "copies", "concurrency")
    assert {name: page.input_value(f"#id_{name}") for name in names} == {
        "group": str(lab["switched"]),
        "model": "qwen3-32b",
        "tp": "1",
        "pp": "1",
        "copies": "8",
        "concurrency": "8",
    }
    page.locator("#id_copies").scroll_into_view_if_needed()
    shot("benchmarks-record-copies-prefilled-1440")
    page.fill("#id_decode_tps", "46.2")
    # more copies than the group holds: refused on the copies field, the form kept as typed
    page.fill("#id_copies", "9")
    page.click("form button[type=submit]")
    error = page.locator("#field-copies.has-error p.fielderror")
    assert error.inner_text() == "9 copies of tp x pp (1 x 1) need more than the 8 node(s) used"
    assert page.input_value("#id_decode_tps") == "46.2"
    page.locator("#id_copies").scroll_into_view_if_needed()
    shot("benchmarks-record-copies-refused-1440")
    page.fill("#id_copies", "8")
    page.click("form button[type=submit]")
    page.wait_for_url(f"**/benchmarks/groups/{lab['switched']}/**")
    page.goto(f"{live_server.url}/plans/?{query}")
    row = page.locator("#plans tbody tr.plan").filter(has_text="8 one-node copies")
    said = opened_details(page, row).locator("p.lab-runs")
    assert said.inner_text().startswith(
        "Measured in this lab for this very configuration (all 8 streams together; each at its own lengths): "
        "46.2 (Qwen/Qwen3-32B-FP8, not fitted on) tok/s, against "
    )
    assert said.locator("span").get_attribute("title") == (
        "8 copies measured together through their router, not one instance"
    )
    said.scroll_into_view_if_needed()
    shot("placement-record-copies-run-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, said)
    said.scroll_into_view_if_needed()
    shot("placement-record-copies-run-390")


def test_a_member_uploads_a_result_file_of_two_copies_and_says_its_layout(live_server, page, shot, lab):
    """vLLM's result file does not say how the engine was laid out: a member
    uploads one on the demo pair and fills in the copies. Three copies on
    two nodes are refused on the copies field, nothing stored; two are kept
    with a node each. At desk and phone width."""
    from benchmarks.models import BenchmarkRun
    from tests.benchmarks.test_django_records import VLLM_JSON

    pair = NodeGroup.objects.get(members__spark__name="spark-01", auto=True, retired_at__isnull=True).pk
    make_user("member", "member")
    sign_in(page, live_server.url, "member", "member-pass-123")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/benchmarks/upload/?group={pair}")
    result = {"name": "result.json", "mimeType": "application/json", "buffer": json.dumps(VLLM_JSON).encode()}
    page.set_input_files("#id_file", files=[result])
    page.select_option("#id_model", "llama-3.3-70b")
    page.select_option("#id_backend", "none")
    page.fill("#id_copies", "3")
    page.click("form button[type=submit]")
    error = page.locator("#field-copies.has-error p.fielderror")
    assert error.inner_text() == "3 copies of tp x pp (1 x 1) need more than the 2 node(s) used"
    assert not BenchmarkRun.objects.filter(source="measured").exists()
    page.locator("#id_copies").scroll_into_view_if_needed()
    shot("benchmarks-upload-copies-refused-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, page.locator("#field-copies"))
    page.locator("#id_copies").scroll_into_view_if_needed()
    shot("benchmarks-upload-copies-refused-390")
    page.set_input_files("#id_file", files=[result])  # a file input is emptied by the round trip
    page.fill("#id_copies", "2")
    page.click("form button[type=submit]")
    page.wait_for_url(f"**/benchmarks/groups/{pair}/**")
    run = BenchmarkRun.objects.get(source="measured")
    assert (run.tp, run.pp, run.copies, run.decode_tps) == (1, 1, 2, 18.31)
    # the group's table names the copies of the run just kept
    cell = page.locator("td[data-label=Topology]").filter(has_text="2 copies")
    assert cell.count() == 1 and cell.inner_text() == "direct 2 copies"
    cell.scroll_into_view_if_needed()
    shot("benchmarks-upload-copies-kept-390")


def test_a_plans_prefill_says_what_held_out_prefills_of_its_kind_missed_by(live_server, page, shot, lab):
    """Qwen3.6-35B-A3B on llama.cpp on the lone Spark: its kind's held-out
    prefills (hybrids with experts on llama.cpp) were predicted 67% too fast
    at the median, so the plan carries a prefill badge beside its prefill range, and
    its details say it in words. At desk and phone width."""
    open_plans_as_a_member(live_server, page, f"model=qwen3.6-35b-a3b&group={lab['single']}&engine=llama.cpp")
    row = page.locator("#plans tbody tr.plan").first
    badge = row.locator(".held-out-prefill-badge")
    assert badge.inner_text() == "held-out prefill: 67% too fast"
    assert badge.get_attribute("title").endswith("(median 67% too fast).")
    details = opened_details(page, row)
    words = details.locator("p.held-out-prefill")
    assert words.inner_text().startswith(
        "On 9 held-out figures of prefill of llama.cpp single runs of hybrid mixture-of-experts models"
    )
    row.scroll_into_view_if_needed()
    shot("placement-held-out-prefill-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, words)
    badge.scroll_into_view_if_needed()
    shot("placement-held-out-prefill-390")


def test_a_member_uploads_a_result_of_a_server_drafting_tokens_and_it_is_kept_apart(live_server, page, shot, lab):
    """A member uploads vLLM's result file of a one-node Qwen3.6-35B-A3B
    server drafting with MTP (the file carries its acceptance figures) and
    names the method. The group's page badges the run, gives it no
    prediction and says why, and charts it on a line of its own; the
    one-node plan lists it beside its prediction as MTP speculative
    decoding, not fitted on, its prediction unmoved. At desk and phone width."""
    from benchmarks.models import BenchmarkRun
    from tests.benchmarks.test_parsers import SPEC_DECODE, VLLM_JSON

    query = f"model=qwen3.6-35b-a3b&group={lab['single']}&engine=vllm&concurrency=1"
    open_plans_as_a_member(live_server, page, query)
    row = page.locator("#plans tbody tr.plan").first
    predicted = row.locator("td[data-label='One stream, tok/s']").inner_text()
    drafted = {
        **VLLM_JSON,
        **SPEC_DECODE,
        "model_id": "RedHatAI/Qwen3.6-35B-A3B-NVFP4",
        "output_throughput": 88.4,
        "mean_tpot_ms": 11.3,
    }
    page.goto(f"{live_server.url}/benchmarks/upload/?group={lab['single']}")
    result = {"name": "result.json", "mimeType": "application/json", "buffer": json.dumps(drafted).encode()}
    page.set_input_files("#id_file", files=[result])
    page.select_option("#id_model", "qwen3.6-35b-a3b")
    page.select_option("#id_backend", "none")
    page.fill("#id_quantization", "nvfp4")
    page.select_option("#id_speculative", "mtp")
    page.click("form button[type=submit]")
    page.wait_for_url(f"**/benchmarks/groups/{lab['single']}/**")
    run = BenchmarkRun.objects.get(source="measured")
    assert (run.speculative, run.acceptance_length, run.acceptance_rate) == ("mtp", 2.85, 61.5)
    mine = page.locator("#scaling tbody tr").filter(has_text="measured here")
    assert mine.locator("td[data-label='Predicted tok/s']").inner_text() == (
        "— MTP speculative decoding (2.85 tokens a step, 62% of drafts accepted): the model predicts plain "
        "decoding, not compared or fitted on"
    )
    assert mine.locator(".badge.speculative").inner_text() == "MTP"
    # its own line in the chart, its own colour in the legend
    legend = page.locator("svg.chart").first.locator("text")
    assert legend.filter(has_text=re.compile(r"^single \+ speculative$")).count() == 1
    mine.scroll_into_view_if_needed()
    shot("benchmarks-speculative-run-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    fits_a_phone(page, mine)
    mine.scroll_into_view_if_needed()
    shot("benchmarks-speculative-run-390")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/plans/?{query}")
    row = page.locator("#plans tbody tr.plan").first
    assert row.locator("td[data-label='One stream, tok/s']").inner_text() == predicted  # not re-fitted on
    details = opened_details(page, row)
    said = details.locator("p.lab-runs")
    assert said.inner_text().startswith(
        "Measured in this lab for this very configuration (one stream; each at its own lengths): "
        "88.5 (MTP speculative decoding, RedHatAI/Qwen3.6-35B-A3B-NVFP4, not fitted on) tok/s, against "
    )
    # and what the published MTP run of the same configuration gave, on a line of its own
    assert (
        details.locator("p.speculative-runs")
        .inner_text()
        .endswith("workload accepts): 90.9 (MTP, nvidia/Qwen3.6-35B-A3B-NVFP4), 97.7 (MTP) tok/s.")
    )
    said.scroll_into_view_if_needed()
    shot("placement-speculative-lab-run-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    fits_a_phone(page, said)
    said.scroll_into_view_if_needed()
    shot("placement-speculative-lab-run-390")


def test_a_member_uploads_what_sglang_bench_serving_appended_and_the_file_is_recognised(live_server, page, shot, lab):
    """A member uploads the JSONL `python -m sglang.bench_serving` appended
    to over two runs, leaving the format to be recognised and the method
    blank: its newest line is recorded as an SGLang run at 4 streams whose
    server drafted tokens (its accept_length), so the group's page shows it
    at concurrency 4 with the badge and no prediction. At desk and phone width."""
    from benchmarks.models import BenchmarkRun
    from tests.benchmarks.test_parsers import SGLANG_LINE

    open_plans_as_a_member(live_server, page, f"model=qwen3.6-35b-a3b&group={lab['single']}&concurrency=1")
    lines = [{**SGLANG_LINE, "max_concurrency": 1}, {**SGLANG_LINE, "accept_length": 3.1}]
    content = "".join(json.dumps(line) + "\n" for line in lines).encode()
    page.goto(f"{live_server.url}/benchmarks/upload/?group={lab['single']}")
    expect(page.locator("#id_format option[value='sglang-jsonl']")).to_have_text("sglang.bench_serving JSONL")
    page.set_input_files("#id_file", files=[{"name": "result.jsonl", "mimeType": "text/plain", "buffer": content}])
    page.select_option("#id_model", "qwen3.6-35b-a3b")
    page.select_option("#id_backend", "none")
    page.click("form button[type=submit]")
    page.wait_for_url(f"**/benchmarks/groups/{lab['single']}/**")
    run = BenchmarkRun.objects.get(source="measured")
    assert (run.engine, run.concurrency, run.speculative, run.acceptance_length) == ("sglang", 4, "unnamed", 3.1)
    page.goto(f"{live_server.url}/benchmarks/groups/{lab['single']}/?model=qwen3.6-35b-a3b&concurrency=4")
    mine = page.locator("#scaling tbody tr").filter(has_text="measured here")
    expect(mine.locator(".badge.speculative")).to_have_text("speculative")
    expect(mine.locator("td[data-label='Predicted tok/s']")).to_have_text(
        "— speculative decoding (3.10 tokens a step): the model predicts plain decoding, not compared or fitted on"
    )
    expect(mine).to_contain_text("SGLang")
    mine.scroll_into_view_if_needed()
    shot("benchmarks-sglang-upload-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    fits_a_phone(page, mine)
    mine.scroll_into_view_if_needed()
    shot("benchmarks-sglang-upload-390")


def test_the_runs_started_on_a_group_say_which_engine_the_server_said_it_is(live_server, page, shot, lab):
    """Three runs started on the direct pair: one measured a server that said
    it is SGLang (drafting with EAGLE, CUDA graphs off), one failed, one is
    queued. The runs table names the engine and version each server gave, and
    how the run was recorded behind a disclosure; at desk and phone width."""
    from benchmarks.command import ServerSaid
    from benchmarks.models import BenchmarkRun
    from benchmarks.runs import server_fields

    member = make_user("member", "member")
    pair = NodeGroup.objects.get(retired_at__isnull=True, members__spark__name="spark-01")
    base = {
        "group": pair,
        "group_name": pair.name,
        "topology_kind": "direct",
        "group_nodes": ["spark-01", "spark-02"],
        "nodes": ["spark-01", "spark-02"],
        "node_count": 2,
        "tp": 2,
        "model": LlmModel.objects.get(slug="qwen3-32b"),
        "model_name": "qwen3-32b",
        "concurrency": 1,
        "input_len": 256,
        "output_len": 64,
        "num_prompts": 10,
        "created_by": member,
        "created_by_name": "member",
    }
    done = BenchmarkRun(**base, status="done", decode_tps=31.2, ttft_ms=88.0, tpot_ms=32.1)
    said = server_fields(
        ServerSaid("sglang", "sglang", "0.5.6", "eager", "eagle", "tp 2, pp 1, dp 1"), client_version="0.11.1", run=done
    )
    done.notes = "started from the page on spark-01 (head node); " + said.pop("notes")
    for name, value in said.items():
        setattr(done, name, value)
    done.save()
    BenchmarkRun.objects.create(
        **base, status="failed", error="no accepted SSH host key for spark-01: accept it on the telemetry page first"
    )
    BenchmarkRun.objects.create(**base, status="queued")
    sign_in(page, live_server.url, "member", "member-pass-123")
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/benchmarks/groups/{pair.pk}/?model=qwen3-32b")
        row = page.locator("#group-runs tbody tr", has=page.locator("td", has_text=str(done.pk))).first
        engine = row.locator(".run-engine")
        expect(engine).to_contain_text("SGLang 0.5.6 · eager (no CUDA graphs)")
        expect(row.locator(".badge.speculative")).to_have_text("EAGLE")
        details = engine.locator("details.run-notes")
        expect(details.locator("p")).to_be_hidden()
        details.locator("summary").click()
        expect(details.locator("p")).to_contain_text(
            "the server at http://127.0.0.1:8000 named itself 'sglang' (GET /v1/models); GET /get_server_info: "
            "version 0.5.6, CUDA graphs off, speculative algorithm EAGLE, tp 2, pp 1, dp 1"
        )
        queued = page.locator("#group-runs tbody tr", has=page.locator(".badge.warn", has_text="Queued"))
        expect(queued.locator(".run-engine")).to_have_text("asked of the server when it runs")
        expect(page.locator("#group-runs")).to_contain_text("no accepted SSH host key for spark-01")
        page.locator("#runs").scroll_into_view_if_needed()
        if width == 390:
            fits_a_phone(page, engine)
        no_sideways_scroll(page)
        shot(f"benchmarks-runs-engine-{width}")


def test_the_run_form_warns_when_the_head_node_lacked_the_launch_image(live_server, page, shot, lab, settings):
    """An admin opens the direct pair's benchmarks: spark-01's last software
    reading found no vllm on the fleet user's PATH and an older vLLM image
    than the launch image, so the form says the client would be the launch
    image's and that a run will fail unless vLLM is installed on spark-01 or
    that image pulled; at desk and phone width."""
    from datetime import UTC, datetime

    from inventory.models import Spark
    from telemetry.models import SoftwareState
    from telemetry.software import Image, SoftwareReading

    settings.FLEET_VLLM_IMAGE = "nvcr.io/nvidia/vllm:26.05-py3"
    make_user("admin", "lab-admin")
    reading = SoftwareReading(
        dgx_os="7.3.1", kernel=None, driver=None, cuda=None, connectx_firmware=None, nccl=None,
        nccl_build=None, nccl_release=None, docker="ok",
        images=(Image("nvcr.io/nvidia/vllm:25.11-py3", "sha256:" + "9c" * 32, "7a6b5c4d3e2f"),), vllm="absent",
    )  # fmt: skip
    SoftwareState.objects.create(
        spark=Spark.objects.get(name="spark-01"),
        reading=reading.to_dict(),
        read_at=datetime(2026, 12, 1, 8, 30, tzinfo=UTC),
    )
    pair = NodeGroup.objects.get(retired_at__isnull=True, members__spark__name="spark-01")
    sign_in(page, live_server.url, "admin", "admin-pass-123")
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/benchmarks/groups/{pair.pk}/")
        warning = page.locator("#client-warning")
        expect(warning).to_have_text(
            "No vLLM was on the fleet user's PATH on spark-01 and the launch image nvcr.io/nvidia/vllm:26.05-py3 was "
            "not there when its software was read at 2026-12-01 08:30 UTC: a run there will fail unless vLLM is "
            "installed there, or the image pulled there."
        )
        expect(page.locator("#client-how")).to_contain_text(
            "over SSH on spark-01, with the launch image's vLLM (nvcr.io/nvidia/vllm:26.05-py3), since it has none "
            "of its own, against the server"
        )
        expect(page.locator("form[action$='/run/'] button[type=submit]")).to_be_visible()
        warning.scroll_into_view_if_needed()
        if width == 390:
            fits_a_phone(page, warning)
        no_sideways_scroll(page)
        shot(f"benchmarks-run-form-warning-{width}")
        card = page.locator("#client-how").locator("xpath=ancestor::div[contains(@class, 'card')][1]")
        card.screenshot(path=str(SHOTS / f"benchmarks-run-form-card-{width}.png"))


def test_the_launch_scripts_say_what_each_nodes_software_reading_lacks(live_server, page, shot, lab, settings):
    """A member opens the recommended plan's launch scripts on the switched
    group after a software poll in which spark-08 had no Docker and the
    others no vllm of their own: the container recipe names spark-08, the
    bare-metal ones the rest; at desk and phone width."""
    from datetime import UTC

    from tests.support.software import store_software

    image = "nvcr.io/nvidia/vllm:26.05-py3"
    settings.FLEET_VLLM_IMAGE = image
    at = store_software(
        {
            "spark-07": ({}, ()),
            "spark-08": ({"vllm": "/usr/local/bin/vllm"}, {"no-docker"}),
            # a vllm of its own, of another version than spark-08's
            "spark-09": ({"vllm": "/home/fleet/.venv/bin/vllm", "vllm_version": "0.10.2", "vllm_ray": "2.48.0"}, ()),
            "spark-10": ({}, ()),
        },
        [image],
    )
    open_plans_as_a_member(live_server, page, f"model=llama-3.3-70b&group={lab['switched']}&concurrency=8")
    page.locator("tr.plan-more.recommended summary").click()
    page.wait_for_selector("tr.plan-more.recommended .launch .copy")
    launch = page.locator("tr.plan-more.recommended .launch")
    container = launch.locator("details.launcher").filter(has_text="vllm-container").locator(".launch-needs")
    expect(container).to_have_text(
        f"Each node's script runs the engine under Docker: Docker was not installed on spark-08 (software read at "
        f"{at.astimezone(UTC):%Y-%m-%d %H:%M} UTC)."
    )
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        container.scroll_into_view_if_needed()
        if width == 390:
            fits_a_phone(page, container)
        no_sideways_scroll(page)
        launch.locator("details.launcher").first.screenshot(path=str(SHOTS / f"placement-launch-needs-{width}.png"))
    bare = launch.locator("details.launcher").filter(has_text="vllm-ray").first
    bare.locator("summary").click()
    expect(bare.locator(".launch-needs")).to_have_text(
        "Each node's script runs vllm: the fleet user's SSH shell found no vllm on spark-07 and spark-10 (software "
        f"read at {at.astimezone(UTC):%Y-%m-%d %H:%M} UTC): install vLLM there, or use the container recipe; the "
        "fleet user's vllm is not one version everywhere (0.10.2 on spark-09, 0.11.0 on spark-08): install one on all; "
        "Ray beside it is not one version everywhere (2.48.0 on spark-09, 2.49.1 on spark-08): install one on all."
    )
    bare.screenshot(path=str(SHOTS / "placement-launch-needs-bare-390.png"))
    # the Spark's own page says where its vllm is and which version
    page.goto(f"{live_server.url}/sparks/spark-09/")
    expect(page.locator("#spark-software-vllm td").nth(1)).to_have_text(
        "/home/fleet/.venv/bin/vllm 0.10.2 (Python 3.12; Ray 2.48.0; benchmarks use it)"
    )
    page.locator("#spark-software").screenshot(path=str(SHOTS / "spark-software-vllm-390.png"))


def test_a_saved_plans_serve_button_says_which_sparks_lack_docker(live_server, page, shot, lab, settings):
    """A member holding the switched group books it for the recommended plan,
    follows the kept plan's link from the booking form and finds, under its
    Serve button, the Spark whose last software reading had no Docker; at
    desk and phone width."""
    from datetime import UTC

    from django.contrib.auth import get_user_model

    from tests.serving.conftest import book
    from tests.support.software import store_software

    image = "nvcr.io/nvidia/vllm:26.05-py3"
    settings.FLEET_VLLM_IMAGE = image
    answers = {name: ({}, {"docker-denied"} if name == "spark-08" else ()) for name in ("spark-07", "spark-08")}
    at = store_software({**answers, "spark-09": ({}, ()), "spark-10": ({}, ())}, [image])
    open_plans_as_a_member(live_server, page, f"model=llama-3.3-70b&group={lab['switched']}&concurrency=8")
    book(get_user_model().objects.get(username="member"), NodeGroup.objects.get(pk=lab["switched"]))
    page.reload()
    page.locator("tr.plan-more.recommended summary").click()
    page.locator("tr.plan-more.recommended").get_by_role("button", name="Book this group for this plan").click()
    page.wait_for_url(re.compile(r"/bookings/new/"))
    page.locator("#field-saved-plan a").click()
    page.wait_for_url(re.compile(r"/plans/saved/\d+/$"))
    expect(page.get_by_role("button", name="Serve this plan")).to_be_visible()
    note = page.locator(".serve-before")
    expect(note).to_have_text(
        "Serving runs the engine under Docker: the fleet's SSH user could not use Docker on spark-08 (software read "
        f"at {at.astimezone(UTC):%Y-%m-%d %H:%M} UTC)."
    )
    card = page.locator(".card").filter(has=note)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        if width == 390:
            fits_a_phone(page, note)
        no_sideways_scroll(page)
        card.screenshot(path=str(SHOTS / f"saved-plan-serve-docker-{width}.png"))
