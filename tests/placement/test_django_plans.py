"""POST /api/plans and the plan page on the demo lab: plans with memory per node,
launch commands with the group's real interfaces, node lists checked against
the cabling, bad input by field, constant queries, and the live page partial."""

from __future__ import annotations

import html
from datetime import UTC

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.html import escape

from inventory.models import NodeGroup
from placement.models import LlmModel
from placement.perfmodel import DEFAULT_READING, RANGE_WORDS, fit_report
from placement.perfmodel.report import fresh_sets
from tests.placement.conftest import placement_state

pytestmark = pytest.mark.django_db

PLAN_KEYS = {
    "strategy",
    "tp",
    "pp",
    "ep",
    "replicas",
    "nodes",
    "fits",
    "memory_per_node_gb",
    "decode_tps",
    "aggregate_tps",
    "prefill_tps",
    "reason",
    "launch",
}


def plan(client, **body):
    body.setdefault("model", "llama-3.3-70b")
    return client.post("/api/plans", body)


def test_plans_for_a_switched_group(api_viewer, demo):
    response = plan(api_viewer, group=demo["switched"].pk, context_tokens=8192, concurrency=4)
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["group"]["kind"] == "switched" and len(data["group"]["nodes"]) == 8
    best = data["plans"][data["recommended"]]
    assert PLAN_KEYS <= set(best)
    assert set(best["memory_per_node_gb"]) >= {"weights", "kv_cache", "overhead", "free"}
    assert best["fits"] and best["decode_tps"] > 0 and best["aggregate_tps"] >= best["decode_tps"]
    assert "predicted" in data["prediction_source"]
    head = best["launch"]["vllm-ray"]
    # real interface names from the Twin rows of the cabled port (p0 on the breakout legs)
    assert "NCCL_SOCKET_IFNAME=enp1s0f0np0" in head and "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0" in head
    # no telemetry address: a clearly marked placeholder
    assert "'<ip of spark-07 on enp1s0f0np0>'" in head and data["group"]["addresses"] == "placeholder"
    assert set(best["launch"]) == {"vllm-container", "vllm-ray", "vllm"}
    assert "--nnodes" in best["launch"]["vllm"]
    unfit = [p for p in data["plans"] if not p["fits"]]
    assert all(p["launch"] == {} for p in unfit)


def test_ring_commands_use_both_ports_and_keep_nics_apart(api_viewer, demo):
    data = plan(api_viewer, group=demo["ring"].pk, engine="sglang").json()
    ring = next(p for p in data["plans"] if p["tp"] == 4)
    script = ring["launch"]["sglang"]
    assert "NCCL_IB_MERGE_NICS=0" in script
    assert "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0,rocep1s0f1,roceP2p1s0f1" in script


def test_llama_cpp_gets_rpc_commands(api_viewer, demo):
    data = plan(api_viewer, group=demo["direct"].pk, engine="llama.cpp", model="gpt-oss-120b").json()
    pipelined = next(p for p in data["plans"] if p["pp"] == 2)
    # llama.cpp gets the catalogue's GGUF variant, never the safetensors repository
    script = pipelined["launch"]["llama.cpp-rpc"]
    assert "rpc-server" in script and "--rpc" in script
    assert "-hf ggml-org/gpt-oss-120b-GGUF:MXFP4_MOE" in script and "openai/gpt-oss-120b" not in script


def test_addresses_from_telemetrys_latest_samples(api_viewer, demo):
    from inventory.models import Spark
    from telemetry import models

    for i, name in enumerate(("spark-01", "spark-02")):
        spark = Spark.objects.get(name=name)
        twins = [
            # a link-local address first: never the one a launch command names
            ["enp1s0f0np0", "p0", "rocep1s0f0", True, 200000, 9000, ["fe80::1/64", f"192.168.100.{11 + i}/24"]],
            ["enP2p1s0f0np0", "p0", "roceP2p1s0f0", True, 200000, 9000, [f"192.168.101.{11 + i}/24"]],
        ]
        sample = models.NodeSample.objects.create(spark=spark, at=timezone.now(), reachable=True, twins=twins)
        models.NodeState.objects.create(spark=spark, latest=sample)
    data = plan(api_viewer, group=demo["direct"].pk).json()
    assert data["group"]["addresses"] == "telemetry"
    launch = next(p for p in data["plans"] if p["tp"] == 2)["launch"]
    assert "--master-addr 192.168.100.11" in launch["vllm"] and "VLLM_HOST_IP=192.168.100.12" in launch["vllm"]
    assert "VLLM_HOST_IP=192.168.100.11" in launch["vllm-ray"] and "<ip of" not in launch["vllm-ray"]
    assert "fe80" not in launch["vllm"] + launch["vllm-ray"]


def test_nodes_by_name(api_viewer, demo):
    sub = plan(api_viewer, nodes=["spark-08", "spark-07"]).json()
    assert sub["group"]["kind"] == "switched" and sub["group"]["nodes"] == ["spark-07", "spark-08"]
    whole = plan(api_viewer, nodes=["spark-03", "spark-04", "spark-05", "spark-06"]).json()
    assert whole["group"]["kind"] == "ring"


@pytest.mark.parametrize(
    "nodes, path, words",
    [
        (["spark-03", "spark-04"], "nodes", "cannot be split"),
        (["spark-01", "spark-07"], "nodes", "not cabled together"),
        (["spark-01", "spark-99"], "nodes[1]", "no Spark"),
        (["spark-01", "spark-01"], "nodes[1]", "twice"),
        ([], "nodes", "at least one"),
    ],
)
def test_node_lists_must_be_a_group_or_a_switched_subgroup(api_viewer, demo, nodes, path, words):
    response = plan(api_viewer, nodes=nodes)
    assert response.status_code == 400, response.content
    error = response.json()["errors"][0]
    assert error["path"] == path and words in error["message"]


@pytest.mark.parametrize(
    "body, path",
    [
        ({"context_tokens": 10**9}, "context_tokens"),  # the schema's bounds: 422
        ({"context_tokens": 0}, "context_tokens"),
        ({"context_tokens": 200_000}, "context_tokens"),  # beyond Llama-3.3-70B's 131,072
        ({"concurrency": 0}, "concurrency"),
        ({"concurrency": 4097}, "concurrency"),  # the planner's limit, stated in the schema since
        ({"context_tokens": 4_194_305}, "context_tokens"),
        ({"goal": "fastest"}, "goal"),
        ({"engine": "ollama"}, "engine"),
        ({"model": "gpt-5"}, "model"),
        ({"group": 999_999}, "group"),
    ],
)
def test_bad_plan_input_names_the_field(api_viewer, demo, body, path):
    body = {"group": demo["switched"].pk, **body}
    before = placement_state()
    response = plan(api_viewer, **body)
    schema_bound = body.get("context_tokens") in (0, 10**9, 4_194_305) or body.get("concurrency") in (0, 4097)
    assert response.status_code == (422 if schema_bound else 400), response.content
    assert path in [e["path"] for e in response.json()["errors"]]
    assert placement_state() == before


def test_the_schema_states_the_planners_limits(api_viewer):
    """/api/openapi.json once allowed a million streams and 100 million tokens the planner then refused."""
    schema = api_viewer.get("/api/openapi.json").json()["components"]["schemas"]["PlanIn"]["properties"]
    assert (schema["concurrency"]["maximum"], schema["context_tokens"]["maximum"]) == (4096, 4_194_304)


def test_strings_for_numbers_and_both_targets_are_refused(api_viewer, demo):
    assert plan(api_viewer, group=demo["single"].pk, context_tokens="8192").status_code == 422
    both = plan(api_viewer, group=demo["single"].pk, nodes=["spark-17"])
    assert both.status_code == 400 and both.json()["errors"][0]["path"] == "group"
    assert plan(api_viewer).status_code == 400


def test_a_retired_group_cannot_be_planned(api_viewer, demo):
    pair = demo["direct"]
    NodeGroup.objects.filter(pk=pair.pk).update(retired_at=timezone.now())
    response = plan(api_viewer, group=pair.pk)
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "group" and "retired" in response.json()["message"]


def test_a_group_whose_cabling_changed_is_refused(api_viewer, demo):
    from inventory.models import Cable

    Cable.objects.filter(label="pair-a").delete()  # behind the services' back: the group row is now stale
    response = plan(api_viewer, group=demo["direct"].pk)
    assert response.status_code == 400 and "no longer form one connected group" in response.json()["message"]


def test_plan_queries_do_not_grow_with_the_group(api_viewer, demo):
    """The cabling is read around the group (topology.services.lab_read_around):
    the same count for a pair and a ring of four; on a switch, the same for its
    group of eight and a sub-group of two, two more (the hop across the switch
    and its row); one Spark without cables two fewer (no cable to read)."""
    from core.actor import Actor
    from topology.services import subgroup_create

    sub = subgroup_create(
        actor=Actor(source="command"), parent=demo["switched"], name="two", nodes=["spark-07", "spark-08"]
    )
    counts = {}
    for kind, group in (*((k, demo[k]) for k in ("single", "direct", "ring", "switched")), ("sub-group", sub)):
        with CaptureQueriesContext(connection) as queries:
            assert plan(api_viewer, group=group.pk).status_code == 200
        counts[kind] = len(queries)
    assert counts == {
        "single": counts["direct"] - 2,
        "direct": counts["direct"],
        "ring": counts["direct"],
        "switched": counts["direct"] + 2,
        "sub-group": counts["direct"] + 2,
    }


def test_plan_page_and_its_live_partial(client, viewer_user, demo):
    client.force_login(viewer_user)
    page = client.get("/plans/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'hx-trigger="change, input delay:400ms"' in html and "predicted" in html
    assert "Recommended" in html and "fit-table" in html and "one-node" in html
    # the accuracy on published runs held out of the fit, with their addresses
    assert 'id="holdout-errors"' in html and "https://github.com/ggml-org/llama.cpp" in html
    # and, apart, each set collected after a model was frozen: as that model predicted it, once
    sets = fresh_sets(fit_report(DEFAULT_READING))
    assert [f.day for f in sets] == [
        "2026-12-04",
        "2026-12-04b",
        "2026-12-04c",
        "2026-12-04d",
        "2026-12-04e",
        "2026-12-05",
        "2026-12-05b",
        "2026-12-05c",
        "2026-12-05d",
        "2026-12-05e",
        "2026-12-05f",
        "2026-12-05g",
        "2026-12-05h",
        "2026-12-05i",
        "2026-12-05j",
    ]
    for fresh in sets:
        words = html.split(f'id="fresh-{fresh.day}">')[1].split("</p>")[0]
        plural = "s" if fresh.experiments != 1 else ""
        n = len(fresh.report.errors)
        figures = f"{n}</strong> figure{'s' if n != 1 else ''}"
        assert f"<strong>{figures} of {fresh.experiments} experiment{plural}" in words
        were = "were" if n != 1 else "was"  # the fourteenth set kept one figure
        assert f"after the model was frozen (at {fresh.commit}), {were} predicted once" in words
        assert f"one stream median <strong>{fresh.report.median('holdout', 'decode'):.1f}%</strong>" in words
        assert f"<strong>{fresh.report.inside_share('holdout'):.0f}%</strong> inside their ranges" in words
    # the first, second, fourth and ninth have been seen by the model since (llama.cpp's batching fit,
    # SGLang's prefill, llama.cpp's recurrent-state passes, llama.cpp's own cost per expert slot), and say
    # so; the third, the fifth to eighth, and the tenth to fifteenth have not
    seen_days = ["2026-12-04", "2026-12-04b", "2026-12-04d", "2026-12-05d"]
    assert [s.day for s in sets if s.seen_since] == seen_days
    unseen_sets = [s for s in sets if not s.seen_since]
    for fresh in sets:
        words = html.split(f'id="fresh-{fresh.day}">')[1].split("</p>")[0]
        if fresh.seen_since:
            assert f'class="small fresh-set seen" id="fresh-{fresh.day}"' in html
            assert "The model has changed since, after they had been seen" in words
        else:
            assert "never used to change it" in words
    # only the unseen sets' rows in the table of held-out runs are marked fresh
    table = html.split('id="holdout-errors"')[1].split("</table>")[0]
    unseen = sum(len(s.report.errors) for s in unseen_sets)
    assert table.count('<tr class="fresh">') == unseen == 9 + 5 + 28 + 34 + 22 + 9 + 48 + 21 + 20 + 1 + 8
    query = f"?model=glm-5.3&group={demo['switched'].pk}&context_tokens=32768&concurrency=8&goal=throughput&engine=vllm"
    partial = client.get("/plans/" + query, headers={"HX-Request": "true", "HX-Target": "results"})
    text = partial.content.decode()
    assert partial.status_code == 200 and "<html" not in text
    assert "GLM-5.3" in text and "Does not fit" in text and "GB short" in text and "plan-membar" in text
    # one table sorted by the goal: fitting plans first, fastest all-streams figure first
    fitting = text.split('id="plans"')[1].split("</table>")[0]
    speeds = [float(part.split('"')[0]) for part in fitting.split('data-metric="')[1:]]
    assert speeds == sorted(speeds, reverse=True) and len(speeds) >= 3
    assert 'class="plan recommended"' in fitting and 'class="plan runner-up"' in fitting
    assert "Runner-up:" in text and "<svg" in text and "plan-chart" in text
    # the ranges' percentiles in words, read from the range method itself
    assert f"not fitted on give ({RANGE_WORDS})" in text and RANGE_WORDS == "5th to 95th percentile"
    assert 'id="nofit-plans"' in text  # the plans that do not fit, folded away
    assert 'id="launch-missing"' not in text  # the seed names GLM-5.3's published NVFP4 build
    # an admin clears the repository: the recommendation says first that it cannot be launched
    LlmModel.objects.filter(slug="glm-5.3").update(hf_repo="")
    text = client.get("/plans/" + query, headers={"HX-Request": "true", "HX-Target": "results"}).content.decode()
    assert text.index('id="launch-missing"') < text.index('id="recommendation"')
    assert "No launch commands for this recommendation" in text and "no Hugging Face repository" in text
    best = client.post(
        "/api/plans",
        {
            "model": "glm-5.3",
            "group": demo["switched"].pk,
            "context_tokens": 32768,
            "concurrency": 8,
            "goal": "throughput",
        },
        content_type="application/json",
    )
    assert "no Hugging Face repository recorded" in best.json()["launch_missing"]["vllm"][0]
    launch = client.get(f"/plans/launch/{query}&plan={best.json()['recommended']}").content.decode()
    # no repository for GLM-5.3 any more: no `vllm serve glm-5.3` that would not start
    assert "no Hugging Face repository recorded" in launch and "data-copy" not in launch
    query = query.replace("glm-5.3", "llama-3.3-70b")
    plans = client.post(
        "/api/plans",
        {
            "model": "llama-3.3-70b",
            "group": demo["switched"].pk,
            "context_tokens": 32768,
            "concurrency": 8,
            "goal": "throughput",
        },
        content_type="application/json",
    ).json()["plans"]
    index = next(i for i, p in enumerate(plans) if p["fits"] and p["tp"] >= 2)
    launch = client.get(f"/plans/launch/{query}&plan={index}").content.decode()
    assert "data-copy" in launch and "ray start" in launch and "&lt;ip of spark-07 on enp1s0f0np0&gt;" in launch
    assert "does not fit" in client.get("/plans/launch/" + query + "&plan=0").content.decode()


def test_plan_page_says_why_nothing_was_planned(client, viewer_user, demo):
    client.force_login(viewer_user)
    too_long = client.get(
        f"/plans/?model=llama-3.3-70b&group={demo['single'].pk}&context_tokens=1000000"
        "&concurrency=1&goal=latency&engine=vllm",
        headers={"HX-Request": "true"},
    )
    assert "context_tokens" in too_long.content.decode() and "maximum context" in too_long.content.decode()
    NodeGroup.objects.filter(pk=demo["ring"].pk).update(retired_at=timezone.now())
    retired = client.get(
        f"/plans/?model=llama-3.3-70b&group={demo['ring'].pk}&context_tokens=8192"
        "&concurrency=1&goal=latency&engine=vllm",
        headers={"HX-Request": "true"},
    )
    assert retired.status_code == 200 and "Select a valid choice" in retired.content.decode()
    # Arabic-Indic digits: Django's number field read 33 from them, where the API takes ASCII digits only
    arabic = client.get(
        f"/plans/?model=llama-3.3-70b&group={demo['single'].pk}&context_tokens=\u0663\u0663"
        "&concurrency=1&goal=latency&engine=vllm",
        headers={"HX-Request": "true"},
    )
    assert arabic.status_code == 200 and "type the number in the digits 0 to 9" in arabic.content.decode()


def test_ring_commands_bootstrap_on_the_management_network(api_viewer, import_lab):
    """labs/ring4.yaml: ring-3 has no route to ring-1's cluster addresses, so the
    bootstrap is enP7s7 and the head's management address (its SSH host)."""
    from inventory.models import NodeGroup

    import_lab("ring4.yaml")
    group = NodeGroup.objects.get(retired_at__isnull=True, members__spark__name="ring-1")
    data = plan(api_viewer, group=group.pk, engine="vllm").json()
    tp4 = next(p for p in data["plans"] if p["tp"] == 4 and p["fits"])
    text = tp4["launch"]["vllm-container"]
    assert "NCCL_SOCKET_IFNAME=enP7s7" in text and "NCCL_SOCKET_IFNAME=enp1s0f0np0" not in text
    assert "MASTER_ADDR=10.20.2.11" in text and "VLLM_HOST_IP=10.20.2.13" in text
    assert "NCCL_IB_SUBNET_AWARE_ROUTING=1" in text and "NCCL_NET_PLUGIN=none" in text
    assert "run_cluster.sh" in text and "nvcr.io/nvidia/vllm:" in text


def test_the_plan_api_gives_every_predicted_figure_its_range_and_names_the_backend(api_viewer, demo):
    """POST /api/plans: decode_tps_range, aggregate_tps_range and
    prefill_tps_range as [low, high] around each figure, what drew them, the
    collective backend (NCCL over RoCE on the switch unless RoCEnante is asked
    for) and the CUDA-graph mode."""
    response = plan(api_viewer, group=demo["switched"].pk, context_tokens=8192, concurrency=4)
    assert response.status_code == 200, response.content
    plans = [p for p in response.json()["plans"] if p["decode_tps"]]
    for p in plans:
        for name in ("decode_tps", "aggregate_tps", "prefill_tps"):
            low, high = p[f"{name}_range"]
            assert low < p[name] < high, (p["label"], name)
        assert "published" in p["range_basis"] and p["mode"] == "graphs"
    backends = {p["collective_backend"] for p in plans if p["tp"] > 1}
    assert backends == {"nccl"} and {p["exchange_path"] for p in plans if p["tp"] > 1} == {"switched-nccl"}
    asked = plan(api_viewer, group=demo["switched"].pk, context_tokens=8192, collective_backend="rocenante")
    assert {p["collective_backend"] for p in asked.json()["plans"] if p["tp"] > 1} == {"rocenante"}
    eager = plan(api_viewer, group=demo["switched"].pk, context_tokens=8192, mode="eager")
    best, eager_best = response.json()["plans"][0], eager.json()["plans"][0]
    assert eager_best["mode"] == "eager" and eager_best["decode_tps"] < best["decode_tps"]


def test_a_mistyped_mode_or_backend_is_refused_by_name_and_plans_nothing(api_viewer, demo):
    before = placement_state()
    for body, field in (({"mode": "turbo"}, "mode"), ({"collective_backend": "gloo"}, "collective_backend")):
        response = plan(api_viewer, group=demo["switched"].pk, **body)
        assert response.status_code == 400
        assert [e["path"] for e in response.json()["errors"]] == [field]
    assert placement_state() == before


def test_each_plan_carries_the_held_out_evidence_of_its_kind_in_the_api_and_on_the_page(
    api_viewer, client, viewer_user, demo
):
    """What the published fit missed by on held-out runs of each plan's kind:
    the same object in the API as the planner computed (placement.perfmodel.evidence),
    its words in the plan's details on the page, and "none held out" said as such."""
    from placement.model_catalogue import get_seed_model
    from placement.perfmodel import FigureClass, parallel_class
    from placement.perfmodel.evidence import held_out_evidence

    response = plan(api_viewer, model="gpt-oss-120b", group=demo["switched"].pk, concurrency=16)
    assert response.status_code == 200, response.content
    plans = response.json()["plans"]
    family = get_seed_model("gpt-oss-120b").family
    said = 0
    for p in plans:
        if p["decode_tps"] is None:
            assert p["held_out"] is None
            continue
        kind = FigureClass("aggregate", p["engine"], parallel_class(p["tp"], p["pp"], p["ep"], p["replicas"]), family)
        expected = held_out_evidence(kind, 16)
        assert p["held_out"] == (expected.as_dict() if expected else None), p["label"]
        said += expected is not None
    assert said >= 2 and any(p["held_out"] is None and p["decode_tps"] for p in plans)
    one = next(p for p in plans if p["held_out"])
    assert set(one["held_out"]) == {
        "metric",
        "basis",
        "figures",
        "experiments",
        "fresh",
        "error_pct_range",
        "median_error_pct",
        "words",
        "badge",
    }
    client.force_login(viewer_user)
    page = client.get(f"/plans/?model=gpt-oss-120b&group={demo['switched'].pk}&concurrency=16").content.decode()
    for p in plans:
        if p["held_out"]:
            assert f'<p class="small muted held-out">{p["held_out"]["words"]}</p>'.replace("'", "&#x27;") in page
    assert "No published run of this kind was held out of the fit: its range is all the evidence there is." in page


def test_each_plan_carries_the_held_out_evidence_of_its_prefill_in_the_api_and_on_the_page(
    api_viewer, client, viewer_user, demo
):
    """A plan's prefill has its own held-out evidence: Qwen3.6-35B-A3B (a
    hybrid with experts) on llama.cpp on the single group, whose kind's
    held-out prefills were predicted 67% too fast at the median: the planner's object
    in the API, its badge beside the plan and its words in the details."""
    from placement.perfmodel import FigureClass
    from placement.perfmodel.evidence import held_out_evidence

    body = {"model": "qwen3.6-35b-a3b", "group": demo["single"].pk, "engine": "llama.cpp"}
    response = plan(api_viewer, **body)
    assert response.status_code == 200, response.content
    (one,) = [p for p in response.json()["plans"] if p["decode_tps"]]
    expected = held_out_evidence(FigureClass("prefill", "llama.cpp", "single", "hybrid"), 1, True)
    assert expected is not None and one["held_out_prefill"] == expected.as_dict()
    assert one["held_out_prefill"]["badge"] == "held-out prefill: 67% too fast"
    client.force_login(viewer_user)
    page = client.get(f"/plans/?model=qwen3.6-35b-a3b&group={demo['single'].pk}&engine=llama.cpp").content.decode()
    badge = f'<span class="badge warn held-out-prefill-badge" title="{expected.words}">{expected.badge}</span>'
    assert page.count(badge.replace("'", "&#x27;")) == 1
    words = f'<p class="small muted held-out-prefill">{expected.words}</p>'
    assert page.count(words.replace("'", "&#x27;")) == 1


def test_what_labs_published_for_a_plans_configuration_is_in_the_api_and_on_the_page(
    api_viewer, client, viewer_user, demo
):
    """Qwen3.6-35B-A3B NVFP4 on vLLM, one stream, on the single group: the
    one-node plan lists the four published runs of exactly that (42.6 to
    77.4 tok/s) for a script with its token, with their addresses, and the
    page says them, linked, beside the prediction."""
    response = plan(api_viewer, model="qwen3.6-35b-a3b", group=demo["single"].pk, concurrency=1)
    assert response.status_code == 200, response.content
    # the form vLLM loads by default: the catalogue's own NVFP4 (placement 0013 gave its row the repository)
    assert response.json()["variant"] == "nvfp4"
    (single,) = [p for p in response.json()["plans"] if p["strategy"] == "single"]
    runs = single["published_runs"]
    assert [(r["tps"], r["role"]) for r in runs] == [
        (42.62, "train"),
        (42.98, "holdout"),
        (75.2, "holdout"),
        (77.4, "holdout"),
    ]
    assert set(runs[0]) == {"key", "tps", "role", "source", "url", "checkpoint", "speculative"}
    # each run's checkpoint where its source names it: two RedHatAI runs, NVIDIA's, and one not named
    assert [r["checkpoint"] for r in runs] == [
        "RedHatAI/Qwen3.6-35B-A3B-NVFP4",
        "RedHatAI/Qwen3.6-35B-A3B-NVFP4",
        "",
        "nvidia/Qwen3.6-35B-A3B-NVFP4",
    ]
    # the plan launches RedHatAI's checkpoint (the catalogue's NVFP4 repository), and says the runs split by it
    assert single["checkpoint"] == "RedHatAI/Qwen3.6-35B-A3B-NVFP4"
    assert single["checkpoint_note"] == (
        "Published runs of this configuration differ by checkpoint: nvidia/Qwen3.6-35B-A3B-NVFP4 77.4; "
        "RedHatAI/Qwen3.6-35B-A3B-NVFP4 42.6 to 43.0 tok/s. The model predicts the weights format, not a "
        "checkpoint. This plan launches RedHatAI/Qwen3.6-35B-A3B-NVFP4: its published figures are the ones to expect."
    )
    client.force_login(viewer_user)
    query = f"model=qwen3.6-35b-a3b&group={demo['single'].pk}&concurrency=1"
    page = client.get(f"/plans/?{query}").content.decode()
    said = page.split('<p class="small published-runs">')[1].split("</p>")[0]
    assert said.startswith(
        "Published for this very configuration (the same format, engine, layout and mode, one stream; each at its "
        "own lengths): "
    )
    assert f'<a href="{runs[0]["url"]}" rel="noopener noreferrer"' in said
    assert '>42.6</a> <span class="muted">(RedHatAI/Qwen3.6-35B-A3B-NVFP4, fitted on)</span>, ' in said
    assert ">75.2</a>, " in said
    assert '>77.4</a> <span class="muted">(nvidia/Qwen3.6-35B-A3B-NVFP4)</span> tok/s, against ' in said
    assert f"{single['decode_tps']:.1f} predicted." in said
    # the split is said in the plan's details and flagged on its row, in the API's words
    note = page.split('<p class="small checkpoint-note"><span class="badge warn">checkpoint</span> ')[1].split("</p>")[
        0
    ]
    assert note == single["checkpoint_note"]
    assert page.count('class="badge warn checkpoint-badge"') == 1


def test_the_recommendations_held_out_words_read_the_same_in_the_api_and_on_the_page(
    api_viewer, client, viewer_user, demo
):
    """Qwen3.6-35B-A3B on vLLM in eager mode at one stream on the switched
    group: the recommended tensor-parallel plan's kind missed on held-out
    runs (80% too fast at the median), and the recommendation says so: one
    string, the same for a script with its token and on the page."""
    body = {"model": "qwen3.6-35b-a3b", "group": demo["switched"].pk, "engine": "vllm", "mode": "eager"}
    response = plan(api_viewer, **body, concurrency=1, goal="latency")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["plans"][data["recommended"]]["held_out"]["badge"] == "held-out: 80% too fast"
    words = data["recommendation"]
    assert words.endswith(
        " Held out of the fit, 3 published runs of its kind were predicted 80% too fast at the median: weigh its "
        "figure with that."
    )
    client.force_login(viewer_user)
    query = "&".join(f"{k}={v}" for k, v in body.items())
    page = client.get(f"/plans/?{query}&concurrency=1&goal=latency").content.decode()
    assert html.escape(words) in page


def test_the_labs_own_runs_of_a_plans_configuration_are_beside_it_in_the_api_and_on_the_page(
    api_member, api_viewer, client, viewer_user, demo
):
    """A member records two runs of Qwen3.6-35B-A3B NVFP4 on vLLM, one node,
    one stream (one naming NVIDIA's checkpoint), and one at 8 streams: the
    one-node one-stream plan lists the two, slowest first, with their
    checkpoints, for a script and on the page; the 8-stream plan lists only
    its own; an eager plan, another configuration, lists none."""
    single = demo["single"]
    body = {
        "model": "qwen3.6-35b-a3b",
        "group": single.pk,
        "engine": "vllm",
        "backend": "none",
        "quantization": "nvfp4",
        "input_len": 512,
        "output_len": 256,
    }
    for extra in (
        {"concurrency": 1, "decode_tps": 71.5, "checkpoint": "nvidia/Qwen3.6-35B-A3B-NVFP4"},
        {"concurrency": 1, "decode_tps": 44.0},
        {"concurrency": 8, "decode_tps": 300.0},
    ):
        made = api_member.post("/api/benchmarks", {**body, **extra})
        assert made.status_code == 201, made.content
    one = plan(api_viewer, model="qwen3.6-35b-a3b", group=single.pk, concurrency=1)
    assert one.status_code == 200, one.content
    (single_plan,) = [p for p in one.json()["plans"] if p["strategy"] == "single"]
    runs = single_plan["lab_runs"]
    assert [(r["tps"], r["checkpoint"]) for r in runs] == [(44.0, ""), (71.5, "nvidia/Qwen3.6-35B-A3B-NVFP4")]
    # NVIDIA's checkpoint is not the one the catalogue launches (RedHat's): shown, not fitted on, and why
    assert [r["fitted"] for r in runs] == [True, False]
    assert runs[1]["not_fitted"] == (
        "it ran nvidia/Qwen3.6-35B-A3B-NVFP4, and the catalogue's RedHatAI/Qwen3.6-35B-A3B-NVFP4 is what plans launch"
    )
    assert "vllm: 2 runs" in one.json()["prediction_source"]  # the 44.0 and the 8-stream run, not NVIDIA's
    assert all(r["url"] == f"/benchmarks/groups/{single.pk}/?model=qwen3.6-35b-a3b&concurrency=1" for r in runs)
    eight = plan(api_viewer, model="qwen3.6-35b-a3b", group=single.pk, concurrency=8).json()
    assert [r["tps"] for p in eight["plans"] if p["strategy"] == "single" for r in p["lab_runs"]] == [300.0]
    eager = plan(api_viewer, model="qwen3.6-35b-a3b", group=single.pk, concurrency=1, mode="eager").json()
    assert all(p["lab_runs"] == [] for p in eager["plans"])
    client.force_login(viewer_user)
    page = client.get(f"/plans/?model=qwen3.6-35b-a3b&group={single.pk}&concurrency=1").content.decode()
    said = page.split('<p class="small lab-runs">')[1].split("</p>")[0]
    assert said.startswith("Measured in this lab for this very configuration (one stream; each at its own lengths): ")
    assert ">44.0</a>, " in said and '>71.5</a> <span class="muted" title="it ran nvidia/' in said
    assert "(nvidia/Qwen3.6-35B-A3B-NVFP4, not fitted on)</span>" in said
    fit_table = page.split('id="lab-not-fitted">')[1].split("</p>")[0]
    assert fit_table.startswith("Not fitted on: <a href=") and escape(runs[1]["not_fitted"]) in fit_table
    assert said.endswith(f" tok/s, against {single_plan['decode_tps']:.1f} predicted.")


@pytest.mark.django_db
def test_each_launcher_says_what_the_nodes_software_readings_found_missing(client, viewer_user, demo, settings):
    """The launch scripts of a four-node plan on the switched group, read by a
    member, after a software poll: the container recipe notes the Spark without
    Docker and the one that had not pulled the image; the bare-metal vLLM
    scripts note the Sparks whose fleet user's shell found no vllm; a Spark with
    everything is named in neither."""
    from tests.support.software import store_software

    image = "nvcr.io/nvidia/vllm:26.05-py3"
    settings.FLEET_VLLM_IMAGE = image
    names = sorted(demo["switched"].members.values_list("spark__name", flat=True))
    own = {"vllm": "/usr/local/bin/vllm"}
    software = {
        names[0]: ({}, set()),  # Docker and the image, no vllm of its own (as NVIDIA's playbooks set a Spark up)
        names[1]: (own, {"no-docker"}),
        names[2]: ({**own, "image_digest": "absent"}, set()),
        names[3]: (own, set()),  # everything
    }
    at = store_software(software, [image])
    client.force_login(viewer_user)
    query = f"?model=llama-3.3-70b&group={demo['switched'].pk}&context_tokens=32768&concurrency=8&goal=throughput"
    plans = client.post(
        "/api/plans",
        {"model": "llama-3.3-70b", "group": demo["switched"].pk, "context_tokens": 32768, "concurrency": 8},
        content_type="application/json",
    ).json()["plans"]
    index = next(i for i, p in enumerate(plans) if p["fits"] and p["nodes"] == names[:4] and p["tp"] >= 2)
    launch = client.get(f"/plans/launch/{query}&plan={index}").content.decode()
    read = f"(software read at {at.astimezone(UTC).strftime('%Y-%m-%d %H:%M')} UTC)"
    by_launcher = {part.split("</code>")[0]: part for part in launch.split('<details class="launcher"')[1:]}
    by_launcher = {k.split("<code>")[1]: v for k, v in by_launcher.items()}
    assert (
        f"Each node's script runs the engine under Docker: Docker was not installed on {names[1]} {read}; "
        f"{image} was not pulled on {names[2]} {read}: the first start downloads it.</p>"
    ) in by_launcher["vllm-container"]
    for bare in ("vllm-ray", "vllm"):
        assert (
            f"Each node's script runs <code>vllm</code>: the fleet user&#x27;s SSH shell found no vllm on "
            f"{names[0]} {read}: install vLLM there, or use the container recipe.</p>"
        ) in by_launcher[bare]
    # one note per launcher that needs something, and never of the Spark whose reading found all of it
    assert launch.count('class="small warn launch-needs"') == 3
    notes = [part.split("</div>")[0] for part in launch.split('class="small warn launch-needs"')[1:]]
    assert not any(names[3] in note for note in notes)
