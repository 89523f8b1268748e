"""Benchmark records: one measured or published result per row.

A row keeps a snapshot of the group's topology at the time (kind, node
names, slowest link), so it keeps its meaning after the cabling changes or
the group is retired. Runs started from the page pass through ``queued`` and
``running`` to ``done`` or ``failed``. Validation lives in
``benchmarks.services``; the database only holds the rules that must stand
whatever writes (sane numbers, one row per published figure).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from inventory.models import NodeGroup
from placement.models import LlmModel


class BenchmarkRun(models.Model):
    """One benchmark result: measured here (entered, uploaded or run over SSH) or published."""

    class Source(models.TextChoices):
        MEASURED = "measured", "Measured here"
        PUBLISHED = "published", "Published"

    class Engine(models.TextChoices):
        VLLM = "vllm", "vLLM"
        SGLANG = "sglang", "SGLang"
        LLAMA_CPP = "llama.cpp", "llama.cpp"
        TRTLLM = "tensorrt-llm", "TensorRT-LLM"
        OTHER = "other", "Other"

    class Backend(models.TextChoices):
        NCCL = "nccl", "NCCL"
        ROCENANTE = "rocenante", "RoCEnante"
        # NCCL found no usable RoCE device and fell back ("Using network Socket"):
        # a broken fabric, kept as a record, never fitted on
        SOCKET = "socket", "NCCL over TCP sockets"
        NONE = "none", "None (one node)"
        UNKNOWN = "unknown", "Not known"

    class Mode(models.TextChoices):
        GRAPHS = "graphs", "CUDA graphs"
        EAGER = "eager", "eager (no CUDA graphs)"
        NOT_KNOWN = "", "not known"

    class Speculative(models.TextChoices):
        # what the run's engine was told to draft with; the performance model predicts plain decoding
        NONE = "", "none stated (read as plain decoding)"
        MTP = "mtp", "MTP"
        EAGLE = "eagle", "EAGLE"
        EAGLE3 = "eagle3", "EAGLE-3"
        NEXTN = "nextn", "NextN"
        DFLASH = "dflash", "DFlash"
        NGRAM = "ngram", "n-gram"
        DRAFT = "draft", "a draft model"
        UNNAMED = "unnamed", "method not named"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    source = models.CharField(max_length=10, choices=Source.choices, default=Source.MEASURED)
    reference = models.TextField(blank=True, help_text="Where a published figure comes from")
    reading = models.CharField(max_length=10, blank=True, help_text="Which reading of a disputed published row")
    published_key = models.CharField(max_length=64, null=True, blank=True, unique=True)
    group = models.ForeignKey(NodeGroup, on_delete=models.SET_NULL, null=True, blank=True, related_name="benchmarks")
    group_name = models.CharField(max_length=63, blank=True)
    topology_kind = models.CharField(max_length=10, choices=NodeGroup.Kind.choices)
    group_nodes = models.JSONField(default=list, blank=True, help_text="The group's nodes at the time")
    nodes = models.JSONField(default=list, blank=True, help_text="The nodes the run used")
    node_count = models.PositiveSmallIntegerField()
    link_gbps = models.FloatField(null=True, blank=True, help_text="Slowest cluster link at the time")
    model = models.ForeignKey(LlmModel, on_delete=models.PROTECT, null=True, blank=True, related_name="benchmarks")
    model_name = models.CharField(max_length=120, help_text="The model's slug or published name")
    engine = models.CharField(max_length=14, choices=Engine.choices, default=Engine.VLLM)
    engine_version = models.CharField(max_length=120, blank=True)
    backend = models.CharField(max_length=10, choices=Backend.choices, default=Backend.UNKNOWN)
    quantization = models.CharField(
        max_length=12,
        blank=True,
        help_text="The weights' format that ran (a variant of the model); blank: not stated, read as the variant "
        "its engine loads",
    )
    mode = models.CharField(
        max_length=6,
        choices=Mode.choices,
        blank=True,
        help_text="The engine's CUDA-graph mode (--enforce-eager: eager); blank: not known, read as CUDA graphs",
    )
    checkpoint = models.CharField(
        max_length=200,
        blank=True,
        help_text="The checkpoint that ran: a Hugging Face repository (org/name) or a path on the nodes; blank: "
        "not stated. Two checkpoints of one format can decode far apart",
    )
    speculative = models.CharField(
        max_length=8,
        choices=Speculative.choices,
        blank=True,
        help_text="The speculative decoding the run used (blank: none stated, read as plain decoding). The "
        "performance model predicts plain decoding: a speculative run's decode is shown, never compared or fitted on",
    )
    acceptance_length = models.FloatField(
        null=True,
        blank=True,
        help_text="Tokens each verification step kept, the verified token included (vLLM's acceptance length)",
    )
    acceptance_rate = models.FloatField(null=True, blank=True, help_text="Draft tokens accepted, in percent")
    tp = models.PositiveSmallIntegerField(default=1)
    pp = models.PositiveSmallIntegerField(default=1)
    concurrency = models.PositiveIntegerField(default=1)
    input_len = models.PositiveIntegerField(null=True, blank=True)
    output_len = models.PositiveIntegerField(null=True, blank=True)
    num_prompts = models.PositiveIntegerField(null=True, blank=True, help_text="Requests sent (runs started here)")
    prefill_tps = models.FloatField(null=True, blank=True)
    decode_tps = models.FloatField(null=True, blank=True, help_text="Output tokens/s over all streams")
    ttft_ms = models.FloatField(null=True, blank=True)
    tpot_ms = models.FloatField(null=True, blank=True)
    derived = models.JSONField(default=list, blank=True, help_text="Fields computed rather than read")
    notes = models.TextField(blank=True)
    measured_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.DONE)
    error = models.TextField(blank=True)
    # A run started from the page: when a worker took it, its last sign of life
    # (core.runs.heartbeat) and the task running it, so that a run whose worker
    # was killed is started again once, or failed, never left "running".
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    command = models.TextField(blank=True, help_text="What a run started from the page executed")
    serve_url = models.CharField(
        max_length=200, blank=True, help_text="The server a run measured (blank: the head node's port 8000)"
    )
    copies = models.PositiveSmallIntegerField(
        default=1, help_text="Independent copies measured together through a router (the layout is one copy's)"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_by_name = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table placement created before benchmarks had their own app
        # (migrations benchmarks.0001 and placement.0007 moved the model, not the rows).
        db_table = "placement_benchmarkrun"
        verbose_name = "benchmark record"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["model", "status"], name="bench_model_status"),
            models.Index(fields=["group", "status"], name="bench_group_status"),
        ]
        constraints = [
            models.CheckConstraint(
                name="bench_numbers_not_negative",
                condition=(
                    (Q(decode_tps__isnull=True) | Q(decode_tps__gte=0))
                    & (Q(prefill_tps__isnull=True) | Q(prefill_tps__gte=0))
                    & (Q(ttft_ms__isnull=True) | Q(ttft_ms__gte=0))
                    & (Q(tpot_ms__isnull=True) | Q(tpot_ms__gte=0))
                ),
            ),
            models.CheckConstraint(name="bench_node_count_positive", condition=Q(node_count__gte=1)),
            models.CheckConstraint(name="bench_mode_known", condition=Q(mode__in=["", "graphs", "eager"])),
            models.CheckConstraint(
                name="bench_speculative_known",
                condition=Q(
                    speculative__in=["", "mtp", "eagle", "eagle3", "nextn", "dflash", "ngram", "draft", "unnamed"]
                ),
            ),
            # acceptance figures belong to a speculative run, and are sane: at least the verified token a
            # step, a share from 0 to 100%
            models.CheckConstraint(
                name="bench_acceptance_sane",
                condition=((Q(acceptance_length__isnull=True) & Q(acceptance_rate__isnull=True)) | ~Q(speculative=""))
                & (Q(acceptance_length__isnull=True) | Q(acceptance_length__gte=1))
                & (Q(acceptance_rate__isnull=True) | (Q(acceptance_rate__gte=0) & Q(acceptance_rate__lte=100))),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model_name} on {self.group_name or self.topology_kind} ({self.node_count} nodes)"

    def backend_words(self) -> str:
        """The collective backend as the pages say it: copies of one node each exchange nothing."""
        if self.backend == self.Backend.NONE and self.copies > 1:
            return "none (each copy on one node)"
        return str(self.get_backend_display())

    def speculative_label(self) -> str:
        """The run's speculative decoding in a word, for a badge ("MTP"; "": none stated)."""
        if self.speculative == self.Speculative.UNNAMED:
            return "speculative"
        return str(self.get_speculative_display()) if self.speculative else ""

    def speculative_method(self) -> str:
        """The run's speculative decoding as a phrase ("MTP speculative decoding"; "": none stated)."""
        if self.speculative == self.Speculative.UNNAMED:
            return "speculative decoding"
        return f"{self.get_speculative_display()} speculative decoding" if self.speculative else ""

    def speculative_words(self) -> str:
        """The run's speculative decoding with vLLM's acceptance figures, as the pages say it ("": none stated)."""
        method = self.speculative_method()
        if not method:
            return ""
        kept = []
        if self.acceptance_length is not None:
            kept.append(f"{self.acceptance_length:.2f} tokens a step")
        if self.acceptance_rate is not None:
            kept.append(f"{self.acceptance_rate:.0f}% of drafts accepted")
        return f"{method} ({', '.join(kept)})" if kept else method

    @property
    def stream_decode_tps(self) -> float | None:
        """One stream's decode speed: 1000 / TPOT, or the throughput of a single-stream run."""
        if self.tpot_ms:
            return 1000.0 / self.tpot_ms
        return self.decode_tps if self.concurrency == 1 else None
