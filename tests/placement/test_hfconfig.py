"""Hugging Face config.json to ModelSpec, and the parameter estimate."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from placement.hfconfig import parse_hf_config, suggest_slug
from placement.model_catalogue import ModelSpec

# Public config.json values (trimmed to what the parser reads).
LLAMA_31_8B = {
    "architectures": ["LlamaForCausalLM"],
    "_name_or_path": "meta-llama/Llama-3.1-8B-Instruct",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
GPT_OSS_120B = {
    "architectures": ["GptOssForCausalLM"],
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "head_dim": 64,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "num_hidden_layers": 36,
    "num_local_experts": 128,
    "num_experts_per_tok": 4,
    "experts_per_token": 4,
    "vocab_size": 201088,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
    "layer_types": ["sliding_attention", "full_attention"] * 18,
}
DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "first_k_dense_replace": 3,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "vocab_size": 129280,
    "max_position_embeddings": 163840,
}
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "tie_word_embeddings": False,
}


def parse(cfg, **kwargs):
    kwargs.setdefault("slug", "m")
    kwargs.setdefault("quantization", "bf16")
    return parse_hf_config(json.dumps(cfg), **kwargs)


def test_dense_llama():
    spec = parse(LLAMA_31_8B, slug="llama-3.1-8b")
    assert isinstance(spec, ModelSpec)
    assert (spec.layers, spec.hidden_size, spec.heads, spec.kv_heads, spec.head_dim) == (32, 4096, 32, 8, 128)
    assert (spec.experts, spec.experts_per_token, spec.max_context) == (0, 0, 131072)
    assert spec.params_b == pytest.approx(8.03, abs=0.01)  # published 8.03B
    assert spec.active_params_b == spec.params_b
    assert spec.name == "Llama-3.1-8B-Instruct" and "params_b" in spec.estimated_fields


def test_moe_gpt_oss_matches_published_totals():
    spec = parse(GPT_OSS_120B, quantization="mxfp4")
    assert (spec.experts, spec.experts_per_token, spec.kv_layers) == (128, 4, 18)
    assert spec.params_b == pytest.approx(116.83, rel=0.01)  # published 116.83B
    assert spec.active_params_b == pytest.approx(5.13, rel=0.02)  # published 5.13B


def test_mla_deepseek():
    spec = parse(DEEPSEEK_V3, quantization="fp8")
    assert spec.params_b == pytest.approx(671, rel=0.01)
    assert spec.active_params_b == pytest.approx(37, rel=0.03)
    assert (spec.kv_cache_dim, spec.head_dim, spec.experts) == (576, 128, 256)


def test_qwen_moe_spelling_num_experts():
    spec = parse(QWEN3_30B_A3B, quantization="fp8")
    assert (spec.experts, spec.experts_per_token) == (128, 8)
    assert spec.params_b == pytest.approx(30.5, rel=0.02)  # published 30.5B
    # Qwen's published 3.3B active counts the input-embedding lookup; the
    # parser leaves it out (one row read per token), as OpenAI's figures do
    assert spec.active_params_b == pytest.approx(3.3 - 151936 * 2048 / 1e9, rel=0.03)


def test_given_params_win_and_head_dim_defaults_to_hidden_over_heads():
    cfg = {k: v for k, v in LLAMA_31_8B.items() if k != "intermediate_size"}
    spec = parse(cfg, params_b=8.0)
    assert spec.params_b == 8.0 and spec.head_dim == 128 and spec.estimated_fields == ()


def test_multimodal_text_config_is_read():
    spec = parse({"architectures": ["Gemma3ForConditionalGeneration"], "text_config": LLAMA_31_8B})
    assert isinstance(spec, ModelSpec) and spec.layers == 32


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "config"),
        ("{not json", "config"),
        ("[1, 2]", "config"),
        ('{"model_type": "bert-ish", "labels": 3}', "config"),
    ],
)
def test_not_a_config(text, field):
    errors = parse_hf_config(text, slug="m", quantization="bf16")
    assert isinstance(errors, list) and errors[0][0] == field


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"num_hidden_layers": "32"}, "num_hidden_layers"),
        ({"num_attention_heads": None}, "num_attention_heads"),
        ({"max_position_embeddings": None}, "max_position_embeddings"),
        ({"num_key_value_heads": 7}, "kv_heads"),
        ({"num_hidden_layers": 0}, "num_hidden_layers"),
        ({"intermediate_size": None}, "intermediate_size"),
        ({"max_position_embeddings": 50_000_000}, "max_context"),
    ],
)
def test_bad_fields_are_named(change, field):
    errors = parse({**LLAMA_31_8B, **change})
    assert isinstance(errors, list) and field in [f for f, _ in errors], errors


def test_bad_quantization_and_slug():
    assert parse(LLAMA_31_8B, quantization="q4_k_m")[0][0] == "quantization"
    assert "slug" in [f for f, _ in parse(LLAMA_31_8B, slug="Not A Slug")]
    assert suggest_slug("meta-llama/Llama-3.1-8B-Instruct") == "llama-3.1-8b-instruct"
    assert parse(LLAMA_31_8B, slug=suggest_slug("Weird  Name!!")).slug == "weird-name"


@given(
    st.dictionaries(
        st.sampled_from(sorted(set(LLAMA_31_8B) | set(DEEPSEEK_V3))),
        st.none() | st.booleans() | st.integers(-5, 10**6) | st.text(max_size=5),
    )
)
def test_never_raises_on_odd_values(changes):
    result = parse({**DEEPSEEK_V3, **changes})
    assert isinstance(result, (ModelSpec, list))
    if isinstance(result, ModelSpec):
        assert result.validate() == []
