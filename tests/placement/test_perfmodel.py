"""The performance model: stored constants, published figures, hold-out and properties."""

import math
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from placement.model_catalogue import SEED_BY_SLUG, SEED_MODELS, get_seed_model
from placement.perfmodel import (
    CONSTANTS_BY_READING,
    DEFAULT_READING,
    PATHS,
    PUBLISHED_DECODE_CONTEXT,
    PUBLISHED_POINTS,
    READINGS,
    Layout,
    fit,
    fit_report,
    points_for,
    predict,
)

QWEN = get_seed_model("qwen3.8-27b")


@pytest.mark.parametrize("reading", READINGS)
def test_stored_constants_match_a_refit(reading):
    stored, refit = CONSTANTS_BY_READING[reading], fit(reading)
    for f in fields(stored):
        a, b = getattr(stored, f.name), getattr(refit, f.name)
        if isinstance(a, float):
            assert a == pytest.approx(b, rel=1e-6, abs=1e-9), f.name
        else:
            assert a == b


def test_fit_is_deterministic():
    assert fit("one-node") == fit("one-node")


def test_published_points_are_sourced_and_modelled():
    for p in PUBLISHED_POINTS:
        assert p.source and p.role in ("train", "holdout", "reference")
        if p.role != "reference":
            assert p.model_slug in SEED_BY_SLUG
        assert p.tp * p.pp == p.nodes


def test_both_readings_of_the_disputed_row_exist():
    keys = {p.key: p for p in PUBLISHED_POINTS}
    one, direct = keys["qwen27b-row1-one-node"], keys["qwen27b-row1-direct"]
    assert (one.decode_tps, one.prefill_tps) == (direct.decode_tps, direct.prefill_tps)
    assert (one.nodes, direct.nodes) == (1, 2)
    assert {p.key for p in points_for("one-node")}.isdisjoint({"qwen27b-row1-direct"})


def test_default_reading_fits_the_published_table_within_3_percent():
    report = fit_report(DEFAULT_READING)
    table = [e for e in report.errors if e.key.startswith("qwen27b") and e.metric == "decode"]
    assert len(table) >= 5
    assert max(abs(e.error_pct) for e in table) < 3.0
    prefill = [e for e in report.errors if e.key.startswith("qwen27b") and e.metric == "prefill"]
    assert max(abs(e.error_pct) for e in prefill) < 3.0


def test_holdout_errors_stay_within_the_documented_bounds():
    report = fit_report(DEFAULT_READING)
    assert report.mape("train", "decode") < 3.0
    assert report.mape("holdout", "decode") < 15.0  # documented in PERFORMANCE_MODEL.md
    holdout = {e.key: e for e in report.errors if e.role == "holdout" and e.metric == "decode"}
    assert abs(holdout["gpt-oss-120b-1-vllm"].error_pct) < 10
    assert abs(holdout["llama-3.3-70b-1"].error_pct) < 20
    assert abs(holdout["qwen3.5-397b-pp3"].error_pct) < 10
    assert abs(holdout["gpt-oss-120b-2-tp2"].error_pct) < 30


def test_default_reading_is_the_more_consistent_one():
    one, direct = fit_report("one-node"), fit_report("direct")
    assert one.mape("train", "decode") < direct.mape("train", "decode")
    assert one.mape("holdout", "decode") < direct.mape("holdout", "decode")


def test_switch_with_rocenante_beats_ring_at_eight_nodes():
    ring = predict(QWEN, Layout(tp=8, path="ring"), context_tokens=PUBLISHED_DECODE_CONTEXT)
    switch = predict(QWEN, Layout(tp=8, path="switched-rocenante"), context_tokens=PUBLISHED_DECODE_CONTEXT)
    nccl = predict(QWEN, Layout(tp=8, path="switched-nccl"), context_tokens=PUBLISHED_DECODE_CONTEXT)
    assert switch.decode_tps > ring.decode_tps > nccl.decode_tps * 0.95


def test_pipeline_parallel_adds_little_single_stream_speed():
    model = get_seed_model("llama-3.3-70b")
    single = predict(model, Layout(), context_tokens=4096)
    for pp in (2, 4, 8):
        piped = predict(model, Layout(pp=pp, path="switched-rocenante"), context_tokens=4096)
        assert piped.decode_tps <= single.decode_tps * 1.01
        tp = predict(model, Layout(tp=pp, path="switched-rocenante"), context_tokens=4096)
        assert tp.decode_tps > piped.decode_tps * 1.5


def test_batching_shares_weight_reads_dense_more_than_moe():
    dense = get_seed_model("llama-3.3-70b")
    one = predict(dense, Layout(), context_tokens=4096, concurrency=1)
    many = predict(dense, Layout(), context_tokens=4096, concurrency=32)
    assert one.aggregate_tps == pytest.approx(one.decode_tps)
    assert many.aggregate_tps > 10 * one.aggregate_tps  # every stream shares the same weights
    moe = get_seed_model("gpt-oss-120b")  # a batch of 32 touches ~64% of the experts
    one = predict(moe, Layout(), context_tokens=4096, concurrency=1)
    many = predict(moe, Layout(), context_tokens=4096, concurrency=32)
    assert 2 * one.aggregate_tps < many.aggregate_tps < 10 * one.aggregate_tps


layouts = st.builds(
    Layout,
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 3, 4]),
    path=st.sampled_from([p for p in PATHS if p != "none"]),
    link_gbps=st.sampled_from([100.0, 200.0]),
    engine=st.sampled_from(["vllm", "sglang"]),
)


@given(model=st.sampled_from(SEED_MODELS), layout=layouts,
       context=st.integers(min_value=1, max_value=131_072), concurrency=st.integers(min_value=1, max_value=256))
def test_predictions_are_positive_finite_and_consistent(model, layout, context, concurrency):
    p = predict(model, layout, context_tokens=context, concurrency=concurrency)
    for value in (p.decode_tps, p.aggregate_tps, p.prefill_tps):
        assert value > 0 and math.isfinite(value)
    assert p.aggregate_tps >= p.decode_tps * (1 - 1e-9)


@given(model=st.sampled_from(SEED_MODELS), layout=layouts,
       short=st.integers(min_value=1, max_value=65_536), extra=st.integers(min_value=1, max_value=65_536))
def test_longer_context_is_never_faster(model, layout, short, extra):
    a = predict(model, layout, context_tokens=short)
    b = predict(model, layout, context_tokens=short + extra)
    assert b.decode_tps <= a.decode_tps * (1 + 1e-12)
    assert b.prefill_tps <= a.prefill_tps * (1 + 1e-12)
