"""Placement storage: the model catalogue (``LlmModel``, ``LlmVariant``) and
the plans someone chose to run (``SavedPlan``).

A catalogue row is the database form of ``placement.model_catalogue.ModelSpec``;
``LlmModel.spec()`` turns it back into the pure dataclass the planner reads.
Benchmark records live in the benchmarks app, which stands on this one.
Validation lives in ``placement.services``; the database only holds the rules
that must stand whatever writes (unique slugs, sane numbers).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from inventory.models import NodeGroup

from .model_catalogue import ModelSpec
from .quants import QUANT_FORMATS, ModelVariant

QUANTIZATIONS = [(q, q) for q in QUANT_FORMATS]


class LlmModel(models.Model):
    """One model of the catalogue (named so as not to clash with Django's Model)."""

    slug = models.CharField(max_length=100, unique=True)
    name = models.CharField(max_length=120)
    params_b = models.FloatField(help_text="Total parameters, billions")
    active_params_b = models.FloatField(help_text="Parameters used per token, billions (below total for MoE)")
    layers = models.PositiveIntegerField()
    hidden_size = models.PositiveIntegerField()
    heads = models.PositiveIntegerField(help_text="Attention heads")
    kv_heads = models.PositiveIntegerField(help_text="Key/value heads (divides heads)")
    head_dim = models.PositiveIntegerField()
    experts = models.PositiveIntegerField(default=0, help_text="Routed experts; 0 for a dense model")
    experts_per_token = models.PositiveIntegerField(default=0)
    quantization = models.CharField(
        max_length=12, choices=QUANTIZATIONS, help_text="The default variant's format (other variants: LlmVariant)"
    )
    weights_gb = models.FloatField(
        null=True, blank=True, help_text="Published checkpoint size; wins over params x bytes"
    )
    max_context = models.PositiveIntegerField()
    kv_layers = models.PositiveIntegerField(null=True, blank=True, help_text="Layers with a full-length KV cache")
    kv_cache_dim = models.PositiveIntegerField(
        null=True, blank=True, help_text="Cached values per token per layer (MLA)"
    )
    linear_layers = models.PositiveIntegerField(
        default=0, help_text="Linear-attention or state-space mixers (no KV cache, a fixed state per stream)"
    )
    linear_kind = models.CharField(max_length=20, blank=True, help_text="gated-deltanet or mamba2")
    state_bytes = models.BigIntegerField(default=0, help_text="Recurrent state per stream per linear layer, bytes")
    sliding_window = models.PositiveIntegerField(
        null=True, blank=True, help_text="Window of the sliding-window attention layers, tokens"
    )
    mixer_layers = models.PositiveIntegerField(
        null=True, blank=True, help_text="Token mixers, when not one per layer (Nemotron-H blocks)"
    )
    ffn_layers = models.PositiveIntegerField(
        null=True, blank=True, help_text="Feed-forward/MoE sublayers, when not one per layer"
    )
    shared_experts = models.PositiveIntegerField(default=0, help_text="Always-active experts of a MoE")
    hf_repo = models.CharField(max_length=200, blank=True)
    notes = models.TextField(blank=True)
    estimated_fields = models.JSONField(default=list, blank=True)
    origin = models.CharField(max_length=12, default="admin", help_text="seed, admin or config.json")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "LLM model"
        constraints = [
            models.CheckConstraint(name="llmmodel_params_positive", condition=Q(params_b__gt=0, active_params_b__gt=0)),
            models.CheckConstraint(
                name="llmmodel_active_le_total", condition=Q(active_params_b__lte=models.F("params_b"))
            ),
        ]

    def __str__(self) -> str:
        return self.slug

    def spec(self) -> ModelSpec:
        """The pure form; prefetch ``variants`` when reading many rows."""
        return ModelSpec(
            slug=self.slug,
            name=self.name,
            params_b=self.params_b,
            active_params_b=self.active_params_b,
            layers=self.layers,
            hidden_size=self.hidden_size,
            heads=self.heads,
            kv_heads=self.kv_heads,
            head_dim=self.head_dim,
            experts=self.experts,
            experts_per_token=self.experts_per_token,
            quantization=self.quantization,
            weights_gb=self.weights_gb,
            max_context=self.max_context,
            kv_layers=self.kv_layers,
            kv_cache_dim=self.kv_cache_dim,
            linear_layers=self.linear_layers,
            linear_kind=self.linear_kind,
            state_bytes=self.state_bytes,
            sliding_window=self.sliding_window,
            mixer_layers=self.mixer_layers,
            ffn_layers=self.ffn_layers,
            shared_experts=self.shared_experts,
            hf_repo=self.hf_repo,
            notes=self.notes,
            estimated_fields=tuple(self.estimated_fields or ()),
            variants=tuple(v.spec() for v in self.variants.all()),
        )

    @property
    def is_moe(self) -> bool:
        return self.experts > 0


class LlmVariant(models.Model):
    """Another quantized form of a catalogue model (the default form lives on
    the model row itself): its format, file size when known, and where each
    engine finds it. ``placement.quants.engine_reference`` says which engine
    loads it from where."""

    model = models.ForeignKey(LlmModel, on_delete=models.CASCADE, related_name="variants")
    quantization = models.CharField(max_length=12, choices=QUANTIZATIONS)
    weights_gb = models.FloatField(null=True, blank=True, help_text="Published file size; wins over params x bits")
    hf_repo = models.CharField(max_length=200, blank=True, help_text="Safetensors repository (vLLM, SGLang)")
    gguf_repo = models.CharField(max_length=200, blank=True, help_text="GGUF repository (llama.cpp)")
    gguf_file = models.CharField(max_length=255, blank=True, help_text="The .gguf file in that repository")
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["model_id", "id"]
        verbose_name = "model variant"
        constraints = [
            models.UniqueConstraint(fields=["model", "quantization"], name="llmvariant_one_per_format"),
            models.CheckConstraint(
                name="llmvariant_weights_positive", condition=Q(weights_gb__isnull=True) | Q(weights_gb__gt=0)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model_id}:{self.quantization}"

    def spec(self) -> ModelVariant:
        return ModelVariant(
            quantization=self.quantization,
            weights_gb=self.weights_gb,
            hf_repo=self.hf_repo,
            gguf_repo=self.gguf_repo,
            gguf_file=self.gguf_file,
            notes=self.notes,
        )


class SavedPlan(models.Model):
    """A plan someone chose to run (the plan page's "Book this group for this
    plan"): what to run where, and what the model predicted then. Bookings
    point at it, so a booking names a real plan rather than free text."""

    model = models.ForeignKey(LlmModel, on_delete=models.PROTECT, related_name="saved_plans")
    quantization = models.CharField(max_length=12, choices=QUANTIZATIONS)
    group = models.ForeignKey(NodeGroup, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    group_name = models.CharField(max_length=63)
    engine = models.CharField(max_length=14)
    goal = models.CharField(max_length=10)
    context_tokens = models.PositiveIntegerField()
    concurrency = models.PositiveIntegerField()
    strategy = models.CharField(max_length=20)
    label = models.CharField(max_length=120)
    tp = models.PositiveSmallIntegerField()
    pp = models.PositiveSmallIntegerField()
    ep = models.PositiveSmallIntegerField()
    replicas = models.PositiveSmallIntegerField()
    stage_layers = models.JSONField(default=list, blank=True)
    nodes = models.JSONField(default=list)
    instances = models.JSONField(default=list)
    decode_tps = models.FloatField(null=True, blank=True, help_text="Predicted one-stream decode at the time")
    aggregate_tps = models.FloatField(null=True, blank=True)
    prefill_tps = models.FloatField(null=True, blank=True)
    # [low, high] of each predicted figure then ("decode", "aggregate", "prefill"), and what drew them
    predicted_ranges = models.JSONField(default=dict, blank=True)
    collective_backend = models.CharField(max_length=12, blank=True)
    prediction_source = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.model.slug} {self.quantization}: {self.label} ({self.engine})"
