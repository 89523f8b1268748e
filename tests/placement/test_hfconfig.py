"""Hugging Face config.json to ModelSpec, and the parameter estimate."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from placement.hfconfig import parse_hf_config
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
    assert parse(LLAMA_31_8B, quantization="q4_k_xl")[0][0] == "quantization"
    assert parse(LLAMA_31_8B, quantization="q4_k_m").quantization == "Q4_K_M"  # any case names the format
    assert "slug" in [f for f, _ in parse(LLAMA_31_8B, slug="Not A Slug")]


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


# Nemotron-3-Nano-30B-A3B's public config.json (nemotron_h; trimmed to what the parser reads).
NEMOTRON_3_NANO = {
    "architectures": ["NemotronHForCausalLM"],
    "model_type": "nemotron_h",
    "hidden_size": 2688,
    "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
    "intermediate_size": 1856,
    "mamba_head_dim": 64,
    "mamba_num_heads": 64,
    "mamba_ssm_cache_dtype": "float32",
    "ssm_state_size": 128,
    "n_groups": 8,
    "conv_kernel": 4,
    "expand": 2,
    "head_dim": 128,
    "max_position_embeddings": 262144,
    "mlp_hidden_act": "relu2",
    "moe_intermediate_size": 1856,
    "moe_shared_expert_intermediate_size": 3712,
    "n_routed_experts": 128,
    "n_shared_experts": 1,
    "num_attention_heads": 32,
    "num_experts_per_tok": 6,
    "num_hidden_layers": 52,
    "num_key_value_heads": 2,
    "vocab_size": 131072,
    "tie_word_embeddings": False,
}
# Qwen3-Next-80B-A3B's shape (qwen3_next: gated DeltaNet with full attention every 4th layer).
QWEN3_NEXT = {
    "architectures": ["Qwen3NextForCausalLM"],
    "model_type": "qwen3_next",
    "hidden_size": 2048,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "full_attention_interval": 4,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4,
    "num_experts": 512,
    "num_experts_per_tok": 10,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
    "intermediate_size": 5120,
    "vocab_size": 151936,
    "max_position_embeddings": 262144,
    "tie_word_embeddings": False,
}


def test_a_nemotron_h_config_gives_its_blocks_mamba_state_and_experts():
    spec = parse_hf_config(json.dumps(NEMOTRON_3_NANO), slug="nano", quantization="bf16")
    assert isinstance(spec, ModelSpec), spec
    assert (spec.layers, spec.mixers, spec.ffns, spec.linear_layers, spec.kv_layers) == (52, 29, 23, 23, 6)
    assert spec.linear_kind == "mamba2" and spec.shared_experts == 1
    # 64 heads x 64 x 128 in float32, and the convolution's (4096 + 2 x 8 x 128) x 3 bf16 inputs
    assert spec.state_bytes == 64 * 64 * 128 * 4 + (4096 + 2 * 8 * 128) * 3 * 2
    # 31.6B total and 3.2B active (NVIDIA's figures), block by block with relu2's two matrices
    assert spec.params_b == pytest.approx(31.6, rel=0.01)
    assert spec.active_params_b == pytest.approx(3.2, rel=0.03)
    assert spec.kv_bytes_per_token() == 6 * 2 * 2 * 128 * 2


def test_a_qwen3_next_config_gives_its_deltanet_layers_and_their_state():
    spec = parse_hf_config(json.dumps(QWEN3_NEXT), slug="next", quantization="fp8")
    assert isinstance(spec, ModelSpec), spec
    assert (spec.linear_layers, spec.kv_layers, spec.linear_kind) == (36, 12, "gated-deltanet")
    assert spec.state_bytes == 32 * 128 * 128 * 2 + (2 * 16 * 128 + 32 * 128) * 3 * 2
    assert "state_bytes" in spec.estimated_fields  # counted in bf16: engines may keep it wider
    assert spec.params_b == pytest.approx(80.0, rel=0.05)


def test_sliding_windows_are_read_from_layer_types_or_the_gemma_pattern():
    gpt = parse_hf_config(json.dumps({**GPT_OSS_120B, "sliding_window": 128}), slug="g", quantization="mxfp4")
    assert isinstance(gpt, ModelSpec) and (gpt.kv_layers, gpt.sliding_window, gpt.sliding_layers) == (18, 128, 18)
    gemma = {
        "hidden_size": 2560,
        "num_hidden_layers": 34,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "intermediate_size": 10240,
        "vocab_size": 262208,
        "max_position_embeddings": 131072,
        "sliding_window": 1024,
        "sliding_window_pattern": 6,
    }
    spec = parse_hf_config(json.dumps(gemma), slug="gemma", quantization="bf16")
    assert isinstance(spec, ModelSpec) and (spec.kv_layers, spec.sliding_window, spec.sliding_layers) == (5, 1024, 29)


def test_sizes_beyond_any_model_and_numbers_python_cannot_read_are_named_not_raised():
    """A hidden_size of 10**200 overflowed the estimate's float and a 5,000-digit
    number Python's int limit: both answered 500."""
    huge = parse({**LLAMA_31_8B, "hidden_size": 10**200})
    assert huge == [("hidden_size", "must be at most 1,000,000,000, got a number of 201 digits")]
    long = parse_hf_config('{"num_hidden_layers": ' + "9" * 5000 + "}", slug="m", quantization="bf16")
    assert isinstance(long, list) and long[0][0] == "config" and "4300" in long[0][1]
    many = parse({**QWEN3_NEXT, "num_hidden_layers": 10**7})  # once built a 10-million-layer list first
    assert many == [("num_hidden_layers", "must be at most 10,000, got 10,000,000")]


def test_a_nemotron_h_pattern_must_give_every_layer_its_block():
    short = parse({**NEMOTRON_3_NANO, "hybrid_override_pattern": "M*"})
    assert short == [("hybrid_override_pattern", "has 2 blocks for num_hidden_layers 52: one per layer")]


def test_a_name_a_page_could_not_show_gives_way_to_the_slug():
    spec = parse({**LLAMA_31_8B, "_name_or_path": "org/\u0007bad\nname\u202e"}, slug="odd-name")
    assert isinstance(spec, ModelSpec) and spec.name == "odd-name"
    assert parse({**LLAMA_31_8B, "_name_or_path": "meta-llama/Llama-3.1-8B"}).name == "Llama-3.1-8B"
