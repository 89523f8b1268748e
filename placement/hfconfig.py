"""Build a ModelSpec from a Hugging Face config.json the user pastes or uploads.

Owns the mapping from HF field names (several spellings across model
families) to ModelSpec, and the parameter-count estimate used when the user
does not give one. Nothing is downloaded: the text is all there is.

Parameter estimate (weights only; norms and biases are negligible):
  embeddings   vocab x hidden, twice unless tie_word_embeddings
  attention    per layer: hidden x heads x head_dim (Q) + 2 x hidden x kv_heads
               x head_dim (K, V) + heads x head_dim x hidden (O); for MLA
               (kv_lora_rank set) the low-rank Q/KV projections instead
  dense MLP    per layer: 3 x hidden x intermediate_size (gated: gate, up, down)
  MoE layer    experts x 3 x hidden x moe_intermediate_size, plus shared
               experts, plus the router (hidden x experts); the first
               `first_k_dense_replace` layers are dense
  active       total minus the routed experts a token does not use and, for
               MoE, minus the input-embedding lookup (as published figures do)
  hybrids      Nemotron-H blocks (``hybrid_override_pattern`` or
               ``layers_block_type``: Mamba-2, attention, MLP or MoE, each its
               own block, relu2 MLPs of two matrices); gated-DeltaNet layers
               (Qwen3-Next, Qwen3.5: ``layer_types`` or
               ``full_attention_interval``) priced by their projections
Checked against public totals: Llama-3.1-8B 8.03B, gpt-oss-120b 116.8B,
DeepSeek-V3 671B, Nemotron-3-Nano 31.6B (see tests/placement/test_hfconfig.py).

Layer kinds (``layer_kinds``): full and sliding-window attention from
``layer_types`` / ``sliding_window`` (Gemma, gpt-oss), linear attention
(gated DeltaNet) and Mamba-2 mixers with their recurrent state per stream
(conv state + SSM or delta state; Mamba's in ``mamba_ssm_cache_dtype``,
DeltaNet's in bf16, estimated: engines may keep it wider), MoE shared experts,
and MLA's latent cache.
"""

from __future__ import annotations

import json
from typing import Any

from core.validation import MAX_JSON_DEPTH, json_too_deep, text_problem
from placement.model_catalogue import QUANT_BYTES, ModelSpec
from placement.model_spec import SPEC_NUMBER_RANGES
from placement.quants import canonical_quantization

Errors = list[tuple[str, str]]

_EXPERT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts")
_EXPERTS_PER_TOKEN_KEYS = ("num_experts_per_tok", "experts_per_token", "num_experts_per_token")


# No size in a config.json comes near it (vocabularies and contexts are millions at
# most); above it an estimate overflowed a float (a hidden_size of 10**200 answered 500).
MAX_CONFIG_INT = 10**9


def _int_field(
    cfg: dict[str, Any], keys: tuple[str, ...], errors: Errors, *, required: bool, minimum: int = 1
) -> int | None:
    for key in keys:
        if key in cfg and cfg[key] is not None:
            value: object = cfg[key]
            if isinstance(value, bool) or not isinstance(value, int):
                errors.append((key, f"expected a whole number, got {value!r}"[:120]))
                return None
            if value < minimum:
                errors.append((key, f"must be at least {minimum}, got {value}"[:120]))
                return None
            if value > MAX_CONFIG_INT:
                errors.append((key, f"must be at most {MAX_CONFIG_INT:,}, got a number of {len(str(value))} digits"))
                return None
            return value
    if required:
        errors.append((keys[0], "missing from config.json"))
    return None


def _text_config(data: dict[str, Any]) -> dict[str, Any]:
    # multimodal configs (Gemma 3, Llama 4, Qwen-VL...) nest the language model
    nested = data.get("text_config")
    if "num_hidden_layers" not in data and isinstance(nested, dict):
        merged = dict(data)
        merged.update(nested)
        return merged
    return data


_FULL = ("full_attention", "attention", "global")
_SLIDING = ("sliding_attention", "sliding_window", "local", "chunked_attention")
_LINEAR = ("linear_attention", "gated_deltanet", "deltanet")
_BLOCK_CODES = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}


def _blocks_problem(cfg: dict[str, Any], layers: int) -> str | None:
    """Why Nemotron-H's pattern cannot describe ``layers`` layers (its blocks are the layers), or None."""
    blocks = _blocks(cfg)
    if blocks is not None and len(blocks) != layers:
        return f"has {len(blocks)} blocks for num_hidden_layers {layers}: one per layer"
    return None


def _blocks(cfg: dict[str, Any]) -> list[str] | None:
    """Nemotron-H's block kinds in order, from either spelling of its pattern."""
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern and set(pattern) <= set(_BLOCK_CODES):
        return [_BLOCK_CODES[c] for c in pattern]
    kinds = cfg.get("layers_block_type")
    if isinstance(kinds, list) and kinds and all(k in _BLOCK_CODES.values() for k in kinds):
        return list(kinds)
    return None


def _layer_types(cfg: dict[str, Any], layers: int) -> list[str] | None:
    types = cfg.get("layer_types")
    if isinstance(types, list) and len(types) == layers and all(isinstance(t, str) for t in types):
        return list(types)
    interval = cfg.get("full_attention_interval")
    if isinstance(interval, int) and not isinstance(interval, bool) and interval > 1:
        # Qwen3-Next: every interval-th layer is full attention, the others gated DeltaNet
        return ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(layers)]
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and not isinstance(pattern, bool) and pattern > 1 and cfg.get("sliding_window"):
        # Gemma 3: every pattern-th layer is global, the others local
        return ["full_attention" if (i + 1) % pattern == 0 else "sliding_attention" for i in range(layers)]
    return None


def _n(cfg: dict[str, Any], key: str, default: int = 0) -> int:
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _mamba_state_bytes(cfg: dict[str, Any], hidden: int) -> int:
    heads = _n(cfg, "mamba_num_heads")
    head_dim = _n(cfg, "mamba_head_dim")
    inner = heads * head_dim or _n(cfg, "expand", 2) * hidden
    state = _n(cfg, "ssm_state_size", 128)
    groups = _n(cfg, "n_groups", 1)
    kernel = _n(cfg, "conv_kernel", 4)
    ssm_bytes = 4 if cfg.get("mamba_ssm_cache_dtype") in ("float32", "fp32") else 2
    return (heads or 1) * (head_dim or inner) * state * ssm_bytes + (inner + 2 * groups * state) * (kernel - 1) * 2


def _deltanet_state_bytes(cfg: dict[str, Any]) -> int:
    k_heads = _n(cfg, "linear_num_key_heads", 16)
    v_heads = _n(cfg, "linear_num_value_heads", 32)
    k_dim = _n(cfg, "linear_key_head_dim", 128)
    v_dim = _n(cfg, "linear_value_head_dim", 128)
    kernel = _n(cfg, "linear_conv_kernel_dim", 4)
    return v_heads * k_dim * v_dim * 2 + (2 * k_heads * k_dim + v_heads * v_dim) * (kernel - 1) * 2


def layer_kinds(cfg: dict[str, Any], layers: int, hidden: int) -> dict[str, Any]:
    """The ModelSpec layer-kind fields a config.json describes (empty: a plain transformer)."""
    cfg = _text_config(cfg)
    kinds: dict[str, Any] = {}
    shared = _n(cfg, "n_shared_experts") or (1 if _n(cfg, "shared_expert_intermediate_size") else 0)
    if shared and (_n(cfg, "num_experts") or _n(cfg, "n_routed_experts") or _n(cfg, "num_local_experts")):
        kinds["shared_experts"] = shared
    blocks = _blocks(cfg)
    if blocks is not None:
        mamba, attention = blocks.count("mamba"), blocks.count("attention")
        kinds.update(
            mixer_layers=mamba + attention,
            ffn_layers=blocks.count("mlp") + blocks.count("moe"),
            kv_layers=attention or None,
        )
        if mamba:
            kinds.update(linear_layers=mamba, linear_kind="mamba2", state_bytes=_mamba_state_bytes(cfg, hidden))
        return kinds
    types = _layer_types(cfg, layers)
    if types is None:
        return kinds
    linear = sum(1 for t in types if t in _LINEAR)
    full = sum(1 for t in types if t in _FULL)
    sliding = sum(1 for t in types if t in _SLIDING)
    if linear:
        kinds.update(linear_layers=linear, linear_kind="gated-deltanet", state_bytes=_deltanet_state_bytes(cfg))
    if 0 < full < layers:
        kinds["kv_layers"] = full
    window = cfg.get("sliding_window")
    if sliding and isinstance(window, int) and not isinstance(window, bool) and window > 0:
        kinds["sliding_window"] = window
    return kinds


def estimate_params(cfg: dict[str, Any], errors: Errors) -> tuple[float, float] | None:
    """(total, active) parameters in billions, or None with errors added."""
    cfg = _text_config(cfg)
    layers = _int_field(cfg, ("num_hidden_layers",), errors, required=True)
    hidden = _int_field(cfg, ("hidden_size",), errors, required=True)
    heads = _int_field(cfg, ("num_attention_heads",), errors, required=True)
    vocab = _int_field(cfg, ("vocab_size",), errors, required=True)
    if None in (layers, hidden, heads, vocab):
        return None
    assert layers and hidden and heads and vocab
    kv_heads = _int_field(cfg, ("num_key_value_heads",), errors, required=False) or heads
    head_dim = _int_field(cfg, ("head_dim",), errors, required=False) or hidden // heads
    experts = _int_field(cfg, _EXPERT_KEYS, errors, required=False, minimum=0) or 0
    per_token = _int_field(cfg, _EXPERTS_PER_TOKEN_KEYS, errors, required=False, minimum=0) or 0
    inter = _int_field(cfg, ("intermediate_size", "ffn_hidden_size"), errors, required=experts == 0)
    moe_inter = _int_field(cfg, ("moe_intermediate_size",), errors, required=False) or inter
    if experts and moe_inter is None:
        errors.append(("moe_intermediate_size", "missing: needed to size the experts"))
    if errors:
        return None

    embeddings = vocab * hidden * (1 if cfg.get("tie_word_embeddings") else 2)
    kv_lora = _int_field(cfg, ("kv_lora_rank",), errors, required=False)
    if kv_lora:  # multi-head latent attention (DeepSeek-style)
        rope = _int_field(cfg, ("qk_rope_head_dim",), errors, required=False) or 64
        nope = _int_field(cfg, ("qk_nope_head_dim",), errors, required=False) or head_dim
        v_dim = _int_field(cfg, ("v_head_dim",), errors, required=False) or head_dim
        q_lora = _int_field(cfg, ("q_lora_rank",), errors, required=False)
        q_proj = (hidden * q_lora + q_lora * heads * (nope + rope)) if q_lora else hidden * heads * (nope + rope)
        kv_proj = hidden * (kv_lora + rope) + kv_lora * heads * (nope + v_dim)
        attention = q_proj + kv_proj + heads * v_dim * hidden
    else:
        attention = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim

    blocks = _blocks(cfg)
    if blocks is not None:
        return _estimate_blocks(
            cfg, blocks, hidden, heads, kv_heads, head_dim, vocab, experts, per_token, inter, moe_inter
        )
    types = _layer_types(cfg, layers) or []
    linear = sum(1 for t in types if t in _LINEAR)
    if linear:
        # a gated-DeltaNet layer projects q, k (key heads), v, z (value heads), the
        # a/b gates, and back out; it replaces attention on those layers
        k_heads, v_heads = _n(cfg, "linear_num_key_heads", 16), _n(cfg, "linear_num_value_heads", 32)
        k_dim, v_dim = _n(cfg, "linear_key_head_dim", 128), _n(cfg, "linear_value_head_dim", 128)
        deltanet = hidden * (2 * k_heads * k_dim + 2 * v_heads * v_dim + 2 * v_heads) + v_heads * v_dim * hidden
        attention = (attention * (layers - linear) + deltanet * linear) // layers

    dense_layers = layers
    moe_total = moe_active = 0
    if experts:
        assert moe_inter is not None
        first_dense = _int_field(cfg, ("first_k_dense_replace",), errors, required=False, minimum=0) or 0
        dense_layers = min(first_dense, layers)
        moe_layers = layers - dense_layers
        expert = 3 * hidden * moe_inter
        shared_count = _int_field(cfg, ("n_shared_experts",), errors, required=False, minimum=0) or 0
        shared_inter = _int_field(cfg, ("shared_expert_intermediate_size",), errors, required=False)
        shared = shared_count * expert + (3 * hidden * shared_inter if shared_inter else 0)
        router = hidden * experts
        moe_total = moe_layers * (experts * expert + shared + router)
        moe_active = moe_layers * (per_token * expert + shared + router)
    dense_mlp = 3 * hidden * (inter or 0) * dense_layers
    common = embeddings + layers * attention + dense_mlp
    total = (common + moe_total) / 1e9
    if not experts:
        return total, total
    # MoE "active" figures (OpenAI's, DeepSeek's) leave out the input-embedding
    # lookup, which reads one row per token
    input_embedding = vocab * hidden if not cfg.get("tie_word_embeddings") else 0
    return total, (common + moe_active - input_embedding) / 1e9


def _estimate_blocks(
    cfg: dict[str, Any],
    blocks: list[str],
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    vocab: int,
    experts: int,
    per_token: int,
    inter: int | None,
    moe_inter: int | None,
) -> tuple[float, float]:
    """(total, active) billions of a Nemotron-H stack, block by block (relu2 MLPs: two matrices)."""
    mats = 2 if cfg.get("mlp_hidden_act", cfg.get("hidden_act")) == "relu2" else 3
    m_heads, m_dim = _n(cfg, "mamba_num_heads"), _n(cfg, "mamba_head_dim")
    inner = m_heads * m_dim or _n(cfg, "expand", 2) * hidden
    groups, state = _n(cfg, "n_groups", 1), _n(cfg, "ssm_state_size", 128)
    mamba = hidden * (2 * inner + 2 * groups * state + m_heads) + inner * hidden
    attention = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim
    mlp = mats * hidden * (inter or 0)
    expert = mats * hidden * (moe_inter or inter or 0)
    shared = mats * hidden * _n(cfg, "moe_shared_expert_intermediate_size") * max(_n(cfg, "n_shared_experts", 1), 1)
    router = hidden * experts
    per_block = {"mamba": mamba, "attention": attention, "mlp": mlp}
    common = sum(per_block.get(b, 0) for b in blocks)
    moe_blocks = blocks.count("moe")
    embeddings = vocab * hidden * (1 if cfg.get("tie_word_embeddings") else 2)
    total = embeddings + common + moe_blocks * (experts * expert + shared + router)
    active = embeddings + common + moe_blocks * (per_token * expert + shared + router)
    if experts:
        active -= vocab * hidden if not cfg.get("tie_word_embeddings") else 0
    return total / 1e9, active / 1e9


def _name_from(cfg: dict[str, Any], slug: str) -> str:
    """The display name the config carries, or the slug where it carries none a
    page could show (a control character, as the ``name`` field refuses)."""
    name = cfg.get("_name_or_path")
    if isinstance(name, str) and name.strip():
        shown = name.strip().split("/")[-1][:100]
        return shown if shown.strip() and text_problem(shown) is None else slug
    return slug


def _config_document(text: str, quantization: str) -> tuple[dict[str, Any], dict[str, Any], str] | Errors:
    """The whole document, its text model's config and the quantization's own name, or why it is not a
    model config.json."""
    if not isinstance(text, str):
        return [("config", "not a model config: give the text of config.json, or its JSON object")]
    if not text.strip():
        return [("config", "empty")]
    if json_too_deep(text):  # json.loads recurses: deep enough, it raises RecursionError
        return [("config", f"not a model config: nested deeper than {MAX_JSON_DEPTH} levels")]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return [("config", f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")]
    except ValueError as exc:  # a number of more than 4,300 digits (Python's int limit) answered 500
        return [("config", f"not a model config: {exc}"[:200])]
    if not isinstance(data, dict):
        return [("config", "not a model config: expected a JSON object")]
    cfg = _text_config(data)
    if "num_hidden_layers" not in cfg and "hidden_size" not in cfg:
        return [("config", "not a model config.json: no num_hidden_layers or hidden_size")]
    quantization = canonical_quantization(quantization)
    if quantization not in QUANT_BYTES:
        return [("quantization", f"unknown; one of {', '.join(sorted(QUANT_BYTES))}")]
    return data, cfg, quantization


def _config_shape(cfg: dict[str, Any]) -> dict[str, Any] | Errors:
    """The layer, head, expert and context sizes ModelSpec takes, read from ``cfg``."""
    errors: Errors = []
    layers = _int_field(cfg, ("num_hidden_layers",), errors, required=True)
    hidden = _int_field(cfg, ("hidden_size",), errors, required=True)
    heads = _int_field(cfg, ("num_attention_heads",), errors, required=True)
    kv_heads = _int_field(cfg, ("num_key_value_heads",), errors, required=False)
    head_dim = _int_field(cfg, ("head_dim",), errors, required=False)
    experts = _int_field(cfg, _EXPERT_KEYS, errors, required=False, minimum=0) or 0
    per_token = _int_field(cfg, _EXPERTS_PER_TOKEN_KEYS, errors, required=False, minimum=0) or 0
    context = _int_field(cfg, ("max_position_embeddings", "max_sequence_length", "seq_length"), errors, required=True)
    kv_lora = _int_field(cfg, ("kv_lora_rank",), errors, required=False)
    rope = _int_field(cfg, ("qk_rope_head_dim",), errors, required=False)
    if errors:
        return errors
    assert layers and hidden and heads and context
    if layers > SPEC_NUMBER_RANGES["layers"][1]:  # before a layer list is built for them
        return [("num_hidden_layers", f"must be at most {SPEC_NUMBER_RANGES['layers'][1]:,}, got {layers:,}")]
    if (problem := _blocks_problem(cfg, layers)) is not None:
        key = "hybrid_override_pattern" if "hybrid_override_pattern" in cfg else "layers_block_type"
        return [(key, problem)]
    if head_dim is None and kv_lora:
        # MLA configs give per-head sizes separately; the value head is the one
        # attention reads and writes
        head_dim = _int_field(cfg, ("v_head_dim",), errors, required=False)
    if head_dim is None:
        if hidden % heads:
            return [("head_dim", f"missing, and hidden_size {hidden} is not a multiple of num_attention_heads {heads}")]
        head_dim = hidden // heads
    return {
        "layers": layers,
        "hidden_size": hidden,
        "heads": heads,
        "kv_heads": heads if kv_heads is None else kv_heads,  # HF convention: absent means multi-head attention
        "head_dim": head_dim,
        "experts": experts,
        "experts_per_token": per_token if experts else 0,
        "max_context": context,
        "kv_cache_dim": (kv_lora + (rope or 0)) if kv_lora else None,
    }


def _config_sizes(
    data: dict[str, Any], experts: int, params_b: float | None, active_params_b: float | None
) -> tuple[float, float, list[str]] | Errors:
    """Total and active parameters (billions): as given, else estimated from the
    config, with the names of the estimated ones."""
    estimated: list[str] = []
    errors: Errors = []
    if params_b is None:
        estimate = estimate_params(data, errors)
        if estimate is None:
            return errors or [("params_b", "cannot be estimated from this config: give it")]
        params_b, estimate_active = estimate
        estimated.append("params_b")
        if active_params_b is None:
            active_params_b = estimate_active
            estimated.append("active_params_b")
    if active_params_b is None:
        if experts:
            estimate = estimate_params(data, [])
            if estimate is None:
                return [("active_params_b", "give it for a MoE model: it cannot be estimated from this config")]
            active_params_b = params_b * estimate[1] / estimate[0]
            estimated.append("active_params_b")
        else:
            active_params_b = params_b
    params_b = round(params_b, 3)
    return params_b, params_b if experts == 0 else round(active_params_b, 3), estimated


def parse_hf_config(
    text: str,
    *,
    slug: str,
    quantization: str,
    params_b: float | None = None,
    active_params_b: float | None = None,
    name: str | None = None,
    weights_gb: float | None = None,
) -> ModelSpec | Errors:
    """A ModelSpec from config.json text, or a list of (field, message) errors.

    `params_b` (and `active_params_b` for MoE) override the estimate above.
    """
    document = _config_document(text, quantization)
    if isinstance(document, list):
        return document
    data, cfg, quantization = document
    shape = _config_shape(cfg)
    if isinstance(shape, list):
        return shape
    sizes = _config_sizes(data, shape["experts"], params_b, active_params_b)
    if isinstance(sizes, list):
        return sizes
    params_b, active_params_b, estimated = sizes
    kinds = layer_kinds(cfg, shape["layers"], shape["hidden_size"])
    if kinds.get("state_bytes") and kinds.get("linear_kind") == "gated-deltanet":
        estimated.append("state_bytes")
    spec = ModelSpec(
        slug=slug,
        name=name or _name_from(cfg, slug),
        params_b=params_b,
        active_params_b=active_params_b,
        **shape,
        quantization=quantization,
        weights_gb=weights_gb,
        **kinds,
        notes=("parsed from config.json" + (f"; estimated: {', '.join(estimated)}" if estimated else "")),
        estimated_fields=tuple(estimated),
    )
    problems = spec.validate()
    if problems:
        return problems
    return spec
