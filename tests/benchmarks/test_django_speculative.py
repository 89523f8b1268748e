"""A benchmark record keeps the speculative decoding its run used (the
method, and vLLM's acceptance figures): entered by a script with a token or
on the page, read from an uploaded vLLM result whose server drafted tokens,
stored for the published runs that used it. The performance model predicts
plain decoding, so such a run's decode is never compared with a prediction
nor fitted on: it is shown beside a plan of its configuration, saying so."""

from __future__ import annotations

import json
from html import escape

import pytest
from django.db import IntegrityError, transaction

from benchmarks.charts import bar_chart
from benchmarks.lab_runs import lab_runs
from benchmarks.models import BenchmarkRun
from benchmarks.scaling import chart_series, predicted_with_range, scaling_rows
from benchmarks.views import _bar, _point
from placement.published import PUBLISHED_POINTS
from tests.benchmarks.test_django_format_and_mode import migrated_from
from tests.benchmarks.test_parsers import SPEC_DECODE, VLLM_JSON
from tests.placement.conftest import placement_state

pytestmark = pytest.mark.django_db

QWEN = {
    "model": "qwen3.6-35b-a3b",
    "engine": "vllm",
    "backend": "none",
    "quantization": "nvfp4",
    "concurrency": 1,
    "input_len": 512,
    "output_len": 256,
}


def record(client, group, **extra):
    return client.post("/api/benchmarks", {**QWEN, "group": group.pk, **extra})


def test_a_script_records_the_method_in_any_case_and_its_acceptance(api_member, demo):
    made = record(
        api_member, demo["single"], decode_tps=88.0, speculative="MTP", acceptance_length=2.8, acceptance_rate=60
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert (body["speculative"], body["acceptance_length"], body["acceptance_rate"]) == ("mtp", 2.8, 60.0)
    plain = record(api_member, demo["single"], decode_tps=44.0, speculative="none")
    assert plain.status_code == 201, plain.content
    assert (plain.json()["speculative"], plain.json()["acceptance_length"]) == ("", None)
    run = BenchmarkRun.objects.get(pk=body["id"])
    assert run.speculative_words() == "MTP speculative decoding (2.80 tokens a step, 60% of drafts accepted)"


@pytest.mark.parametrize(
    ("extra", "path", "message"),
    [
        (
            {"speculative": "medusa"},
            "speculative",
            "must be the speculative decoding the run used: one of mtp, eagle, eagle3, nextn, dflash, ngram, draft "
            "(a draft model) or unnamed (any case); blank or none: none",
        ),
        (
            {"acceptance_length": 2.5},
            "acceptance_length",
            "belongs to a run with speculative decoding: name its method in speculative",
        ),
        (
            {"speculative": "none", "acceptance_rate": 70},
            "acceptance_rate",
            "belongs to a run with speculative decoding: name its method in speculative",
        ),
    ],
)
def test_a_method_not_known_or_acceptance_without_one_is_refused_and_nothing_is_stored(
    api_member, demo, extra, path, message
):
    before = placement_state()
    refused = record(api_member, demo["single"], decode_tps=80.0, **extra)
    assert refused.status_code == 400
    assert refused.json()["errors"] == [{"path": path, "message": message}]
    assert placement_state() == before


@pytest.mark.parametrize(
    ("field", "value"), [("acceptance_length", 0.5), ("acceptance_rate", 101), ("acceptance_rate", "60")]
)
def test_acceptance_figures_out_of_their_range_are_refused_at_the_edge(api_member, demo, field, value):
    before = placement_state()
    refused = record(api_member, demo["single"], decode_tps=80.0, speculative="mtp", **{field: value})
    assert refused.status_code == 422
    assert [e["path"] for e in refused.json()["errors"]] == [field], refused.json()
    assert placement_state() == before


def test_the_database_refuses_acceptance_figures_without_a_method():
    """Whatever writes, the table holds no acceptance of a run that drafted nothing, nor an insane one."""
    base = {"source": "published", "topology_kind": "single", "node_count": 1, "model_name": "x", "decode_tps": 1.0}
    for bad in ({"acceptance_length": 2.0}, {"speculative": "mtp", "acceptance_length": 0.9}, {"speculative": "x"}):
        with pytest.raises(IntegrityError), transaction.atomic():
            BenchmarkRun.objects.create(**base, **bad)


def upload(client, group, result, **extra):
    body = {"model": "qwen3.6-35b-a3b", "group": group.pk, "content": json.dumps(result), **extra}
    return client.post("/api/benchmarks/upload", body)


def test_an_uploaded_vllm_result_of_a_server_drafting_tokens_is_recorded_so(api_member, demo):
    """The file shows drafting, not its method: recorded as unnamed unless the
    script names one; "none" contradicts the file and is refused."""
    single = demo["single"]
    unnamed = upload(api_member, single, {**VLLM_JSON, **SPEC_DECODE})
    assert unnamed.status_code == 201, unnamed.content
    body = unnamed.json()
    assert (body["speculative"], body["acceptance_length"], body["acceptance_rate"]) == ("unnamed", 2.85, 61.5)
    named = upload(api_member, single, {**VLLM_JSON, **SPEC_DECODE}, speculative="mtp")
    assert named.status_code == 201, named.content
    assert named.json()["speculative"] == "mtp"
    plain = upload(api_member, single, VLLM_JSON)
    assert plain.status_code == 201, plain.content
    assert (plain.json()["speculative"], plain.json()["acceptance_rate"]) == ("", None)
    before = placement_state()
    refused = upload(api_member, single, {**VLLM_JSON, **SPEC_DECODE}, speculative="none")
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "path": "speculative",
            "message": "the file shows the server drafted tokens (vLLM's spec_decode_* figures): name the method, "
            "or leave it blank to record it as unnamed",
        }
    ]
    assert placement_state() == before


def test_a_speculative_run_is_beside_its_plan_saying_so_and_moves_no_prediction(
    api_member, api_viewer, client, viewer_user, demo
):
    """A member records an MTP run of Qwen3.6-35B-A3B NVFP4, one node, one
    stream: the one-node plan lists it, as MTP and not fitted on, and its
    prediction and range stay those of a lab without it; a plain run of the
    same configuration moves the prediction (the re-fit reads it)."""
    single = demo["single"]

    def single_plan():
        found = api_viewer.post("/api/plans", {"model": "qwen3.6-35b-a3b", "group": single.pk, "concurrency": 1})
        assert found.status_code == 200, found.content
        return next(p for p in found.json()["plans"] if p["strategy"] == "single"), found.json()

    before, before_all = single_plan()
    made = record(api_member, single, decode_tps=88.0, speculative="mtp", acceptance_length=2.8, acceptance_rate=60)
    assert made.status_code == 201, made.content
    after, after_all = single_plan()
    assert (after["decode_tps"], after["decode_tps_range"]) == (before["decode_tps"], before["decode_tps_range"])
    assert after_all["prediction_source"] == before_all["prediction_source"]  # no lab run re-fitted on
    (shown,) = after["lab_runs"]
    why = (
        "decoded with MTP speculative decoding (2.80 tokens a step, 60% of drafts accepted); the performance model "
        "predicts plain decoding"
    )
    assert (shown["tps"], shown["fitted"], shown["not_fitted"], shown["speculative"]) == (
        88.0,
        False,
        why,
        "MTP speculative decoding",
    )
    (read,) = lab_runs()
    assert (read.not_fitted, read.speculative) == (why, "MTP speculative decoding")
    client.force_login(viewer_user)
    page = client.get(f"/plans/?model=qwen3.6-35b-a3b&group={single.pk}&concurrency=1").content.decode()
    assert "(MTP speculative decoding, not fitted on)</span>" in page
    plain = record(api_member, single, decode_tps=44.0)
    assert plain.status_code == 201, plain.content
    refitted, _ = single_plan()
    assert refitted["decode_tps"] != before["decode_tps"]
    assert [(r["tps"], r["fitted"]) for r in refitted["lab_runs"]] == [(44.0, True), (88.0, False)]


def test_the_group_page_shows_a_speculative_run_apart_without_a_prediction(api_member, client, member_user, demo):
    """On the group's page the MTP run has no predicted figure, says why, is
    badged in the runs, and is charted on a line of its own, so the
    group's plain-decoding line and its scaling reference stay plain."""
    single = demo["single"]
    assert record(api_member, single, decode_tps=44.0).status_code == 201
    made = record(api_member, single, decode_tps=88.0, speculative="eagle3", acceptance_length=2.1)
    assert made.status_code == 201, made.content
    run = BenchmarkRun.objects.select_related("model").get(pk=made.json()["id"])
    assert predicted_with_range(run.model.spec(), _point(run)) is None
    runs = BenchmarkRun.objects.filter(source="measured").select_related("model")
    rows = scaling_rows([_point(r) for r in runs], run.model.spec())
    assert [(r.point.decode_tps, r.reference) for r in rows if r.point.source == "measured"] == [
        (88.0, False),
        (44.0, True),
    ]
    names = {s.name for s in chart_series(rows)}
    assert {"measured here · single", "measured here · single + speculative"} <= names
    client.force_login(member_user)
    page = client.get(f"/benchmarks/groups/{single.pk}/?model=qwen3.6-35b-a3b").content.decode()
    table = page[page.index('id="scaling"') :].split("</table>")[0]
    (mine,) = [row for row in table.split("</tr>") if "88.0" in row]
    assert (
        "— EAGLE-3 speculative decoding (2.10 tokens a step): the model predicts plain decoding, not compared or "
        "fitted on</span>"
    ) in mine
    assert (
        '· <span class="badge warn speculative" title="EAGLE-3 speculative decoding (2.10 tokens a step): not '
        'comparable with plain decoding">EAGLE-3</span>'
    ) in mine
    basis = page.split('id="scaling-basis">')[1].split("</p>")[0]
    assert "the one with the fewest nodes, decoded plainly where one was," in basis
    assert "a run with speculative decoding has none (the model predicts plain decoding)" in basis
    runs_table = page[page.index('id="group-runs"') :].split("</table>")[0]
    assert runs_table.count('class="badge warn speculative"') == 1
    bar = _bar(run)  # its bar on the leaderboard: the method beside the figure, where no label cuts it off
    assert (bar.label, bar.flag) == (f"{single.name} · 1 node · vLLM nvfp4", "+ EAGLE-3")
    drawn = bar_chart([bar], title="t")
    assert '88.0 <tspan class="bar-flag" font-weight="600" fill="#8a5300">+ EAGLE-3</tspan></text>' in drawn
    assert f"<title>{single.name} · 1 node · vLLM nvfp4 + EAGLE-3: 88.0 decode tok/s, measured" in drawn


def test_the_page_records_the_method(client, member_user, demo):
    client.force_login(member_user)
    form = {
        "source": "measured",
        "group": demo["single"].pk,
        "model": "qwen3.6-35b-a3b",
        "engine": "vllm",
        "backend": "none",
        "concurrency": 1,
        "decode_tps": "90.5",
        "speculative": "dflash",
        "acceptance_rate": "55",
    }
    assert client.get("/benchmarks/new/").content.decode().count('<option value="dflash">DFlash</option>') == 1
    assert client.post("/benchmarks/new/", form).status_code == 302
    run = BenchmarkRun.objects.get(source="measured")
    assert (run.speculative, run.acceptance_rate, run.acceptance_length) == ("dflash", 55.0, None)
    refused = client.post("/benchmarks/new/", {**form, "speculative": "", "decode_tps": "80"})
    assert refused.status_code == 400
    assert "belongs to a run with speculative decoding: name its method in speculative" in refused.content.decode()
    assert BenchmarkRun.objects.filter(source="measured").count() == 1


def test_the_published_runs_decoded_with_mtp_say_so(client, member_user, demo):
    """The two published runs whose sources drafted with MTP store it; no other
    published row claims a method. A group's page shows Nemotron-3-Super's
    one-node MTP run as a reference, badged, without a prediction."""
    rows = BenchmarkRun.objects.filter(source="published")
    drafted = dict(rows.exclude(speculative="").values_list("published_key", "speculative"))
    assert drafted == {p.key: "mtp" for p in PUBLISHED_POINTS if p.speculative}
    # two figures of the fit's sources, and Avarok's and r0b0tlab's MTP ladders kept for reference
    assert len(drafted) == 2 + 8 + 5 + 6
    assert {"qwen3.6-a3b-1-vllm", "nemotron-super-1-vllm-blog", "qwen3.8-27b-1-vllm-nvfp4-atlas-mtp-c128"} <= set(
        drafted
    )
    client.force_login(member_user)
    page = client.get(f"/benchmarks/groups/{demo['single'].pk}/?model=nemotron-3-super-120b-a12b").content.decode()
    table = page[page.index('id="scaling"') :].split("</table>")[0]
    badged = [row for row in table.split("</tr>") if '">MTP</span>' in row and "badge warn speculative" in row]
    assert len(badged) == 1
    assert "— MTP speculative decoding: the model predicts plain decoding, not compared or fitted on" in badged[0]


@pytest.mark.django_db(transaction=True)
def test_published_rows_stored_before_the_method_get_it_when_migrating():
    row = migrated_from("0025_published_fifteenth_fresh", "nemotron-super-1-vllm-blog", "speculative")
    assert row.speculative == "mtp"


def test_a_plan_shows_what_published_runs_of_its_configuration_gained_by_drafting(
    api_viewer, client, viewer_user, demo
):
    """Qwen3.6-35B-A3B NVFP4 on vLLM, one node, one stream: the MTP runs of
    that very configuration (r0b0tlab's on NVIDIA's checkpoint, the vLLM
    recipe's) are beside the plan, apart from the plain runs it is predicted
    against; at 8 streams r0b0tlab's, and at 64, where none was published, none."""
    single = demo["single"]
    body = {"model": "qwen3.6-35b-a3b", "group": single.pk, "engine": "vllm"}
    one = api_viewer.post("/api/plans", {**body, "concurrency": 1})
    assert one.status_code == 200, one.content
    (plan,) = [p for p in one.json()["plans"] if p["strategy"] == "single"]
    assert [(r["key"], round(r["tps"], 1), r["speculative"]) for r in plan["published_speculative_runs"]] == [
        ("qwen3.6-35b-a3b-1-vllm-nvfp4-r0b0tlab-mtp", 90.9, "mtp"),
        ("qwen3.6-a3b-1-vllm", 97.7, "mtp"),
    ]
    assert all(r["speculative"] == "" for r in plan["published_runs"])
    assert "qwen3.6-a3b-1-vllm" not in {r["key"] for r in plan["published_runs"]}
    eight = api_viewer.post("/api/plans", {**body, "concurrency": 8}).json()
    (at_eight,) = [p for p in eight["plans"] if p["strategy"] == "single"]
    assert [r["key"] for r in at_eight["published_speculative_runs"]] == [
        "qwen3.6-35b-a3b-1-vllm-nvfp4-r0b0tlab-mtp-c8"
    ]
    most = api_viewer.post("/api/plans", {**body, "concurrency": 64}).json()
    assert all(p["published_speculative_runs"] == [] for p in most["plans"])
    client.force_login(viewer_user)
    page = client.get(f"/plans/?model=qwen3.6-35b-a3b&group={single.pk}&engine=vllm&concurrency=1").content.decode()
    said = page.split('<p class="small speculative-runs">')[1].split("</p>")[0]
    recipe = plan["published_speculative_runs"][1]
    assert said.startswith(
        "Published for this very configuration with speculative decoding (not predicted: the model predicts plain "
        "decoding, and drafting gains by how many drafts the workload accepts): "
    )
    assert said.endswith(
        '>90.9</a> <span class="muted">(MTP, nvidia/Qwen3.6-35B-A3B-NVFP4)</span>, '
        f'<a href="{recipe["url"]}" rel="noopener noreferrer" title="{escape(recipe["source"])}">97.7</a> '
        '<span class="muted">(MTP)</span> tok/s.'
    )


def test_a_plan_at_several_streams_sets_the_published_mtp_ladder_beside_the_plain_one(api_viewer, demo):
    """Qwen3.8-27B NVFP4 on vLLM, one node: at 8 streams Avarok's plain leg
    (78.18 tok/s) is a published run of the plan and its MTP leg (124.48)
    is beside it apart; at 128 streams drafting gave less than plain
    decoding (358.57 against 390.42), which the plan shows as it is."""
    single = demo["single"]
    body = {"model": "qwen3.8-27b", "group": single.pk, "engine": "vllm", "variant": "nvfp4"}

    def single_plan(streams):
        found = api_viewer.post("/api/plans", {**body, "concurrency": streams})
        assert found.status_code == 200, found.content
        return next(p for p in found.json()["plans"] if p["replicas"] == 1 and p["tp"] == 1)

    eight = single_plan(8)
    assert ("qwen3.8-27b-1-vllm-nvfp4-atlas-c8", 78.18) in {(r["key"], r["tps"]) for r in eight["published_runs"]}
    assert [(r["key"], r["tps"]) for r in eight["published_speculative_runs"]] == [
        ("qwen3.8-27b-1-vllm-nvfp4-atlas-mtp-c8", 124.48)
    ]
    most = single_plan(128)
    assert [(r["key"], r["tps"]) for r in most["published_speculative_runs"]] == [
        ("qwen3.8-27b-1-vllm-nvfp4-atlas-mtp-c128", 358.57)
    ]
    assert ("qwen3.8-27b-1-vllm-nvfp4-atlas-c128", 390.42) in {(r["key"], r["tps"]) for r in most["published_runs"]}
