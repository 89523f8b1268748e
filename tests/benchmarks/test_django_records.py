"""Benchmark records: entered through the API and the form, uploaded as the
JSON vllm bench serve or llama-bench writes, listed, charted and ranked.
Bad input is refused naming the field, with nothing stored."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from benchmarks.models import BenchmarkRun
from inventory.models import NodeGroup
from tests.placement.conftest import placement_state

pytestmark = pytest.mark.django_db

VLLM_JSON = {
    "date": "20261130-101500",
    "backend": "vllm",
    "model_id": "meta-llama/Llama-3.3-70B-Instruct",
    "num_prompts": 10,
    "max_concurrency": 1,
    "completed": 10,
    "total_input_tokens": 1280,
    "total_output_tokens": 1280,
    "random_input_len": 128,
    "random_output_len": 128,
    "output_throughput": 18.31,
    "mean_ttft_ms": 210.5,
    "mean_tpot_ms": 54.2,
    "vllm_version": "0.11.1",
}
LLAMA_BENCH = [
    {
        "build_commit": "3f4a1c2",
        "build_number": 6510,
        "model_type": "gpt-oss 20B MXFP4 MoE",
        "n_prompt": 2048,
        "n_gen": 0,
        "avg_ts": 3598.1,
        "test_time": "2026-11-30T10:00:00Z",
    },
    {
        "build_commit": "3f4a1c2",
        "build_number": 6510,
        "model_type": "gpt-oss 20B MXFP4 MoE",
        "n_prompt": 0,
        "n_gen": 32,
        "avg_ts": 79.4,
        "test_time": "2026-11-30T10:00:05Z",
    },
]


def record(**fields):
    return {
        "model": "llama-3.3-70b",
        "engine": "vllm",
        "backend": "rocenante",
        "concurrency": 1,
        "input_len": 128,
        "output_len": 128,
        "decode_tps": 24.8,
        "prefill_tps": 2400.0,
        "ttft_ms": 55.0,
        "tpot_ms": 40.3,
        **fields,
    }


def test_a_member_records_a_run_with_the_topology_snapshot(api_member, demo):
    group = demo["switched"]
    response = api_member.post(
        "/api/benchmarks", record(group=group.pk, nodes=["spark-07", "spark-08", "spark-09", "spark-10"], tp=4)
    )
    assert response.status_code == 201, response.content
    run = response.json()
    assert run["topology_kind"] == "switched" and run["node_count"] == 4 and run["link_gbps"] == 200.0
    assert len(run["group_nodes"]) == 8 and run["nodes"][0] == "spark-07" and run["source"] == "measured"
    assert run["created_by"] == "member1"
    listed = api_member.get(f"/api/benchmarks?group={group.pk}&model=llama-3.3-70b").json()
    assert [r["id"] for r in listed] == [run["id"]]
    # the snapshot outlives the group
    NodeGroup.objects.filter(pk=group.pk).update(retired_at=timezone.now())
    again = api_member.get(f"/api/benchmarks?group={group.pk}").json()
    assert again[0]["group_nodes"] == run["group_nodes"]


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        (
            {"measured_at": "2030-01-01T00:00:00Z"},
            [("measured_at", "2030-01-01 00:00 UTC is in the future: a run is recorded once it has run")],
        ),
        (
            {"measured_at": "2026-12-01T00:00:00"},
            [("measured_at", "2026-12-01T00:00:00 has no time zone: add Z or an offset")],
        ),
        (
            {"decode_tps": 0},
            [("decode_tps", "must be above 0 tok/s: a run that decoded nothing has no speed to record")],
        ),
        (
            {"node_count": 99},
            [
                (
                    "node_count",
                    "99 is not what the run had on {group} (4): a run measured here takes both from its group "
                    "and nodes; leave it out",
                )
            ],
        ),
        (
            {"topology_kind": "ring"},
            [
                (
                    "topology_kind",
                    "'ring' is not what the run had on {group} ('switched'): a run measured here takes both from "
                    "its group and nodes; leave it out",
                )
            ],
        ),
    ],
)
def test_a_record_that_cannot_have_been_measured_is_refused(api_member, demo, fields, errors):
    """Each was once stored (201): a run three years ahead, a time without a zone
    read as UTC, a run that decoded nothing, a node count the group never had."""
    group = demo["switched"]
    before = BenchmarkRun.objects.count()
    body = record(group=group.pk, nodes=["spark-07", "spark-08", "spark-09", "spark-10"], tp=4, backend="nccl")
    response = api_member.post("/api/benchmarks", {**body, **fields})
    assert response.status_code == 400, response.content
    assert [(e["path"], e["message"]) for e in response.json()["errors"]] == [
        (path, message.format(group=group.name)) for path, message in errors
    ]
    assert BenchmarkRun.objects.count() == before
    # the same record, as it was measured, is taken
    assert api_member.post("/api/benchmarks", {**body, "node_count": 4, "topology_kind": "switched"}).status_code == 201


def test_a_published_figure_needs_its_reference(api_member):
    ok = api_member.post(
        "/api/benchmarks",
        record(
            source="published", reference="vendor blog, 2026-11", topology_kind="ring", node_count=4, backend="nccl"
        ),
    )
    assert ok.status_code == 201 and ok.json()["group"] is None


@pytest.mark.parametrize(
    "fields, path, status",
    [
        ({"decode_tps": "24.8"}, "decode_tps", 422),
        ({"concurrency": "4"}, "concurrency", 422),
        ({"decode_tps": -1.0}, "decode_tps", 422),  # the schema's bounds
        ({"ttft_ms": float("1e12")}, "ttft_ms", 422),
        ({"tp": 8}, "tp", 400),  # 8-way on a 2-node pair
        ({"tp": 2, "copies": 2}, "copies", 400),  # two TP=2 copies on a 2-node pair
        ({"copies": 0}, "copies", 422),  # the schema's bounds
        ({"backend": "rocenante"}, "backend", 400),  # a direct pair has no RoCEnante
        ({"engine": "ollama"}, "engine", 400),
        ({"model": "gpt-9"}, "model", 400),
        ({"nodes": ["spark-07"]}, "nodes", 400),
        ({"group": 999_999}, "group", 400),
        ({"group": None}, "group", 400),
        ({"source": "published", "group": None}, "reference", 400),
        ({"source": "published", "reference": "a blog"}, "group", 400),  # published figures have no group here
        ({"measured_at": "yesterday"}, "measured_at", 422),
    ],
)
def test_bad_records_are_refused_naming_the_field(api_member, demo, fields, path, status):
    body = record(group=demo["direct"].pk, backend="nccl", **{})
    body.update(fields)
    body = {k: v for k, v in body.items() if v is not None}
    before = placement_state()
    response = api_member.post("/api/benchmarks", body)
    assert response.status_code == status, response.content
    assert path in [e["path"] for e in response.json()["errors"]]
    assert placement_state() == before


def test_a_record_of_copies_says_so_in_the_api(api_member, demo):
    """Two one-node copies behind a router on the direct pair, measured
    together: stored and returned with their copies."""
    body = record(group=demo["direct"].pk, backend="none", tp=1, copies=2, concurrency=8)
    response = api_member.post("/api/benchmarks", body)
    assert response.status_code == 201, response.content
    assert (response.json()["tp"], response.json()["copies"], response.json()["concurrency"]) == (1, 2, 8)


def test_a_retired_group_takes_no_new_records(api_member, demo):
    NodeGroup.objects.filter(pk=demo["direct"].pk).update(retired_at=timezone.now())
    before = placement_state()
    response = api_member.post("/api/benchmarks", record(group=demo["direct"].pk, backend="nccl"))
    assert response.status_code == 400 and "retired" in response.json()["message"]
    assert placement_state() == before


def test_upload_vllm_bench_json(api_member, demo):
    response = api_member.post(
        "/api/benchmarks/upload",
        {"model": "llama-3.3-70b", "group": demo["direct"].pk, "content": json.dumps(VLLM_JSON), "backend": "nccl"},
    )
    assert response.status_code == 201, response.content
    run = response.json()
    assert run["decode_tps"] == 18.31 and run["tpot_ms"] == 54.2 and run["engine_version"] == "0.11.1"
    assert run["input_len"] == 128 and "prefill_tps" in run["derived"]
    assert run["prefill_tps"] == pytest.approx(128 / 0.2105)
    assert run["measured_at"].startswith("2026-11-30T10:15")
    # the checkpoint the file's model_id names, unless the form names one
    assert run["checkpoint"] == "meta-llama/Llama-3.3-70B-Instruct"
    # a file saved with a byte-order mark, as some editors write UTF-8, reads the same
    marked = api_member.post(
        "/api/benchmarks/upload",
        {
            "model": "llama-3.3-70b",
            "group": demo["direct"].pk,
            "content": "\ufeff" + json.dumps(VLLM_JSON),
            "backend": "nccl",
        },
    )
    assert marked.status_code == 201 and marked.json()["decode_tps"] == 18.31, marked.content
    given = api_member.post(
        "/api/benchmarks/upload",
        {
            "model": "llama-3.3-70b",
            "group": demo["direct"].pk,
            "content": json.dumps(VLLM_JSON),
            "backend": "nccl",
            "checkpoint": "/models/llama-3.3-70b",
        },
    )
    assert given.status_code == 201 and given.json()["checkpoint"] == "/models/llama-3.3-70b"
    served_name = api_member.post(
        "/api/benchmarks/upload",
        {
            "model": "llama-3.3-70b",
            "group": demo["direct"].pk,
            "content": json.dumps({**VLLM_JSON, "model_id": "llama-70b"}),  # a served name, not a repository
            "backend": "nccl",
        },
    )
    assert served_name.status_code == 201 and served_name.json()["checkpoint"] == ""


def test_a_records_tensor_parallel_left_empty_is_each_copys_share_of_the_nodes(api_member, demo):
    """tp left empty: the nodes one copy has after its pipeline stages. Two
    copies on the direct pair are one node each, a two-stage pipeline on it
    has no tensor parallelism, and one copy alone takes both nodes."""
    layouts = {}
    for given in ({}, {"copies": 2}, {"pp": 2}):
        body = record(group=demo["direct"].pk, backend="none" if given.get("copies") else "nccl", **given)
        response = api_member.post("/api/benchmarks", body)
        assert response.status_code == 201, response.content
        run = response.json()
        layouts[tuple(given) or ("none",)] = (run["tp"], run["pp"], run["copies"])
    assert layouts == {("none",): (2, 1, 1), ("copies",): (1, 1, 2), ("pp",): (1, 2, 1)}


def test_an_upload_says_its_layout_and_copies(api_member, demo):
    """A result file does not say how the engine was laid out: the upload
    takes tp, pp and copies as a record does, checked the same way (three
    copies on a pair refused on the copies field, nothing stored)."""
    body = {"model": "llama-3.3-70b", "group": demo["direct"].pk, "content": json.dumps(VLLM_JSON)}
    copies = api_member.post("/api/benchmarks/upload", {**body, "backend": "none", "copies": 2})
    assert copies.status_code == 201, copies.content
    assert (copies.json()["tp"], copies.json()["pp"], copies.json()["copies"]) == (1, 1, 2)
    stages = api_member.post("/api/benchmarks/upload", {**body, "backend": "nccl", "pp": 2})
    assert stages.status_code == 201, stages.content
    assert (stages.json()["tp"], stages.json()["pp"], stages.json()["copies"]) == (1, 2, 1)
    before = placement_state()
    refused = api_member.post("/api/benchmarks/upload", {**body, "backend": "none", "copies": 3})
    assert refused.status_code == 400, refused.content
    assert [e["path"] for e in refused.json()["errors"]] == ["copies"]
    assert "3 copies of tp x pp (1 x 1) need more than the 2 node(s) used" in refused.json()["message"]
    assert placement_state() == before


def test_upload_llama_bench_json_as_parsed_json(api_member, demo):
    response = api_member.post(
        "/api/benchmarks/upload", {"model": "gpt-oss-20b", "group": demo["single"].pk, "content": LLAMA_BENCH}
    )
    assert response.status_code == 201, response.content
    run = response.json()
    assert run["engine"] == "llama.cpp" and run["decode_tps"] == 79.4 and run["prefill_tps"] == 3598.1
    assert run["backend"] == "none" and "3f4a1c2" in run["engine_version"]
    # the format llama-bench's model_type names is recorded, as the catalogue spells it
    assert (run["quantization"], run["mode"]) == ("MXFP4_MOE", "")


def test_an_uploaded_files_format_is_kept_refused_when_the_form_says_otherwise_or_noted(api_member, demo):
    """llama-bench names the file type in its model_type: the form may repeat it in any case, not contradict
    it (refused, naming both, nothing stored); a format the model has no variant of is recorded as not
    stated, and the record's notes say which the file named."""
    before = placement_state()
    body = {"model": "gpt-oss-20b", "group": demo["single"].pk, "content": LLAMA_BENCH}
    refused = api_member.post("/api/benchmarks/upload", {**body, "quantization": "Q4_K_M"})
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "path": "quantization",
            "message": "the file says the weights are MXFP4_MOE (gpt-oss 20B MXFP4 MoE); leave the format blank or "
            "give MXFP4_MOE",
        }
    ]
    assert placement_state() == before
    same = api_member.post("/api/benchmarks/upload", {**body, "quantization": "mxfp4_moe"})
    assert same.status_code == 201 and same.json()["quantization"] == "MXFP4_MOE"
    q6 = [{**record, "model_type": "llama 8B Q6_K"} for record in LLAMA_BENCH]
    noted = api_member.post("/api/benchmarks/upload", {**body, "model": "llama-3.1-8b", "content": q6})
    assert noted.status_code == 201
    assert noted.json()["quantization"] == ""
    assert noted.json()["notes"] == (
        "the file names the model 'llama 8B Q6_K'; the file names the format Q6_K, which Llama-3.1-8B-Instruct "
        "has no variant of in the catalogue: recorded as not stated"
    )


@pytest.mark.parametrize(
    "content, path",
    [
        (json.dumps({k: v for k, v in VLLM_JSON.items() if k != "mean_tpot_ms"}), "content.mean_tpot_ms"),
        (json.dumps({**VLLM_JSON, "output_throughput": "18.31"}), "content.output_throughput"),
        (json.dumps({**VLLM_JSON, "mean_ttft_ms": None}), "content.mean_ttft_ms"),
        (json.dumps([{"n_prompt": "512", "n_gen": 0, "avg_ts": 10.0}]), "content.record 1.n_prompt"),
        ("{not json", "content"),
        ("", "content"),
        ("just some words", "content"),
    ],
)
def test_bad_result_files_are_refused_naming_the_field(api_member, demo, content, path):
    before = placement_state()
    response = api_member.post(
        "/api/benchmarks/upload", {"model": "llama-3.3-70b", "group": demo["direct"].pk, "content": content}
    )
    assert response.status_code == 400, response.content
    assert path in [e["path"] for e in response.json()["errors"]], response.json()
    assert placement_state() == before


def test_a_file_without_concurrency_needs_it_given(api_member, demo):
    body = {k: v for k, v in VLLM_JSON.items() if k != "max_concurrency"}
    before = placement_state()
    refused = api_member.post(
        "/api/benchmarks/upload", {"model": "llama-3.3-70b", "group": demo["direct"].pk, "content": json.dumps(body)}
    )
    assert refused.status_code == 400 and refused.json()["errors"][0]["path"] == "concurrency"
    assert placement_state() == before
    given = api_member.post(
        "/api/benchmarks/upload",
        {"model": "llama-3.3-70b", "group": demo["direct"].pk, "content": json.dumps(body), "concurrency": 4},
    )
    assert given.status_code == 201 and given.json()["concurrency"] == 4


def test_pages_record_upload_chart_and_rank(client, member_user, demo):
    client.force_login(member_user)
    group = demo["switched"]
    form = client.post(
        "/benchmarks/new/",
        {
            "source": "measured",
            "group": group.pk,
            "model": "qwen3.8-27b",
            "engine": "vllm",
            "backend": "rocenante",
            "concurrency": 1,
            "decode_tps": "50.1",
            "tp": 8,
        },
    )
    assert form.status_code == 302, form.content.decode()[:2000]
    bad = client.post(
        "/benchmarks/new/",
        {
            "source": "measured",
            "group": group.pk,
            "model": "qwen3.8-27b",
            "engine": "vllm",
            "backend": "rocenante",
            "concurrency": 1,
            "decode_tps": "-3",
        },
    )
    assert bad.status_code == 400 and b"from 0 to 1e9" in bad.content
    upload = SimpleUploadedFile("result.json", json.dumps(VLLM_JSON).encode(), "application/json")
    uploaded = client.post(
        "/benchmarks/upload/",
        {"file": upload, "format": "auto", "group": demo["direct"].pk, "model": "llama-3.3-70b", "backend": "nccl"},
    )
    assert uploaded.status_code == 302
    broken = SimpleUploadedFile("result.json", json.dumps({**VLLM_JSON, "mean_ttft_ms": "61"}).encode())
    refused = client.post(
        "/benchmarks/upload/",
        {
            "file": broken,
            "format": "vllm-json",
            "group": demo["direct"].pk,
            "model": "llama-3.3-70b",
            "backend": "nccl",
        },
    )
    assert refused.status_code == 400 and b"mean_ttft_ms" in refused.content
    assert BenchmarkRun.objects.filter(source="measured").count() == 2
    # the upload form asks for the layout the file cannot say: three copies on the pair are refused on the
    # copies field, two are kept with a node each
    form = client.get("/benchmarks/upload/").content.decode()
    assert 'name="tp"' in form and 'name="pp"' in form and 'name="copies"' in form

    def upload_copies(n: int):
        upload = SimpleUploadedFile("result.json", json.dumps(VLLM_JSON).encode(), "application/json")
        return client.post(
            "/benchmarks/upload/",
            {
                "file": upload,
                "format": "auto",
                "group": demo["direct"].pk,
                "model": "llama-3.3-70b",
                "backend": "none",
                "copies": n,
            },
        )

    too_many = upload_copies(3)
    assert too_many.status_code == 400
    assert too_many.context["form"].errors["copies"] == [
        "3 copies of tp x pp (1 x 1) need more than the 2 node(s) used"
    ]
    assert upload_copies(2).status_code == 302
    kept = BenchmarkRun.objects.filter(source="measured").latest("id")
    assert (kept.tp, kept.pp, kept.copies) == (1, 1, 2)
    BenchmarkRun.objects.filter(pk=kept.pk).delete()

    page = client.get(f"/benchmarks/groups/{group.pk}/?model=qwen3.8-27b").content.decode()
    assert "<svg" in page and "ideal" in page and "predicted" in page and "measured here" in page
    # like with like: 50.1 (vLLM, format not stated: the NVFP4 variant vLLM loads) against the fastest one-node
    # vLLM NVFP4 published row (NVIDIA's 11.86), not SGLang's faster 12.28
    assert "50.1" in page and "4.22x" in page and "4.08x" not in page
    reference = page[page.index('id="scaling"') :].split("</tr>")
    marked = [row for row in reference if ">reference</span>" in row]
    assert len(marked) == 1 and "11.86" in marked[0] and "vLLM" in marked[0] and "nvfp4" in marked[0]
    board = client.get("/benchmarks/").content.decode()
    assert "Qwen3.8-27B" in board and "group-spark-07" in board and "published" in board
    board = client.get("/benchmarks/?concurrency=any").content.decode()
    # each bar names its run's format, eager mode and streams: kubis.ai's gpt-oss-120b at 32 streams ran eager,
    # djangodevreng's gpt-oss-20b at 10 with CUDA graphs
    assert "single · 1 node · vLLM mxfp4 eager · 32 streams: 318.7 decode tok/s" in board
    assert "single · 1 node · vLLM mxfp4 · 10 streams: 180.4 decode tok/s" in board
    # a bar's tooltip names the checkpoint its run names (Unsloth's NVFP4 of Qwen3.6-35B-A3B on SGLang, the
    # fastest published run of the model)
    assert "1434.2&#x27; combined tok/s" in board and "; checkpoint unsloth/Qwen3.6-35B-A3B-NVFP4)</title>" in board


def test_a_group_page_charts_its_own_runs_over_published_ones_of_its_topology(client, member_user, demo):
    client.force_login(member_user)
    ring = demo["ring"]
    page = client.get(f"/benchmarks/groups/{ring.pk}/?model=qwen3.8-27b").content.decode()
    assert 'id="nothing-here"' in page  # nothing measured: the published lines are a reference only
    assert "published (reference)" in page
    scaling = page[page.index('id="scaling"') :]
    scaling = scaling[: scaling.index("</table>")]
    assert "ring" in scaling and "switched" not in scaling  # another topology's figures are not this group's
    assert 'on the <a href="/benchmarks/">leaderboard</a>' in page
    BenchmarkRun.objects.create(
        source="measured",
        group=ring,
        group_name=ring.name,
        topology_kind="ring",
        model_name="qwen3.8-27b",
        engine="vllm",
        backend="nccl",
        node_count=4,
        tp=4,
        concurrency=1,
        decode_tps=30.5,
        status="done",
    )
    page = client.get(f"/benchmarks/groups/{ring.pk}/?model=qwen3.8-27b").content.decode()
    assert 'id="nothing-here"' not in page and "measured here · ring" in page and ">30.5<" in page


def test_the_leaderboard_ranks_runs_at_one_concurrency_and_says_so(client, member_user, demo):
    """Decode over all streams grows with the streams, so runs are ranked
    against runs at the same concurrency: one stream unless the member picks
    another level, or "any", where each bar says its streams. A level no run
    has, or a word, is refused with the levels there are."""
    from benchmarks.selectors import leaderboard, leaderboard_levels

    client.force_login(member_user)
    done = BenchmarkRun.objects.filter(status="done", decode_tps__isnull=False)
    levels = leaderboard_levels()
    assert levels == sorted(set(done.values_list("concurrency", flat=True)))
    assert levels[0] == 1 and 32 in levels
    one = client.get("/benchmarks/")
    assert one.status_code == 200
    page = one.content.decode()
    shown = [r for _, _, runs in leaderboard(concurrency=1) for r in runs]
    assert {r.concurrency for r in shown} == {1}
    assert {m for m, _, _ in leaderboard(concurrency=1)} == set(
        done.filter(concurrency=1).values_list("model_name", flat=True)
    )
    assert "Fastest finished run of each model at concurrency 1" in page
    assert "at concurrency 1, one stream: the speed one user sees" in page
    assert '<option value="1" selected>concurrency 1 (one stream)</option>' in page
    assert "318.7" not in page  # kubis.ai's gpt-oss-120b at 32 streams is ranked at 32 only
    at32 = client.get("/benchmarks/?concurrency=32").content.decode()
    assert "single · 1 node · vLLM mxfp4 eager: 318.7 decode tok/s" in at32  # all at 32: the title says so
    assert "Fastest finished run of each model at concurrency 32" in at32 and 'class="bar-aside"' not in at32
    assert '<option value="32" selected>concurrency 32</option>' in at32
    assert {r.concurrency for _, _, runs in leaderboard(concurrency=32) for r in runs} == {32}
    every = client.get("/benchmarks/?concurrency=any").content.decode()
    assert "Fastest finished run of each model at any concurrency" in every
    # side by side, each bar says its streams after its figure, where no label cuts it off
    assert '318.7 <tspan class="bar-aside" font-weight="400" fill="#5f6778">· 32 streams</tspan></text>' in every
    assert '<option value="any" selected>any concurrency</option>' in every
    missing = next(n for n in range(2, 1000) if n not in levels)
    for raw in (str(missing), "many"):
        refused = client.get(f"/benchmarks/?concurrency={raw}")
        assert refused.status_code == 400
        known = ", ".join(str(n) for n in levels)
        assert f"no finished run at concurrency &#x27;{raw}&#x27;: choose one of {known}, or any" in (
            refused.content.decode()
        )
        # a read changes nothing to begin with: the page does not say it changed nothing
        assert "<h1>Not shown</h1>" in refused.content.decode()
        assert "Nothing was changed" not in refused.content.decode()
    # a level whose runs are not finished yet is no level
    BenchmarkRun.objects.filter(concurrency=32).update(status="running")
    assert 32 not in leaderboard_levels()
    assert client.get("/benchmarks/?concurrency=32").status_code == 400


def test_a_member_uploads_what_sglang_bench_serving_wrote_and_it_is_recorded_as_sglang(
    api_member, session_member, member_user, demo
):
    """The JSONL `python -m sglang.bench_serving --output-file` appends to is
    recognised: its newest line is recorded as an SGLang run at its streams
    with the requests' average lengths, a drafting server's accept_length
    makes it speculative (method unnamed unless given), and "none" against
    such a file is refused, naming what in it shows the drafting."""
    from tests.benchmarks.test_parsers import SGLANG_LINE
    from tests.conftest import ApiClient

    direct = demo["direct"]
    two_runs = json.dumps({**SGLANG_LINE, "max_concurrency": 1}) + "\n" + json.dumps(SGLANG_LINE) + "\n"
    body = {"model": "qwen3-30b-a3b", "group": direct.pk, "backend": "nccl", "tp": 2}
    plain = api_member.post("/api/benchmarks/upload", {**body, "content": two_runs})
    assert plain.status_code == 201, plain.content
    got = plain.json()
    assert (got["engine"], got["concurrency"], got["decode_tps"], got["input_len"], got["output_len"]) == (
        "sglang",
        4,
        254.3,
        769,
        192,
    )
    assert (got["tp"], got["node_count"], got["speculative"]) == (2, 2, "")
    assert "the file holds 2 results, one a line: its last, the newest, was read" in got["notes"]
    drafting = json.dumps({**SGLANG_LINE, "accept_length": 2.71})
    unnamed = api_member.post("/api/benchmarks/upload", {**body, "content": drafting})
    assert unnamed.status_code == 201, unnamed.content
    assert (unnamed.json()["speculative"], unnamed.json()["acceptance_length"]) == ("unnamed", 2.71)
    eagle = session_member.post("/api/benchmarks/upload", {**body, "content": drafting, "speculative": "EAGLE3"})
    assert eagle.status_code == 201, eagle.content
    assert eagle.json()["speculative"] == "eagle3"
    # what its console printed, pasted as it is: recognised too, TPOT derived from its latencies
    from tests.benchmarks.test_parsers import SGLANG_TEXT

    pasted = api_member.post("/api/benchmarks/upload", {**body, "content": SGLANG_TEXT})
    assert pasted.status_code == 201, pasted.content
    got = pasted.json()
    assert (got["engine"], got["concurrency"], got["speculative"], got["acceptance_length"]) == (
        "sglang",
        4,
        "unnamed",
        2.71,
    )
    assert got["derived"] == ["input_len", "output_len", "prefill_tps", "tpot_ms"]
    assert got["tpot_ms"] == pytest.approx(2680 / 191)
    before = placement_state()
    refused = api_member.post("/api/benchmarks/upload", {**body, "content": drafting, "speculative": "none"})
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "path": "speculative",
            "message": "the file shows the server drafted tokens (SGLang's accept_length): name the method, "
            "or leave it blank to record it as unnamed",
        }
    ]
    other = api_member.post(
        "/api/benchmarks/upload", {**body, "content": json.dumps({**SGLANG_LINE, "backend": "lmdeploy"})}
    )
    assert other.status_code == 400
    assert [e["path"] for e in other.json()["errors"]] == ["content.backend"]
    assert placement_state() == before
    # a browser's session without its CSRF token changes nothing
    no_token = ApiClient(member_user, session=True, csrf=False)
    assert no_token.post("/api/benchmarks/upload", {**body, "content": drafting}).status_code == 403
    assert placement_state() == before


def test_the_leaderboard_reads_each_models_fastest_eight_only(member_user, demo):
    """However many runs pile up, each model shows its eight fastest finished
    runs at the chosen concurrency, fastest first and the earlier of a tie
    first, and the database returns no more than those: a faster run that
    failed, is queued or ran at other streams is not among them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from benchmarks.selectors import leaderboard

    pair = NodeGroup.objects.filter(kind="direct").order_by("name")[0]
    fields = {
        "source": "measured",
        "group": pair,
        "group_name": pair.name,
        "topology_kind": "direct",
        "model_name": "board-cap-model",
        "engine": "vllm",
        "backend": "nccl",
        "node_count": 2,
        "tp": 2,
    }
    speeds = [10.0, 50.0, 20.0, 90.0, 30.0, 70.0, 40.0, 60.0, 80.0, 55.0, 55.0, 5.0]
    made = [BenchmarkRun.objects.create(**fields, concurrency=1, decode_tps=s, status="done") for s in speeds]
    BenchmarkRun.objects.create(**fields, concurrency=1, decode_tps=500.0, status="failed")
    BenchmarkRun.objects.create(**fields, concurrency=1, decode_tps=None, status="queued")
    BenchmarkRun.objects.create(**fields, concurrency=8, decode_tps=400.0, status="done")
    with CaptureQueriesContext(connection) as ctx:
        board = dict((name, runs) for name, _, runs in leaderboard(concurrency=1))
    assert len(ctx) == 1
    shown = board["board-cap-model"]
    tie = [r.pk for r in made if r.decode_tps == 55.0]
    assert [r.decode_tps for r in shown] == [90.0, 80.0, 70.0, 60.0, 55.0, 55.0, 50.0, 40.0]
    assert [r.pk for r in shown if r.decode_tps == 55.0] == sorted(tie)
    # every other model too: its eight fastest, or all it has
    assert {name: len(runs) for name, runs in board.items()} == {
        name: min(8, n) for name, n in _finished_per_model(concurrency=1).items()
    }
    # and the database returned those rows only, not every finished run
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM ({ctx.captured_queries[0]['sql']}) AS board")  # noqa: S608 - its own SQL
        assert cursor.fetchone()[0] == sum(len(runs) for runs in board.values())
    assert [r.decode_tps for r in dict((n, r) for n, _, r in leaderboard(concurrency=8))["board-cap-model"]] == [400.0]


def _finished_per_model(concurrency: int) -> dict[str, int]:
    from collections import Counter

    done = BenchmarkRun.objects.filter(status="done", decode_tps__isnull=False, concurrency=concurrency)
    return Counter(done.values_list("model_name", flat=True))


def test_a_script_pages_through_the_records_by_their_links_and_a_bad_page_is_refused(api_viewer, demo):
    """``/api/benchmarks`` answers every record as a list, as scripts have read
    it; with ``limit`` it answers a page of them, says how many match
    (``X-Total-Count``) and links the next and previous pages (RFC 8288),
    keeping the filters. Following the links reads every record once. A page
    beyond the limits is refused with 422 and what is wrong."""
    whole = api_viewer.get("/api/benchmarks?model=gpt-oss-120b")
    assert whole.status_code == 200
    everything = [r["id"] for r in whole.json()]
    total = BenchmarkRun.objects.filter(model_name="gpt-oss-120b").count()
    assert len(everything) == total and total >= 7 and whole["X-Total-Count"] == str(total)
    assert "Link" not in whole
    first = api_viewer.get("/api/benchmarks?model=gpt-oss-120b&limit=3")
    assert first.status_code == 200 and first["X-Total-Count"] == str(total)
    assert [r["id"] for r in first.json()] == everything[:3]
    assert first["Link"] == '<http://testserver/api/benchmarks?model=gpt-oss-120b&limit=3&offset=3>; rel="next"'
    seen, page, pages = [], first, 0
    while True:
        pages += 1
        assert page.status_code == 200
        seen += [r["id"] for r in page.json()]
        links = dict(
            (part.split("; rel=")[1].strip('"'), part.split(">;")[0].lstrip("<"))
            for part in page.get("Link", "").split(", ")
            if part
        )
        if pages > 1:
            assert "prev" in links
        if "next" not in links:
            break
        page = api_viewer.get(links["next"].removeprefix("http://testserver"))
    assert seen == everything and pages == -(-total // 3)
    assert len(page.json()) == total - 3 * (pages - 1)
    # past the end: nothing, and the way back to the last page (it once led to another empty one)
    beyond = api_viewer.get(f"/api/benchmarks?model=gpt-oss-120b&limit=3&offset={total + 5}")
    assert beyond.status_code == 200 and beyond.json() == []
    assert beyond["Link"] == (
        f'<http://testserver/api/benchmarks?model=gpt-oss-120b&limit=3&offset={(total - 1) // 3 * 3}>; rel="prev"'
    )
    for query, field in (
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("limit=ten", "limit"),
        ("offset=-1", "offset"),
    ):
        refused = api_viewer.get(f"/api/benchmarks?{query}")
        assert refused.status_code == 422, query
        assert [e["path"] for e in refused.json()["errors"]] == [field], refused.json()
