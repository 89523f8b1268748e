"""The performance model: stored constants and residuals, published figures,
hold-out, layer kinds, engines and modes, ranges, properties and calibration."""

import math
import statistics
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from placement.model_catalogue import SEED_BY_SLUG, SEED_MODELS, get_seed_model
from placement.perfmodel import (
    CALIBRATION_BOUNDS,
    CONSTANTS_BY_READING,
    DEFAULT_READING,
    PATHS,
    PREFILL_CHUNK,
    PUBLISHED_DECODE_CONTEXT,
    PUBLISHED_POINTS,
    READINGS,
    FigureClass,
    LabRun,
    Layout,
    calibrate,
    copies_aggregate_tps,
    default_constants,
    fit,
    fit_report,
    point_model,
    points_for,
    predict,
    predicted_range,
    prediction_source,
)
from placement.perfmodel import points as perfmodel_points
from placement.perfmodel.constants import NODE_MEMORY_BW_GBPS
from placement.perfmodel.fitted import LOSO_RESIDUALS
from placement.perfmodel.fitting import nnls
from placement.perfmodel.ranges import MIN_HALF_WIDTH, MIN_RESIDUALS, loso_residuals
from placement.perfmodel.report import goals_text
from placement.plan_memory import memory_budget
from placement.published_models import PUBLISHED_VARIANTS

QWEN = get_seed_model("qwen3.8-27b")
DOC = Path(__file__).resolve().parents[2] / "placement" / "PERFORMANCE_MODEL.md"


def _same(a: object, b: object, name: str) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), name
        for k in a:
            _same(a[k], b[k], f"{name}.{k}")
    elif isinstance(a, float):
        assert a == pytest.approx(b, rel=1e-6, abs=1e-9), name
    elif hasattr(a, "__dataclass_fields__"):
        for f in fields(a):  # type: ignore[arg-type]
            _same(getattr(a, f.name), getattr(b, f.name), f"{name}.{f.name}")
    else:
        assert a == b, name


@pytest.mark.parametrize("reading", READINGS)
def test_stored_constants_match_a_refit(reading):
    _same(CONSTANTS_BY_READING[reading], fit(reading), reading)


def test_stored_residuals_match_the_leave_one_origin_out_refits():
    """Every training figure predicted by the constants refitted without its
    origin: what the ranges are drawn from (python -m placement.perfmodel --write)."""
    assert loso_residuals() == LOSO_RESIDUALS
    assert len(LOSO_RESIDUALS) >= 50
    assert {r.origin for r in LOSO_RESIDUALS} == {p.source_id for p in points_for(DEFAULT_READING, ("train",))}


def test_nnls_keeps_unknowns_non_negative_and_leaves_unused_columns_at_zero():
    rows = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]
    x = nnls(rows, [2.0, -1.0, 1.0])
    assert x[1] == 0.0 and x[2] == 0.0 and x[0] == pytest.approx(1.5)
    assert nnls([[2.0, 1.0], [1.0, 3.0]], [4.0, 7.0]) == pytest.approx([1.0, 2.0])


def test_published_points_are_sourced_modelled_and_split_by_experiment():
    roles_by_origin: dict[str, set[str]] = {}
    for p in PUBLISHED_POINTS:
        assert p.source and p.role in ("train", "holdout", "reference")
        if p.role != "reference":
            assert p.model_slug in SEED_BY_SLUG
            point_model(p)  # the variant that ran exists
            assert p.origin, p.key
            roles_by_origin.setdefault(p.origin, set()).add(p.role)
        assert p.tp * p.pp * p.replicas == p.nodes
        assert p.mode in ("", "graphs", "eager") and p.router in ("even", "random")
    # a whole experiment is either trained on or held out, never both
    assert all(len(roles) == 1 for roles in roles_by_origin.values()), roles_by_origin


def test_held_out_points_carry_their_address_and_stay_out_of_the_fit(monkeypatch):
    held = [p for p in PUBLISHED_POINTS if p.role == "holdout"]
    assert len(held) >= 50
    assert all(p.url.startswith("https://") for p in held)
    assert {p.nodes for p in held} >= {1, 2, 4}
    assert {p.engine for p in held} == {"vllm", "sglang", "llama.cpp"}
    assert not any(p.role == "holdout" for p in points_for(DEFAULT_READING, roles=("train",)))
    # the fit reads only training points: dropping every held-out point changes nothing
    full = fit(DEFAULT_READING)
    monkeypatch.setattr(perfmodel_points, "PUBLISHED_POINTS", tuple(p for p in PUBLISHED_POINTS if p.role != "holdout"))
    assert fit(DEFAULT_READING) == full
    # while dropping a training point does change it
    train = [p for p in PUBLISHED_POINTS if p.role == "train"]
    monkeypatch.setattr(perfmodel_points, "PUBLISHED_POINTS", tuple(p for p in PUBLISHED_POINTS if p is not train[0]))
    assert fit(DEFAULT_READING) != full


def test_the_goals_on_held_out_runs_are_measured_and_the_docs_say_the_same():
    """The goals of issue 23 on the held-out runs, and PERFORMANCE_MODEL.md
    quoting exactly what the data measure (met or not)."""
    report = fit_report(DEFAULT_READING)
    goals = {name: (value, met) for name, value, _, met in report.goals()}
    # met on every held-out run: one stream's median, the share inside the ranges and their half-width (missed
    # with the sixth fresh set, whose vLLM two-node eager runs and one-node MoE batches carry wide ranges, 32.2%,
    # and met again with the seventh, 29.1%); all streams' median was met until the fourth fresh set (SGLang at
    # hundreds of streams predicted 65% to 72% too slow, llama.cpp's MoE hybrid batches 23% to 34% once their
    # recurrent state is priced): 17.5% after the sixth, 16.1% with the seventh, 16.2% with the eighth; not the
    # worst errors (the docs say why)
    assert all(goals[name][1] for name in ("decode median", "inside ranges"))
    assert goals["aggregate worst"][0] == pytest.approx(105.3, abs=0.05)  # Nemotron-3-Super's llama.cpp batches
    # the eleventh fresh set's 36 llama.cpp prefills carry llama.cpp's wide prefill ranges (0.58x to 2.56x): the
    # median half-width, 29.1% before them, is 33.7%, and every one of them falls inside
    # (37.9% with the thirteenth: Avarok's twelve one-stream figures of a hybrid MoE carry vLLM's wide ranges;
    # 33.7% again with the fifteenth's eight, at 24%: a range's half-width is its class's, so the median steps
    # between a few values, and five figures sit at 33.7% beside the 37.9% step)
    assert not goals["median half-width"][1] and goals["median half-width"][0] == pytest.approx(33.7, abs=0.05)
    # 84.1% before the twelfth fresh set, three of whose prefills and two of whose batches fall outside;
    # 83.5% with the thirteenth, 83.6% with the fifteenth (its 128 streams outside)
    assert goals["inside ranges"][0] == pytest.approx(83.6, abs=0.05)
    # met again (13.5%) once llama.cpp's cost per expert slot is its own, fitted on its training tables; 13.6%
    # with the twelfth fresh set's three batches (+12.6%, -37.0%, -44.4%), 13.5% with the thirteenth's, 13.8%
    # with the fifteenth's seven (+12.6% to +62.1%)
    assert goals["aggregate median"][1] and goals["aggregate median"][0] == pytest.approx(13.8, abs=0.05)
    assert not goals["decode worst"][1] and not goals["aggregate worst"][1]
    earlier = report.only({p.key for p in PUBLISHED_POINTS if not p.collected})
    assert {name: met for name, _, _, met in earlier.goals()}["aggregate median"]
    assert len(report.values("holdout", "decode")) >= 35 and len(report.values("holdout", "aggregate")) >= 15
    assert all(e.low is not None for e in report.errors)  # every figure has its range
    doc = DOC.read_text()
    for line in goals_text(report):
        assert line in doc, line


def test_long_context_decode_added_after_the_first_fit_is_predicted():
    """The llama.cpp benches' decode at 4k to 32k of context: the fit never saw
    a context beyond 1,024 tokens on one node; the KV-cache term predicts them."""
    report = fit_report(DEFAULT_READING)
    depth = {p.key for p in PUBLISHED_POINTS if p.origin == "llamacpp-benches-depth"}
    deep = [abs(e.error_pct) for e in report.errors if e.key in depth and e.role == "holdout"]
    assert len(deep) == 20
    assert statistics.median(deep) <= 5.0 and max(deep) <= 12.0


def test_default_reading_fits_the_published_table():
    report = fit_report(DEFAULT_READING)
    table = [e for e in report.errors if e.key.startswith("qwen27b") and e.metric == "decode"]
    assert len(table) >= 5
    assert max(abs(e.error_pct) for e in table) < 10.0
    prefill = [e for e in report.errors if e.key.startswith("qwen27b") and e.metric == "prefill"]
    assert max(abs(e.error_pct) for e in prefill) < 10.0


def test_both_readings_of_the_disputed_row_exist():
    keys = {p.key: p for p in PUBLISHED_POINTS}
    one, direct = keys["qwen27b-row1-one-node"], keys["qwen27b-row1-direct"]
    assert (one.decode_tps, one.prefill_tps) == (direct.decode_tps, direct.prefill_tps)
    assert (one.nodes, direct.nodes) == (1, 2)
    assert {p.key for p in points_for("one-node")}.isdisjoint({"qwen27b-row1-direct"})


def test_default_reading_is_the_more_consistent_one_on_its_training_points():
    one, direct = fit_report("one-node"), fit_report("direct")
    assert one.median("train", "decode") < direct.median("train", "decode")


# --- layer kinds -------------------------------------------------------------------


def test_a_hybrid_models_memory_keeps_kv_only_for_its_attention_layers_and_a_state_per_stream():
    """Nemotron-3-Nano: 6 attention layers of 52 blocks keep a KV cache (2 KV
    heads of 128, bf16: 6,144 bytes a token); its 23 Mamba-2 layers keep
    2,134,016 bytes each per stream, whatever the context."""
    nano = get_seed_model("nemotron-3-nano-30b-a3b")
    assert (nano.attention_layers, nano.linear_layers, nano.sublayers) == (6, 23, 52)
    assert nano.kv_bytes_per_token() == 6 * 2 * 2 * 128 * 2
    assert nano.state_bytes_per_stream() == 23 * 2_134_016

    def kv(context: int, streams: int) -> float:
        budget = memory_budget(
            nano, tp=1, pp=1, usable_gb=120.0, context_tokens=context, concurrency_per_instance=streams, engine="vllm"
        )
        return budget.kv_cache

    state_gb = 23 * 2_134_016 / 1e9
    assert kv(1, 1) == pytest.approx(state_gb + 6144 / 1e9)
    # 100k more tokens add only the attention layers' KV; each stream adds its state
    assert kv(100_001, 1) - kv(1, 1) == pytest.approx(100_000 * 6144 / 1e9)
    assert kv(1, 8) == pytest.approx(8 * kv(1, 1))
    # the same blocks priced as attention everywhere would need 29/6 times the KV
    plain = replace(nano, linear_layers=0, linear_kind="", state_bytes=0, kv_layers=None)
    assert plain.kv_bytes_per_token() == pytest.approx(nano.kv_bytes_per_token() * 29 / 6)


def test_a_hybrid_models_decode_reads_its_state_and_runs_its_linear_kernels():
    nano = get_seed_model("nemotron-3-nano-30b-a3b")
    c = default_constants()
    assert c.linear_us["mamba2"] > 0  # fitted on the Nemotron-3-Super series
    short = predict(nano, Layout(), context_tokens=256)
    deep = predict(nano, Layout(), context_tokens=131_072)
    plain = replace(nano, linear_layers=0, linear_kind="", state_bytes=0, kv_layers=None)
    plain_deep = predict(plain, Layout(), context_tokens=131_072)
    # a long context slows the hybrid far less than it would slow 29 attention layers
    assert (
        deep.decode_tps / short.decode_tps
        > plain_deep.decode_tps / predict(plain, Layout(), context_tokens=256).decode_tps
    )
    assert deep.decode_tps < short.decode_tps
    # its linear kernels cost time a plain transformer of the same blocks does not pay
    vllm = c.engine("vllm")
    assert short.overhead_ms == pytest.approx(
        vllm.token_overhead_ms + plain.sublayers * vllm.sublayer_us / 1e3 + 23 * c.linear_us["mamba2"] / 1e3
    )
    # many streams read and write many states: the hybrid's aggregate grows less than its weights alone allow
    stateless = replace(nano, state_bytes=1)
    assert (
        predict(nano, Layout(), context_tokens=256, concurrency=32).aggregate_tps
        < predict(stateless, Layout(), context_tokens=256, concurrency=32).aggregate_tps
    )


def test_sliding_windows_cap_what_their_layers_read():
    gpt = get_seed_model("gpt-oss-120b")
    assert (gpt.full_layers, gpt.sliding_layers, gpt.sliding_window) == (18, 18, 128)
    assert gpt.window_kv_bytes(100) == 18 * 2 * 8 * 64 * 2 * 100
    assert gpt.window_kv_bytes(100_000) == gpt.window_kv_bytes(128)


# --- backends, engines, modes -------------------------------------------------------


def test_switch_with_rocenante_beats_ring_and_nccl_at_eight_nodes():
    ring = predict(QWEN, Layout(tp=8, path="ring"), context_tokens=PUBLISHED_DECODE_CONTEXT)
    switch = predict(QWEN, Layout(tp=8, path="switched-rocenante"), context_tokens=PUBLISHED_DECODE_CONTEXT)
    nccl = predict(QWEN, Layout(tp=8, path="switched-nccl"), context_tokens=PUBLISHED_DECODE_CONTEXT)
    assert switch.decode_tps > ring.decode_tps > nccl.decode_tps * 0.95
    assert switch.decode_tps > nccl.decode_tps * 1.3


def test_engines_have_their_own_constants_and_sglang_borrows_the_rest_from_vllm():
    model = get_seed_model("gpt-oss-120b")
    vllm = predict(model, Layout(engine="vllm"), context_tokens=1024)
    llama = predict(model, Layout(engine="llama.cpp"), context_tokens=1024)
    sglang = predict(model, Layout(engine="sglang"), context_tokens=1024)
    # each engine's own constants: llama.cpp lands near its own published
    # one-node figure (59.02 in llama.cpp's bench); vLLM below its 59.0 (CUDA
    # graphs), where the third fit's cost per step (4.3 ms, from a lab's
    # gpt-oss-20b at 46.5 tok/s) pulls it (PERFORMANCE_MODEL.md, weak spots)
    assert llama.decode_tps == pytest.approx(59.02, rel=0.05) and vllm.decode_tps == pytest.approx(59.0, rel=0.15)
    engines = default_constants()
    assert engines.engine("llama.cpp").token_overhead_ms != pytest.approx(engines.engine("vllm").token_overhead_ms)
    assert vllm.prefill_tps != pytest.approx(llama.prefill_tps, rel=0.03)
    # one node: SGLang borrows vLLM's bandwidth and costs per sublayer
    assert sglang.decode_tps == pytest.approx(vllm.decode_tps)
    # two nodes: SGLang's published TP2 series sets its own all-reduce cost
    tp2 = {e: predict(model, Layout(tp=2, path="direct", engine=e), context_tokens=1024) for e in ("vllm", "sglang")}
    assert tp2["sglang"].decode_tps < tp2["vllm"].decode_tps * 0.8
    assert default_constants().engine("sglang").allreduce_extra_us > 100.0


def test_sglangs_prefill_is_vllms_on_one_node_and_its_two_node_run_prices_its_all_reduces():
    """SGLang's one published prompt is a TP2 one (al-engr.com's dense 27B,
    601 tok/s): it sets what SGLang's prefill all-reduces take beyond the
    shared link's, not its compute, so a one-node SGLang prompt is priced as
    vLLM's (it was 4x to 8x too slow when the run set SGLang's compute) and
    the TP2 prompt is reproduced. Without that run SGLang's factor is 1."""
    c = default_constants()
    sglang, vllm = c.engine("sglang"), c.engine("vllm")
    assert (sglang.prefill_tflops, sglang.prefill_expert_tflops, sglang.prefill_sublayer_us) == (
        vllm.prefill_tflops,
        vllm.prefill_expert_tflops,
        vllm.prefill_sublayer_us,
    )
    assert vllm.prefill_comm_factor == 1.0 and c.engine("llama.cpp").prefill_comm_factor == 1.0
    assert sglang.prefill_comm_factor > 10.0
    model = get_seed_model("llama-3.1-8b")
    one = {e: predict(model, Layout(engine=e), context_tokens=2048).prefill_tps for e in ("vllm", "sglang")}
    assert one["sglang"] == pytest.approx(one["vllm"])
    tp2 = {
        e: predict(model, Layout(tp=2, path="direct", engine=e), context_tokens=2048).prefill_tps
        for e in ("vllm", "sglang")
    }
    assert tp2["sglang"] < tp2["vllm"] * 0.8
    prompt = next(
        e for e in fit_report(DEFAULT_READING).errors if e.key == "qwen3.6-27b-2-sglang-c1" and e.metric == "prefill"
    )
    assert prompt.predicted == pytest.approx(601.0, rel=0.01)
    without = fit(DEFAULT_READING, exclude=frozenset({"al-engr-qwen36-tp2"}))
    assert without.engine("sglang").prefill_comm_factor == 1.0
    assert without.engine("sglang").prefill_tflops == pytest.approx(without.engine("vllm").prefill_tflops)


def test_sglangs_tensor_parallel_costs_rest_on_one_experiment_and_its_ranges_span_vllms():
    """One published SGLang multi-node series (al-engr.com's dense 27B at
    TP2) sets SGLang's all-reduce and per-stream costs; one lab's run cannot
    tell the engine from that lab's set-up. The fit says which experiment,
    and an SGLang TP figure's range spans the prediction with vLLM's costs:
    Spark Arena's held-out Qwen3-Coder-Next (60.51 tok/s, predicted 19.3) is
    inside. Without that experiment nothing single-sources SGLang."""
    from placement.perfmodel import single_source_alternative, spanning

    c = default_constants()
    assert c.single_source == {"sglang": "al-engr-qwen36-tp2"}
    assert fit(DEFAULT_READING, exclude=frozenset({"al-engr-qwen36-tp2"})).single_source == {}
    assert single_source_alternative(c, "vllm", "tp") is None
    assert single_source_alternative(c, "sglang", "single") is None
    alt, origin = single_source_alternative(c, "sglang", "tp")
    assert origin == "al-engr-qwen36-tp2" and alt.single_source == {}
    assert alt.engine("sglang").allreduce_extra_us == c.engine("vllm").allreduce_extra_us
    assert alt.engine("sglang").stream_overhead_ms == c.engine("vllm").stream_overhead_ms
    assert alt.engine("sglang").prefill_comm_factor == 1.0

    model = get_seed_model("qwen3-coder-next")
    layout = Layout(tp=2, path="direct", engine="sglang")
    own = predict(model, layout, context_tokens=256).decode_tps
    borrowed = predict(model, layout, context_tokens=256, constants=alt).decode_tps
    assert borrowed > 2 * own
    cls = FigureClass("decode", "sglang", "tp", model.family)
    narrow = predicted_range(own, cls)
    wide = spanning(narrow, own, borrowed, "sglang", origin)
    assert wide.low == narrow.low and wide.high == pytest.approx(borrowed * narrow.high / own)
    assert wide.basis == narrow.basis and wide.note == (
        "sglang's tensor-parallel costs rest on one published experiment (al-engr-qwen36-tp2), so the range "
        "also spans the prediction with vLLM's"
    )
    held = next(e for e in fit_report(DEFAULT_READING).errors if e.key == "qwen3-coder-next-2-sglang-arena")
    assert held.inside and held.high == pytest.approx(wide.high, rel=0.01)


def test_eager_mode_is_slower_than_cuda_graphs():
    model = get_seed_model("gpt-oss-120b")
    graphs = predict(model, Layout(), context_tokens=1024)
    eager = predict(model, Layout(mode="eager"), context_tokens=1024)
    assert eager.decode_tps < graphs.decode_tps
    assert eager.overhead_ms - graphs.overhead_ms == pytest.approx(
        model.sublayers * default_constants().engine("vllm").eager_sublayer_us / 1e3
    )
    with pytest.raises(ValueError, match="unknown mode"):
        predict(model, Layout(mode="fast"), context_tokens=1024)


def test_copies_behind_a_random_router_serve_less_than_an_even_split():
    model = get_seed_model("gpt-oss-120b")
    even = copies_aggregate_tps(model, Layout(), context_tokens=1088, concurrency=16, copies=2, router="even")
    rand = copies_aggregate_tps(model, Layout(), context_tokens=1088, concurrency=16, copies=2, router="random")
    one = predict(model, Layout(), context_tokens=1088, concurrency=8).aggregate_tps
    assert even == pytest.approx(2 * one) and rand < even
    # at one stream a random router changes nothing
    assert copies_aggregate_tps(model, Layout(), context_tokens=1088, concurrency=1, copies=2) == pytest.approx(
        predict(model, Layout(), context_tokens=1088).decode_tps
    )


def test_pipeline_parallel_adds_little_single_stream_speed():
    model = get_seed_model("llama-3.3-70b")
    single = predict(model, Layout(), context_tokens=4096)
    for pp in (2, 4, 8):
        piped = predict(model, Layout(pp=pp, path="switched-nccl"), context_tokens=4096)
        assert piped.decode_tps <= single.decode_tps * 1.01
        tp = predict(model, Layout(tp=pp, path="switched-nccl"), context_tokens=4096)
        assert tp.decode_tps > piped.decode_tps * 1.5


def test_batching_shares_weight_reads_dense_more_than_moe():
    dense = get_seed_model("llama-3.3-70b")
    one = predict(dense, Layout(), context_tokens=4096, concurrency=1)
    many = predict(dense, Layout(), context_tokens=4096, concurrency=32)
    assert one.aggregate_tps == pytest.approx(one.decode_tps)
    assert many.aggregate_tps > 10 * one.aggregate_tps  # every stream shares the same weights
    moe = get_seed_model("gpt-oss-120b")  # a batch of 32 touches many experts, and pays its expert slots
    one = predict(moe, Layout(), context_tokens=4096, concurrency=1)
    many = predict(moe, Layout(), context_tokens=4096, concurrency=32)
    assert 2 * one.aggregate_tps < many.aggregate_tps < 10 * one.aggregate_tps


# --- ranges ---------------------------------------------------------------------------


def test_a_range_comes_from_the_errors_of_comparable_runs_and_falls_back_when_there_are_few():
    residuals = LOSO_RESIDUALS
    tp_hybrid = FigureClass("decode", "vllm", "tp", "hybrid")
    r = predicted_range(40.0, tp_hybrid, residuals)
    ratios = sorted(
        x.ratio
        for x in residuals
        if (x.metric, x.engine, x.parallel, x.family, x.mode) == ("decode", "vllm", "tp", "hybrid", "graphs")
    )
    assert r.residuals == len(ratios) >= 4 and "vllm tp runs of hybrid models" in r.basis
    assert r.low <= 40.0 * (1 - MIN_HALF_WIDTH) and r.high >= 40.0 * (1 + MIN_HALF_WIDTH)
    assert 40.0 * ratios[0] <= r.low <= r.high <= 40.0 * max(ratios[-1], 1 + MIN_HALF_WIDTH)
    # no llama.cpp copies were published: a broader class draws it (llama.cpp's own batch tables), and says so
    rare = predicted_range(40.0, FigureClass("aggregate", "llama.cpp", "copies", "dense"), residuals)
    assert rare.basis == "all streams' decode of llama.cpp runs (any parallelism or family)"
    assert rare.residuals == 10 >= MIN_RESIDUALS
    # nor SGLang's one-node batches: every run of the metric and mode
    rarer = predicted_range(40.0, FigureClass("aggregate", "sglang", "single", "dense"), residuals)
    assert "every run" in rarer.basis and rarer.residuals >= MIN_RESIDUALS
    # eager runs are judged against eager runs only, however few there are
    # (one eager stream has two eager residuals: the range is every eager run's)
    eager = predicted_range(40.0, FigureClass("aggregate", "vllm", "single", "moe", "eager"), residuals)
    assert "eager mode" in eager.basis and eager.residuals >= MIN_RESIDUALS
    one_eager = predicted_range(40.0, FigureClass("decode", "vllm", "single", "moe", "eager"), residuals)
    assert one_eager.basis == "one stream's decode of every run, eager mode"


def test_the_range_method_is_one_no_other_candidate_beats_on_the_training_share_inside():
    """The range method is chosen on the training residuals alone (each
    figure's range drawn from the other experiments' residuals): of the 930
    documented candidates, one with the most training figures inside among
    those whose median half-width is within the goal (30%). The stored method
    changes only when another has more training figures inside: a method that
    ties on the share and is narrower does not displace it (since llama.cpp's
    batching fit one does, by 1.1 points of half-width; PERFORMANCE_MODEL.md
    says what that rule was decided after). PERFORMANCE_MODEL.md quotes the
    stored method's score (python -m placement.perfmodel --range-scores)."""
    from placement.perfmodel.ranges import training_score
    from placement.perfmodel.report import GOALS, range_candidates, range_front

    stored = training_score()
    assert stored.figures == len(LOSO_RESIDUALS)
    candidates = range_candidates()
    assert len(candidates) == 930
    within = [c for c in candidates if c[0].median_half_width_pct <= GOALS["median half-width"]]
    assert stored.median_half_width_pct <= GOALS["median half-width"]
    assert stored.inside_pct == max(c[0].inside_pct for c in within)
    front = range_front(candidates)
    tied = [c[0] for c in front if c[0].inside_pct == stored.inside_pct]
    assert [(round(t.inside_pct, 1), round(t.median_half_width_pct, 1)) for t in tied] == [(69.2, 27.8)]
    assert round(stored.median_half_width_pct, 1) == 28.9
    ranges_section = DOC.read_text().split("## Ranges")[1].split("\n## ")[0]
    assert f"{stored.inside_pct:.1f}% of the {stored.figures} training figures inside" in ranges_section
    assert f"median half-width {stored.median_half_width_pct:.1f}%" in ranges_section


def test_held_out_figures_fall_in_their_ranges_about_as_often_as_the_goal_asks():
    """At least 80% inside, on every held-out run (80.7%) and on the earlier
    ones. The first fresh set, as the model frozen at f4e432a predicted it
    once, had 81.6% inside; the stored model, whose llama.cpp batching was
    fitted after that set had been seen, has less on it (its llama.cpp batch
    ranges are narrower now): PERFORMANCE_MODEL.md says so. The ranges'
    median half-width goal (at most 30%) was met on every held-out run until
    the sixth fresh set (32.2%: its vLLM two-node and one-node MoE runs
    carry wide ranges), again with the seventh (29.1%), and missed again
    with the eleventh (33.7%: its 36 llama.cpp prefills carry llama.cpp's
    wide prefill ranges, every one of them inside); these bounds keep both
    from growing unnoticed."""
    report = fit_report(DEFAULT_READING)
    earlier = report.only({p.key for p in PUBLISHED_POINTS if p.role == "holdout" and not p.collected})
    for part in (report, earlier):
        inside = part.inside_share("holdout")
        assert inside is not None and 80.0 <= inside <= 100.0
    assert report.median_half_width("holdout") == pytest.approx(33.70, abs=0.01)  # 37.93 before the fifteenth set
    assert earlier.median_half_width("holdout") <= 32.0


def judged_fresh_set(day: str, commit: str, stored: dict, figures: int, experiments: int):
    """A set of held-out runs collected on ``day`` after the model was frozen
    at ``commit``: whole experiments of their own, held out, each with its
    address; judged by the predictions that model stored once (``stored``),
    whatever the stored model predicts now, in the words PERFORMANCE_MODEL.md
    quotes. The set, and its lines of the report."""
    from placement.perfmodel.report import FRESH, fresh_goals_text, fresh_sets

    points = [p for p in PUBLISHED_POINTS if p.collected == day]
    assert FRESH[day] == commit
    assert all(p.role == "holdout" and p.url.startswith("https://") for p in points)
    others = {p.source_id for p in PUBLISHED_POINTS if p.collected != day}
    assert not {p.source_id for p in points} & others  # no experiment is partly fresh
    report = fit_report(DEFAULT_READING)
    found = next(f for f in fresh_sets(report) if f.day == day)
    assert found.experiments == len({p.source_id for p in points}) == experiments
    assert len(found.report.errors) == len(stored) == figures
    assert {(e.key, e.metric): (e.predicted, e.low, e.high) for e in found.report.errors} == stored
    assert {(e.key, e.metric) for e in found.current.errors} == stored.keys()
    lines = fresh_goals_text(report)
    doc = DOC.read_text()
    for line in lines:
        assert line in doc, line
    plural, many = ("s" if experiments != 1 else ""), ("s", "them") if figures != 1 else ("", "it")
    start = lines.index(
        f"The same goals on the {figures} held-out figure{many[0]} of {experiments} experiment{plural} collected on "
        f"{day}, after the model was frozen at {commit}, as it predicted {many[1]} once:"
    )
    mine = lines[start:]
    return points, found, mine[: mine.index("")] if "" in mine else mine  # up to the next set's lines


def unchanged_since(found, stored: dict, mine: list[str]) -> dict[tuple[str, str], float]:
    """The stored model predicts every figure and range of an unseen set as
    the frozen one did, and the report says nothing changed: the frozen
    model's errors, by (key, metric)."""
    now = {(e.key, e.metric): (e.predicted, e.low, e.high) for e in found.current.errors}
    for figure, predicted in stored.items():
        assert now[figure] == pytest.approx(predicted, abs=0.006), figure
    assert not found.seen_since and not any("changed since" in line for line in mine)
    return {(e.key, e.metric): e.error_pct for e in found.report.errors}


def moved_since(found, stored: dict) -> set[tuple[str, str]]:
    """The figures the stored model predicts otherwise than the frozen one did."""
    now = {(e.key, e.metric): e.predicted for e in found.current.errors}
    return {figure for figure, (predicted, _, _) in stored.items() if abs(now[figure] - predicted) > 0.006}


SEEN = (
    "- the model has changed since: these figures now count among the held-out runs it was designed beside, "
    "no longer unseen"
)


def test_the_fresh_held_out_set_was_collected_apart_and_is_judged_by_the_model_that_predicted_it_once():
    """The runs collected on 2026-12-04 were predicted once by the model
    frozen at f4e432a; the model has changed since (llama.cpp's batching,
    SGLang's prefill, llama.cpp's recurrent-state passes), and the report
    says the set is no longer unseen."""
    from placement.published_fresh import COLLECTED, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED, "f4e432a", PREDICTED_ONCE, len(PREDICTED_ONCE), 9)
    assert len(points) >= 20
    # the stored model predicts llama.cpp's batches, llama.cpp's hybrids (their recurrent-state passes) and
    # SGLang's one-node prefill differently now, and nothing else of the set
    moved = moved_since(found, PREDICTED_ONCE)
    sglang_prefill = ("qwen3.8-27b-1-sglang-fp8-kubesimplify", "prefill")
    assert sglang_prefill in moved
    by_key = {p.key: p for p in points}
    for key, _ in moved - {sglang_prefill}:
        p = by_key[key]
        assert p.engine == "llama.cpp" and (p.concurrency > 1 or point_model(p).linear_layers > 0), key
    assert ("qwen3.6-27b-1-llamacpp-elsung", "decode") in moved
    assert found.seen_since and SEEN in mine
    assert "- inside ranges: 81.6% (at least 80%): met" in mine
    assert "- aggregate median: 23.8% (at most 15%): NOT met" in mine


def test_the_second_fresh_set_is_judged_by_the_model_that_predicted_it_once():
    """The runs collected after llama.cpp's batching fit (2026-12-04b), some
    on two Sparks, were predicted once by the model frozen at daa5b2a (one
    stream's median met, 62.2% inside its ranges). The model has changed
    since (SGLang's prefill, a cost of tensor parallelism), and only SGLang's
    one-node prefill moved: the report says the set is no longer unseen."""
    from placement.published_fresh_second import COLLECTED_SECOND, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_SECOND, "daa5b2a", PREDICTED_ONCE, 37, 8)
    assert {p.nodes for p in points} == {1, 2} and {p.engine for p in points} == {"vllm", "sglang", "llama.cpp"}
    assert moved_since(found, PREDICTED_ONCE) == {("llama-3.1-8b-1-sglang-fp8-lmsys", "prefill")}
    now = {(e.key, e.metric): e.predicted for e in found.current.errors}
    assert now["llama-3.1-8b-1-sglang-fp8-lmsys", "prefill"] == pytest.approx(4878.43, abs=0.01)
    assert found.seen_since and SEEN in mine
    assert "- decode median: 7.5% (at most 10%): met" in mine
    assert "- inside ranges: 62.2% (at least 80%): NOT met" in mine


def test_the_third_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected after SGLang's prefill change (2026-12-04c), each
    read at a commit of its repository: the stored model still predicts
    every figure and range as the model frozen at d61cd70 did, once (a change
    that moves one fails here), and the set's goals say how it did: all 9
    inside their ranges, the worst one-stream error 26% (two runs of one
    configuration disagree by 12%)."""
    from placement.published_fresh_third import COLLECTED_THIRD, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_THIRD, "d61cd70", PREDICTED_ONCE, 9, 4)
    assert all("/blob/" in p.url for p in points)
    assert {(p.nodes, p.engine) for p in points} == {(1, "vllm")}
    # every run names the variant it ran, and the catalogue or the published variants know it
    assert {(p.model_slug, p.quantization) for p in points if p.model_slug == "qwen3-coder-30b-a3b"} == {
        ("qwen3-coder-30b-a3b", "bf16"),
        ("qwen3-coder-30b-a3b", "int4"),
    }
    unchanged_since(found, PREDICTED_ONCE, mine)
    assert "- decode median: 8.1% (at most 10%): met" in mine
    assert "- decode worst: 26.0% (at most 25%): NOT met" in mine
    assert "- inside ranges: 100.0% (at least 80%): met" in mine


def test_the_fourth_fresh_set_is_judged_by_the_model_that_predicted_it_once():
    """The runs collected after the third set (2026-12-04d), SGLang and
    llama.cpp batches sought first, were predicted once by the model frozen
    at 2e5f5ce: SGLang up to 10 requests and llama.cpp's MoE batches held, a
    dense gated-DeltaNet hybrid's llama.cpp batches ran up to 4.4x slower than
    predicted and SGLang at hundreds of streams about 3x faster. The model has
    changed since (llama.cpp's recurrent-state passes), and only the set's
    llama.cpp figures of hybrids moved: the report says the set is no longer
    unseen."""
    from placement.published_fresh_fourth import COLLECTED_FOURTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_FOURTH, "2e5f5ce", PREDICTED_ONCE, 17, 4)
    assert all("/blob/" in p.url for p in points)
    assert {(p.nodes, p.engine) for p in points} == {(1, "sglang"), (1, "llama.cpp"), (1, "vllm")}
    # llama.cpp's NVFP4 GGUF runs are read as the NVFP4 format; Qwen3.6-27B's through a published variant
    assert {(p.model_slug, p.quantization) for p in points if p.engine == "llama.cpp"} == {
        ("qwen3.6-27b", "nvfp4"),
        ("qwen3.6-35b-a3b", "nvfp4"),
    }
    assert ("qwen3.6-27b", "nvfp4") in PUBLISHED_VARIANTS
    once = {e.key: e.error_pct for e in found.report.errors}
    assert once["qwen3.6-27b-1-llamacpp-nvfp4-localai-c128"] == pytest.approx(337.2, abs=0.05)
    assert once["qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c457"] == pytest.approx(-71.6, abs=0.05)
    assert max(abs(once[f"qwen3.6-35b-a3b-1-llamacpp-nvfp4-localai-c{n}"]) for n in (8, 32, 64, 128)) < 4.0
    assert moved_since(found, PREDICTED_ONCE) == {
        (p.key, "aggregate") for p in points if p.origin == "fresh4-localai-llamacpp"
    }
    now = {e.key: e.error_pct for e in found.current.errors}
    assert now["qwen3.6-27b-1-llamacpp-nvfp4-localai-c128"] == pytest.approx(22.5, abs=0.05)
    assert found.seen_since and SEEN in mine
    assert "- decode worst: 12.9% (at most 25%): met" in mine
    assert "- aggregate worst: 337.2% (at most 40%): NOT met" in mine
    assert "- inside ranges: 58.8% (at least 80%): NOT met" in mine


def test_the_fifth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The llama-bench runs collected after llama.cpp's recurrent-state passes
    were priced (2026-12-04e) judge that change on a hybrid it was not made
    beside: the stored model still predicts every figure and range as the
    model frozen at e7cebc4 did, once. Its one-stream decode of
    Qwen3.6-35B-A3B Q8_0 was 13.4% too slow (the model before the change
    would have been 7.4% too slow), and its prefills past 512 tokens about
    twice too fast (the lab ran llama-bench with a ubatch of 512)."""
    from placement.published_fresh_fifth import COLLECTED_FIFTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_FIFTH, "e7cebc4", PREDICTED_ONCE, 5, 1)
    assert all("/blob/" in p.url for p in points)
    assert {(p.nodes, p.engine, p.model_slug, p.quantization) for p in points} == {
        (1, "llama.cpp", "qwen3.6-35b-a3b", "Q8_0")
    }
    assert ("qwen3.6-35b-a3b", "Q8_0") in PUBLISHED_VARIANTS
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack", "decode"] == pytest.approx(-13.4, abs=0.05)
    assert "- decode worst: 13.4% (at most 25%): met" in mine
    assert "- inside ranges: 60.0% (at least 80%): NOT met" in mine


def test_the_sixth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected on 2026-12-05, with runs on two nodes and MoE
    batches past 64 streams sought first, judge the model frozen at 39b6057
    on what it had never seen: the stored model still predicts every figure
    and range as it did, once. One GX10's dense NVFP4 models on vLLM hold
    (one stream 3% to 11% too slow); vLLM's two-node eager runs over Ray
    were 80% and 142% too fast at one stream (its pipeline-parallel run 2%),
    and one node's Qwen3.6-35B-A3B NVFP4 batches 22% to 64% too slow from 2
    to 96 streams."""
    from placement.published_fresh_sixth import COLLECTED_SIXTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_SIXTH, "39b6057", PREDICTED_ONCE, 28, 7)
    assert all("/blob/" in p.url for p in points)
    assert {(p.nodes, p.tp, p.pp, p.mode) for p in points if p.nodes > 1} == {(2, 2, 1, "eager"), (2, 1, 2, "eager")}
    for form in (("qwen3-coder-30b-a3b", "nvfp4"), ("qwen3-32b", "nvfp4"), ("qwen3-8b", "nvfp4")):
        assert form in PUBLISHED_VARIANTS
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["qwen3.6-35b-a3b-2-tp2-vllm-nvfp4-heitor", "decode"] == pytest.approx(141.5, abs=0.05)
    assert once["qwen3-coder-30b-a3b-2-pp2-vllm-nvfp4-heitor", "decode"] == pytest.approx(1.8, abs=0.05)
    assert once["qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c96", "aggregate"] == pytest.approx(-63.9, abs=0.05)
    assert "- decode median: 9.6% (at most 10%): met" in mine
    assert "- inside ranges: 60.7% (at least 80%): NOT met" in mine


def test_the_fifteenth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected tenth on 2026-12-05 judge the model frozen at
    ebb67e2 on what it had never seen: the stored model still predicts every
    figure and range as it did, once. One lab's vLLM 0.27.1 ladder of
    Qwen3.8-27B NVFP4 without speculation: one stream 10% too fast, the
    batches too fast by a share that grows with the streams, and 128 streams
    (past the 64 vLLM's batching is fitted on) 62% too fast, outside its
    range."""
    from placement.published_fresh_fifteenth import COLLECTED_FIFTEENTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_FIFTEENTH, "ebb67e2", PREDICTED_ONCE, 8, 1)
    assert {(p.model_slug, p.engine, p.quantization, p.nodes, p.speculative) for p in points} == {
        ("qwen3.8-27b", "vllm", "nvfp4", 1, "")
    }
    assert sorted(p.concurrency for p in points) == [1, 2, 4, 8, 16, 32, 64, 128]
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    errors = [round(once[f"qwen3.8-27b-1-vllm-nvfp4-atlas-c{n}", "aggregate"], 1) for n in (2, 4, 8, 16, 32, 64, 128)]
    assert errors == [12.6, 14.0, 15.1, 20.9, 30.6, 44.5, 62.1]  # growing with the streams
    assert once["qwen3.8-27b-1-vllm-nvfp4-atlas", "decode"] == pytest.approx(10.1, abs=0.05)
    outside = {(e.key, e.metric) for e in found.report.errors if not e.inside}
    assert outside == {("qwen3.8-27b-1-vllm-nvfp4-atlas-c128", "aggregate")}
    assert "- aggregate median: 20.9% (at most 15%): NOT met" in mine
    assert "- inside ranges: 87.5% (at least 80%): met" in mine
    assert "- median half-width: 24.4% (at most 30%): met" in mine


def test_the_fourteenth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The run collected ninth on 2026-12-05 judges the model frozen at
    b7bbb58 on what it had never seen: the stored model still predicts it as
    it did, once. The collection sought runs on several Sparks and found none
    it could cite; what it kept is one GB10 running Qwen3-8B in BF16 on
    NVIDIA's vLLM image 26.07 (the newest image of any held-out run), 4.4%
    too fast and inside its range."""
    from placement.published_fresh_fourteenth import COLLECTED_FOURTEENTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_FOURTEENTH, "b7bbb58", PREDICTED_ONCE, 1, 1)
    assert [(p.key, p.nodes, p.engine, p.quantization, p.checkpoint) for p in points] == [
        ("qwen3-8b-1-vllm-bf16-bytebunker", 1, "vllm", "bf16", "Qwen/Qwen3-8B")
    ]
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["qwen3-8b-1-vllm-bf16-bytebunker", "decode"] == pytest.approx(4.4, abs=0.05)
    assert all(e.inside for e in found.report.errors)
    assert "- decode median: 4.4% (at most 10%): met" in mine
    # a set without batches says so, rather than calling the batch goals missed
    assert "- aggregate median: n/a (at most 15%): no such figures" in mine


def test_the_thirteenth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected eighth on 2026-12-05 judge the model frozen at
    b1459d6 on what it had never seen: the stored model still predicts every
    figure and range as it did, once. Llama-3.1-8B within 8% on one node and
    as two copies; gpt-oss-120b on an early image 62% too fast at one stream
    and within 4% at sixteen; Qwen3-Next on NVIDIA's 26.01 image, whose MoE
    backend makes NVFP4 no faster than AWQ, 33% to 68% too fast."""
    from placement.published_fresh_thirteenth import COLLECTED_THIRTEENTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_THIRTEENTH, "b1459d6", PREDICTED_ONCE, 20, 5)
    assert all(p.engine == "vllm" and not p.speculative for p in points)
    assert [(p.key, p.nodes, p.replicas, p.router) for p in points if p.nodes > 1] == [
        ("llama-3.1-8b-2x1-vllm-bf16-elizabetht", 2, 2, "even")
    ]
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["llama-3.1-8b-1-vllm-bf16-elizabetht", "decode"] == pytest.approx(2.1, abs=0.05)
    assert once["llama-3.1-8b-2x1-vllm-bf16-elizabetht", "aggregate"] == pytest.approx(8.1, abs=0.05)
    assert once["gpt-oss-120b-1-vllm-mxfp4-rossingram", "decode"] == pytest.approx(62.2, abs=0.05)
    assert once["gpt-oss-120b-1-vllm-mxfp4-rossingram-c16", "aggregate"] == pytest.approx(-3.9, abs=0.05)
    assert once["qwen3-coder-next-1-vllm-int4-avarok-1024-1024", "decode"] == pytest.approx(68.0, abs=0.05)
    assert "- decode median: 55.9% (at most 10%): NOT met" in mine
    assert "- aggregate median: 8.0% (at most 15%): met" in mine
    assert "- inside ranges: 80.0% (at least 80%): met" in mine


def test_the_twelfth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected seventh on 2026-12-05 judge the model frozen at
    7731663 (the eleventh set's published fit) on what it had never seen:
    the stored model still predicts every figure and range as it did, once.
    Three sources on one GB10: llama.cpp's prefill of the hybrid MoE models
    1.6x to 2.8x too fast, vLLM's Qwen3.6-35B-A3B FP8 at four streams 37% and
    44% too slow, and the one llama.cpp batch 12.6% too fast, inside its
    range."""
    from placement.published_fresh_twelfth import COLLECTED_TWELFTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_TWELFTH, "7731663", PREDICTED_ONCE, 21, 10)
    assert all(p.nodes == 1 and not p.speculative for p in points)
    assert sorted({p.engine for p in points}) == ["llama.cpp", "vllm"]
    assert [p.key for p in points if p.mode == "eager"] == ["nemotron-3-nano-30b-a3b-1-vllm-nvfp4-martin"]
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["qwen3.6-35b-a3b-1-llamacpp-q80-jschmied-c4", "aggregate"] == pytest.approx(12.6, abs=0.05)
    assert once["qwen3-coder-next-1-llamacpp-q4km-jschmied", "prefill"] == pytest.approx(175.5, abs=0.05)
    assert once["qwen3.6-35b-a3b-1-vllm-fp8-wutong-c4-o1024", "aggregate"] == pytest.approx(-44.4, abs=0.05)
    assert once["nemotron-3-super-120b-a12b-1-vllm-nvfp4-martin", "decode"] == pytest.approx(34.8, abs=0.05)
    outside = {(e.key, e.metric) for e in found.report.errors if not e.inside}
    assert outside == {
        ("qwen3-coder-next-1-llamacpp-q4km-jschmied", "prefill"),
        ("qwen3.5-35b-a3b-1-llamacpp-q4km-martin", "prefill"),
        ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-martin", "prefill"),
        ("qwen3.6-35b-a3b-1-vllm-fp8-wutong-c4-o512", "aggregate"),
        ("qwen3.6-35b-a3b-1-vllm-fp8-wutong-c4-o1024", "aggregate"),
    }
    assert "- decode median: 16.1% (at most 10%): NOT met" in mine
    assert "- aggregate median: 37.0% (at most 15%): NOT met" in mine
    assert "- inside ranges: 76.2% (at least 80%): NOT met" in mine


def test_the_eleventh_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected sixth on 2026-12-05 judge the model frozen at
    067611f (llama.cpp's own cost per expert slot) on what it had never seen:
    the stored model still predicts every figure and range as it did, once.
    One lab's llama-bench of four dense Qwen2.5 models in three GGUF types:
    one stream from 3% too slow to 26% too fast, the K-quants of the larger
    models furthest; every figure inside its range, at llama.cpp's wide
    prefill ranges."""
    from placement.published_fresh_eleventh import COLLECTED_ELEVENTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_ELEVENTH, "067611f", PREDICTED_ONCE, 48, 4)
    assert all(p.nodes == 1 and p.engine == "llama.cpp" for p in points)
    assert {p.model_slug for p in points} == {"qwen2.5-3b", "qwen2.5-coder-7b", "qwen2.5-14b", "qwen2.5-32b"}
    assert sorted({p.prompt for p in points}) == [128, 256, 512]
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["qwen2.5-3b-1-llamacpp-q4km-pendakwah", "decode"] == pytest.approx(-1.5, abs=0.05)
    assert once["qwen2.5-32b-1-llamacpp-q4km-pendakwah", "decode"] == pytest.approx(26.0, abs=0.05)
    assert once["qwen2.5-3b-1-llamacpp-q80-pendakwah-pp128", "prefill"] == pytest.approx(62.9, abs=0.05)
    assert "- decode median: 10.2% (at most 10%): NOT met" in mine
    assert "- decode worst: 26.0% (at most 25%): NOT met" in mine
    assert "- inside ranges: 100.0% (at least 80%): met" in mine


def test_the_tenth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected fifth on 2026-12-05 judge the model frozen at
    4393195 on what it had never seen: the stored model still predicts every
    figure and range as it did, once. A second lab's llama-bench of
    gpt-oss-20b decodes within 4.8% and prefills 21% to 33% faster than
    predicted at every prompt length from 512 to 32,678 tokens, inside its
    ranges; vLLM's Qwen3.6-35B-A3B NVFP4 at four streams is 21% too slow,
    outside."""
    from placement.published_fresh_tenth import COLLECTED_TENTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_TENTH, "4393195", PREDICTED_ONCE, 9, 2)
    assert all(p.nodes == 1 for p in points)
    assert sorted(p.prompt for p in points if p.engine == "llama.cpp") == [512, 1024, 2048, 4096, 8192, 16384, 32678]
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["gpt-oss-20b-1-llamacpp-chrislyz", "decode"] == pytest.approx(-4.8, abs=0.05)
    assert once["gpt-oss-20b-1-llamacpp-chrislyz-pp32678", "prefill"] == pytest.approx(-22.1, abs=0.05)
    assert once["qwen3.6-35b-a3b-1-vllm-nvfp4-trobdev-c4", "aggregate"] == pytest.approx(-21.4, abs=0.05)
    assert "- inside ranges: 88.9% (at least 80%): met" in mine
    assert "- median half-width: 99.0% (at most 30%): NOT met" in mine


def test_the_ninth_fresh_set_is_judged_by_the_model_that_predicted_it_once():
    """The runs collected fourth on 2026-12-05 judge the model frozen at
    276ef1a on what it had never seen, as it predicted them once (stored);
    the model has changed since for llama.cpp's batches. One stream holds across three labs and
    three formats of Qwen3.8-27B (its worst 14.4%, the first set inside the
    one-stream worst goal), vLLM's dense FP8 batches hold (within 6.5%);
    llama.cpp's batches of the same hybrid with 16 slots are 27% to 85% too
    fast, and a two-node prefill of a 20,000-token prompt 46% too fast."""
    from placement.published_fresh_ninth import COLLECTED_NINTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_NINTH, "276ef1a", PREDICTED_ONCE, 18, 6)
    assert {(p.nodes, p.tp, p.topology, p.backend) for p in points if p.nodes > 1} == {(2, 2, "direct", "nccl")}
    assert {p.checkpoint for p in points if p.quantization == "nvfp4" and p.model_slug == "qwen3.8-27b"} == {
        "unsloth/Qwen3.8-27B-NVFP4"
    }
    # llama.cpp's own cost per expert slot (the fit after this set) moved its llama.cpp batches alone
    assert moved_since(found, PREDICTED_ONCE) == {
        (p.key, "aggregate") for p in points if p.origin == "fresh9-0xbakeer-llamacpp" and p.concurrency > 1
    }
    assert found.seen_since and SEEN in mine
    once = {(e.key, e.metric): e.error_pct for e in found.report.errors}
    assert once["qwen3.8-27b-1-vllm-fp8-0xbakeer-c16", "aggregate"] == pytest.approx(0.2, abs=0.05)
    assert once["qwen3.8-27b-1-llamacpp-q4km-0xbakeer-c16", "aggregate"] == pytest.approx(84.8, abs=0.05)
    assert once["nemotron-3-super-120b-a12b-2-tp2-vllm-nvfp4-epappas", "prefill"] == pytest.approx(45.8, abs=0.05)
    assert "- decode worst: 14.4% (at most 25%): met" in mine
    assert "- aggregate median: 17.2% (at most 15%): NOT met" in mine
    assert "- inside ranges: 72.2% (at least 80%): NOT met" in mine


def test_the_eighth_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected last on 2026-12-05 judge the model frozen at
    f6519e7 on what it had never seen: the stored model still predicts every
    figure and range as it did, once. Dense Qwen3.6-27B FP8 batches hold (4%
    to 11%); MoE batches at 16 and 32 streams are again too slow (Nemotron-3
    Nano and Super, 28% to 35%); two labs' one-stream Nemotron-3-Super NVFP4
    on vLLM disagree (13.21 and 16.2 tok/s); a second llama-bench table of
    gpt-oss-120b holds as the first did (within 6.3%)."""
    from placement.published_fresh_eighth import COLLECTED_EIGHTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_EIGHTH, "f6519e7", PREDICTED_ONCE, 22, 6)
    assert all(p.nodes == 1 for p in points)
    assert {p.checkpoint for p in points if p.origin.startswith("fresh8-pulsar")} == {
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
        "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4",
        "Qwen/Qwen3.6-27B-FP8",
    }
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c16", "aggregate"] == pytest.approx(-30.8, abs=0.05)
    assert once["qwen3.6-27b-1-vllm-fp8-pulsar-c8", "aggregate"] == pytest.approx(-3.5, abs=0.05)
    assert once["gpt-oss-120b-1-llamacpp-forum-d32768", "decode"] == pytest.approx(6.3, abs=0.05)
    assert "- decode median: 9.1% (at most 10%): met" in mine
    assert "- aggregate median: 26.6% (at most 15%): NOT met" in mine
    assert "- inside ranges: 81.8% (at least 80%): met" in mine


def test_the_seventh_fresh_set_is_predicted_exactly_as_the_frozen_model_did_once():
    """The runs collected later on 2026-12-05 (vLLM on two nodes with their
    CUDA-graph mode stated, MoE sweeps with stated lengths sought first)
    judge the model frozen at 9d1158a on what it had never seen: the stored
    model still predicts every figure and range as it did, once. Dense
    batches hold (Qwen3-32B at 5 to 50 streams within 23%); MoE batches at
    50 streams were 34% to 61% too slow, as the sixth set's were; two
    checkpoints of Qwen3.6-35B-A3B NVFP4 on vLLM disagree (77.4 and 42.98
    tok/s), so no prediction comes within 28.8% of both."""
    from placement.published_fresh_seventh import COLLECTED_SEVENTH, PREDICTED_ONCE

    points, found, mine = judged_fresh_set(COLLECTED_SEVENTH, "9d1158a", PREDICTED_ONCE, 34, 15)
    assert all("/blob/" in p.url for p in points)
    assert {(p.nodes, p.tp, p.pp, p.ep, p.mode) for p in points if p.nodes > 1} == {
        (2, 2, 1, 1, "graphs"),
        (2, 1, 2, 1, "graphs"),
        (2, 2, 1, 2, "graphs"),
    }
    for form in (
        ("qwen3.6-35b-a3b", "int4"),
        ("qwen3-coder-next", "int4"),
        ("llama-3.3-70b", "bf16"),
        ("qwen3-30b-a3b", "int4"),
        ("qwen3-32b", "int4"),
    ):
        assert form in PUBLISHED_VARIANTS
    once = unchanged_since(found, PREDICTED_ONCE, mine)
    assert once["qwen3-coder-30b-a3b-2-tp2-vllm-int4-flash7777", "decode"] == pytest.approx(-22.2, abs=0.05)
    assert once["qwen3-30b-a3b-1-vllm-int4-palatine-c50", "aggregate"] == pytest.approx(-61.2, abs=0.05)
    assert once["qwen3.6-35b-a3b-1-vllm-nvfp4-reproducers", "decode"] == pytest.approx(40.5, abs=0.05)
    assert "- aggregate median: 11.0% (at most 15%): met" in mine
    assert "- inside ranges: 82.4% (at least 80%): met" in mine
    assert "- median half-width: 25.7% (at most 30%): met" in mine
    assert any("no prediction comes nearer than 28.8% to all of them (out of reach of the goal)" in m for m in mine)


# --- properties -------------------------------------------------------------------

layouts = st.builds(
    Layout,
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 3, 4]),
    path=st.sampled_from([p for p in PATHS if p != "none"]),
    link_gbps=st.sampled_from([100.0, 200.0]),
    engine=st.sampled_from(["vllm", "sglang"]),
    mode=st.sampled_from(["graphs", "eager"]),
)


@given(
    model=st.sampled_from(SEED_MODELS),
    layout=layouts,
    context=st.integers(min_value=1, max_value=131_072),
    concurrency=st.integers(min_value=1, max_value=256),
)
def test_predictions_are_positive_finite_and_consistent(model, layout, context, concurrency):
    p = predict(model, layout, context_tokens=context, concurrency=concurrency)
    for value in (p.decode_tps, p.aggregate_tps, p.prefill_tps):
        assert value > 0 and math.isfinite(value)
    assert p.aggregate_tps >= p.decode_tps * (1 - 1e-9)


@given(
    model=st.sampled_from(SEED_MODELS),
    layout=layouts,
    short=st.integers(min_value=1, max_value=65_536),
    extra=st.integers(min_value=1, max_value=65_536),
)
def test_longer_context_is_never_faster(model, layout, short, extra):
    a = predict(model, layout, context_tokens=short)
    b = predict(model, layout, context_tokens=short + extra)
    assert b.decode_tps <= a.decode_tps * (1 + 1e-12)
    if short >= max(PREFILL_CHUNK.values()):
        # below a whole chunk, a longer prompt amortises the weights a MoE streams per chunk
        assert b.prefill_tps <= a.prefill_tps * (1 + 1e-12)


@given(model=st.sampled_from(SEED_MODELS), value=st.floats(min_value=0.1, max_value=1e5))
def test_every_range_holds_its_prediction(model, value):
    for metric in ("decode", "aggregate", "prefill"):
        for parallel in ("single", "tp", "pp", "ep", "copies"):
            r = predicted_range(value, FigureClass(metric, "vllm", parallel, model.family))
            assert r.low < value < r.high


# --- calibration by the lab's runs ------------------------------------------------


def _lab(model, layout, decode, prefill=None, key="run"):
    return LabRun(key, model, layout, 1024, 1024, decode, prefill)


def test_calibration_moves_predictions_towards_the_lab_runs():
    gpt, llama = get_seed_model("gpt-oss-120b"), get_seed_model("llama-3.3-70b")
    published = predict(gpt, Layout(), context_tokens=1024, prompt_tokens=1024)
    # this lab's vLLM build runs about 25% slower than the published figures say
    runs = [
        _lab(gpt, Layout(), published.decode_tps * 0.75, published.prefill_tps * 0.7, "a"),
        _lab(llama, Layout(), 0.75 * predict(llama, Layout(), context_tokens=1024).decode_tps, key="c"),
        _lab(
            gpt,
            Layout(tp=2, path="direct"),
            0.75 * predict(gpt, Layout(tp=2, path="direct"), context_tokens=1024).decode_tps,
            key="b",
        ),
    ]
    cal = calibrate(runs)
    before = {(e.key, e.metric): abs(e.error_pct) for e in cal.before}
    after = {(e.key, e.metric): abs(e.error_pct) for e in cal.after}
    assert before.keys() == after.keys()
    for key in before:
        assert after[key] < before[key] / 2, key
    assert cal.runs_per_engine == {"vllm": 3} and "vllm: 3 runs" in cal.constants.calibrated
    assert "re-fitted on this lab's runs" in prediction_source(cal.constants)
    # engines without runs keep the published fit; the path's bases stay
    assert cal.constants.engine("llama.cpp") == default_constants().engine("llama.cpp")
    assert cal.constants.ring_base_us == default_constants().ring_base_us
    changed = {name for engine, name, _, _ in cal.changes}
    assert "mem_efficiency" in changed and "prefill_tflops" in changed


def test_calibration_refits_each_backend_on_the_runs_that_used_it():
    """A lab whose switched group's NCCL collectives are slower than the
    published fit: its TP4 runs re-fit the switch-with-NCCL latency only;
    RoCEnante and the direct cable keep the published values."""
    model = get_seed_model("qwen3-32b")
    layout = Layout(tp=4, path="switched-nccl")
    slow = replace(default_constants(), collective_scale={"switched-nccl": 2.5})
    runs = [
        LabRun(
            f"tp4-{ctx}",
            model,
            layout,
            ctx,
            1024,
            predict(model, layout, context_tokens=ctx, constants=slow).decode_tps,
            None,
        )
        for ctx in (1024, 8192)
    ]
    cal = calibrate(runs)
    assert cal.constants.collective_scale == {"switched-nccl": pytest.approx(2.5, abs=0.05)}
    assert ("switched-nccl", "collective_scale") in {(e, n) for e, n, _, _ in cal.changes}
    r = Layout(tp=4, path="switched-rocenante")
    assert predict(model, r, context_tokens=1024, constants=cal.constants) == predict(model, r, context_tokens=1024)


def test_a_labs_own_sglang_runs_on_two_nodes_lift_the_single_source_flag():
    model = get_seed_model("qwen3-32b")
    one = Layout(engine="sglang")
    tp2 = Layout(tp=2, path="direct", engine="sglang")
    single = calibrate([LabRun("one", model, one, 1024, 1024, 9.0, None)])
    assert single.constants.single_source == {"sglang": "al-engr-qwen36-tp2"}
    cal = calibrate([LabRun("tp2", model, tp2, 1024, 1024, 14.0, None)])
    assert cal.constants.single_source == {}


def test_a_labs_own_sglang_runs_on_two_nodes_refit_sglangs_own_tensor_parallel_costs():
    """A lab whose SGLang TP2 collectives are as fast as vLLM's (the one
    published experiment's were slow): its two-node runs re-fit SGLang's
    extra latency per all-reduce and its prefill all-reduce factor, and its
    predictions come to within a few percent of what it measured; vLLM and
    SGLang's one-node prefill keep the published fit."""
    from placement.perfmodel import single_source_alternative

    published = default_constants()
    fast, _ = single_source_alternative(published, "sglang", "tp")
    layout = Layout(tp=2, path="direct", engine="sglang")
    runs = []
    for slug in ("qwen3-32b", "qwen3-coder-next"):
        model = get_seed_model(slug)
        measured = predict(model, layout, context_tokens=1024, prompt_tokens=2048, constants=fast)
        runs.append(LabRun(slug, model, layout, 1024, 2048, measured.decode_tps, measured.prefill_tps))
    cal = calibrate(runs)
    sglang = cal.constants.engine("sglang")
    assert sglang.allreduce_extra_us == pytest.approx(0.0, abs=5.0)
    assert sglang.prefill_comm_factor == pytest.approx(1.0, rel=0.1)
    assert published.engine("sglang").allreduce_extra_us > 300 and published.engine("sglang").prefill_comm_factor > 10
    changed = {(engine, name) for engine, name, _, _ in cal.changes}
    assert {("sglang", "allreduce_extra_us"), ("sglang", "prefill_comm_factor")} <= changed
    before = {(e.key, e.metric): abs(e.error_pct) for e in cal.before}
    after = {(e.key, e.metric): abs(e.error_pct) for e in cal.after}
    assert all(before[key] > 30.0 for key in before)
    assert all(after[key] < 3.0 for key in after), after
    assert cal.constants.engine("vllm") == published.engine("vllm")
    one = Layout(engine="sglang")
    model = get_seed_model("qwen3-32b")
    assert predict(model, one, context_tokens=1024, constants=cal.constants).prefill_tps == pytest.approx(
        predict(model, one, context_tokens=1024).prefill_tps
    )
    # the bounds hold whatever a lab measures
    absurd = calibrate([LabRun("slow", model, layout, 1024, 2048, 0.01, 0.01)]).constants.engine("sglang")
    assert (absurd.allreduce_extra_us, absurd.prefill_comm_factor) == (
        CALIBRATION_BOUNDS["allreduce_extra_us"][1],
        CALIBRATION_BOUNDS["prefill_comm_factor"][1],
    )


def test_calibration_stays_within_its_documented_bounds():
    gpt = get_seed_model("gpt-oss-120b")
    absurd = [
        _lab(gpt, Layout(engine="sglang"), 5000.0, 1e7, "fast"),
        _lab(gpt, Layout(engine="llama.cpp"), 0.5, 1.0, "slow"),
    ]
    cal = calibrate(absurd)
    for engine in ("sglang", "llama.cpp"):
        e = cal.constants.engine(engine)
        low, high = CALIBRATION_BOUNDS["mem_efficiency"]
        assert low <= e.mem_efficiency <= high
    assert cal.constants.engine("sglang").mem_efficiency == CALIBRATION_BOUNDS["mem_efficiency"][1]
    assert cal.constants.engine("llama.cpp").mem_efficiency == CALIBRATION_BOUNDS["mem_efficiency"][0]
    # vLLM, not measured here, keeps the published fit
    assert cal.constants.engine("vllm") == default_constants().engine("vllm")
    assert calibrate([]).constants == default_constants()


def _batches(model, layout, streams, constants, prefix="c"):
    return [
        LabRun(
            f"{prefix}{n}",
            model,
            layout,
            1024,
            1024,
            None,
            None,
            n,
            predict(model, layout, context_tokens=1024, concurrency=n, constants=constants).aggregate_tps,
        )
        for n in streams
    ]


def test_the_published_fit_lies_within_the_calibration_bounds_so_a_lab_that_agrees_keeps_it():
    """Every engine's published constant that calibration re-fits lies inside
    its documented bounds; and a lab whose SGLang TP2 runs at 4 and 8 streams
    measured exactly what the published fit predicts keeps SGLang's cost per
    stream (about 10 ms) and its errors at zero. With a bound of 5 ms it was
    pulled to 5 and the same runs were predicted 11% and 21% off."""
    c = default_constants()
    for engine in ("vllm", "sglang", "llama.cpp"):
        e = c.engine(engine)
        for name in (
            "mem_efficiency",
            "sublayer_us",
            "stream_overhead_ms",
            "allreduce_extra_us",
            "prefill_comm_factor",
        ):
            low, high = CALIBRATION_BOUNDS[name]
            assert low <= getattr(e, name) <= high, (engine, name)
    model = get_seed_model("qwen3.6-27b")
    layout = Layout(tp=2, path="direct", engine="sglang")
    cal = calibrate(_batches(model, layout, (4, 8), c))
    assert cal.constants.engine("sglang").stream_overhead_ms == pytest.approx(c.engine("sglang").stream_overhead_ms)
    assert all(abs(e.error_pct) < 0.5 for e in cal.after), cal.after


def test_calibration_refits_an_engines_cost_per_stream_on_its_runs_at_several_streams():
    """A lab whose vLLM build saturates earlier than the published runs: each
    stream of a dense model adds 2 ms to its step, so its runs at 16 and 64
    streams are 23% and 49% below the published prediction. vLLM's cost per
    extra stream is re-fitted to those 2 ms and the runs are predicted as
    measured; SGLang's stays; one stream's constants are not touched by runs
    that measured no single stream. (MoE runs re-fit the cost per expert
    slot instead: the next tests.)"""
    c = default_constants()
    model = get_seed_model("qwen3-32b")
    layout = Layout(tp=2, path="direct")
    lab = replace(c, engines={**c.engines, "vllm": replace(c.engine("vllm"), stream_overhead_ms=2.0)})
    runs = _batches(model, layout, (16, 64), lab)
    cal = calibrate(runs)
    before = {e.key: round(e.error_pct) for e in cal.before}
    assert before == {"c16": 30, "c64": 95}  # the published fit 30% and 95% above what it measures
    assert all(abs(e.error_pct) < 1e-6 for e in cal.after)
    vllm = cal.constants.engine("vllm")
    assert vllm.stream_overhead_ms == pytest.approx(2.0)
    assert cal.changes == (("vllm", "stream_overhead_ms", c.engine("vllm").stream_overhead_ms, pytest.approx(2.0)),)
    assert cal.constants.engine("sglang") == c.engine("sglang")
    assert replace(vllm, stream_overhead_ms=0.0) == replace(c.engine("vllm"), stream_overhead_ms=0.0)
    # one run at several streams is not enough to move it
    assert calibrate(runs[:1]).constants.engine("vllm").stream_overhead_ms == c.engine("vllm").stream_overhead_ms


@pytest.mark.parametrize("slug", ["llama-3.3-70b", "qwen3.6-27b", "gpt-oss-120b"])
@pytest.mark.parametrize("efficiency", [0.45, 0.6, 0.7, 0.9])
def test_a_labs_one_stream_run_refits_the_bandwidth_efficiency_it_ran_at(slug, efficiency):
    """A lab's vLLM whose weights stream at ``efficiency`` of 273 GB/s: its one
    run re-fits exactly that, and the re-fitted prediction is its figure. (The
    re-fit once read the fixed step cost at an efficiency of 1e9, which the
    1.0 cap on efficiency x format turned into the whole memory time: a run
    at 0.7 came back as 0.95, predicted 34% too fast.)"""
    model = get_seed_model(slug)
    c = default_constants()
    lab = replace(c, engines={**c.engines, "vllm": replace(c.engine("vllm"), mem_efficiency=efficiency)})
    measured = predict(model, Layout(), context_tokens=1024, constants=lab).decode_tps
    cal = calibrate([LabRun("run", model, Layout(), 1024, 1024, measured, None)])
    assert cal.constants.engine("vllm").mem_efficiency == pytest.approx(efficiency, rel=1e-6)
    assert abs(cal.after[0].error_pct) < 1e-6


def test_a_labs_moe_batches_refit_its_engines_cost_per_expert_slot_and_nothing_else():
    """A lab whose vLLM batches a MoE as the held-out sweeps do (its expert
    slots cost 30% of the published fit's): its runs at 2, 8 and 32 streams
    re-fit vLLM's cost per slot to 1.8 µs and predict its 64 streams as it
    measures them, where the published fit is about 40% too slow. vLLM's cost per
    stream (no dense run says it), one stream, dense batches and the other
    engines keep the published fit; one MoE run alone moves nothing."""
    c = default_constants()
    model, dense = get_seed_model("qwen3.6-35b-a3b"), get_seed_model("qwen3-32b")
    lab = replace(c, slot_scale={"vllm": 0.3})
    cal = calibrate(_batches(model, Layout(), (2, 8, 32), lab))
    assert cal.constants.slot_scale == {"vllm": pytest.approx(0.3)}
    assert cal.constants.slot_us("vllm") == pytest.approx(1.8)
    assert cal.changes == (("vllm", "expert_slot_us", 6.0, pytest.approx(1.8)),)
    assert all(abs(e.error_pct) < 1e-6 for e in cal.after)

    def at64(constants):
        return predict(model, Layout(), context_tokens=1024, concurrency=64, constants=constants).aggregate_tps

    assert at64(cal.constants) == pytest.approx(at64(lab))
    assert at64(c) < 0.6 * at64(lab)
    assert cal.constants.engines == c.engines
    for layout in (Layout(engine="sglang", tp=2, path="direct"), Layout(engine="llama.cpp")):
        assert predict(model, layout, context_tokens=1024, concurrency=16, constants=cal.constants) == predict(
            model, layout, context_tokens=1024, concurrency=16
        )
    assert predict(dense, Layout(), context_tokens=1024, concurrency=16, constants=cal.constants) == predict(
        dense, Layout(), context_tokens=1024, concurrency=16
    )
    assert calibrate(_batches(model, Layout(), (8,), lab)).constants.slot_scale == {}


def test_dense_batches_refit_the_cost_per_stream_and_moe_batches_the_cost_per_slot():
    """A lab with both: its dense runs say vLLM's cost per stream (1.5 ms), its
    MoE runs, at that cost, the cost per slot (half the published one); each
    is found, and every run is then predicted as measured."""
    c = default_constants()
    lab = replace(
        c,
        engines={**c.engines, "vllm": replace(c.engine("vllm"), stream_overhead_ms=1.5)},
        slot_scale={"vllm": 0.5},
    )
    runs = _batches(get_seed_model("qwen3-32b"), Layout(), (4, 16), lab, "dense")
    runs += _batches(get_seed_model("gpt-oss-120b"), Layout(), (4, 16), lab, "moe")
    cal = calibrate(runs)
    assert cal.constants.engine("vllm").stream_overhead_ms == pytest.approx(1.5)
    assert cal.constants.slot_scale == {"vllm": pytest.approx(0.5)}
    assert {(e, n) for e, n, _, _ in cal.changes} == {("vllm", "stream_overhead_ms"), ("vllm", "expert_slot_us")}
    assert all(abs(e.error_pct) < 1e-6 for e in cal.after)


def test_a_lab_that_measured_two_moe_models_gets_a_slot_cost_for_each_and_a_pooled_one_for_the_rest():
    """Held-out labs' slot costs differ by model. A lab whose vLLM batches
    Qwen3.6-35B-A3B at 0.3 of the published cost per slot and gpt-oss-120b
    at 1.5 gets each model's own factor (both predicted as measured), and a
    MoE model it never measured (Qwen3-30B-A3B) takes the factor fitted on
    both, which lies between; the fit table names the three."""
    from placement.perfmodel.calibration import refit_words

    c = default_constants()
    qwen, gpt, other = (get_seed_model(s) for s in ("qwen3.6-35b-a3b", "gpt-oss-120b", "qwen3-30b-a3b"))
    lab = replace(c, slot_scale={"vllm:qwen3.6-35b-a3b": 0.3, "vllm:gpt-oss-120b": 1.5})
    runs = _batches(qwen, Layout(), (4, 16), lab, "q") + _batches(gpt, Layout(), (4, 16), lab, "g")
    cal = calibrate(runs)
    scale = cal.constants.slot_scale
    assert (scale["vllm:qwen3.6-35b-a3b"], scale["vllm:gpt-oss-120b"]) == (pytest.approx(0.3), pytest.approx(1.5))
    assert 0.3 < scale["vllm"] < 1.5
    assert all(abs(e.error_pct) < 1e-6 for e in cal.after)
    pooled = predict(other, Layout(), context_tokens=1024, concurrency=16, constants=cal.constants)
    assert pooled == predict(
        other, Layout(), context_tokens=1024, concurrency=16, constants=replace(c, slot_scale={"vllm": scale["vllm"]})
    )
    words = refit_words(cal.changes)
    assert "vLLM's cost per expert slot for qwen3.6-35b-a3b 6.00 µs → 1.80 µs" in words
    assert "vLLM's cost per expert slot for gpt-oss-120b 6.00 µs → 9.00 µs" in words
    assert any(w.startswith("vLLM's cost per expert slot 6.00 µs → ") for w in words)
    # one MoE model measured: one factor, the engine's
    assert set(calibrate(runs[:2]).constants.slot_scale) == {"vllm"}


def test_sglangs_one_node_moe_batches_refit_its_own_slot_cost_not_vllms():
    """SGLang on one node pays vLLM's cost per stream (``STREAM_COST_FROM_TP``);
    its MoE batches still re-fit a cost per slot of SGLang's own, and vLLM's
    predictions stay the published fit's."""
    model = get_seed_model("qwen3.6-35b-a3b")
    c = default_constants()
    one = Layout(engine="sglang")
    cal = calibrate(_batches(model, one, (4, 16), replace(c, slot_scale={"sglang": 0.1})))
    assert cal.constants.slot_scale == {"sglang": pytest.approx(0.1)}
    assert cal.constants.engines == c.engines
    assert predict(model, Layout(), context_tokens=1024, concurrency=16, constants=cal.constants) == predict(
        model, Layout(), context_tokens=1024, concurrency=16
    )


def test_the_slot_cost_refit_stays_within_its_bounds():
    model = get_seed_model("qwen3.6-35b-a3b")
    low, high = CALIBRATION_BOUNDS["slot_scale"]
    assert low <= 1.0 <= high  # the published fit lies inside
    fast = [LabRun(f"f{n}", model, Layout(), 1024, 1024, None, None, n, 1e6) for n in (4, 16)]
    slow = [LabRun(f"s{n}", model, Layout(), 1024, 1024, None, None, n, 1.0) for n in (4, 16)]
    assert calibrate(fast).constants.slot_scale == {"vllm": low}
    assert calibrate(slow).constants.slot_scale == {"vllm": high}


def test_a_refit_is_said_in_words_with_its_units():
    """The fit table says what the lab's runs re-fitted in words, not
    constant names: the engine or the exchange path, the constant, and its
    values with their unit."""
    from placement.perfmodel.calibration import REFIT_WORDS, refit_words

    changes = (
        ("vllm", "mem_efficiency", 0.7892, 0.95),
        ("sglang", "expert_slot_us", 6.0, 0.6),
        ("llama.cpp", "stream_overhead_ms", 0.0, 0.85),
        ("switched-nccl", "collective_scale", 1.0, 2.5),
    )
    assert refit_words(changes) == [
        "vLLM's bandwidth efficiency 0.789 → 0.950",
        "SGLang's cost per expert slot 6.00 µs → 0.60 µs",
        "llama.cpp's cost per extra stream 0.00 ms → 0.85 ms",
        "switch with NCCL's all-reduce latency factor 1.00x → 2.50x",
    ]
    # every constant calibrate() may change has its words
    names = {"mem_efficiency", "sublayer_us", "prefill_tflops", "allreduce_extra_us", "prefill_comm_factor"}
    assert names | {"stream_overhead_ms", "expert_slot_us", "collective_scale"} == set(REFIT_WORDS)


def test_held_out_batch_series_played_as_a_labs_runs_show_what_the_refit_buys():
    """``--lab-refit``: each held-out series of batches, re-fitted on its one
    stream and its two fewest-stream levels, judged on the rest. The MoE
    series' median error falls from a third to under a tenth; one series,
    where the model's curve bends the other way (llama.cpp's gpt-oss-120b),
    gets worse, and the table says so."""

    from placement.perfmodel.lab_check import series_checks

    checks = {(s.origin, s.model): s for s in series_checks()}
    heitor = checks[("fresh6-heitor-qwen36-sweep", "qwen3.6-35b-a3b")]
    assert (heitor.measured, heitor.judged) == ((1, 2, 4), (8, 16, 32, 48, 96))
    assert heitor.before_median > 50.0 and heitor.after_median < 10.0
    worse = checks[("llamacpp-benches-batched", "gpt-oss-120b")]
    assert worse.after_median > worse.before_median
    moe = [s for s in checks.values() if s.moe]
    before = statistics.median(abs(e) for s in moe for e in s.before_pct)
    after = statistics.median(abs(e) for s in moe for e in s.after_pct)
    # llama.cpp's own cost per expert slot (0 µs) brought the published fit's MoE median down from a third
    # (14.9% and 8.9% re-fitted); the thirteenth fresh set's gpt-oss-120b sweep, whose one stream on an early
    # image is 62% too fast, adds two figures the re-fit makes worse (+8% and -4% to -33% and -39%)
    assert before == pytest.approx(12.2, abs=0.05) and after == pytest.approx(10.8, abs=0.05)
    rossingram = checks[("fresh13-rossingram-gptoss", "gpt-oss-120b")]
    assert rossingram.after_median > rossingram.before_median
    # one lab's factor carried from one MoE model to another (the re-fit is per engine for models the lab
    # did not measure): on the pulsar bench's vLLM, Nemotron-3-Nano's batches bring Nemotron-3-Super's 16
    # streams from 30.8% too slow to within 5%; on ggml's llama.cpp one model's factor can make another's
    # worse, and the report says so
    from placement.perfmodel.lab_check import transfer_checks

    carried = {(t.lab.rsplit("/", 1)[1], t.fitted, t.judged): t for t in transfer_checks()}
    super_ = carried["pulsar-gb10-vllm-stack", "nemotron-3-nano-30b-a3b", "nemotron-3-super-120b-a12b"]
    at16 = super_.streams.index(16)
    assert super_.before_pct[at16] < -30.0 and abs(super_.after_pct[at16]) < 5.0
    # on ggml's llama.cpp, gpt-oss-120b's batches re-fit its slot cost to the published 0 µs (nothing
    # carried), while Nemotron-3-Super's carried to Qwen3-Coder-30B-A3B make its batches far worse
    same = carried["llama.cpp", "gpt-oss-120b", "nemotron-3-super-120b-a12b"]
    assert same.after_pct == same.before_pct
    worse = carried["llama.cpp", "nemotron-3-super-120b-a12b", "qwen3-coder-30b-a3b"]
    assert statistics.median(map(abs, worse.after_pct)) > 3 * statistics.median(map(abs, worse.before_pct))
    out = perfmodel_cli("--lab-refit")
    assert f"MoE: {sum(len(s.judged) for s in moe)} judged figures of {len(moe)} series" in out
    assert "| fresh6-heitor-qwen36-sweep (qwen3.6-35b-a3b) | vllm | yes | 1, 2, 4 | 8, 16, 32, 48, 96 |" in out
    assert "- https://github.com/luisefigueroa/pulsar-gb10-vllm-stack: nemotron-3-nano-30b-a3b re-fitted on, " in out


# --- the command line ----------------------------------------------------------------


def perfmodel_cli(*args: str) -> str:
    """What ``python -m placement.perfmodel *args`` prints, as a user runs it."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "placement.perfmodel", *args], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_the_command_line_prints_the_refit_the_tables_and_the_goals():
    """`python -m placement.perfmodel` refits every reading and prints the held-out
    errors and the goals; `--markdown` (also `manage.py perfmodel --markdown`) prints
    the tables of PERFORMANCE_MODEL.md from the stored constants."""

    refit = perfmodel_cli()
    report = fit_report(DEFAULT_READING)
    assert f"holdout decode: median {report.median('holdout', 'decode'):.1f}%" in refit
    assert refit.count("PerfConstants(") == len(READINGS)
    assert "Goals on the held-out runs:" in refit
    tables = perfmodel_cli("--markdown")
    assert "### Held-out points (never used by the fit)" in tables
    n = len(report.values("holdout", "decode"))
    assert f"- holdout decode ({n} figures): median {report.median('holdout', 'decode'):.1f}%" in tables
    for line in goals_text(report):
        assert line in tables


def test_the_management_command_prints_the_same_tables():
    from io import StringIO

    from django.core.management import call_command

    from placement.perfmodel.report import markdown_tables

    out = StringIO()
    call_command("perfmodel", "--markdown", stdout=out)
    assert out.getvalue().strip() == markdown_tables().strip()


def test_docs_figures_lists_every_published_point_as_the_data_hold_it():
    from placement.perfmodel.report import figures_markdown

    figures = (Path(__file__).resolve().parents[2] / "docs" / "figures.md").read_text()
    assert figures_markdown() in figures


def test_each_held_out_experiment_counts_once_in_the_per_experiment_median():
    """16 one-stream figures are one llama.cpp bench's depth sweeps: the
    per-experiment median takes each experiment's median once."""
    from placement.perfmodel.points import PointError
    from placement.perfmodel.report import FitReport

    keys = ["gpt-oss-20b-1-llamacpp-d4096", "gpt-oss-20b-1-llamacpp-d8192", "gpt-oss-120b-1-llamacpp-d4096"]
    same, other = (
        {p.source_id for p in PUBLISHED_POINTS if p.key in keys[:2]},
        {p.source_id for p in PUBLISHED_POINTS if p.key == "qwen3-32b-4-tp4"},
    )
    assert len(same) == 1 and same != other
    report = FitReport(
        "one-node",
        (
            PointError(keys[0], "decode", "holdout", 100.0, 101.0),  # 1%
            PointError(keys[1], "decode", "holdout", 100.0, 103.0),  # 3%: that experiment's median is 2%
            PointError("qwen3-32b-4-tp4", "decode", "holdout", 100.0, 70.0),  # 30%
        ),
    )
    assert report.experiment_median("holdout", "decode") == (pytest.approx(16.0), 2)
    assert report.median("holdout", "decode") == pytest.approx(3.0)
    assert report.experiment_median("holdout", "aggregate") is None


def test_held_out_figures_of_one_configuration_that_disagree_set_a_floor_on_the_worst_error():
    """Two held-out runs of Qwen3.6-35B-A3B FP8 on one Spark with vLLM
    published 30.5 and 51.86 tok/s: whatever the model predicts, one of them
    is missed by more than 25% (the balanced prediction 2ab / (a + b) = 38.4
    misses both by 25.9%). The report names them and the floor they set;
    figures of other configurations never pair."""
    from placement.perfmodel.points import PointError
    from placement.perfmodel.report import FitReport, configuration, disagreement_of

    by_key = {p.key: p for p in PUBLISHED_POINTS}
    a, b = by_key["qwen3.6-a3b-1-fp8"], by_key["qwen3.6-35b-a3b-1-djangodevreng-fp8"]
    assert configuration(a) == configuration(b)
    assert configuration(a) != configuration(by_key["qwen3.6-35b-a3b-1-djangodevreng-bf16"])
    balanced = 2 * 30.5 * 51.86 / (30.5 + 51.86)
    same = [
        PointError(a.key, "decode", "holdout", 30.5, balanced),
        PointError(b.key, "decode", "holdout", 51.86, balanced),
    ]
    assert disagreement_of(same).floor_pct == pytest.approx(25.94, abs=0.01)
    assert abs(same[0].error_pct) == pytest.approx(disagreement_of(same).floor_pct)
    assert abs(same[1].error_pct) == pytest.approx(disagreement_of(same).floor_pct)
    # scaling every prediction of the configuration leaves the floor where it is
    scaled = [PointError(e.key, e.metric, e.role, e.published, e.predicted * 1.7) for e in same]
    assert disagreement_of(scaled).floor_pct == pytest.approx(disagreement_of(same).floor_pct)

    report = FitReport("one-node", (*same, PointError("qwen3-32b-4-tp4", "decode", "holdout", 19.25, 10.0)))
    found = report.disagreement("holdout", "decode")
    assert found is not None and set(found.keys) == {a.key, b.key}
    assert report.disagreement("holdout", "aggregate") is None
    lines = goals_text(report)
    worst = lines.index("- decode worst: 48.1% (at most 25%): NOT met")
    assert lines[worst + 1] == (
        "  the held-out figures of one configuration disagree: qwen3.6-a3b-1-fp8 (30.5) and "
        "qwen3.6-35b-a3b-1-djangodevreng-fp8 (51.86); no prediction comes nearer than 25.9% to all of them "
        "(out of reach of the goal)"
    )


def test_a_run_with_speculative_decoding_is_compared_on_its_prefill_only():
    """The vLLM blog's Nemotron-3-Super ran NVIDIA's recipe with MTP (its
    sources, docs/figures.md): the model predicts plain decoding, so the run's
    decode figure stays on the record but is not compared; its prefill is. The
    same point without the label would be compared on both."""
    from benchmarks.seed import published_notes
    from placement.perfmodel.points import point_figures

    point = next(p for p in PUBLISHED_POINTS if p.key == "nemotron-super-1-vllm-blog")
    assert (point.speculative, point.role, point.decode_tps) == ("mtp", "holdout", 23.2)
    constants = default_constants()
    assert [metric for metric, _, _ in point_figures(point, constants)] == ["prefill"]
    plain = replace(point, speculative="")
    assert [metric for metric, _, _ in point_figures(plain, constants)] == ["decode", "prefill"]
    report = fit_report(DEFAULT_READING)
    assert [e.metric for e in report.errors if e.key == point.key] == ["prefill"]
    assert "MTP speculative decoding" in published_notes(point)
    # one held-out run and one training run were re-labelled from their sources (docs/figures.md); the
    # other speculative runs are kept for reference only (placement.published_speculative), never in the report
    speculative = {p.key: p.role for p in PUBLISHED_POINTS if p.speculative and p.role != "reference"}
    assert speculative == {"nemotron-super-1-vllm-blog": "holdout", "qwen3.6-a3b-1-vllm": "train"}
    kept = {p.key for p in PUBLISHED_POINTS if p.speculative and p.role == "reference"}
    assert len(kept) == 19 and not kept & {e.key for e in report.errors}


def test_the_fit_ignores_a_speculative_training_runs_decode(monkeypatch):
    """vLLM recipes PR 918's Qwen3.6-35B-A3B run used its recipe's 3-token MTP
    draft (docs/figures.md): its 97.7 tok/s decode is not plain decoding, so the
    fit leaves it out (the fit with it labelled equals the fit without that
    decode figure, and differs from the fit that takes it as plain decoding);
    its prefill still trains, and its leave-one-out residual is its prefill's only."""
    from benchmarks.seed import published_notes

    point = next(p for p in PUBLISHED_POINTS if p.key == "qwen3.6-a3b-1-vllm")
    assert (point.speculative, point.role, point.decode_tps, point.prefill_tps) == ("mtp", "train", 97.7, 6265.0)
    assert point.compared_decode_tps is None
    assert "neither fits on nor compares its decode figure" in published_notes(point)

    def fit_with(changed):
        swapped = tuple(changed if p is point else p for p in PUBLISHED_POINTS)
        monkeypatch.setattr(perfmodel_points, "PUBLISHED_POINTS", swapped)
        return fit(DEFAULT_READING)

    assert [r.metric for r in LOSO_RESIDUALS if r.key == point.key] == ["prefill"]
    assert [e.metric for e in fit_report(DEFAULT_READING).errors if e.key == point.key] == ["prefill"]
    labelled = fit(DEFAULT_READING)
    assert fit_with(replace(point, speculative="", decode_tps=None)) == labelled
    assert fit_with(replace(point, speculative="")) != labelled


def test_llama_cpp_moves_a_hybrids_recurrent_state_as_its_graph_does():
    """llama.cpp gathers each sequence's float32 state, updates it and copies
    it back: 6 passes of a float32 state a step, where vLLM and SGLang read
    and write the catalogue's state in place (2). Transformers keep no state;
    nothing is fitted for it, and the dense hybrid's published llama.cpp
    batches (the fourth fresh set) come within 30% of it, from +337%."""
    from placement.perfmodel.prediction import state_moved_bytes

    qwen = get_seed_model("qwen3.6-27b")
    state = qwen.state_bytes_per_stream()
    assert state > 0 and qwen.linear_kind == "gated-deltanet"
    assert state_moved_bytes(qwen, "vllm") == state_moved_bytes(qwen, "sglang") == 2 * state
    assert state_moved_bytes(qwen, "llama.cpp") == 6 * 2 * state  # float32 copies of a bf16 DeltaNet state
    nemotron = get_seed_model("nemotron-3-super-120b-a12b")  # Mamba-2: the catalogue's state is float32
    assert state_moved_bytes(nemotron, "llama.cpp") == 6 * nemotron.state_bytes_per_stream()
    assert state_moved_bytes(get_seed_model("qwen3-32b"), "llama.cpp") == 0
    # each stream's step grows by the copies: 128 streams on llama.cpp pay 4 more passes of the float32
    # state than vLLM's in-place kernels would, at llama.cpp's bandwidth
    c = default_constants()
    one = Layout(engine="llama.cpp")
    few = predict(qwen, one, context_tokens=192, concurrency=8, constants=c)
    many = predict(qwen, one, context_tokens=192, concurrency=128, constants=c)
    step_ms = {n: n * 1e3 / p.aggregate_tps for n, p in ((8, few), (128, many))}
    bandwidth = NODE_MEMORY_BW_GBPS * 1e9 * c.efficiency("llama.cpp", qwen.quantization)
    state_ms = 120 * state_moved_bytes(qwen, "llama.cpp") / bandwidth * 1e3
    assert step_ms[128] - step_ms[8] > state_ms
    errors = {e.key: e.error_pct for e in fit_report(DEFAULT_READING).errors}
    batches = [errors[f"qwen3.6-27b-1-llamacpp-nvfp4-localai-c{n}"] for n in (8, 32, 64, 128)]
    assert max(abs(e) for e in batches) < 30.0


def test_sglang_borrows_vllms_cost_per_stream_without_tensor_parallelism():
    """SGLang's cost per extra stream is fitted on its TP2 series only; on one
    node (or a pipeline without TP) it borrows vLLM's, so more streams of a
    small fast MoE model never decode less in all than one. At TP2 its own
    cost applies: the fit's series is predicted as before."""
    from placement.perfmodel.prediction import own_stream_cost

    c = default_constants()
    assert c.engine("sglang").stream_overhead_ms > 5 * max(c.engine("vllm").stream_overhead_ms, 0.1)
    model = get_seed_model("gpt-oss-20b")
    one, two = Layout(engine="sglang"), Layout(tp=2, path="direct", engine="sglang")
    assert not own_stream_cost(one) and own_stream_cost(two) and own_stream_cost(Layout(engine="vllm"))
    for streams in (2, 3, 7):
        p = predict(model, one, context_tokens=1024, concurrency=streams, constants=c)
        assert p.aggregate_tps > p.decode_tps
        vllm = predict(model, replace(one, engine="vllm"), context_tokens=1024, concurrency=streams, constants=c)
        assert p.aggregate_tps / p.decode_tps == pytest.approx(vllm.aggregate_tps / vllm.decode_tps, rel=1e-6)
    # at TP2 the extra streams cost SGLang its own, fitted, ~10 ms each
    sg = predict(model, two, context_tokens=1024, concurrency=4, constants=c)
    vl = predict(model, replace(two, engine="vllm"), context_tokens=1024, concurrency=4, constants=c)
    assert sg.aggregate_tps / sg.decode_tps < vl.aggregate_tps / vl.decode_tps
    report = fit_report(DEFAULT_READING)
    trained = {e.key: e for e in report.errors if e.key.startswith("qwen3.6-27b-2-sglang")}
    assert max(abs(e.error_pct) for e in trained.values()) < 7.0


def test_held_out_evidence_says_what_the_published_fit_missed_by_on_runs_of_the_kind():
    """A plan's other word on how far it may be off: the published fit's
    signed errors on held-out figures of its metric, engine, parallelism and
    mode, at streams within a factor of two of its own (all of the kind when
    none is), of its family when two or more; never used to change a
    prediction."""
    from placement.perfmodel.evidence import held_out_evidence

    report = fit_report(DEFAULT_READING)
    by_key = {p.key: p for p in PUBLISHED_POINTS}
    nemotron = {
        by_key[e.key].concurrency: e.error_pct
        for e in report.errors
        if by_key[e.key].origin == "llamacpp-nemotron-super-bench" and e.metric == "aggregate"
    }
    assert sorted(nemotron) == [4, 8, 32]
    localai = {
        (by_key[e.key].model_slug, by_key[e.key].concurrency): e.error_pct
        for e in report.errors
        if by_key[e.key].origin == "fresh4-localai-llamacpp"
    }
    ninth = {
        by_key[e.key].concurrency: e.error_pct
        for e in report.errors
        if by_key[e.key].origin == "fresh9-0xbakeer-llamacpp" and e.metric == "aggregate"
    }
    # 8 streams: the batches at 4 to 16 (32 is out of reach): Nemotron-3-Super's, the fourth fresh set's
    # two gated-DeltaNet hybrids (the model has changed since the fourth set, their recurrent-state
    # passes: not fresh) and the ninth set's Qwen3.8-27B Q4_K_M with 16 slots (not fresh either since
    # llama.cpp's cost per expert slot became its own), and the twelfth set's Qwen3.6-35B-A3B Q8_0 at 4
    # streams (fresh)
    found = held_out_evidence(FigureClass("aggregate", "llama.cpp", "single", "hybrid"), 8)
    assert found is not None and (found.figures, found.experiments, found.fresh) == (9, 4, 1)
    near = [nemotron[4], nemotron[8], localai[("qwen3.6-27b", 8)], localai[("qwen3.6-35b-a3b", 8)]]
    near += list(ninth.values())
    near += [e.error_pct for e in report.errors if e.key == "qwen3.6-35b-a3b-1-llamacpp-q80-jschmied-c4"]
    assert sorted(ninth) == [4, 8, 12, 16]
    assert (found.low_pct, found.high_pct) == (min(near), max(near))
    assert found.median_pct == statistics.median(near)
    assert found.words == (
        "On 9 held-out figures of all streams' decode of llama.cpp single runs of hybrid models at 4 to 16 "
        "streams (4 experiments; 1 of them collected after the model was frozen and never used to change it), "
        "the published fit predicted from 6% too slow to 82% too fast (median 53% too fast)."
    )
    # beyond 25% at the median since the ninth set (32%), and further since llama.cpp's cost per expert slot
    # became its own (0 µs: Nemotron-3-Super's 880 slots a token no longer slow its batches), 53% with the
    # twelfth set's one llama.cpp batch (12.6% too fast): the row says so
    assert found.badge == "held-out: 53% too fast"
    # a dense model at 32 streams: gemma-3-4b's batches at 16 and 32 sequences, 23% and 30% too fast (35% and
    # 53% before llama.cpp's cost per stream rose with its own slot cost)
    busy = held_out_evidence(FigureClass("aggregate", "llama.cpp", "single", "dense"), 32)
    assert busy is not None and busy.basis.endswith("at 16 to 32 streams") and busy.badge == "held-out: 27% too fast"
    # since llama.cpp's batching is its own, dense and MoE models at 8 streams are within 25% at the median
    dense = held_out_evidence(FigureClass("aggregate", "llama.cpp", "single", "dense"), 8)
    assert dense is not None and dense.figures == 3 and dense.badge == ""
    assert dense.words.endswith("the published fit predicted from 6% too slow to 23% too fast (median 7% too fast).")
    moe = held_out_evidence(FigureClass("aggregate", "llama.cpp", "single", "moe"), 8)
    assert moe is not None and moe.figures == 6 and moe.badge == ""
    assert moe.words.endswith("the published fit predicted from 10% too slow to 14% too fast (median 2% too fast).")
    # two of the family since the seventh fresh set (flash7777's Qwen3-Coder-30B-A3B INT4 at TP=2 beside an
    # earlier MoE run): the family's own figures, one of them fresh
    tp = held_out_evidence(FigureClass("decode", "vllm", "tp", "moe"))
    assert tp is not None and tp.basis == "one stream's decode of vllm tp runs of moe models"
    assert (tp.figures, tp.experiments, tp.fresh) == (2, 2, 1)
    assert tp.words.endswith("the published fit predicted 13% to 22% too slow (median 17% too slow).")
    # fewer than two of the family: every family of the kind, said so
    hybrid = held_out_evidence(FigureClass("decode", "vllm", "tp", "hybrid"))
    assert hybrid is not None and hybrid.basis == "one stream's decode of vllm tp runs of any family"
    assert hybrid.figures == 5
    # one figure is all there is: said in words, without a median, and no badge
    single = held_out_evidence(FigureClass("decode", "sglang", "tp", "hybrid"))
    assert single is not None and single.figures == 1 and single.badge == ""
    assert single.words == (
        "On 1 held-out figure of one stream's decode of sglang tp runs of any family (1 experiment), "
        "the published fit predicted 68% too slow."
    )
    # the sets the model has not changed since are counted fresh, and said so: of their one-stream vLLM decode
    # figures of dense models, Stravica's Llama-3.1-8B and Qwen3-8B runs of 2026-02-26 (the third set) and one
    # GX10's Llama-3.3-70B, Qwen3-32B, Qwen3-8B and Llama-3.1-8B in NVFP4 (the sixth), and elizabetht's
    # Llama-3.1-8B in BF16 (the thirteenth), bytebunkerlabs' Qwen3-8B in BF16 (the fourteenth)
    fresh = held_out_evidence(FigureClass("decode", "vllm", "single", "dense"))
    assert fresh is not None and fresh.figures == 15 and fresh.fresh == 2 + 4 + 1 + 1
    assert "; 8 of them collected after the model was frozen and never used to change it)" in fresh.words
    # none held out of the kind: nothing to say; the mode is part of the kind
    assert held_out_evidence(FigureClass("decode", "sglang", "pp", "moe")) is None
    assert held_out_evidence(FigureClass("aggregate", "sglang", "copies", "moe", "graphs"), 16) is None
    # copies with CUDA graphs: one held-out run of the kind (the thirteenth set's two Llama-3.1-8B copies at one
    # stream), far from 16 streams but all there is, said at its own streams
    far = held_out_evidence(FigureClass("aggregate", "vllm", "copies", "moe", "graphs"), 16)
    assert far is not None and far.figures == 1 and far.basis.endswith("of any family at 1 stream")
    eager = held_out_evidence(FigureClass("aggregate", "vllm", "copies", "moe", "eager"), 16)
    assert eager is not None and "vllm copies runs in eager mode of moe models at 8 to 32 streams" in eager.basis


def test_a_llama_cpp_plan_holds_a_hybrids_recurrent_state_in_float32():
    """The memory a plan books for every stream's recurrent state is the one
    the decode traffic reads: llama.cpp keeps a gated-DeltaNet state in
    float32, twice the catalogue's bf16 (vLLM keeps the model's dtype), and a
    Mamba-2 state is float32 either way."""
    qwen = get_seed_model("qwen3.6-27b")
    args = {"tp": 1, "pp": 1, "usable_gb": 126.7, "context_tokens": 4096, "concurrency_per_instance": 32}
    vllm = memory_budget(qwen, engine="vllm", **args)
    llama = memory_budget(qwen, engine="llama.cpp", **args)
    assert llama.kv_cache - vllm.kv_cache == pytest.approx(32 * qwen.state_bytes_per_stream() / 1e9)
    assert qwen.state_bytes_kept("llama.cpp") == 2 * qwen.state_bytes_kept("vllm")
    nemotron = get_seed_model("nemotron-3-super-120b-a12b")
    assert nemotron.state_bytes_kept("llama.cpp") == nemotron.state_bytes_kept("vllm")


def test_llama_cpp_fits_its_own_cost_per_expert_slot_on_its_training_tables(monkeypatch):
    """llama.cpp's dense batch table pins its cost per stream and its MoE
    table then its cost per expert slot, on training runs alone: 0 µs (the
    grid's bound), where vLLM and SGLang keep the shared 6 µs. Without its MoE
    table it pays the shared one, as before."""
    c = fit(DEFAULT_READING)
    assert c.engine_slot_us == {"llama.cpp": 0.0} and c.expert_slot_us == pytest.approx(6.0)
    assert c == default_constants()
    assert (c.slot_us("llama.cpp"), c.slot_us("vllm"), c.slot_us("sglang")) == (0.0, 6.0, 6.0)
    moe_table = {p.key for p in PUBLISHED_POINTS if p.origin == "llamacpp-benches-batched-train" and "gpt-oss" in p.key}
    assert len(moe_table) == 5
    monkeypatch.setattr(
        perfmodel_points, "PUBLISHED_POINTS", tuple(p for p in PUBLISHED_POINTS if p.key not in moe_table)
    )
    without = fit(DEFAULT_READING)
    assert without.engine_slot_us == {} and without.slot_us("llama.cpp") == without.expert_slot_us > 0.0


def test_a_labs_llama_cpp_moe_batches_refit_a_slot_cost_the_published_fit_put_at_zero():
    """The published fit gives llama.cpp no cost per expert slot; a lab whose
    llama.cpp MoE batches pay 3 µs a slot (half the shared 6 µs) re-fits it
    from 0 µs to 3 µs, a factor on the shared cost: a factor on 0 µs could
    move nothing. The re-fitted plan predicts its 32 streams as measured."""
    c = default_constants()
    model, layout = get_seed_model("gpt-oss-120b"), Layout(engine="llama.cpp")
    lab = replace(c, slot_scale={"llama.cpp": 0.5})
    assert lab.slot_us("llama.cpp") == pytest.approx(3.0)
    runs = _batches(model, layout, (2, 8, 32), lab)
    cal = calibrate(runs)
    assert cal.constants.slot_scale == {"llama.cpp": pytest.approx(0.5)}
    assert cal.changes == (("llama.cpp", "expert_slot_us", 0.0, pytest.approx(3.0)),)
    assert all(abs(e.error_pct) < 0.5 for e in cal.after)
    assert max(abs(e.error_pct) for e in cal.before) > 10.0


def test_every_published_decode_figure_is_far_under_what_its_nodes_can_compute():
    """The ceiling the benchmark records are held to (compute_ceiling_tps) refuses
    no real run: every published decode figure, at one stream or many, with
    drafting or without, stays under a twentieth of it."""
    from placement.perfmodel import compute_ceiling_tps
    from placement.published import PUBLISHED_POINTS

    shares = {}
    for p in PUBLISHED_POINTS:
        if p.compared_decode_tps is None or p.model_slug not in SEED_BY_SLUG:
            continue  # a model the catalogue does not hold has no active weights to count
        model = perfmodel_points.point_model(p)
        shares[p.key] = p.compared_decode_tps / compute_ceiling_tps(model, p.tp * p.pp * p.replicas)
    assert len(shares) > 350
    assert max(shares.values()) < 1 / 20, max(shares.items(), key=lambda kv: kv[1])
    # and a 70B on one Spark: 1e15 / (2 x 70.55e9)
    assert compute_ceiling_tps(get_seed_model("llama-3.3-70b"), 1) == pytest.approx(7087.2, abs=0.1)
