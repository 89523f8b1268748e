"""Forms of the placement pages. They render and coerce; the rules live in
the services, whose errors are put back next to the matching field."""

from __future__ import annotations

from typing import Any

from django import forms

from core.forms import EdgeChecked
from inventory.models import NodeGroup

from .model_catalogue import MAX_CONTEXT_TOKENS
from .models import BenchmarkRun
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
    return [
        (str(g.pk), f"{g.name} · {g.get_kind_display().lower()} · {g.size} node{'s' if g.size != 1 else ''}")  # type: ignore[attr-defined]
        for g in groups
    ]


class _Choices(EdgeChecked, forms.Form):
    """Fills model and group selects from the database at render time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, choices in (("model", model_choices), ("group", group_choices)):
            field = self.fields.get(name)
            if isinstance(field, forms.ChoiceField):
                field.choices = ([("", "(published: no group)")] if not field.required else []) + choices()


class PlanForm(_Choices):
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
        help_text="safetensors formats: e.g. nvidia/Llama-3.3-70B-Instruct-FP4",
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


class BenchmarkForm(_Choices):
    source = forms.ChoiceField(choices=BenchmarkRun.Source.choices, initial="measured")
    reference = forms.CharField(required=False, help_text="Published figures: where they come from")
    group = forms.ChoiceField(required=False, help_text="Measured here: the group it ran on")
    topology_kind = forms.ChoiceField(
        choices=[("", "-"), *NodeGroup.Kind.choices], required=False, help_text="Published figures without a group"
    )
    node_count = forms.IntegerField(required=False, help_text="Published figures without a group")
    model = forms.ChoiceField()
    engine = forms.ChoiceField(choices=BenchmarkRun.Engine.choices, initial="vllm")
    engine_version = forms.CharField(required=False, max_length=120)
    backend = forms.ChoiceField(
        choices=BenchmarkRun.Backend.choices,
        initial="unknown",
        help_text="What really ran: RoCEnante falls back to NCCL silently",
    )
    tp = forms.IntegerField(label="Tensor parallel", required=False, help_text="Empty: the node count")
    pp = forms.IntegerField(label="Pipeline stages", required=False, help_text="Empty: 1")
    concurrency = forms.IntegerField(initial=1)
    input_len = forms.IntegerField(label="Input tokens", required=False)
    output_len = forms.IntegerField(label="Output tokens", required=False)
    prefill_tps = forms.FloatField(label="Prefill tok/s", required=False)
    decode_tps = forms.FloatField(label="Decode tok/s (all streams)")
    ttft_ms = forms.FloatField(label="TTFT (ms)", required=False)
    tpot_ms = forms.FloatField(label="TPOT (ms)", required=False)
    measured_at = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


class UploadForm(_Choices):
    file = forms.FileField(help_text="vllm bench serve --save-result JSON, its console summary, or llama-bench -o json")
    format = forms.ChoiceField(
        choices=[
            ("auto", "recognise it"),
            ("vllm-json", "vllm bench serve JSON"),
            ("vllm-console", "vllm bench serve console"),
            ("llama-bench-json", "llama-bench -o json"),
        ],
        initial="auto",
    )
    group = forms.ChoiceField()
    model = forms.ChoiceField()
    backend = forms.ChoiceField(
        choices=BenchmarkRun.Backend.choices,
        initial="unknown",
        help_text="What really ran: RoCEnante falls back to NCCL silently",
    )
    concurrency = forms.IntegerField(required=False, help_text="Only if the file does not say")
    notes = forms.CharField(required=False)


class RunForm(_Choices):
    model = forms.ChoiceField()
    concurrency = forms.IntegerField(initial=1)
    input_len = forms.IntegerField(label="Input tokens", initial=128)
    output_len = forms.IntegerField(label="Output tokens", initial=128)
    num_prompts = forms.IntegerField(label="Requests", initial=10)


def cleaned(form: forms.Form) -> dict[str, Any]:
    """The form's values without the empty ones (the services apply defaults)."""
    return {k: v for k, v in form.cleaned_data.items() if v not in (None, "")}


def upload_text(form: forms.Form, name: str, limit: int = 4 * 1024 * 1024) -> str | None:
    """An uploaded file as text, or None (with a field error) when it is not one."""
    upload = form.cleaned_data.get(name)
    if upload is None:
        return None
    if upload.size > limit:
        form.add_error(name, f"larger than {limit // 1024 // 1024} MB")
        return None
    raw = upload.read()
    try:
        return str(raw.decode("utf-8"))
    except UnicodeDecodeError:
        form.add_error(name, "not a text file (UTF-8)")
        return None
