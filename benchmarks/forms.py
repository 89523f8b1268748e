"""Forms of the benchmark pages: record a result, upload one, start a run.
They render and coerce; the rules live in the services, whose errors are put
back next to the matching field."""

from __future__ import annotations

from django import forms

from inventory.models import NodeGroup
from placement.forms import ModelGroupChoices

from .models import BenchmarkRun

CHECKPOINT_HELP = "The Hugging Face repository (org/name) or path that ran; blank: not stated"
FORMAT_HELP = "The weights' format that ran, such as nvfp4, fp8 or Q4_K_M (any case); blank: not stated"
MODE_CHOICES = [("", "not known"), ("graphs", "CUDA graphs (the default)"), ("eager", "eager (--enforce-eager)")]
SPECULATIVE_HELP = (
    "What the engine drafted tokens with (--speculative-config); the performance model predicts plain decoding, so "
    "such a run's decode is shown, never compared or fitted on"
)
SPECULATIVE_CHOICES = [("", "none"), *[(v, label) for v, label in BenchmarkRun.Speculative.choices if v]]
TP_HELP = "Empty: the nodes each copy has after its pipeline stages (the node count for one copy)"
COPIES_HELP = "Independent copies measured together through a router (tp and pp are one copy's); empty: 1"
BACKEND_HELP = (
    "What really ran: RoCEnante falls back to NCCL silently, and NCCL to TCP sockets ('Using network Socket' "
    "in its log) when it finds no RoCE device; a run over sockets is kept, never fitted on"
)


class BenchmarkForm(ModelGroupChoices):
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
        help_text=BACKEND_HELP,
    )
    quantization = forms.CharField(label="Weights format", required=False, max_length=12, help_text=FORMAT_HELP)
    mode = forms.ChoiceField(label="CUDA-graph mode", choices=MODE_CHOICES, required=False)
    checkpoint = forms.CharField(label="Checkpoint", required=False, max_length=200, help_text=CHECKPOINT_HELP)
    speculative = forms.ChoiceField(
        label="Speculative decoding", choices=SPECULATIVE_CHOICES, required=False, help_text=SPECULATIVE_HELP
    )
    acceptance_length = forms.FloatField(
        label="Acceptance length",
        required=False,
        help_text="Tokens each verification step kept, the verified one included (vLLM prints it)",
    )
    acceptance_rate = forms.FloatField(label="Acceptance rate (%)", required=False)
    tp = forms.IntegerField(label="Tensor parallel", required=False, help_text=TP_HELP)
    pp = forms.IntegerField(label="Pipeline stages", required=False, help_text="Empty: 1")
    copies = forms.IntegerField(label="Copies", required=False, help_text=COPIES_HELP)
    concurrency = forms.IntegerField(initial=1)
    input_len = forms.IntegerField(label="Input tokens", required=False)
    output_len = forms.IntegerField(label="Output tokens", required=False)
    prefill_tps = forms.FloatField(label="Prefill tok/s", required=False)
    decode_tps = forms.FloatField(label="Decode tok/s (all streams)")
    ttft_ms = forms.FloatField(label="TTFT (ms)", required=False)
    tpot_ms = forms.FloatField(label="TPOT (ms)", required=False)
    measured_at = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    notes = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


class UploadForm(ModelGroupChoices):
    file = forms.FileField(
        help_text="vllm bench serve --save-result JSON, its console summary, llama-bench -o json, or the JSONL "
        "python -m sglang.bench_serving --output-file appends to (its last line), or its console summary"
    )
    format = forms.ChoiceField(
        choices=[
            ("auto", "recognise it"),
            ("vllm-json", "vllm bench serve JSON"),
            ("vllm-console", "vllm bench serve console"),
            ("llama-bench-json", "llama-bench -o json"),
            ("sglang-jsonl", "sglang.bench_serving JSONL"),
            ("sglang-console", "sglang.bench_serving console"),
        ],
        initial="auto",
    )
    group = forms.ChoiceField()
    model = forms.ChoiceField()
    backend = forms.ChoiceField(
        choices=BenchmarkRun.Backend.choices,
        initial="unknown",
        help_text=BACKEND_HELP,
    )
    quantization = forms.CharField(label="Weights format", required=False, max_length=12, help_text=FORMAT_HELP)
    mode = forms.ChoiceField(label="CUDA-graph mode", choices=MODE_CHOICES, required=False)
    checkpoint = forms.CharField(label="Checkpoint", required=False, max_length=200, help_text=CHECKPOINT_HELP)
    speculative = forms.ChoiceField(
        label="Speculative decoding",
        choices=SPECULATIVE_CHOICES,
        required=False,
        help_text=SPECULATIVE_HELP
        + "; a vLLM or SGLang file whose server drafted tokens says so itself (method not named)",
    )
    tp = forms.IntegerField(label="Tensor parallel", required=False, help_text=TP_HELP)
    pp = forms.IntegerField(label="Pipeline stages", required=False, help_text="Empty: 1")
    copies = forms.IntegerField(label="Copies", required=False, help_text=COPIES_HELP)
    concurrency = forms.IntegerField(required=False, help_text="Only if the file does not say")
    notes = forms.CharField(required=False)


class RunForm(ModelGroupChoices):
    model = forms.ChoiceField()
    concurrency = forms.IntegerField(initial=1)
    input_len = forms.IntegerField(label="Input tokens", initial=128)
    output_len = forms.IntegerField(label="Output tokens", initial=128)
    num_prompts = forms.IntegerField(label="Requests", initial=10)
