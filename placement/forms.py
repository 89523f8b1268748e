"""Forms of the placement pages. They render and coerce; the rules live in
the services, whose errors are put back next to the matching field.
``ModelGroupChoices`` fills the model and group selects of any form that
names them (the benchmark forms too)."""

from __future__ import annotations

from typing import Any

from django import forms

from core.forms import EdgeChecked
from topology.live import down_in_groups, down_mark

from .model_catalogue import MAX_CONTEXT_TOKENS
from .planner import ENGINES, GOALS
from .quants import GGUF_FORMATS, QUANT_FORMATS, SAFETENSORS_FORMATS
from .selectors import live_groups, models_list

QUANT_CHOICES = [
    ("safetensors (vLLM, SGLang)", [(q, QUANT_FORMATS[q].label) for q in SAFETENSORS_FORMATS]),
    ("GGUF (llama.cpp)", [(q, QUANT_FORMATS[q].label) for q in GGUF_FORMATS]),
]


def model_choices() -> list[tuple[str, str]]:
    return [(m.slug, m.name) for m in models_list()]


def group_choices() -> list[tuple[str, str]]:
    groups = live_groups()
    down = down_in_groups()
    return [
        (
            str(g.pk),
            f"{g.name} · {g.get_kind_display().lower()} · {g.size} node{'s' if g.size != 1 else ''}"  # type: ignore[attr-defined]
            + down_mark(down.get(g.pk, ())),
        )
        for g in groups
    ]


class ModelGroupChoices(EdgeChecked, forms.Form):
    """Fills model and group selects from the database at render time."""

    def __init__(self, *args: Any, choices_from: ModelGroupChoices | None = None, **kwargs: Any) -> None:
        """``choices_from``: another form of the same request whose choices are
        taken as they are (a page that builds its form twice reads the fleet
        once: the group choices read every Spark's state)."""
        super().__init__(*args, **kwargs)
        for name, choices in (("model", model_choices), ("group", group_choices)):
            field = self.fields.get(name)
            if not isinstance(field, forms.ChoiceField):
                continue
            given = choices_from.fields.get(name) if choices_from is not None else None
            if isinstance(given, forms.ChoiceField):
                field.choices = given.choices
            else:
                field.choices = ([("", "(published: no group)")] if not field.required else []) + choices()


class PlanForm(ModelGroupChoices):
    model = forms.ChoiceField()
    group = forms.ChoiceField()
    context_tokens = forms.IntegerField(
        label="Context (tokens)", initial=8192, min_value=1, max_value=MAX_CONTEXT_TOKENS
    )
    concurrency = forms.IntegerField(label="Concurrent streams", initial=1, min_value=1, max_value=4096)
    goal = forms.ChoiceField(choices=[(g, g) for g in GOALS], initial="latency")
    engine = forms.ChoiceField(choices=[(e, e) for e in ENGINES], initial="vllm")
    variant = forms.CharField(
        required=False, max_length=12, help_text="A quantization of the model; empty: the one the engine loads"
    )
    mode = forms.ChoiceField(
        label="CUDA graphs",
        choices=[("graphs", "graphs (default)"), ("eager", "eager (--enforce-eager)")],
        initial="graphs",
        required=False,
    )
    collective_backend = forms.ChoiceField(
        label="Collectives",
        choices=[("auto", "NCCL over RoCE"), ("rocenante", "RoCEnante (switched, vLLM)")],
        initial="auto",
        required=False,
    )


class ModelForm(EdgeChecked, forms.Form):
    slug = forms.CharField(max_length=100, help_text="Lower-case, e.g. qwen3-8b")
    name = forms.CharField(max_length=120)
    params_b = forms.FloatField(label="Total parameters (billions)")
    active_params_b = forms.FloatField(
        label="Active parameters (billions)",
        required=False,
        help_text="Per token; below the total for a mixture of experts. Empty: equal to the total",
    )
    layers = forms.IntegerField()
    hidden_size = forms.IntegerField()
    heads = forms.IntegerField(label="Attention heads")
    kv_heads = forms.IntegerField(label="KV heads", help_text="Must divide the attention heads")
    head_dim = forms.IntegerField(label="Head dimension")
    experts = forms.IntegerField(initial=0, help_text="0 for a dense model")
    experts_per_token = forms.IntegerField(initial=0)
    quantization = forms.ChoiceField(choices=QUANT_CHOICES, initial="nvfp4")
    weights_gb = forms.FloatField(
        label="Weights (GB, published)", required=False, help_text="Wins over parameters x bytes per parameter"
    )
    max_context = forms.IntegerField(label="Maximum context (tokens)")
    hf_repo = forms.CharField(label="Hugging Face name", max_length=200, required=False)


class VariantForm(EdgeChecked, forms.Form):
    quantization = forms.ChoiceField(choices=QUANT_CHOICES, initial="Q4_K_M")
    weights_gb = forms.FloatField(
        label="File size (GB, published)", required=False, help_text="Empty: parameters x bits per weight"
    )
    hf_repo = forms.CharField(
        label="Hugging Face repository",
        max_length=200,
        required=False,
        help_text="safetensors formats: e.g. nvidia/Llama-3.3-70B-Instruct-NVFP4",
    )
    gguf_repo = forms.CharField(
        label="GGUF repository",
        max_length=200,
        required=False,
        help_text="GGUF types: e.g. bartowski/Llama-3.3-70B-Instruct-GGUF",
    )
    gguf_file = forms.CharField(
        label="GGUF file",
        max_length=255,
        required=False,
        help_text="Empty: llama.cpp picks the file of this type (-hf repo:TYPE)",
    )
    notes = forms.CharField(required=False, max_length=500)


class ConfigForm(EdgeChecked, forms.Form):
    config = forms.FileField(label="config.json", help_text="Read here; nothing is downloaded")
    slug = forms.CharField(max_length=100)
    quantization = forms.ChoiceField(choices=QUANT_CHOICES, initial="nvfp4")
    name = forms.CharField(max_length=120, required=False)
    params_b = forms.FloatField(
        label="Total parameters (billions)", required=False, help_text="Empty: estimated from the config"
    )
    active_params_b = forms.FloatField(label="Active parameters (billions)", required=False)
    weights_gb = forms.FloatField(label="Weights (GB, published)", required=False)
    hf_repo = forms.CharField(label="Hugging Face name", max_length=200, required=False)
