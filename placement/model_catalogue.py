"""The seed model catalogue, and the variant a plan is made for.

``SEED_MODELS`` are the models the catalogue table starts with (and the
models of the published figures the performance model is checked on);
architecture numbers are the public config.json values where the model is
public, estimates otherwise (named in ``estimated_fields``, with the reason
in ``notes``). ``choose_variant`` picks the quantized form an engine loads.
The spec itself lives in ``placement.model_spec`` (re-exported here).

Units: GB means 10**9 bytes everywhere in ``placement``; params are in billions.
"""

from __future__ import annotations

from dataclasses import dataclass

from placement.model_spec import (
    DEFAULT_KV_DTYPE,
    KV_DTYPE_BYTES,
    LINEAR_KINDS,
    MAX_CONTEXT_TOKENS,
    QUANT_BYTES,
    SPEC_NUMBER_RANGES,
    SPEC_TEXT_LENGTHS,
    ModelSpec,
    deltanet_state_bytes,
)
from placement.published_models import PUBLISHED_RUN_MODELS
from placement.quants import ModelVariant, engine_reference, variant_for_engine

__all__ = [
    "DEFAULT_KV_DTYPE",
    "KV_DTYPE_BYTES",
    "LINEAR_KINDS",
    "MAX_CONTEXT_TOKENS",
    "QUANT_BYTES",
    "SEED_BY_SLUG",
    "SEED_MODELS",
    "SPEC_NUMBER_RANGES",
    "SPEC_TEXT_LENGTHS",
    "ModelSpec",
    "VariantChoice",
    "choose_variant",
    "get_seed_model",
]


# The seed catalogue. Architecture numbers are the public config.json values
# where the model is public; models known only from published figures (docs/figures.md) carry
# their estimated fields in ``estimated_fields`` and the reason in ``notes``.
QWEN_NEXT_DELTANET_STATE = deltanet_state_bytes(32)
QWEN27_DELTANET_STATE = deltanet_state_bytes(48)
QWEN397_DELTANET_STATE = deltanet_state_bytes(64)

SEED_MODELS: tuple[ModelSpec, ...] = (
    ModelSpec(
        slug="qwen3.8-27b",
        name="Qwen3.8-27B",
        params_b=27.0,
        active_params_b=27.0,
        layers=64,
        hidden_size=5120,
        heads=24,
        kv_heads=4,
        head_dim=256,
        experts=0,
        experts_per_token=0,
        quantization="nvfp4",
        weights_gb=None,
        hf_repo="nvidia/Qwen3.8-27B-NVFP4",  # NVIDIA's published NVFP4 build (docs/figures.md, references)
        max_context=262_144,
        kv_layers=16,
        linear_layers=48,
        linear_kind="gated-deltanet",
        state_bytes=QWEN27_DELTANET_STATE,
        notes=(
            "Dense 27B in NVFP4 (NVIDIA's 2026-10 scaling table, docs/figures.md). Architecture not "
            "published there: shape assumed equal to Qwen3.5-27B's public config (64 layers, hybrid "
            "3 gated-DeltaNet : 1 full-attention, so 16 layers keep a KV cache; 48 value heads of "
            "128 x 128 per DeltaNet layer, state in bf16)."
        ),
        estimated_fields=(
            "layers",
            "hidden_size",
            "heads",
            "kv_heads",
            "head_dim",
            "max_context",
            "kv_layers",
            "linear_layers",
            "state_bytes",
        ),
        variants=(
            ModelVariant("nvfp4", hf_repo="nvidia/Qwen3.8-27B-NVFP4"),
            ModelVariant("bf16", hf_repo="Qwen/Qwen3.8-27B"),
            ModelVariant("fp8", hf_repo="Qwen/Qwen3.8-27B-FP8"),
        ),
    ),
    ModelSpec(
        slug="glm-5.3",
        name="GLM-5.3",
        params_b=753.0,
        active_params_b=40.0,
        layers=78,
        hidden_size=6144,
        heads=64,
        kv_heads=64,
        head_dim=256,
        experts=256,
        experts_per_token=8,
        quantization="nvfp4",
        weights_gb=470.0,
        hf_repo="nvidia/GLM-5.3-NVFP4",  # NVIDIA's published NVFP4 build (docs/figures.md, references)
        max_context=202_752,
        kv_cache_dim=576,
        notes=(
            "753B MoE, about 470 GB in NVFP4, runs on 8 nodes (NVIDIA 2026-10, docs/figures.md). Shape "
            "estimated from GLM-5's public config (78 layers, 256 experts of which 8 active, about "
            "40B active, MLA latent KV cache of 512+64 values per layer)."
        ),
        estimated_fields=(
            "active_params_b",
            "layers",
            "hidden_size",
            "heads",
            "kv_heads",
            "head_dim",
            "experts",
            "experts_per_token",
            "max_context",
            "kv_cache_dim",
        ),
    ),
    ModelSpec(
        slug="gpt-oss-20b",
        name="gpt-oss-20b",
        params_b=20.91,
        active_params_b=3.61,
        layers=24,
        hidden_size=2880,
        heads=64,
        kv_heads=8,
        head_dim=64,
        experts=32,
        experts_per_token=4,
        quantization="mxfp4",
        weights_gb=13.7,
        max_context=131_072,
        kv_layers=12,
        sliding_window=128,
        hf_repo="openai/gpt-oss-20b",
        notes=(
            "Public config. Checkpoint 12.8 GiB (13.7 GB) per OpenAI's model card. Alternating "
            "128-token sliding-window and full attention: 12 layers keep a full-length KV cache."
        ),
        variants=(
            ModelVariant("mxfp4", 13.7, hf_repo="openai/gpt-oss-20b"),
            ModelVariant(
                "MXFP4_MOE",
                round(11.27 * 1.073741824, 2),
                gguf_repo="ggml-org/gpt-oss-20b-GGUF",
                notes="11.27 GiB per llama-bench on a DGX Spark (llama.cpp benches/dgx-spark.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="gpt-oss-120b",
        name="gpt-oss-120b",
        params_b=116.83,
        active_params_b=5.13,
        layers=36,
        hidden_size=2880,
        heads=64,
        kv_heads=8,
        head_dim=64,
        experts=128,
        experts_per_token=4,
        quantization="mxfp4",
        weights_gb=65.3,
        max_context=131_072,
        kv_layers=18,
        sliding_window=128,
        hf_repo="openai/gpt-oss-120b",
        notes=(
            "Public config. Checkpoint 60.8 GiB (65.3 GB) per OpenAI's model card. Alternating "
            "sliding-window and full attention: 18 layers keep a full-length KV cache."
        ),
        variants=(
            ModelVariant("mxfp4", 65.3, hf_repo="openai/gpt-oss-120b"),
            ModelVariant(
                "MXFP4_MOE",
                round(59.02 * 1.073741824, 2),
                gguf_repo="ggml-org/gpt-oss-120b-GGUF",
                notes="59.02 GiB per llama-bench on a DGX Spark (llama.cpp benches/dgx-spark.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen3.6-35b-a3b",
        name="Qwen3.6-35B-A3B",
        params_b=35.0,
        active_params_b=3.0,
        layers=40,
        hidden_size=2048,
        heads=16,
        kv_heads=2,
        head_dim=256,
        experts=256,
        experts_per_token=8,
        quantization="nvfp4",
        weights_gb=None,
        hf_repo="RedHatAI/Qwen3.6-35B-A3B-NVFP4",
        max_context=262_144,
        kv_layers=10,
        linear_layers=30,
        linear_kind="gated-deltanet",
        state_bytes=QWEN_NEXT_DELTANET_STATE,
        shared_experts=1,
        notes=(
            "MoE, NVFP4 (vLLM recipes PR 918: 97.7 tok/s decode on one node, docs/figures.md). Shape assumed "
            "equal to Qwen3.5-35B-A3B's public config (hybrid: 30 gated-DeltaNet and 10 full-attention "
            "layers; 256 experts, 8 routed + 1 shared; 32 value heads of 128 x 128 per DeltaNet layer, "
            "state in bf16)."
        ),
        estimated_fields=(
            "layers",
            "hidden_size",
            "heads",
            "kv_heads",
            "head_dim",
            "experts",
            "experts_per_token",
            "max_context",
            "kv_layers",
            "linear_layers",
            "state_bytes",
        ),
        variants=(
            ModelVariant("nvfp4", hf_repo="RedHatAI/Qwen3.6-35B-A3B-NVFP4"),
            ModelVariant("fp8", hf_repo="Qwen/Qwen3.6-35B-A3B-FP8"),
            ModelVariant("bf16", hf_repo="Qwen/Qwen3.6-35B-A3B"),
        ),
    ),
    ModelSpec(
        slug="minicpm5-2b",
        name="MiniCPM5 2B",
        params_b=2.0,
        active_params_b=2.0,
        layers=40,
        hidden_size=2304,
        heads=36,
        kv_heads=36,
        head_dim=64,
        experts=0,
        experts_per_token=0,
        quantization="bf16",
        weights_gb=None,
        hf_repo="openbmb/MiniCPM5-2B",  # OpenBMB's published weights (docs/figures.md, references)
        max_context=32_768,
        notes=(
            "Small dense model of the router/classifier kind (NVIDIA's NeMo Switchyard, docs/hardware.md). Shape "
            "estimated from MiniCPM-2B's public config (40 layers, hidden 2304, 36 heads, no GQA); "
            "bf16 assumed."
        ),
        estimated_fields=("layers", "hidden_size", "heads", "kv_heads", "head_dim", "max_context", "quantization"),
    ),
    ModelSpec(
        slug="llama-3.3-70b",
        name="Llama-3.3-70B",
        params_b=70.55,
        active_params_b=70.55,
        layers=80,
        hidden_size=8192,
        heads=64,
        kv_heads=8,
        head_dim=128,
        experts=0,
        experts_per_token=0,
        quantization="nvfp4",
        weights_gb=None,
        max_context=131_072,
        hf_repo="nvidia/Llama-3.3-70B-Instruct-NVFP4",
        notes="Public Llama 3.3 70B config; NVFP4 weights (~4 tok/s decode on one node, docs/figures.md).",
        variants=(
            ModelVariant("nvfp4", hf_repo="nvidia/Llama-3.3-70B-Instruct-NVFP4"),
            ModelVariant("fp8", hf_repo="nvidia/Llama-3.3-70B-Instruct-FP8"),
            ModelVariant(
                "Q4_K_M",
                43.1,
                gguf_repo="bartowski/Llama-3.3-70B-Instruct-GGUF",
                gguf_file="Llama-3.3-70B-Instruct-Q4_K_M.gguf",
                notes="size of Llama 3.1 70B at Q4_K_M per llama.cpp's quantize README (same shape)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen3.5-397b-a17b",
        name="Qwen3.5-397B-A17B",
        params_b=397.0,
        active_params_b=17.0,
        layers=60,
        hidden_size=4096,
        heads=32,
        kv_heads=2,
        head_dim=256,
        experts=512,
        experts_per_token=10,
        quantization="int4",
        weights_gb=None,
        hf_repo="Intel/Qwen3.5-397B-A17B-int4-AutoRound",  # the int4 build Spark recipes serve (docs/figures.md)
        max_context=262_144,
        kv_layers=15,
        linear_layers=45,
        linear_kind="gated-deltanet",
        state_bytes=QWEN397_DELTANET_STATE,
        shared_experts=1,
        notes=(
            "MoE in int4 (a community report: 3 nodes PP3, 17.9 tok/s decode, docs/figures.md). "
            "Shape from Qwen3.5-397B-A17B's public config as recalled (60 layers, hybrid: 45 gated-DeltaNet "
            "and 15 full-attention layers, 512 experts, 10 routed + 1 shared; 64 value heads of 128 x 128 "
            "per DeltaNet layer, state in bf16): verify against the model's config.json."
        ),
        estimated_fields=(
            "layers",
            "hidden_size",
            "heads",
            "kv_heads",
            "head_dim",
            "experts",
            "experts_per_token",
            "kv_layers",
            "linear_layers",
            "state_bytes",
        ),
    ),
    ModelSpec(
        slug="llama-3.1-8b",
        name="Llama-3.1-8B-Instruct",
        params_b=8.03,
        active_params_b=8.03,
        layers=32,
        hidden_size=4096,
        heads=32,
        kv_heads=8,
        head_dim=128,
        experts=0,
        experts_per_token=0,
        quantization="bf16",
        weights_gb=None,
        max_context=131_072,
        hf_repo="meta-llama/Llama-3.1-8B-Instruct",
        notes="Public config, bf16 weights.",
        variants=(
            ModelVariant("bf16", hf_repo="meta-llama/Llama-3.1-8B-Instruct"),
            ModelVariant("fp8", hf_repo="nvidia/Llama-3.1-8B-Instruct-FP8"),
            ModelVariant("nvfp4", hf_repo="nvidia/Llama-3.1-8B-Instruct-NVFP4"),
            ModelVariant(
                "Q4_K_M",
                round(4.58 * 1.073741824, 2),
                gguf_repo="bartowski/Meta-Llama-3.1-8B-Instruct-GGUF",
                gguf_file="Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
                notes="4.58 GiB per llama.cpp's quantize README (Llama-3.1-8B)",
            ),
            ModelVariant(
                "Q8_0",
                round(7.95 * 1.073741824, 2),
                gguf_repo="bartowski/Meta-Llama-3.1-8B-Instruct-GGUF",
                gguf_file="Meta-Llama-3.1-8B-Instruct-Q8_0.gguf",
                notes="7.95 GiB per llama.cpp's quantize README (Llama-3.1-8B)",
            ),
            ModelVariant(
                "F16",
                round(14.96 * 1.073741824, 2),
                gguf_repo="bartowski/Meta-Llama-3.1-8B-Instruct-GGUF",
                gguf_file="Meta-Llama-3.1-8B-Instruct-f16.gguf",
                notes="14.96 GiB per llama.cpp's quantize README (Llama-3.1-8B)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen3-32b",
        name="Qwen3-32B",
        params_b=32.8,
        active_params_b=32.8,
        layers=64,
        hidden_size=5120,
        heads=64,
        kv_heads=8,
        head_dim=128,
        experts=0,
        experts_per_token=0,
        quantization="fp8",
        weights_gb=None,
        max_context=40_960,
        hf_repo="Qwen/Qwen3-32B-FP8",
        notes="Public config (max_position_embeddings 40960; 131072 with YaRN), FP8 weights.",
        variants=(
            ModelVariant("fp8", hf_repo="Qwen/Qwen3-32B-FP8"),
            ModelVariant("bf16", hf_repo="Qwen/Qwen3-32B"),
            ModelVariant(
                "Q4_K_M",
                round(18.40 * 1.073741824, 2),
                gguf_repo="unsloth/Qwen3-32B-GGUF",
                gguf_file="Qwen3-32B-Q4_K_M.gguf",
                notes="18.40 GiB per llama-bench on a DGX Spark (DandinPower/llama.cpp_bench, model_download.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen3-30b-a3b",
        name="Qwen3-30B-A3B",
        params_b=30.5,
        active_params_b=3.3,
        layers=48,
        hidden_size=2048,
        heads=32,
        kv_heads=4,
        head_dim=128,
        experts=128,
        experts_per_token=8,
        quantization="fp8",
        weights_gb=None,
        max_context=40_960,
        hf_repo="Qwen/Qwen3-30B-A3B-FP8",
        notes=(
            "Public config, FP8 weights. Active 3.3B as Qwen publishes it, which counts the "
            "0.3B input-embedding lookup (placement.hfconfig's estimate leaves it out)."
        ),
        variants=(
            ModelVariant("fp8", hf_repo="Qwen/Qwen3-30B-A3B-FP8"),
            ModelVariant("bf16", hf_repo="Qwen/Qwen3-30B-A3B"),
        ),
    ),
    ModelSpec(
        slug="gemma-3-27b",
        name="Gemma 3 27B",
        params_b=27.4,
        active_params_b=27.4,
        layers=62,
        hidden_size=5376,
        heads=32,
        kv_heads=16,
        head_dim=128,
        experts=0,
        experts_per_token=0,
        quantization="bf16",
        weights_gb=None,
        max_context=131_072,
        kv_layers=10,
        sliding_window=1024,
        hf_repo="google/gemma-3-27b-it",
        notes=(
            "Public config, bf16. Five local (1,024-token window) layers per global layer: about 10 "
            "of 62 layers keep a full-length KV cache (rounded down)."
        ),
        estimated_fields=("kv_layers",),
        variants=(ModelVariant("bf16", hf_repo="google/gemma-3-27b-it"),),
    ),
    ModelSpec(
        slug="deepseek-v3",
        name="DeepSeek-V3",
        params_b=671.0,
        active_params_b=37.0,
        layers=61,
        hidden_size=7168,
        heads=128,
        kv_heads=128,
        head_dim=128,
        experts=256,
        experts_per_token=8,
        quantization="fp8",
        weights_gb=None,
        max_context=163_840,
        kv_cache_dim=576,
        hf_repo="deepseek-ai/DeepSeek-V3",
        notes=(
            "Public config, native FP8. MLA: the cache holds a 512-wide latent plus 64 rope values "
            "per layer. Size computed from 671B params; the published checkpoint also carries the "
            "14B MTP module."
        ),
        variants=(ModelVariant("fp8", hf_repo="deepseek-ai/DeepSeek-V3"),),
    ),
)

SEED_MODELS = SEED_MODELS + PUBLISHED_RUN_MODELS

SEED_BY_SLUG: dict[str, ModelSpec] = {spec.slug: spec for spec in SEED_MODELS}


def get_seed_model(slug: str) -> ModelSpec:
    """The seed model with this slug (KeyError if none)."""
    return SEED_BY_SLUG[slug]


@dataclass(frozen=True)
class VariantChoice:
    """The form of a model a plan is made for. ``error`` (an asked-for variant
    the engine cannot load, or one the model lacks) refuses the request;
    ``note`` says why the plan uses a form the engine cannot load."""

    spec: ModelSpec
    variant: ModelVariant
    error: str | None = None
    note: str | None = None


def choose_variant(spec: ModelSpec, engine: str, quantization: str | None = None) -> VariantChoice:
    """The variant to plan ``spec`` for on ``engine``: the one asked for, else
    the default form if the engine loads it, else the first variant it loads;
    with none loadable, the default form and a note saying so."""
    if quantization:
        v = spec.variant(quantization)
        if v is None:
            known = ", ".join(x.quantization for x in spec.all_variants())
            return VariantChoice(
                spec, spec.default_variant(), error=f"{spec.name} has no {quantization!r} variant; one of {known}"
            )
        ref = engine_reference(v, engine)
        return VariantChoice(spec.with_variant(v), v, error=ref.reason)
    v = variant_for_engine(spec.all_variants(), engine, preferred=spec.quantization)
    if v is not None:
        return VariantChoice(spec.with_variant(v), v)
    default = spec.default_variant()
    return VariantChoice(
        spec,
        default,
        note=(
            f"{engine_reference(default, engine).reason}. Sizes and speeds "
            f"below are for {default.quantization}; add a variant {engine} "
            "loads to the catalogue."
        ),
    )
