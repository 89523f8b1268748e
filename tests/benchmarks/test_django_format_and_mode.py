"""A benchmark record keeps the weights' format that ran and the engine's
CUDA-graph mode: entered (API with a token, the page), stored for every
published figure, read by the lab calibration and by the group page's
prediction, which for a published row is the report's own figure."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from benchmarks.lab_runs import lab_runs
from benchmarks.models import BenchmarkRun
from benchmarks.scaling import RunPoint, predicted_tps
from placement.model_catalogue import SEED_BY_SLUG
from placement.perfmodel import (
    Layout,
    copies_aggregate_tps,
    default_constants,
    known_formats,
    point_figures,
    predict,
)
from placement.published import PUBLISHED_POINTS
from tests.placement.conftest import placement_state

pytestmark = pytest.mark.django_db

POINTS = {p.key: p for p in PUBLISHED_POINTS}


def record(client, group, **extra):
    body = {
        "model": "llama-3.3-70b",
        "group": group.pk,
        "engine": "vllm",
        "backend": "none",
        "concurrency": 1,
        "input_len": 256,
        "output_len": 128,
        "decode_tps": 4.1,
        **extra,
    }
    return client.post("/api/benchmarks", body)


def test_a_script_records_the_format_in_any_case_and_the_mode(api_member, demo):
    single = demo["single"]
    made = record(api_member, single, quantization="FP8", mode="eager")
    assert made.status_code == 201, made.content
    assert (made.json()["quantization"], made.json()["mode"]) == ("fp8", "eager")
    gguf = record(api_member, single, engine="llama.cpp", quantization="q4_k_m", decode_tps=4.5)
    assert gguf.status_code == 201, gguf.content
    assert (gguf.json()["quantization"], gguf.json()["mode"]) == ("Q4_K_M", "")  # as the catalogue spells it
    listed = api_member.get(f"/api/benchmarks?group={single.pk}").json()
    assert sorted((r["quantization"], r["mode"]) for r in listed) == [("Q4_K_M", ""), ("fp8", "eager")]


def test_a_format_the_model_has_no_variant_of_or_an_unknown_mode_is_refused_and_nothing_is_stored(api_member, demo):
    before = placement_state()
    known = known_formats(SEED_BY_SLUG["llama-3.3-70b"])
    assert "int4" not in known
    refused = record(api_member, demo["single"], quantization="int4")
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "path": "quantization",
            "message": f"Llama-3.3-70B has no 'int4' variant; one of {', '.join(known)} (or blank: not stated)",
        }
    ]
    mode = record(api_member, demo["single"], mode="fast")
    assert mode.status_code == 400
    assert [e["path"] for e in mode.json()["errors"]] == ["mode"]
    assert placement_state() == before


def test_the_page_records_them_and_the_group_page_shows_them(client, member_user, demo):
    client.force_login(member_user)
    group = demo["single"]
    form = {
        "source": "measured",
        "group": group.pk,
        "model": "llama-3.3-70b",
        "engine": "vllm",
        "backend": "none",
        "concurrency": 1,
        "decode_tps": "3.9",
        "quantization": "NVFP4",
        "mode": "eager",
    }
    assert client.post("/benchmarks/new/", form).status_code == 302
    run = BenchmarkRun.objects.get(source="measured")
    assert (run.quantization, run.mode) == ("nvfp4", "eager")
    refused = client.post("/benchmarks/new/", {**form, "quantization": "int4"})
    assert refused.status_code == 400 and b"has no &#x27;int4&#x27; variant" in refused.content
    page = client.get(f"/benchmarks/groups/{group.pk}/?model=llama-3.3-70b").content.decode()
    table = page[page.index('id="scaling"') :].split("</table>")[0]
    mine = [row for row in table.split("</tr>") if "measured here" in row]
    assert len(mine) == 1 and "vLLM · None (one node) · nvfp4 · eager (no CUDA graphs)" in mine[0]


def test_every_published_row_keeps_its_format_and_mode():
    for key in ("gpt-oss-120b-1-kubis", "qwen3.8-27b-1-vllm-fp8-kubesimplify", "qwen27b-row1-one-node"):
        p = POINTS[key]
        row = BenchmarkRun.objects.get(published_key=key)
        assert row.quantization == (p.quantization or SEED_BY_SLUG[p.model_slug].quantization)
        assert row.mode == p.mode
    assert BenchmarkRun.objects.get(published_key="gpt-oss-120b-1-kubis").mode == "eager"
    assert BenchmarkRun.objects.get(published_key="qwen3.8-27b-1-vllm-fp8-kubesimplify").quantization == "fp8"
    assert not BenchmarkRun.objects.filter(source="published", quantization="").exclude(model__isnull=True).exists()


def _point(row: BenchmarkRun) -> RunPoint:
    return RunPoint(
        row.pk, row.source, row.topology_kind, row.backend, row.node_count, row.tp, row.pp, row.engine,
        row.concurrency, row.input_len, row.output_len, row.decode_tps or 0.0, row.link_gbps, "",
        row.quantization, row.mode, row.published_key or "", row.checkpoint, row.copies,
    )  # fmt: skip


@pytest.mark.parametrize(
    "key",
    [
        "gpt-oss-120b-1-kubis",  # eager, its own context
        "gpt-oss-120b-2x1-kubis-c4",  # two copies behind a random router
        "qwen3.8-27b-1-vllm-fp8-kubesimplify",  # a format other than the model's default
        "qwen3.6-35b-a3b-2-tp2-vllm-nvfp4-heitor-c4",  # held out, eager, two nodes
    ],
)
def test_a_published_rows_prediction_is_the_reports_own(key):
    row = BenchmarkRun.objects.select_related("model").get(published_key=key)
    report = point_figures(POINTS[key], default_constants())
    expected = [predicted for metric, _, predicted in report if metric in ("decode", "aggregate")]
    assert len(expected) == 1
    assert predicted_tps(row.model.spec(), _point(row)) == expected[0]


def test_a_measured_run_is_predicted_as_its_format_and_mode(api_member, demo):
    single = demo["single"]
    eager = record(api_member, single, quantization="fp8", mode="eager").json()
    plain = record(api_member, single).json()
    spec = SEED_BY_SLUG["llama-3.3-70b"]
    layout = Layout(engine="vllm")
    rows = {r.pk: r for r in BenchmarkRun.objects.select_related("model").filter(source="measured")}
    fp8 = spec.with_variant(spec.variant("fp8"))
    assert (
        predicted_tps(spec, _point(rows[eager["id"]]))
        == predict(fp8, Layout(engine="vllm", mode="eager"), context_tokens=320).aggregate_tps
    )
    assert predicted_tps(spec, _point(rows[plain["id"]])) == predict(spec, layout, context_tokens=320).aggregate_tps
    # the calibration reads both as they ran
    runs = {r.key.split(":")[0]: r for r in lab_runs()}
    got = runs[f"run {eager['id']}"]
    assert (got.model.quantization, got.layout.mode) == ("fp8", "eager")
    assert (runs[f"run {plain['id']}"].model.quantization, runs[f"run {plain['id']}"].layout.mode) == (
        "nvfp4",
        "graphs",
    )


def test_a_measured_run_of_copies_is_predicted_as_its_copies_and_its_row_says_so(api_member, client, member_user, demo):
    """Two one-node copies on the direct pair at 8 streams: predicted as the
    planner predicts that plan (each copy on one node, the streams shared by
    the planner's router), not as one instance on both nodes; the group's
    table names the copies."""
    from placement.planner import COPIES_ROUTER

    pair = demo["direct"]
    made = record(api_member, pair, tp=1, copies=2, concurrency=8, decode_tps=9.0)
    assert made.status_code == 201, made.content
    row = BenchmarkRun.objects.select_related("model").get(pk=made.json()["id"])
    spec = SEED_BY_SLUG["llama-3.3-70b"]
    copies = copies_aggregate_tps(
        spec, Layout(engine="vllm"), context_tokens=320, concurrency=8, copies=2, router=COPIES_ROUTER
    )
    assert predicted_tps(spec, _point(row)) == copies
    assert copies != predict(spec, Layout(engine="vllm"), context_tokens=320, concurrency=8).aggregate_tps
    # more copies than nodes: nothing to predict
    assert predicted_tps(spec, replace(_point(row), copies=3)) is None
    client.force_login(member_user)
    page = client.get(f"/benchmarks/groups/{pair.pk}/?model=llama-3.3-70b&concurrency=8").content.decode()
    assert page.count('data-label="Topology">direct <span class="muted small">2 copies</span></td>') == 1


def migrated_from(migration: str, key: str, field: str) -> BenchmarkRun:
    """A database at ``migration`` of benchmarks, holding the published row
    ``key`` without ``field``, migrated to the end: that row afterwards."""
    executor = MigrationExecutor(connection)
    executor.migrate([("benchmarks", migration)])
    old = MigrationExecutor(connection).loader.project_state([("benchmarks", migration)]).apps
    Run = old.get_model("benchmarks", "BenchmarkRun")
    assert Run.objects.filter(published_key=key).exists()
    assert field not in {f.name for f in Run._meta.get_fields()}
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    return BenchmarkRun.objects.get(published_key=key)


@pytest.mark.django_db(transaction=True)
def test_published_rows_stored_before_the_fields_get_them_when_migrating():
    row = migrated_from("0013_published_sixth_fresh", "gpt-oss-120b-1-kubis", "mode")
    assert (row.quantization, row.mode) == ("mxfp4", "eager")
    assert BenchmarkRun.objects.filter(published_key="qwen3.8-27b-1-vllm-fp8-kubesimplify", quantization="fp8").exists()


def test_a_record_keeps_the_checkpoint_that_ran_and_refuses_anything_else(api_member, client, member_user, demo):
    """Two checkpoints of one format can decode far apart: a script records
    the repository (or path) that ran; anything that is neither a Hugging
    Face repository id nor an absolute path (a command, a URL) is refused,
    naming the field, and nothing is stored. The page's form takes it too,
    and the group page shows it beside the format."""
    single = demo["single"]
    made = record(api_member, single, quantization="nvfp4", checkpoint="nvidia/Llama-3.3-70B-Instruct-NVFP4")
    assert made.status_code == 201, made.content
    assert made.json()["checkpoint"] == "nvidia/Llama-3.3-70B-Instruct-NVFP4"
    path = record(api_member, single, checkpoint="/models/llama-3.3-70b-nvfp4")
    assert path.status_code == 201 and path.json()["checkpoint"] == "/models/llama-3.3-70b-nvfp4"
    assert record(api_member, single).json()["checkpoint"] == ""  # not stated
    before = placement_state()
    for bad in ("nvidia/x; rm -rf /", "https://huggingface.co/nvidia/x", "just-a-name", "a/b/c", "x" * 201):
        refused = record(api_member, single, checkpoint=bad)
        assert refused.status_code == (422 if len(bad) > 200 else 400), (bad, refused.content)
        if refused.status_code == 400:
            assert refused.json()["errors"] == [
                {
                    "path": "checkpoint",
                    "message": "must be a Hugging Face repository (org/name, such as RedHatAI/Qwen3.6-35B-A3B-NVFP4) "
                    "or an absolute path on the nodes; blank: not stated",
                }
            ]
    assert placement_state() == before
    client.force_login(member_user)
    form = {
        "source": "measured",
        "group": single.pk,
        "model": "llama-3.3-70b",
        "engine": "vllm",
        "backend": "none",
        "concurrency": 1,
        "decode_tps": "3.9",
        "quantization": "nvfp4",
        "checkpoint": "RedHatAI/Llama-3.3-70B-Instruct-NVFP4",
    }
    assert client.post("/benchmarks/new/", form).status_code == 302
    assert BenchmarkRun.objects.filter(checkpoint="RedHatAI/Llama-3.3-70B-Instruct-NVFP4").count() == 1
    refused = client.post("/benchmarks/new/", {**form, "checkpoint": "$(reboot)"})
    assert refused.status_code == 400 and b"must be a Hugging Face repository" in refused.content
    page = client.get(f"/benchmarks/groups/{single.pk}/?model=llama-3.3-70b").content.decode()
    table = page[page.index('id="scaling"') :].split("</table>")[0]
    assert '<span class="muted small ref checkpoint">RedHatAI/Llama-3.3-70B-Instruct-NVFP4</span>' in table


def test_every_published_row_keeps_the_checkpoint_its_source_names():
    from placement.published_checkpoints import CHECKPOINT_BY_KEY

    named = dict(BenchmarkRun.objects.exclude(checkpoint="").values_list("published_key", "checkpoint"))
    assert named == {key: repo for key, repo in CHECKPOINT_BY_KEY.items() if key in POINTS}
    assert named["qwen3.6-35b-a3b-1-vllm-nvfp4-jvr0x"] == "nvidia/Qwen3.6-35B-A3B-NVFP4"
    assert named["qwen3.6-35b-a3b-1-djangodevreng-nvfp4"] == "RedHatAI/Qwen3.6-35B-A3B-NVFP4"
    assert BenchmarkRun.objects.get(published_key="qwen3.6-35b-a3b-1-vllm-nvfp4-heitor").checkpoint == ""


@pytest.mark.django_db(transaction=True)
def test_published_rows_stored_before_the_checkpoint_get_it_when_migrating():
    row = migrated_from("0016_published_eighth_fresh", "qwen3.6-35b-a3b-1-vllm-nvfp4-reproducers", "checkpoint")
    assert row.checkpoint == "RedHatAI/Qwen3.6-35B-A3B-NVFP4"


def test_scaling_is_measured_against_a_run_of_the_same_checkpoint_where_the_newest_names_one():
    """Two one-node vLLM NVFP4 runs of Qwen3.6-35B-A3B, RedHat's checkpoint
    at 43 tok/s and NVIDIA's at 77: a two-node run measured here with
    NVIDIA's checkpoint is scaled against NVIDIA's one-node run, not the
    other checkpoint's; a newest run naming none keeps the format's fastest
    (a measurement first)."""
    from benchmarks.scaling import scaling_rows, smallest

    spec = SEED_BY_SLUG["qwen3.6-35b-a3b"]

    def run(pk, source, nodes, tps, checkpoint):
        return RunPoint(
            pk, source, "single" if nodes == 1 else "direct", "none" if nodes == 1 else "nccl", nodes, nodes, 1,
            "vllm", 1, 512, 256, tps, 200.0, "", "nvfp4", "graphs", "", checkpoint,
        )  # fmt: skip

    redhat = run(1, "published", 1, 43.0, "RedHatAI/Qwen3.6-35B-A3B-NVFP4")
    nvidia = run(2, "published", 1, 77.4, "nvidia/Qwen3.6-35B-A3B-NVFP4")
    mine = run(3, "measured", 2, 90.0, "nvidia/Qwen3.6-35B-A3B-NVFP4")
    assert smallest([redhat, nvidia, mine], spec) is nvidia
    rows = {r.point.id: r for r in scaling_rows([redhat, nvidia, mine], spec)}
    assert rows[3].factor == pytest.approx(90.0 / 77.4) and rows[2].reference
    # the newest measured run names RedHat's: its one-node run is the reference, slower though it is
    mine_redhat = run(4, "measured", 2, 60.0, "RedHatAI/Qwen3.6-35B-A3B-NVFP4")
    assert smallest([redhat, nvidia, mine, mine_redhat], spec) is redhat
    # naming none: the fastest of the same engine and format
    unnamed = run(5, "measured", 2, 60.0, "")
    assert smallest([redhat, nvidia, unnamed], spec) is nvidia


@pytest.mark.parametrize(
    ("ran", "fitted"),
    [
        ("", True),  # not stated: cannot be told apart
        ("/models/qwen36-nvfp4", True),  # a path on the nodes: neither
        ("RedHatAI/Qwen3.6-35B-A3B-NVFP4", True),  # the one the catalogue launches
        ("redhatai/qwen3.6-35b-a3b-nvfp4", True),  # the Hub's ids are not case-sensitive
        ("nvidia/Qwen3.6-35B-A3B-NVFP4", False),  # another checkpoint of the format
    ],
)
def test_the_lab_refit_reads_runs_of_the_checkpoint_plans_launch(ran, fitted):
    from benchmarks.lab_runs import other_checkpoint

    why = other_checkpoint(ran, "RedHatAI/Qwen3.6-35B-A3B-NVFP4")
    assert (why == "") is fitted
    if not fitted:
        assert why == f"it ran {ran}, and the catalogue's RedHatAI/Qwen3.6-35B-A3B-NVFP4 is what plans launch"


def test_a_published_row_of_copies_says_how_many(member_user):
    """A published run of independent copies behind a router keeps its count
    of copies in the column an uploaded run uses (one copy's layout: tp and
    pp times the copies fill its nodes); every other published row is one
    copy. The leaderboard names them."""
    copies = {p.key: p.replicas for p in PUBLISHED_POINTS if p.replicas > 1}
    assert len(copies) == 15
    rows = BenchmarkRun.objects.filter(source="published")
    assert dict(rows.filter(copies__gt=1).values_list("published_key", "copies")) == copies
    for row in rows.filter(published_key__in=list(copies)):
        assert row.tp * row.pp * row.copies == row.node_count == 2, row.published_key
    from benchmarks.selectors import leaderboard

    shown = [r for _, _, runs in leaderboard() for r in runs if r.copies > 1]
    assert shown  # gpt-oss-120b's and Nemotron-3-Super's two copies at 64 streams are among the fastest
    client = Client()
    client.force_login(member_user)
    page = client.get("/benchmarks/?concurrency=any").content.decode()
    assert page.count('<span class="muted small copies">2 copies</span>') == len(shown)
    assert page.count("<td>none (each copy on one node)</td>") == len(shown)  # not "None (one node)" beside 2 nodes
    assert "direct · 2 nodes 2 copies · vLLM" in page  # the bar's label


def test_each_predicted_figure_on_a_groups_page_carries_its_range(api_member, client, member_user, demo):
    """The benchmark page's predictions carry their ranges as the plans'
    do: a published figure the report's own range, a run measured here the
    range a plan of its layout is given (placement.perfmodel.ranges)."""
    from benchmarks.scaling import predicted_with_range
    from placement.perfmodel import DEFAULT_READING, FigureClass, fit_report, predicted_range

    report = {(e.key, e.metric): e for e in fit_report(DEFAULT_READING).errors}
    published = BenchmarkRun.objects.select_related("model").get(published_key="gpt-oss-120b-2x1-kubis-c4")
    mine = report["gpt-oss-120b-2x1-kubis-c4", "aggregate"]
    assert predicted_with_range(published.model.spec(), _point(published)) == (mine.predicted, (mine.low, mine.high))
    pair = demo["direct"]
    made = record(api_member, pair, backend="nccl", tp=2, concurrency=4, decode_tps=30.0, quantization="nvfp4")
    assert made.status_code == 201, made.content
    run = BenchmarkRun.objects.select_related("model").get(pk=made.json()["id"])
    found = predicted_with_range(run.model.spec(), _point(run))
    assert found is not None
    value, bounds = found
    family = run.model.spec().family
    expected = predicted_range(value, FigureClass("aggregate", "vllm", "tp", family, "graphs"))
    assert bounds == (expected.low, expected.high) and expected.low < value < expected.high
    client.force_login(member_user)
    page = client.get(f"/benchmarks/groups/{pair.pk}/?model=llama-3.3-70b&concurrency=4").content.decode()
    table = page[page.index('id="scaling"') :].split("</table>")[0]
    row = next(r for r in table.split("</tr>") if "measured here" in r)
    assert f'{value:.1f} <span class="range">({expected.low:.1f} to {expected.high:.1f})</span>' in row
