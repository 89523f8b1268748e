"""The seed catalogue and ModelSpec's checks and derived sizes."""

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from placement.model_catalogue import (
    MAX_CONTEXT_TOKENS,
    QUANT_BYTES,
    SEED_MODELS,
    ModelSpec,
    get_seed_model,
)

DOMAIN_MODELS = (
    "qwen3.8-27b",
    "glm-5.3",
    "gpt-oss-20b",
    "gpt-oss-120b",
    "qwen3.6-35b-a3b",
    "minicpm5-2b",
    "llama-3.3-70b",
    "qwen3.5-397b-a17b",
)


def test_every_seed_model_is_valid_and_unique():
    assert [m.slug for m in SEED_MODELS if m.validate()] == []
    assert len({m.slug for m in SEED_MODELS}) == len(SEED_MODELS)


def test_domain_models_are_seeded_and_extras_exist():
    for slug in DOMAIN_MODELS:
        get_seed_model(slug)
    assert len(SEED_MODELS) > len(DOMAIN_MODELS)


def test_estimated_fields_are_named_and_explained():
    for m in SEED_MODELS:
        for name in m.estimated_fields:
            assert hasattr(m, name), (m.slug, name)
        if m.estimated_fields:
            assert m.notes


def test_quant_bytes_include_block_scales():
    assert QUANT_BYTES["nvfp4"] == pytest.approx(0.5 + 1 / 16)
    assert QUANT_BYTES["mxfp4"] == pytest.approx(0.5 + 1 / 32)
    assert QUANT_BYTES["fp8"] == 1.0 and QUANT_BYTES["bf16"] == 2.0


def test_published_weight_size_wins_over_computed():
    glm = get_seed_model("glm-5.3")
    assert glm.weights_size_gb() == 470.0  # published, not 753 x 0.5625
    assert replace(glm, weights_gb=None).weights_size_gb() == pytest.approx(753 * 0.5625)


def test_kv_bytes_per_token_formula():
    llama = get_seed_model("llama-3.3-70b")
    # 2 (K,V) x 80 layers x 8 KV heads x 128 x 2 bytes (bf16 default)
    assert llama.kv_bytes_per_token() == 2 * 80 * 8 * 128 * 2
    assert llama.kv_bytes_per_token("fp8") == 2 * 80 * 8 * 128
    gpt = get_seed_model("gpt-oss-120b")  # only 18 full-attention layers keep a long cache
    assert gpt.kv_bytes_per_token() == 2 * 18 * 8 * 64 * 2
    ds = get_seed_model("deepseek-v3")  # MLA latent, replicated over TP
    assert ds.kv_bytes_per_token() == 61 * 576 * 2
    assert ds.kv_shards(8) == 1 and llama.kv_shards(4) == 4 and llama.kv_shards(16) == 8


def test_moe_active_and_expert_weights():
    gpt = get_seed_model("gpt-oss-120b")
    assert gpt.active_weights_gb() == pytest.approx(65.3 * 5.13 / 116.83)
    assert 0 < gpt.expert_weights_gb() < gpt.weights_size_gb()
    assert get_seed_model("llama-3.3-70b").expert_weights_gb() == 0


BASE = get_seed_model("llama-3.3-70b")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"params_b": 0}, "params_b"),
        ({"params_b": -1.0}, "params_b"),
        ({"active_params_b": 80.0}, "active_params_b"),
        ({"layers": 0}, "layers"),
        ({"kv_heads": 7}, "kv_heads"),
        ({"head_dim": 0}, "head_dim"),
        ({"experts": 8, "experts_per_token": 9, "active_params_b": 20.0}, "experts_per_token"),
        ({"experts_per_token": 2}, "experts_per_token"),
        ({"max_context": 0}, "max_context"),
        ({"max_context": 10_000_000}, "max_context"),
        ({"quantization": "fp3"}, "quantization"),
        ({"weights_gb": 0.0}, "weights_gb"),
        ({"slug": "Bad Slug"}, "slug"),
        ({"name": " "}, "name"),
        ({"layers": True}, "layers"),
        ({"kv_layers": 81}, "kv_layers"),
        ({"params_b": 10**400}, "params_b"),
        ({"weights_gb": float("nan")}, "weights_gb"),
    ],
)
def test_validate_names_the_bad_field(changes, field):
    errors = replace(BASE, **changes).validate()
    assert field in [f for f, _ in errors], errors


def test_context_limit_is_four_mebi_tokens():
    assert replace(BASE, max_context=MAX_CONTEXT_TOKENS).validate() == []
    assert replace(BASE, max_context=MAX_CONTEXT_TOKENS + 1).validate()


@given(
    params=st.floats(min_value=-10, max_value=2000, allow_nan=False),
    active=st.floats(min_value=-10, max_value=2000, allow_nan=False),
    layers=st.integers(min_value=-2, max_value=200),
    heads=st.integers(min_value=0, max_value=128),
    kv_heads=st.integers(min_value=0, max_value=128),
    experts=st.integers(min_value=0, max_value=512),
    per_token=st.integers(min_value=0, max_value=600),
    context=st.integers(min_value=-5, max_value=20_000_000),
)
def test_validate_rejects_every_bad_spec(params, active, layers, heads, kv_heads, experts, per_token, context):
    spec = ModelSpec(
        slug="m",
        name="M",
        params_b=params,
        active_params_b=active,
        layers=layers,
        hidden_size=4096,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=128,
        experts=experts,
        experts_per_token=per_token,
        quantization="fp8",
        weights_gb=None,
        max_context=context,
    )
    bad = (
        params <= 0
        or active <= 0
        or active > params
        or layers < 1
        or heads < 1
        or kv_heads < 1
        or (kv_heads >= 1 and heads % kv_heads != 0)
        or context < 1
        or context > MAX_CONTEXT_TOKENS
        or (experts == 0 and (per_token != 0 or abs(active - params) > 1e-6 * max(abs(params), 1)))
        or (experts == 1)
        or (experts > 1 and not 1 <= per_token <= experts)
    )
    assert bool(spec.validate()) == bad


def test_every_variant_the_planner_offers_has_a_loadable_reference():
    """No seed model leaves the planner recommending a plan nothing can launch:
    each variant names the repository its engine loads (docs/figures.md)."""
    from placement.quants import GGUF, QUANT_FORMATS, engine_reference

    missing = []
    for model in SEED_MODELS:
        for variant in model.all_variants():
            engine = "llama.cpp" if QUANT_FORMATS[variant.quantization].container == GGUF else "vllm"
            ref = engine_reference(variant, engine)
            if not ref.loadable:
                missing.append(f"{model.slug} {variant.quantization}: {ref.reason}")
    assert missing == []
    assert get_seed_model("qwen3.5-397b-a17b").default_variant().hf_repo == "Intel/Qwen3.5-397B-A17B-int4-AutoRound"
