"""Seed models of the published Spark runs the performance model is checked
on (``placement.published``): public config.json values, estimates named in
``estimated_fields``. Part of the seed catalogue (``placement.model_catalogue``)."""

from __future__ import annotations

from placement.model_spec import ModelSpec, deltanet_state_bytes, mamba2_state_bytes
from placement.quants import ModelVariant

# Forms that ran in a published benchmark but that no engine can load from a
# recorded repository (so they are not catalogue variants): the model's size
# as the run reported it.
PUBLISHED_VARIANTS: dict[tuple[str, str], ModelVariant] = {
    ("qwen3-235b-a22b", "Q4_K_M"): ModelVariant(
        "Q4_K_M",
        round(124.91 * 1.073741824, 2),
        notes="124.91 GiB per llama-bench over RPC on two Sparks (llama.cpp PR 15405, the VL model's Q4_K_M)",
    ),
    # the held-out runs collected on 2026-12-04 (placement.published_fresh): the size
    # each run's llama-bench reported, else the type's bits per weight
    **{
        (slug, quant): ModelVariant(
            quant,
            None if gib is None else round(gib * 1.073741824, 2),
            notes=f"{gib:g} GiB per {where}" if gib is not None else f"{where}: size not stated",
        )
        for slug, quant, gib, where in (
            ("qwen3-30b-a3b", "Q4_K_M", 17.28, "llama-bench on a DGX Spark (DandinPower/llama.cpp_bench)"),
            ("qwen3.8-27b", "Q4_K_M", 16.68, "kubesimplify.com's Qwen3.8-27B post (Unsloth's UD-Q4_K_XL)"),
            ("qwen3.6-35b-a3b", "Q4_K_M", None, "Unsloth's UD-Q4_K_M (elsung/dgx-spark-deepseek-v4-flash)"),
            ("qwen3.6-27b", "IQ4_XS", None, "Qwen3.6-27B-IQ4_XS.gguf (elsung/dgx-spark-deepseek-v4-flash)"),
            ("gemma-3-27b", "Q4_0", None, "gemma-3-27B-it-QAT-Q4_0.gguf (elsung/dgx-spark-deepseek-v4-flash)"),
            # the second set collected on 2026-12-04 (placement.published_fresh_second)
            ("qwen3-235b-a22b", "Q2_K", 79.80, "llama-bench on a DGX Spark (KoyoImai/dgx_spark_cluster)"),
            ("gpt-oss-20b", "Q4_K_M", None, "gpt-oss-20b 'Q4_K_M' GGUF (TrevorS/strieber-gpt-3)"),
            # the third set collected on 2026-12-04 (placement.published_fresh_third)
            ("qwen3-coder-30b-a3b", "bf16", None, "Qwen/Qwen3-Coder-30B-A3B-Instruct (dataforgex/dgx_spark)"),
            (
                "qwen3-coder-30b-a3b",
                "int4",
                None,
                "cpatonn/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit (dataforgex/dgx_spark)",
            ),
            # the fourth set collected on 2026-12-04 (placement.published_fresh_fourth)
            ("qwen3.6-27b", "nvfp4", None, "mudler/Qwen3.6-27B-NVFP4-GGUF, llama.cpp's NVFP4 type (mudler/LocalAI)"),
            # the fifth set collected on 2026-12-04 (placement.published_fresh_fifth)
            ("qwen3.6-35b-a3b", "Q8_0", None, "Qwen3.6-35B-A3B Q8_0 GGUF (gdevsnack-ai-labs/gb10-local-llm-benchmark)"),
            # the sixth set collected on 2026-12-05 (placement.published_fresh_sixth)
            ("qwen3-coder-30b-a3b", "nvfp4", None, "Qwen3-Coder-30B-A3B NVFP4 (heitor-mocelin/dgx-spark-research)"),
            ("qwen3-32b", "nvfp4", None, "Qwen3-32B NVFP4 (heitor-mocelin/dgx-spark-research)"),
            ("qwen3-8b", "nvfp4", None, "/models/qwen3-8b-nvfp4, modelopt (heitor-mocelin/dgx-spark-research)"),
            # the seventh set collected on 2026-12-05 (placement.published_fresh_seventh)
            ("qwen3.6-35b-a3b", "int4", None, "Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound (czcrimpy)"),
            ("qwen3-coder-next", "int4", None, "Qwen3-Coder-Next INT4 AutoRound (flash7777/vllm-marlin-sm12x)"),
            ("llama-3.3-70b", "bf16", None, "meta-llama/Llama-3.3-70B-Instruct (rykersun/vllm-dgx-spark)"),
            ("qwen3-30b-a3b", "int4", None, "Qwen/Qwen3-30B-A3B-GPTQ-Int4 (PalatineVision/dgx-spark-benchmark)"),
            ("qwen3-32b", "int4", None, "Qwen/Qwen3-32B-AWQ (PalatineVision/dgx-spark-benchmark)"),
            # the twelfth set collected on 2026-12-05 (placement.published_fresh_twelfth)
            ("qwen3-coder-next", "Q4_K_M", None, "unsloth/Qwen3-Coder-Next-GGUF UD-Q4_K_XL (jschmied)"),
            ("qwen3.5-35b-a3b", "Q4_K_M", None, "a Qwen3.5-35B-A3B fine-tune's Q4_K_M GGUF (mARTin-B78)"),
            # the thirteenth set collected on 2026-12-05 (placement.published_fresh_thirteenth)
            (
                "qwen3-coder-next",
                "nvfp4",
                None,
                "nvidia/Qwen3-Next-80B-A3B-Instruct-NVFP4, the same architecture (Avarok-Cybersecurity/dgx-vllm)",
            ),
            # the eleventh set collected on 2026-12-05 (placement.published_fresh_eleventh): Qwen's own
            # Qwen2.5-7B-Instruct-GGUF files, read as Qwen2.5-Coder-7B (the same architecture), whose sizes
            # the run does not state; the 3B, 14B and 32B have them in the catalogue (_qwen25)
            *(
                (
                    "qwen2.5-coder-7b",
                    quant,
                    None,
                    "Qwen/Qwen2.5-7B-Instruct-GGUF, the same architecture (pendakwahteknologi/gx10-benchmarks)",
                )
                for quant in ("Q4_K_M", "Q5_K_M")
            ),
        )
    },
}

QWEN_NEXT_DELTANET_STATE = deltanet_state_bytes(32)
QWEN27_DELTANET_STATE = deltanet_state_bytes(48)
QWEN122_DELTANET_STATE = deltanet_state_bytes(64)

PUBLISHED_RUN_MODELS: tuple[ModelSpec, ...] = (
    # Models of the published figures the performance model is checked on
    # (placement/published.py); public config.json values.
    ModelSpec(
        slug="qwen3-coder-30b-a3b",
        name="Qwen3-Coder-30B-A3B-Instruct",
        params_b=30.53,
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
        max_context=262_144,
        hf_repo="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8",
        notes="Public config (the Qwen3-30B-A3B shape: 48 layers, 128 experts, 8 routed).",
        variants=(
            ModelVariant("fp8", hf_repo="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"),
            ModelVariant(
                "Q8_0",
                round(30.25 * 1.073741824, 2),
                gguf_repo="ggml-org/Qwen3-Coder-30B-A3B-Instruct-Q8_0-GGUF",
                notes="30.25 GiB per llama-bench on a DGX Spark (llama.cpp benches/dgx-spark.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen2.5-coder-7b",
        name="Qwen2.5-Coder-7B",
        params_b=7.62,
        active_params_b=7.62,
        layers=28,
        hidden_size=3584,
        heads=28,
        kv_heads=4,
        head_dim=128,
        experts=0,
        experts_per_token=0,
        quantization="bf16",
        weights_gb=None,
        max_context=32_768,
        hf_repo="Qwen/Qwen2.5-Coder-7B",
        notes="Public config (max_position_embeddings 32768; 131072 with YaRN).",
        variants=(
            ModelVariant("bf16", hf_repo="Qwen/Qwen2.5-Coder-7B"),
            ModelVariant(
                "Q8_0",
                round(7.54 * 1.073741824, 2),
                gguf_repo="ggml-org/Qwen2.5-Coder-7B-Q8_0-GGUF",
                notes="7.54 GiB per llama-bench on a DGX Spark (llama.cpp benches/dgx-spark.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="gemma-3-4b",
        name="Gemma 3 4B",
        params_b=3.88,
        active_params_b=3.88,
        layers=34,
        hidden_size=2560,
        heads=8,
        kv_heads=4,
        head_dim=256,
        experts=0,
        experts_per_token=0,
        quantization="bf16",
        weights_gb=None,
        max_context=131_072,
        kv_layers=5,
        sliding_window=1024,
        hf_repo="google/gemma-3-4b-it",
        notes=(
            "Public config (text model, 3.88B parameters as llama-bench counts them). Five local "
            "(1,024-token window) layers per global layer: 5 of 34 layers keep a full-length KV cache."
        ),
        estimated_fields=("kv_layers",),
        variants=(
            ModelVariant("bf16", hf_repo="google/gemma-3-4b-it"),
            ModelVariant(
                "Q4_0",
                round(2.35 * 1.073741824, 2),
                gguf_repo="ggml-org/gemma-3-4b-it-qat-GGUF",
                notes="QAT Q4_0, 2.35 GiB per llama-bench on a DGX Spark (llama.cpp benches/dgx-spark.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen3-235b-a22b",
        name="Qwen3-235B-A22B",
        params_b=235.09,
        active_params_b=22.14,
        layers=94,
        hidden_size=4096,
        heads=64,
        kv_heads=4,
        head_dim=128,
        experts=128,
        experts_per_token=8,
        quantization="int4",
        weights_gb=round(2 * 57.64 * 1.073741824, 1),
        max_context=40_960,
        hf_repo="Qwen/Qwen3-235B-A22B-GPTQ-Int4",
        notes=(
            "Public config (max_position_embeddings 40960; 131072 with YaRN). GPTQ int4: 57.64 GiB "
            "resident per node on two Sparks (conselara.dev, 2026-05), so about 123.8 GB."
        ),
        variants=(
            ModelVariant("int4", round(2 * 57.64 * 1.073741824, 1), hf_repo="Qwen/Qwen3-235B-A22B-GPTQ-Int4"),
            ModelVariant("fp8", hf_repo="Qwen/Qwen3-235B-A22B-FP8"),
        ),
    ),
)


# Qwen's own GGUF types of Qwen2.5-*-Instruct that a published Spark run names (pendakwahteknologi/gx10-benchmarks
# ran each from Qwen/Qwen2.5-*-Instruct-GGUF): llama.cpp loads them with -hf REPO:TYPE (a split file whole)
QWEN25_GGUF_TYPES = ("Q4_K_M", "Q5_K_M", "Q8_0")


def _qwen25(size: str, params_b: float, layers: int, hidden: int, heads: int, kv_heads: int, shape: str) -> ModelSpec:
    """A dense Qwen2.5 model of the Instruct checkpoint's public config
    (max_position_embeddings 32768, 131072 with YaRN; heads of 128), bf16,
    and Qwen's GGUF files of it (``QWEN25_GGUF_TYPES``, sizes at their
    type's bits per weight: the run does not state them)."""
    repo = f"Qwen/Qwen2.5-{size}-Instruct"
    return ModelSpec(
        slug=f"qwen2.5-{size.lower()}",
        name=f"Qwen2.5-{size}",
        params_b=params_b,
        active_params_b=params_b,
        layers=layers,
        hidden_size=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=128,
        experts=0,
        experts_per_token=0,
        quantization="bf16",
        weights_gb=None,
        max_context=32_768,
        hf_repo=repo,
        notes=(
            f"Public config of Qwen2.5-{size}-Instruct ({layers} layers, hidden {hidden}, {shape}; "
            "max_position_embeddings 32768, 131072 with YaRN), bf16 weights."
        ),
        variants=(
            ModelVariant("bf16", hf_repo=repo),
            *(
                ModelVariant(
                    quant,
                    gguf_repo=f"{repo}-GGUF",
                    notes="Qwen's own GGUF file, run on a GB10 by pendakwahteknologi/gx10-benchmarks; size not stated",
                )
                for quant in QWEN25_GGUF_TYPES
            ),
        ),
    )


PUBLISHED_RUN_MODELS = PUBLISHED_RUN_MODELS + (
    # Hybrid and further models of the published runs collected for the second
    # fit (placement/published.py): layer kinds from their config.json.
    ModelSpec(
        slug="nemotron-3-nano-30b-a3b",
        name="Nemotron-3-Nano-30B-A3B",
        params_b=31.6,
        active_params_b=3.2,
        layers=52,
        hidden_size=2688,
        heads=32,
        kv_heads=2,
        head_dim=128,
        experts=128,
        experts_per_token=6,
        quantization="nvfp4",
        weights_gb=round(18.16 * 1.073741824, 2),
        max_context=262_144,
        kv_layers=6,
        linear_layers=23,
        linear_kind="mamba2",
        state_bytes=mamba2_state_bytes(64, 64),
        mixer_layers=29,
        ffn_layers=23,
        shared_experts=1,
        hf_repo="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
        notes=(
            "Public config (nemotron_h): 52 blocks MEMEM*E..., 23 Mamba-2 (64 heads x 64, state 128, "
            "float32), 23 MoE (128 experts, 6 routed + 1 shared, relu2) and 6 attention blocks (32 heads, "
            "2 KV heads of 128). 31.6B total, 3.2B active without the input embedding. NVFP4 weights "
            "18.16 GiB as vLLM loads them."
        ),
        variants=(
            ModelVariant("nvfp4", round(18.16 * 1.073741824, 2), hf_repo="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"),
            ModelVariant("fp8", hf_repo="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8"),
            ModelVariant("bf16", hf_repo="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"),
        ),
    ),
    ModelSpec(
        slug="nemotron-3-super-120b-a12b",
        name="Nemotron-3-Super-120B-A12B",
        params_b=120.0,
        active_params_b=12.0,
        layers=88,
        hidden_size=4096,
        heads=32,
        kv_heads=2,
        head_dim=128,
        experts=512,
        experts_per_token=22,
        quantization="nvfp4",
        weights_gb=round(69.5 * 1.073741824, 2),
        max_context=1_048_576,
        kv_layers=8,
        linear_layers=40,
        linear_kind="mamba2",
        state_bytes=mamba2_state_bytes(128, 64),
        mixer_layers=48,
        ffn_layers=40,
        shared_experts=1,
        hf_repo="nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4",
        notes=(
            "nemotron_h with LatentMoE: 88 blocks, 8 attention (8 KiB of KV per token: 2 KV heads of "
            "128), 40 Mamba-2 and 40 MoE (512 experts, 22 routed, in a 1,024-wide latent) per its "
            "config.json as summarised by colaberry.ai; hidden 4096. Mamba heads (128 x 64, state 128, "
            "float32) and the attention heads estimated. NVFP4 checkpoint 69.5 GiB (kubis.ai)."
        ),
        estimated_fields=("heads", "state_bytes", "params_b"),
        variants=(
            ModelVariant(
                "nvfp4", round(69.5 * 1.073741824, 2), hf_repo="nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
            ),
            ModelVariant(
                "Q4_K_M",
                round(65.10 * 1.073741824, 2),
                gguf_repo="ggml-org/Nemotron-3-Super-120B-GGUF",
                notes="65.10 GiB per llama-bench on a DGX Spark, which names the file's type Q4_K "
                "(llama.cpp benches/nemotron/nemotron-dgx-spark.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen3-coder-next",
        name="Qwen3-Coder-Next (80B-A3B)",
        params_b=80.0,
        active_params_b=3.0,
        layers=48,
        hidden_size=2048,
        heads=16,
        kv_heads=2,
        head_dim=256,
        experts=512,
        experts_per_token=10,
        quantization="fp8",
        weights_gb=None,
        max_context=262_144,
        kv_layers=12,
        linear_layers=36,
        linear_kind="gated-deltanet",
        state_bytes=QWEN_NEXT_DELTANET_STATE,
        shared_experts=1,
        hf_repo="Qwen/Qwen3-Coder-Next-FP8",
        notes=(
            "Shape assumed equal to Qwen3-Next-80B-A3B's public config (48 layers: 36 gated-DeltaNet "
            "and 12 full-attention, full_attention_interval 4; 512 experts, 10 routed + 1 shared; 32 value "
            "heads of 128 x 128 per DeltaNet layer, state in bf16)."
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
        variants=(ModelVariant("fp8", hf_repo="Qwen/Qwen3-Coder-Next-FP8"),),
    ),
    ModelSpec(
        slug="qwen3-8b",
        name="Qwen3-8B",
        params_b=8.19,
        active_params_b=8.19,
        layers=36,
        hidden_size=4096,
        heads=32,
        kv_heads=8,
        head_dim=128,
        experts=0,
        experts_per_token=0,
        quantization="bf16",
        weights_gb=None,
        max_context=40_960,
        hf_repo="Qwen/Qwen3-8B",
        notes="Public config (max_position_embeddings 40960), bf16 weights.",
        variants=(
            ModelVariant("bf16", hf_repo="Qwen/Qwen3-8B"),
            ModelVariant("fp8", hf_repo="Qwen/Qwen3-8B-FP8"),
            ModelVariant(
                "Q4_K_M",
                round(4.68 * 1.073741824, 2),
                gguf_repo="unsloth/Qwen3-8B-GGUF",
                gguf_file="Qwen3-8B-Q4_K_M.gguf",
                notes="4.68 GiB per llama-bench on a DGX Spark (DandinPower/llama.cpp_bench, model_download.md)",
            ),
        ),
    ),
    ModelSpec(
        slug="qwen3.6-27b",
        name="Qwen3.6-27B",
        params_b=27.8,
        active_params_b=27.8,
        layers=64,
        hidden_size=5120,
        heads=24,
        kv_heads=4,
        head_dim=256,
        experts=0,
        experts_per_token=0,
        quantization="fp8",
        weights_gb=28.0,
        max_context=262_144,
        kv_layers=16,
        linear_layers=48,
        linear_kind="gated-deltanet",
        state_bytes=QWEN27_DELTANET_STATE,
        hf_repo="Qwen/Qwen3.6-27B-FP8",
        notes=(
            "Dense hybrid, FP8 (about 27 GB per al-engr.com). Shape assumed equal to Qwen3.5-27B's public "
            "config, as for Qwen3.8-27B: 64 layers, 48 gated-DeltaNet and 16 full-attention."
        ),
        estimated_fields=("layers", "hidden_size", "heads", "kv_heads", "head_dim", "linear_layers", "state_bytes"),
        variants=(
            ModelVariant("fp8", 28.0, hf_repo="Qwen/Qwen3.6-27B-FP8"),
            ModelVariant("bf16", hf_repo="Qwen/Qwen3.6-27B"),
        ),
    ),
    # Hybrid MoE models of the one-node runs collected for the third fit.
    ModelSpec(
        slug="qwen3.5-122b-a10b",
        name="Qwen3.5-122B-A10B",
        params_b=122.0,
        active_params_b=10.0,
        layers=48,
        hidden_size=3072,
        heads=32,
        kv_heads=2,
        head_dim=256,
        experts=256,
        experts_per_token=8,
        quantization="int4",
        weights_gb=round(62.65 * 1.073741824, 2),
        max_context=262_144,
        kv_layers=12,
        linear_layers=36,
        linear_kind="gated-deltanet",
        state_bytes=QWEN122_DELTANET_STATE,
        shared_experts=1,
        hf_repo="Intel/Qwen3.5-122B-A10B-int4-AutoRound",
        notes=(
            "Public config (qwen3_5_moe): 48 layers, full_attention_interval 4 (36 gated-DeltaNet with 16 key "
            "and 64 value heads of 128, 12 full-attention with 32 heads and 2 KV heads of 256), 256 experts, "
            "8 routed + 1 shared (1,024 wide), hidden 3072. The int4 AutoRound build keeps its shared experts "
            "in bf16: 62.65 GiB resident on one Spark (NVIDIA developer forum, thread 361819)."
        ),
        variants=(
            ModelVariant("int4", round(62.65 * 1.073741824, 2), hf_repo="Intel/Qwen3.5-122B-A10B-int4-AutoRound"),
            ModelVariant("nvfp4", hf_repo="RedHatAI/Qwen3.5-122B-A10B-NVFP4"),
            ModelVariant("fp8", hf_repo="Qwen/Qwen3.5-122B-A10B-FP8"),
        ),
    ),
    ModelSpec(
        slug="qwen3.5-35b-a3b",
        name="Qwen3.5-35B-A3B",
        params_b=35.0,
        active_params_b=3.0,
        layers=40,
        hidden_size=2048,
        heads=16,
        kv_heads=2,
        head_dim=256,
        experts=256,
        experts_per_token=8,
        quantization="bf16",
        weights_gb=round(65.53 * 1.073741824, 2),
        max_context=262_144,
        kv_layers=10,
        linear_layers=30,
        linear_kind="gated-deltanet",
        state_bytes=QWEN_NEXT_DELTANET_STATE,
        shared_experts=1,
        hf_repo="Qwen/Qwen3.5-35B-A3B",
        notes=(
            "Public config (qwen3_5_moe): 40 layers, full_attention_interval 4 (30 gated-DeltaNet with 16 key "
            "and 32 value heads of 128, 10 full-attention with 16 heads and 2 KV heads of 256), 256 experts, "
            "8 routed + 1 shared (512 wide), hidden 2048. bf16 weights 65.53 GiB as vLLM loads them "
            "(github.com/adadrag/qwen3.5-dgx-spark)."
        ),
        variants=(
            ModelVariant("bf16", round(65.53 * 1.073741824, 2), hf_repo="Qwen/Qwen3.5-35B-A3B"),
            ModelVariant("fp8", hf_repo="Qwen/Qwen3.5-35B-A3B-FP8"),
        ),
    ),
    # Dense models of the eleventh held-out set (placement.published_fresh_eleventh),
    # of the family Qwen2.5-Coder-7B belongs to: their public config values.
    *(
        _qwen25(size, params, layers, hidden, heads, kv_heads, shape)
        for size, params, layers, hidden, heads, kv_heads, shape in (
            ("3B", 3.09, 36, 2048, 16, 2, "16 heads and 2 KV heads of 128, tied embeddings"),
            ("14B", 14.7, 48, 5120, 40, 8, "40 heads and 8 KV heads of 128"),
            ("32B", 32.5, 64, 5120, 40, 8, "40 heads and 8 KV heads of 128"),
        )
    ),
)
