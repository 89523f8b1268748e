"""What the planner knows about one model: ``ModelSpec``.

Its size, its shape (layers, heads, experts), its layer kinds (full
attention, sliding-window attention, linear attention or state-space mixers
with a fixed state per stream, MoE with shared experts), its weight
quantisation and the memory that follows from them (weights, KV cache per
token, recurrent state per stream). Plain dataclasses, no Django: the
catalogue table in the database is built from the seed catalogue
(``placement.model_catalogue``) and from user input checked with
``ModelSpec.validate()``.

Units: GB means 10**9 bytes everywhere in ``placement`` (published checkpoint
sizes and vendor figures are decimal); params are in billions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from placement.quants import QUANT_FORMATS, ModelVariant, canonical_quantization

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
SPEC_TEXT_LENGTHS = {"slug": 100, "name": 120, "quantization": 12, "hf_repo": 200, "notes": 10_000, "linear_kind": 20}
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
    "linear_layers": (0, 10_000),
    "state_bytes": (0, 10**12),
    "sliding_window": (1, MAX_CONTEXT_TOKENS),
    "mixer_layers": (1, 10_000),
    "ffn_layers": (0, 10_000),
    "shared_experts": (0, 1_000),
}

# Token mixers without a KV cache: linear attention (gated DeltaNet, as in
# Qwen3-Next and Qwen3.5) and state-space layers (Mamba-2, as in Nemotron-H).
# Each keeps a fixed recurrent state per stream, whatever the context.
LINEAR_KINDS = ("gated-deltanet", "mamba2")
# How much wider than the catalogue's recurrent state (``state_bytes``) an
# engine keeps it, by linear kind: llama.cpp keeps every linear layer's state
# in float32 (its ``ssm_states_all``), twice the catalogue's bf16
# gated-DeltaNet state; a Mamba-2 state is float32 in the catalogue already.
# vLLM and SGLang keep the model's dtype (SGLang's --mamba-ssm-dtype,
# vLLM's mamba_ssm_cache_dtype "auto").
ENGINE_STATE_WIDTH: dict[str, dict[str, float]] = {"llama.cpp": {"gated-deltanet": 2.0, "mamba2": 1.0}}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite int or float (not a bool): what a loaded document or stored JSON may hold as a number."""
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
    Layer kinds. ``mixer_layers`` counts the token mixers and ``ffn_layers``
    the feed-forward (dense or MoE) sublayers; both default to ``layers``
    (a transformer layer is one mixer and one FFN; Nemotron-H blocks are one
    or the other). Of the mixers, ``linear_layers`` are linear attention or
    state-space layers (``linear_kind``) with ``state_bytes`` of recurrent
    state per stream each and no KV cache; the rest are attention layers, of
    which ``kv_layers`` keep a full-length KV cache (None: all of them) and
    the others a sliding window of ``sliding_window`` tokens (None: counted as
    keeping none). ``kv_cache_dim`` overrides the values cached per token per
    layer (K and V together) when it is not ``2 * kv_heads * head_dim``, e.g.
    the 576-wide latent of multi-head latent attention (MLA).
    ``shared_experts`` are always-active experts of a MoE (their weights are
    read for every token, which ``active_params_b`` includes).
    ``estimated_fields`` names the fields that are estimates rather than
    published values; ``notes`` says why.
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
    linear_layers: int = 0
    linear_kind: str = ""
    state_bytes: int = 0
    sliding_window: int | None = None
    mixer_layers: int | None = None
    ffn_layers: int | None = None
    shared_experts: int = 0
    hf_repo: str = ""
    notes: str = ""
    estimated_fields: tuple[str, ...] = ()
    # Other quantized forms of the same model (the one above included or not).
    variants: tuple[ModelVariant, ...] = ()

    # --- checks ---------------------------------------------------------------

    def validate(self) -> list[tuple[str, str]]:
        """Every problem as (field, message); an empty list means valid."""
        return [
            *self._validate_identity(),
            *self._validate_parameters(),
            *self._validate_attention(),
            *self._validate_experts(),
            *self._validate_memory(),
            *self._validate_layer_kinds(),
            *self._validate_cache_width(),
            *self._validate_variants(),
        ]

    def _validate_identity(self) -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        if not isinstance(self.slug, str) or not _SLUG_RE.match(self.slug):
            errors.append(("slug", "1-100 characters: lowercase letters, digits, '.', '_' or '-'"))
        if not isinstance(self.name, str) or not self.name.strip():
            errors.append(("name", "must not be empty"))
        return errors

    def _validate_parameters(self) -> list[tuple[str, str]]:
        """Every number under its ceiling, and the total and active parameter counts."""
        errors: list[tuple[str, str]] = []
        for name, (_low, high) in SPEC_NUMBER_RANGES.items():
            value = getattr(self, name)
            if is_number(value) and value > high:
                errors.append((name, f"must be at most {high:,g}"))
        if not is_number(self.params_b) or self.params_b <= 0:
            errors.append(("params_b", "must be a number above 0 (billions of parameters)"))
        if not is_number(self.active_params_b) or self.active_params_b <= 0:
            errors.append(("active_params_b", "must be a number above 0"))
        elif is_number(self.params_b) and self.active_params_b > self.params_b:
            errors.append(("active_params_b", "cannot exceed params_b (total parameters)"))
        return errors

    def _validate_attention(self) -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        for field_name in ("layers", "hidden_size", "heads", "kv_heads", "head_dim"):
            value = getattr(self, field_name)
            if not _is_int(value) or value < 1:
                errors.append((field_name, "must be a whole number of at least 1"))
        if _is_int(self.heads) and _is_int(self.kv_heads) and self.heads >= 1 and self.kv_heads >= 1:
            if self.heads % self.kv_heads:
                errors.append(("kv_heads", f"must divide heads ({self.heads})"))
        return errors

    def _validate_memory(self) -> list[tuple[str, str]]:
        """The quantization, the weights' size and the context."""
        errors: list[tuple[str, str]] = []
        if self.quantization not in QUANT_BYTES:
            errors.append(("quantization", f"unknown; one of {', '.join(sorted(QUANT_BYTES))}"))
        if self.weights_gb is not None:
            if not is_number(self.weights_gb) or self.weights_gb <= 0:
                errors.append(("weights_gb", "must be a number above 0, or empty to compute it"))
            elif is_number(self.params_b) and self.weights_gb > 4 * self.params_b:
                errors.append(("weights_gb", "more than 4 bytes per parameter: check the units (GB)"))
        if not _is_int(self.max_context) or not 1 <= self.max_context <= MAX_CONTEXT_TOKENS:
            errors.append(("max_context", f"must be a whole number from 1 to {MAX_CONTEXT_TOKENS:,}"))
        return errors

    def _validate_cache_width(self) -> list[tuple[str, str]]:
        if self.kv_cache_dim is not None and (not _is_int(self.kv_cache_dim) or self.kv_cache_dim < 1):
            return [("kv_cache_dim", "must be a whole number of at least 1, or empty")]
        return []

    def _validate_variants(self) -> list[tuple[str, str]]:
        """Each quantized variant, one per quantization."""
        errors: list[tuple[str, str]] = []
        seen: set[str] = set()
        for i, v in enumerate(self.variants):
            errors.extend((f"variants[{i}].{name}", msg) for name, msg in v.validate())
            if v.quantization in seen:
                errors.append((f"variants[{i}].quantization", f"a second {v.quantization} variant"))
            seen.add(v.quantization)
        return errors

    def _validate_layer_kinds(self) -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        for name in ("mixer_layers", "ffn_layers", "sliding_window", "kv_layers"):
            value = getattr(self, name)
            low = 0 if name == "ffn_layers" else 1
            if value is not None and (not _is_int(value) or value < low):
                errors.append((name, f"must be a whole number of at least {low}, or empty"))
        for name in ("linear_layers", "state_bytes", "shared_experts"):
            value = getattr(self, name)
            if not _is_int(value) or value < 0:
                errors.append((name, "must be a whole number, 0 for none"))
        if errors or not _is_int(self.layers):
            return errors
        mixers = self.mixers
        for name in ("mixer_layers", "ffn_layers"):
            value = getattr(self, name)
            if value is not None and value > self.layers:
                errors.append((name, f"cannot exceed layers ({self.layers})"))
        if self.linear_layers > mixers:
            errors.append(("linear_layers", f"cannot exceed the token mixers ({mixers})"))
        elif self.kv_layers is not None and self.kv_layers > mixers - self.linear_layers:
            errors.append(
                ("kv_layers", f"cannot exceed the attention layers ({mixers - self.linear_layers} = mixers - linear)")
            )
        if self.linear_layers:
            if self.linear_kind not in LINEAR_KINDS:
                errors.append(("linear_kind", f"one of {', '.join(LINEAR_KINDS)} for a model with linear layers"))
            if self.state_bytes <= 0:
                errors.append(("state_bytes", "a linear or state-space layer keeps a state: give its bytes per stream"))
        elif self.linear_kind or self.state_bytes:
            errors.append(("linear_layers", "linear_kind and state_bytes need linear_layers above 0"))
        if self.shared_experts and not self.is_moe:
            errors.append(("shared_experts", "must be 0 for a dense model (experts 0)"))
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
                is_number(self.params_b)
                and is_number(self.active_params_b)
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
        """The variant of that format, its name matched whatever its case."""
        wanted = canonical_quantization(quantization)
        return next((v for v in self.all_variants() if v.quantization == wanted), None)

    def with_variant(self, variant: ModelVariant) -> ModelSpec:
        """This model as the given variant: its format and its size."""
        return replace(self, quantization=variant.quantization, weights_gb=variant.weights_gb, hf_repo=variant.hf_repo)

    # --- derived sizes --------------------------------------------------------

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    # --- layer kinds ----------------------------------------------------------

    @property
    def mixers(self) -> int:
        """Token mixers (attention, linear attention or state-space)."""
        return self.mixer_layers if self.mixer_layers is not None else self.layers

    @property
    def ffns(self) -> int:
        """Feed-forward (dense or MoE) sublayers."""
        return self.ffn_layers if self.ffn_layers is not None else self.layers

    @property
    def sublayers(self) -> int:
        """Mixers plus FFNs: each ends in one all-reduce under tensor parallelism."""
        return self.mixers + self.ffns

    @property
    def attention_layers(self) -> int:
        return self.mixers - self.linear_layers

    @property
    def full_layers(self) -> int:
        """Attention layers that keep a full-length KV cache."""
        return self.kv_layers if self.kv_layers is not None else self.attention_layers

    @property
    def sliding_layers(self) -> int:
        """Attention layers that keep only a sliding window (none without a window)."""
        return self.attention_layers - self.full_layers if self.sliding_window else 0

    @property
    def family(self) -> str:
        """The architecture family the model's errors are judged in: "hybrid"
        (linear or state-space mixers), "moe" or "dense"."""
        if self.linear_layers:
            return "hybrid"
        return "moe" if self.is_moe else "dense"

    def state_bytes_per_stream(self) -> float:
        """Recurrent state one stream keeps, all linear layers (constant in the context)."""
        return float(self.linear_layers * self.state_bytes)

    def state_bytes_kept(self, engine: str = "vllm") -> float:
        """Recurrent state one stream keeps on this engine, as wide as the
        engine keeps it (``ENGINE_STATE_WIDTH``)."""
        width = ENGINE_STATE_WIDTH.get(engine, {}).get(self.linear_kind, 1.0)
        return width * self.state_bytes_per_stream()

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
        """KV cache bytes per token of context in the full-attention layers, one sequence.

        2 (K and V) x full layers x kv_heads x head_dim x element bytes,
        or full layers x kv_cache_dim x element bytes for latent caches.
        Sliding-window layers add ``window_kv_bytes``; linear layers keep none.
        """
        return float(self.full_layers * self._kv_per_layer() * KV_DTYPE_BYTES[kv_dtype])

    def _kv_per_layer(self) -> int:
        return self.kv_cache_dim if self.kv_cache_dim is not None else 2 * self.kv_heads * self.head_dim

    def window_kv_bytes(self, context: float, kv_dtype: str = DEFAULT_KV_DTYPE) -> float:
        """KV bytes the sliding-window layers keep for one sequence of ``context`` tokens."""
        if not self.sliding_window:
            return 0.0
        window = min(float(context), float(self.sliding_window))
        return self.sliding_layers * self._kv_per_layer() * KV_DTYPE_BYTES[kv_dtype] * window

    def cache_bytes(self, context: float, kv_dtype: str = DEFAULT_KV_DTYPE) -> float:
        """Everything one stream keeps besides the weights: the full layers' KV
        for ``context`` tokens, the sliding windows, the recurrent states."""
        return (
            context * self.kv_bytes_per_token(kv_dtype) + self.window_kv_bytes(context, kv_dtype)
        ) + self.state_bytes_per_stream()

    def kv_shards(self, tp: int) -> int:
        """Into how many parts tensor parallelism splits the KV cache.

        KV heads split over TP ranks until there are fewer heads than ranks
        (then heads are replicated); a latent (MLA) cache is replicated on
        every rank in vLLM and SGLang.
        """
        if self.kv_cache_dim is not None:
            return 1
        return max(1, min(tp, self.kv_heads))


def deltanet_state_bytes(value_heads: int, key_heads: int = 16, head_dim: int = 128, kernel: int = 4) -> int:
    """A gated-DeltaNet layer's state per stream, bf16: the delta state (value
    heads x key dim x value dim) and the convolution's last kernel-1 inputs."""
    return (
        value_heads * head_dim * head_dim * 2 + (2 * key_heads * head_dim + value_heads * head_dim) * (kernel - 1) * 2
    )


def mamba2_state_bytes(heads: int, head_dim: int, state: int = 128, groups: int = 8, kernel: int = 4) -> int:
    """A Mamba-2 layer's state per stream: the SSM state in float32 (as
    Nemotron-H's mamba_ssm_cache_dtype says) and the convolution's inputs in bf16."""
    inner = heads * head_dim
    return inner * state * 4 + (inner + 2 * groups * state) * (kernel - 1) * 2
