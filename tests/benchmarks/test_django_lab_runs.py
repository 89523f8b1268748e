"""Calibration by the lab's own runs, through the database: measured records
re-fit the engine's constants, plans move towards what the lab measured, and
the plan's source says so."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from benchmarks.lab_runs import lab_runs
from placement.lab_calibration import lab_calibration

pytestmark = pytest.mark.django_db


def one_node_plan(client, group, engine="vllm"):
    body = {"model": "llama-3.3-70b", "group": group.pk, "context_tokens": 320, "engine": engine}
    response = client.post("/api/plans", body)
    assert response.status_code == 200, response.content
    return [p for p in response.json()["plans"] if p["strategy"] == "single"][0], response.json()


def test_the_labs_runs_pull_predictions_towards_them(api_member, demo):
    single = demo["single"]
    before, body = one_node_plan(api_member, single)
    assert "fitted on published figures" in body["prediction_source"]
    assert lab_runs() == [] and lab_calibration().changes == ()
    measured = before["decode_tps"] * 0.7  # this lab's build is slower than the published figures
    for tpot in (1000 / measured, 1000 / (measured * 1.02)):
        response = api_member.post(
            "/api/benchmarks",
            {
                "model": "llama-3.3-70b",
                "group": single.pk,
                "engine": "vllm",
                "backend": "none",
                "concurrency": 1,
                "input_len": 256,
                "output_len": 128,
                "decode_tps": 1000 / tpot,
                "tpot_ms": tpot,
            },
        )
        assert response.status_code == 201, response.content
    runs = lab_runs()
    assert len(runs) == 2 and all(r.layout.engine == "vllm" for r in runs)
    calibration = lab_calibration()
    # the re-fit is kept while the runs stay the same, and redone when one changes
    assert lab_calibration() is calibration
    from benchmarks.models import BenchmarkRun

    last = BenchmarkRun.objects.filter(source="measured").latest("pk")
    last.tpot_ms *= 1.5
    last.save()
    assert lab_calibration() is not calibration
    last.tpot_ms /= 1.5
    last.save()
    assert lab_calibration() == calibration
    assert max(abs(e.error_pct) for e in calibration.after) < min(abs(e.error_pct) for e in calibration.before)
    after, body = one_node_plan(api_member, single)
    assert abs(after["decode_tps"] - measured) < abs(before["decode_tps"] - measured) / 3
    assert "re-fitted on this lab's runs (vllm: 2 runs)" in body["prediction_source"]
    # another engine keeps the published fit
    llama, _ = one_node_plan(api_member, single, engine="llama.cpp")
    assert "llama.cpp" not in lab_calibration().runs_per_engine
    assert llama["decode_tps"] > 0


def test_runs_at_several_streams_calibrate_through_their_aggregate_not_their_tpot(api_member, demo):
    """Runs measured at 8 streams, as a served model's Measure records them: their TPOT is each
    stream's speed among seven others, so it must not pull the one-stream prediction down;
    their aggregate pulls the 8-stream prediction towards them."""
    single = demo["single"]
    body = {"model": "llama-3.3-70b", "group": single.pk, "context_tokens": 320, "engine": "vllm", "concurrency": 8}

    def plan() -> dict:
        return [p for p in api_member.post("/api/plans", body).json()["plans"] if p["strategy"] == "single"][0]

    before = plan()
    measured = before["aggregate_tps"] * 0.8  # this lab batches worse than the published figures
    for aggregate in (measured, measured * 1.02):
        response = api_member.post(
            "/api/benchmarks",
            {
                "model": "llama-3.3-70b",
                "group": single.pk,
                "engine": "vllm",
                "backend": "none",
                "concurrency": 8,
                "input_len": 256,
                "output_len": 128,
                "decode_tps": aggregate,
                "tpot_ms": 8000 / aggregate,  # each of the 8 streams at an eighth of the aggregate
            },
        )
        assert response.status_code == 201, response.content
    runs = lab_runs()
    assert [(r.decode_tps, r.concurrency) for r in runs] == [(None, 8), (None, 8)]
    after = plan()
    assert abs(after["aggregate_tps"] - measured) < abs(before["aggregate_tps"] - measured) / 2
    assert after["decode_tps"] == pytest.approx(before["decode_tps"], rel=0.01)  # one stream left as it was


def test_published_rows_are_never_the_labs_runs(api_member):
    response = api_member.post(
        "/api/benchmarks",
        {
            "model": "llama-3.3-70b",
            "source": "published",
            "reference": "vendor blog",
            "topology_kind": "single",
            "node_count": 1,
            "engine": "vllm",
            "concurrency": 1,
            "decode_tps": 1.0,
        },
    )
    assert response.status_code == 201
    assert lab_runs() == []


def record(client, group, backend, decode, tp):
    body = {
        "model": "llama-3.3-70b",
        "group": group.pk,
        "engine": "vllm",
        "backend": backend,
        "tp": tp,
        "concurrency": 1,
        "input_len": 256,
        "output_len": 128,
        "decode_tps": decode,
        "tpot_ms": 1000 / decode,
    }
    response = client.post("/api/benchmarks", body)
    assert response.status_code == 201, response.content
    return response.json()


def test_a_run_over_tcp_sockets_is_kept_and_charted_apart_but_never_fitted_on(api_member, member_user, demo):
    """A member records a TP2 run on the direct pair whose NCCL fell back to
    TCP sockets: it is stored with its backend, shown on the group's
    benchmarks in a series of its own without a prediction beside it, and the
    model is not re-fitted on it; the same figure over RoCE is fitted on."""
    pair = demo["direct"]
    slow = record(api_member, pair, "socket", 3.1, tp=2)
    assert slow["backend"] == "socket"
    assert lab_runs() == [] and lab_calibration().changes == ()
    browser = Client()
    browser.force_login(member_user)
    page = browser.get(f"/benchmarks/groups/{pair.pk}/?model=llama-3.3-70b")
    assert page.status_code == 200
    text = page.content.decode()
    assert "vLLM · NCCL over TCP sockets" in text and "direct (TCP sockets)" in text
    record(api_member, pair, "nccl", 3.1, tp=2)
    runs = lab_runs()
    assert [(r.layout.path, r.layout.tp) for r in runs] == [("direct", 2)]


def test_a_switched_run_whose_backend_is_not_known_is_fitted_as_nccl(api_member, demo):
    """What the planner assumes on a switch, and every published switched Spark run used."""
    switched = demo["switched"]
    record(api_member, switched, "unknown", 9.0, tp=switched.members.count())
    assert [r.layout.path for r in lab_runs()] == ["switched-nccl"]


def test_a_labs_moe_batches_refit_the_cost_per_expert_slot_shown_on_the_plans_page(api_member, member_user, demo):
    """A lab whose vLLM batches Qwen3.6-35B-A3B faster than the published fit
    says (as every held-out MoE sweep does past a few streams): its records at
    8 and 32 streams re-fit vLLM's cost per expert slot, its 32-stream plan
    comes to within 5% of what it measured, a dense model's batches keep
    their prediction, and the page's fit table names the constant."""
    single = demo["single"]

    def plan(model: str, streams: int) -> dict:
        body = {"model": model, "group": single.pk, "context_tokens": 320, "engine": "vllm", "concurrency": streams}
        response = api_member.post("/api/plans", body)
        assert response.status_code == 200, response.content
        return [p for p in response.json()["plans"] if p["strategy"] == "single"][0]

    dense_before = plan("llama-3.3-70b", 8)["aggregate_tps"]
    measured = {
        8: plan("qwen3.6-35b-a3b", 8)["aggregate_tps"] * 1.4,
        32: plan("qwen3.6-35b-a3b", 32)["aggregate_tps"] * 2.0,
    }
    for streams, aggregate in measured.items():
        response = api_member.post(
            "/api/benchmarks",
            {
                "model": "qwen3.6-35b-a3b",
                "group": single.pk,
                "engine": "vllm",
                "backend": "none",
                "concurrency": streams,
                "input_len": 256,
                "output_len": 128,
                "decode_tps": aggregate,
                "tpot_ms": streams * 1000 / aggregate,
            },
        )
        assert response.status_code == 201, response.content
    changes = {(engine, name): new for engine, name, _, new in lab_calibration().changes}
    assert set(changes) == {("vllm", "expert_slot_us")} and changes["vllm", "expert_slot_us"] < 6.0
    assert plan("qwen3.6-35b-a3b", 32)["aggregate_tps"] == pytest.approx(measured[32], rel=0.05)
    assert plan("llama-3.3-70b", 8)["aggregate_tps"] == pytest.approx(dense_before)
    client = Client()
    client.force_login(member_user)
    page = client.get(f"/plans/?group={single.pk}&model=qwen3.6-35b-a3b").content.decode()
    refit = page.split('id="lab-refit">')[1].split("</p>")[0]
    assert refit == f"Re-fitted: vLLM&#x27;s cost per expert slot 6.00 µs → {changes['vllm', 'expert_slot_us']:.2f} µs."


def test_a_plans_record_link_fills_the_form_with_what_the_plan_runs(member_user, demo):
    """Each fitting plan of one instance links to the record form filled with
    what it runs: a member who measured it types the figure alone, and the
    run is listed beside that plan (``lab_runs``). Bad values in the link
    are only initial values, and the form refuses them on submission."""
    from benchmarks.models import BenchmarkRun

    client = Client()
    client.force_login(member_user)
    switched = demo["switched"]
    query = f"model=qwen3-32b&group={switched.pk}&engine=vllm&concurrency=8&context_tokens=1024"
    page = client.get(f"/plans/?{query}").content.decode()
    links = re.findall(r'<p class="small record-run"><a href="([^"]+)">Record a run of this plan</a>', page)
    assert links and all(link.startswith("/benchmarks/new/?") for link in links)
    tp2 = next(link for link in links if "tp=2&" in link and "pp=1&" in link)
    assert tp2.replace("&amp;", "&") == (
        f"/benchmarks/new/?group={switched.pk}&model=qwen3-32b&quantization=fp8&engine=vllm&mode=graphs&tp=2&pp=1"
        "&concurrency=8&backend=nccl&checkpoint=Qwen%2FQwen3-32B-FP8"
    )
    form = client.get(tp2.replace("&amp;", "&")).content.decode()
    for name, value in (("quantization", "fp8"), ("tp", "2"), ("pp", "1"), ("concurrency", "8")):
        assert re.search(rf'name="{name}" value="{value}"', form), name
    assert re.search(r'<option value="nccl" selected>', form)
    assert re.search(r'<option value="qwen3-32b" selected>', form)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    # the selected options as the browser posts them, and the one figure the member types
    chosen = {"source": "measured", "group": switched.pk, "model": "qwen3-32b", "engine": "vllm", "backend": "nccl"}
    typed = {k: v for k, v in fields.items() if k in ("quantization", "tp", "pp", "concurrency", "checkpoint")}
    response = client.post("/benchmarks/new/", {**chosen, **typed, "mode": "graphs", "decode_tps": 120.0})
    assert response.status_code == 302, response.content.decode()[:2000]
    run = BenchmarkRun.objects.get(source="measured")
    assert (run.tp, run.pp, run.concurrency, run.quantization, run.checkpoint) == (2, 1, 8, "fp8", "Qwen/Qwen3-32B-FP8")
    plans = client.get(f"/plans/?{query}").content.decode()
    assert "Measured in this lab for this very configuration (all 8 streams together" in plans
    # a link's values are initial values only: the form shows them, and says what is wrong on submission
    assert client.get("/benchmarks/new/?tp=two&model=nope").status_code == 200
    refused = client.post("/benchmarks/new/", {**chosen, "tp": "two", "concurrency": 8, "decode_tps": 1.0})
    assert refused.status_code == 400 and "Enter a whole number." in refused.content.decode()
    assert BenchmarkRun.objects.filter(source="measured").count() == 1


def test_a_plan_of_copies_links_to_the_form_with_its_copies_and_its_run_shows_beside_it(member_user, demo):
    """A plan of several copies behind a router links to the record form too,
    with its copies: the member's figure of them all together is stored as
    such, shown beside the plan of as many copies and not re-fitted on (a
    re-fit reads one instance's runs). More copies than the group holds are
    refused, on the copies field, and nothing is stored."""
    from benchmarks.models import BenchmarkRun

    client = Client()
    client.force_login(member_user)
    switched = demo["switched"]
    query = f"model=qwen3-32b&group={switched.pk}&engine=vllm&concurrency=8&context_tokens=1024"
    page = client.get(f"/plans/?{query}").content.decode()
    links = [
        link.replace("&amp;", "&")
        for link in re.findall(r'<p class="small record-run"><a href="([^"]+)">Record a run of this plan</a>', page)
    ]
    copies = [link for link in links if "&copies=" in link]
    # the switched group's eight one-node copies, among others (TP=4 twice, TP=2 four times, ...)
    assert len(copies) >= 2, links
    eight = next(link for link in copies if "tp=1&pp=1&" in link)
    assert "&copies=8&backend=none&" in eight
    assert "shown beside this plan (the model re-fits itself on one instance's runs" in page
    form = client.get(eight).content.decode()
    assert re.search(r'name="copies" value="8"', form)
    chosen = {"source": "measured", "group": switched.pk, "model": "qwen3-32b", "engine": "vllm", "backend": "none"}
    typed = {"quantization": "fp8", "tp": 1, "pp": 1, "copies": 8, "concurrency": 8, "mode": "graphs"}
    too_many = client.post("/benchmarks/new/", {**chosen, **typed, "copies": 9, "decode_tps": 90.0})
    assert too_many.status_code == 400
    assert "9 copies of tp x pp (1 x 1) need more than the" in too_many.content.decode()
    assert not BenchmarkRun.objects.filter(source="measured").exists()
    response = client.post("/benchmarks/new/", {**chosen, **typed, "decode_tps": 90.0})
    assert response.status_code == 302, response.content.decode()[:2000]
    run = BenchmarkRun.objects.get(source="measured")
    assert (run.tp, run.pp, run.copies, run.concurrency) == (1, 1, 8, 8)
    shown = client.get(f"/plans/?{query}").content.decode()
    assert 'title="8 copies measured together through their router, not one instance">(not fitted on)' in shown


def test_a_tpot_too_small_to_be_real_is_refused_and_a_stored_one_never_breaks_the_plans(api_member, member_user, demo):
    """An upload whose TPOT was 1e-320 ms once stored an infinite one-stream speed,
    and every plan then answered 500 (the calibration took its log). The edge
    refuses it now; a row stored before is not fitted on, and plans answer."""
    from benchmarks.models import BenchmarkRun

    pair = demo["direct"]
    body = {"model": "llama-3.3-70b", "group": pair.pk, "backend": "nccl", "tp": 2, "decode_tps": 50.0}
    refused = api_member.post("/api/benchmarks", {**body, "tpot_ms": 1e-320})
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "path": "tpot_ms",
            "message": "1e-320 is below 0.05 ms a token: faster than 20,000 tok/s for one stream, which no Spark "
            "decodes",
        }
    ]
    # a TPOT of 0 is what vLLM prints for one output token: not measured, and taken as such
    prefill_only = api_member.post("/api/benchmarks", {**body, "tpot_ms": 0, "output_len": 1})
    assert prefill_only.status_code == 201 and prefill_only.json()["tpot_ms"] is None
    BenchmarkRun.objects.filter(pk=prefill_only.json()["id"]).delete()
    kept = record(api_member, pair, "nccl", 3.1, tp=2)
    BenchmarkRun.objects.filter(pk=kept["id"]).update(tpot_ms=1e-320)  # as a row stored before the edge refused it
    assert lab_runs() == []
    plans = api_member.post("/api/plans", {"model": "llama-3.3-70b", "group": pair.pk})
    assert plans.status_code == 200 and plans.json()["plans"][0]["decode_tps"] > 0
    browser = Client()
    browser.force_login(member_user)
    for url in (f"/benchmarks/groups/{pair.pk}/?model=llama-3.3-70b", "/benchmarks/", "/plans/"):
        assert browser.get(url).status_code == 200, url


def test_a_decode_speed_above_what_the_nodes_can_compute_is_refused_and_a_stored_one_is_not_fitted(api_member, demo):
    """10 million tok/s for a 70B on two Sparks at 64 streams was once stored and
    fitted on. Each token multiplies the 70.55 billion active weights (2 operations
    each) at no more than the published 1 PFLOP a Spark: 14,174 tok/s on two is the
    most; the refusal says so, and a row stored before is not fitted on."""
    from benchmarks.models import BenchmarkRun

    pair = demo["direct"]
    body = {"model": "llama-3.3-70b", "group": pair.pk, "backend": "nccl", "tp": 2, "concurrency": 64}
    refused = api_member.post("/api/benchmarks", {**body, "decode_tps": 10_000_000})
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "path": "decode_tps",
            "message": "10,000,000 tok/s is more than 2 Sparks can compute for llama-3.3-70b (14,174 at most: each "
            "token multiplies its 70.55 billion active weights, at 1 PFLOP a Spark, the published peak): give the "
            "decode speed of the output tokens alone",
        }
    ]
    assert not BenchmarkRun.objects.filter(source="measured").exists()
    taken = api_member.post("/api/benchmarks", {**body, "decode_tps": 14_000})  # under the bound: a lab's to judge
    assert taken.status_code == 201
    assert [run.aggregate_tps for run in lab_runs()] == [14_000]
    BenchmarkRun.objects.filter(pk=taken.json()["id"]).update(decode_tps=1e7)  # stored before the edge refused it
    assert lab_runs() == []
