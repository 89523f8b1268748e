"""Model specifications and the seed model catalogue.

Owns what the placement planner needs to know about a model: its size, its
shape (layers, heads, experts), its weight quantisation and the memory that
follows from them (weights, KV cache per token). Plain dataclasses, no Django:
the catalogue table in the database is built from ``SEED_MODELS`` and from
user input checked with ``ModelSpec.validate()``.

Units: GB means 10**9 bytes everywhere in ``placement`` (published checkpoint
sizes and vendor figures are decimal); params are in billions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from placement.quants import QUANT_FORMATS, ModelVariant, engine_reference, variant_for_engine

# Bytes per weight of every format, scales included (``placement.quants``
# says where each figure comes from). Real checkpoints keep embeddings, norms
# and often attention in higher precision, so a published checkpoint size
# (``weights_gb``) always wins.
QUANT_BYTES: dict[str, float] = {name: f.bytes_per_weight for name, f in QUANT_FORMATS.items()}

# KV cache element sizes. The default is bf16: vLLM's ``--kv-cache-dtype auto``
# follows the activation dtype (bf16) even for FP4 weights, and FP8 KV cache is
# an opt-in; counting 2 bytes never under-estimates memory.
KV_DTYPE_BYTES: dict[str, float] = {"bf16": 2.0, "fp8": 1.0}
DEFAULT_KV_DTYPE = "bf16"

# Longest context accepted. Published open models top out at 1M-10M tokens;
# above 4Mi tokens the KV cache of any catalogue model exceeds a whole 8-node
# cluster, so larger values are treated as typing errors.
MAX_CONTEXT_TOKENS = 4_194_304

_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")

# The one table of what a model spec's fields may hold, read by the API's
# schemas (placement/api.py) and the spec's checks alike: text lengths are
# their columns' (placement/models.py), numbers a plausible physical range.
SPEC_TEXT_LENGTHS = {"slug": 100, "name": 120, "quantization": 12, "hf_repo": 200, "notes": 10_000}
SPEC_NUMBER_RANGES: dict[str, tuple[float, float]] = {
    "params_b": (0.001, 100_000.0),  # billions of parameters: up to 100 T
    "active_params_b": (0.001, 100_000.0),
    "layers": (1, 10_000),
    "hidden_size": (1, 1_000_000),
    "heads": (1, 100_000),
    "kv_heads": (1, 100_000),
    "head_dim": (1, 100_000),
    "experts": (0, 100_000),
    "experts_per_token": (0, 100_000),
    "weights_gb": (0.001, 1_000_000.0),
    "max_context": (1, MAX_CONTEXT_TOKENS),
    "kv_layers": (1, 10_000),
    "kv_cache_dim": (1, 10_000_000),
}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


@dataclass(frozen=True)
class ModelSpec:
    """One model as the planner sees it.

    ``experts`` is 0 for a dense model. ``weights_gb`` is the published
    checkpoint size when known (it wins over the computed size).
    ``kv_layers`` counts the layers that keep a full-length KV cache (hybrid
    linear-attention and sliding-window models keep fewer); None means all.
    ``kv_cache_dim`` overrides the values cached per token per layer (K and V
    together) when it is not ``2 * kv_heads * head_dim``, e.g. the 576-wide
    latent of multi-head latent attention (MLA). ``estimated_fields`` names the
    fields that are estimates rather than published values; ``notes`` says why.
    """

    slug: str
    name: str
    params_b: float
    active_params_b: float
    layers: int
    hidden_size: int
    heads: int
    kv_heads: int
    head_dim: int
    experts: int
    experts_per_token: int
    quantization: str
    weights_gb: float | None
    max_context: int
    kv_layers: int | None = None
    kv_cache_dim: int | None = None
    hf_repo: str = ""
    notes: str = ""
    estimated_fields: tuple[str, ...] = ()
    # Other quantized forms of the same model (the one above included or not).
    variants: tuple[ModelVariant, ...] = ()

    # --- checks ---------------------------------------------------------------

    def validate(self) -> list[tuple[str, str]]:
        """Every problem as (field, message); an empty list means valid."""
        errors: list[tuple[str, str]] = []
        if not isinstance(self.slug, str) or not _SLUG_RE.match(self.slug):
            errors.append(("slug", "1-100 characters: lowercase letters, digits, '.', '_' or '-'"))
        if not isinstance(self.name, str) or not self.name.strip():
            errors.append(("name", "must not be empty"))
        for name, (_low, high) in SPEC_NUMBER_RANGES.items():
            value = getattr(self, name)
            if _is_number(value) and value > high:
                errors.append((name, f"must be at most {high:,g}"))
        if not _is_number(self.params_b) or self.params_b <= 0:
            errors.append(("params_b", "must be a number above 0 (billions of parameters)"))
        if not _is_number(self.active_params_b) or self.active_params_b <= 0:
            errors.append(("active_params_b", "must be a number above 0"))
        elif _is_number(self.params_b) and self.active_params_b > self.params_b:
            errors.append(("active_params_b", "cannot exceed params_b (total parameters)"))
        for field_name in ("layers", "hidden_size", "heads", "kv_heads", "head_dim"):
            value = getattr(self, field_name)
            if not _is_int(value) or value < 1:
                errors.append((field_name, "must be a whole number of at least 1"))
        if _is_int(self.heads) and _is_int(self.kv_heads) and self.heads >= 1 and self.kv_heads >= 1:
            if self.heads % self.kv_heads:
                errors.append(("kv_heads", f"must divide heads ({self.heads})"))
        errors.extend(self._validate_experts())
        if self.quantization not in QUANT_BYTES:
            errors.append(("quantization", f"unknown; one of {', '.join(sorted(QUANT_BYTES))}"))
        if self.weights_gb is not None:
            if not _is_number(self.weights_gb) or self.weights_gb <= 0:
                errors.append(("weights_gb", "must be a number above 0, or empty to compute it"))
            elif _is_number(self.params_b) and self.weights_gb > 4 * self.params_b:
                errors.append(("weights_gb", "more than 4 bytes per parameter: check the units (GB)"))
        if not _is_int(self.max_context) or not 1 <= self.max_context <= MAX_CONTEXT_TOKENS:
            errors.append(("max_context", f"must be a whole number from 1 to {MAX_CONTEXT_TOKENS:,}"))
        if self.kv_layers is not None:
            if not _is_int(self.kv_layers) or self.kv_layers < 1:
                errors.append(("kv_layers", "must be a whole number of at least 1, or empty"))
            elif _is_int(self.layers) and self.kv_layers > self.layers:
                errors.append(("kv_layers", "cannot exceed layers"))
        if self.kv_cache_dim is not None and (not _is_int(self.kv_cache_dim) or self.kv_cache_dim < 1):
            errors.append(("kv_cache_dim", "must be a whole number of at least 1, or empty"))
        seen: set[str] = set()
        for i, v in enumerate(self.variants):
            errors.extend((f"variants[{i}].{name}", msg) for name, msg in v.validate())
            if v.quantization in seen:
                errors.append((f"variants[{i}].quantization", f"a second {v.quantization} variant"))
            seen.add(v.quantization)
        return errors

    def _validate_experts(self) -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        if not _is_int(self.experts) or self.experts < 0:
            return [("experts", "must be a whole number, 0 for a dense model")]
        if not _is_int(self.experts_per_token) or self.experts_per_token < 0:
            return [("experts_per_token", "must be a whole number")]
        if self.experts == 0:
            if self.experts_per_token != 0:
                errors.append(("experts_per_token", "must be 0 for a dense model (experts 0)"))
            if (
                _is_number(self.params_b)
                and _is_number(self.active_params_b)
                and not math.isclose(self.active_params_b, self.params_b, rel_tol=1e-6)
            ):
                errors.append(("active_params_b", "a dense model uses all its parameters: must equal params_b"))
        else:
            if self.experts < 2:
                errors.append(("experts", "a mixture of experts has at least 2 experts"))
            if not 1 <= self.experts_per_token <= self.experts:
                errors.append(("experts_per_token", f"must be from 1 to experts ({self.experts})"))
        return errors

    # --- variants -------------------------------------------------------------

    def default_variant(self) -> ModelVariant:
        """The form described by ``quantization``/``weights_gb``/``hf_repo``."""
        for v in self.variants:
            if v.quantization == self.quantization:
                return v
        return ModelVariant(self.quantization, self.weights_gb, hf_repo=self.hf_repo)

    def all_variants(self) -> tuple[ModelVariant, ...]:
        """Every variant, the default first."""
        default = self.default_variant()
        return (default, *(v for v in self.variants if v.quantization != default.quantization))

    def variant(self, quantization: str) -> ModelVariant | None:
        return next((v for v in self.all_variants() if v.quantization == quantization), None)

    def with_variant(self, variant: ModelVariant) -> ModelSpec:
        """This model as the given variant: its format and its size."""
        return replace(self, quantization=variant.quantization, weights_gb=variant.weights_gb, hf_repo=variant.hf_repo)

    # --- derived sizes --------------------------------------------------------

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    def weights_size_gb(self) -> float:
        """Weights in GB: the published size if known, else params x bytes."""
        if self.weights_gb is not None:
            return float(self.weights_gb)
        return self.params_b * QUANT_BYTES[self.quantization]

    def active_weights_gb(self) -> float:
        """Weights read to produce one token by one stream (MoE: active share)."""
        return self.weights_size_gb() * self.active_params_b / self.params_b

    def expert_weights_gb(self) -> float:
        """All routed-expert weights (0 for dense).

        With E experts, k per token, total P and active A: the routed experts
        hold X params with X*(E-k)/E = P - A, so X = (P - A) * E / (E - k).
        """
        if not self.is_moe or self.experts_per_token >= self.experts:
            return 0.0
        expert_params = (self.params_b - self.active_params_b) * self.experts / (self.experts - self.experts_per_token)
        return self.weights_size_gb() * min(expert_params, self.params_b) / self.params_b

    def kv_bytes_per_token(self, kv_dtype: str = DEFAULT_KV_DTYPE) -> float:
        """KV cache bytes per token of context, all layers, one sequence.

        2 (K and V) x layers-with-KV x kv_heads x head_dim x element bytes,
        or layers-with-KV x kv_cache_dim x element bytes for latent caches.
        """
        per_layer = self.kv_cache_dim if self.kv_cache_dim is not None else 2 * self.kv_heads * self.head_dim
        layers = self.kv_layers if self.kv_layers is not None else self.layers
        return float(layers * per_layer * KV_DTYPE_BYTES[kv_dtype])

    def kv_shards(self, tp: int) -> int:
        """Into how many parts tensor parallelism splits the KV cache.

        KV heads split over TP ranks until there are fewer heads than ranks
        (then heads are replicated); a latent (MLA) cache is replicated on
        every rank in vLLM and SGLang.
        """
        if self.kv_cache_dim is not None:
            return 1
        return max(1, min(tp, self.kv_heads))


# The seed catalogue. Architecture numbers are the public config.json values
# where the model is public; models known only from published figures (docs/figures.md) carry
# their estimated fields in ``estimated_fields`` and the reason in ``notes``.
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
        max_context=262_144,
        kv_layers=16,
        notes=(
            "Dense 27B in NVFP4 (NVIDIA's 2026-10 scaling table, docs/figures.md). Architecture not "
            "published there: shape assumed equal to Qwen3.5-27B's public config (64 layers, hybrid "
            "3 linear-attention : 1 full-attention, so 16 layers keep a KV cache)."
        ),
        estimated_fields=("layers", "hidden_size", "heads", "kv_heads", "head_dim", "max_context", "kv_layers"),
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
        max_context=262_144,
        kv_layers=10,
        notes=(
            "MoE, NVFP4 (a community report: ~98 tok/s decode on one node, docs/figures.md). Shape assumed equal to "
            "Qwen3.5-35B-A3B's public config (hybrid attention: 10 of 40 layers keep a KV cache; "
            "256 experts, 8 routed + 1 shared)."
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
        hf_repo="nvidia/Llama-3.3-70B-Instruct-FP4",
        notes="Public Llama 3.3 70B config; NVFP4 weights (~4 tok/s decode on one node, docs/figures.md).",
        variants=(
            ModelVariant("nvfp4", hf_repo="nvidia/Llama-3.3-70B-Instruct-FP4"),
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
        max_context=262_144,
        kv_layers=15,
        notes=(
            "MoE in int4 (a community report: 3 nodes PP3, 17.9 tok/s decode, docs/figures.md). "
            "Shape from Qwen3.5-397B-A17B's public config as recalled (60 layers, hybrid attention with "
            "15 full-attention layers, 512 experts, 10 routed + 1 shared): verify against the model's config.json."
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
            ModelVariant("nvfp4", hf_repo="nvidia/Llama-3.1-8B-Instruct-FP4"),
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
        name="Qwen3-32B (FP8)",
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
        ),
    ),
    ModelSpec(
        slug="qwen3-30b-a3b",
        name="Qwen3-30B-A3B (FP8)",
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

SEED_MODELS = SEED_MODELS + (
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
