"""Benchmark records, taken over from placement: the model enters this app's
state on the table placement created (placement_benchmarkrun), whose rows,
indexes and constraints stay as they are; nothing is written to the table.
The content type moves with the model, so admin permissions and log entries
keep pointing at it."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _relabel(apps, old: str, new: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    if content_type.objects.filter(app_label=new, model="benchmarkrun").exists():
        return  # post_migrate made one already (a database created before this ran)
    content_type.objects.filter(app_label=old, model="benchmarkrun").update(app_label=new)


def move_content_type(apps, schema_editor):
    _relabel(apps, "placement", "benchmarks")


def move_content_type_back(apps, schema_editor):
    _relabel(apps, "benchmarks", "placement")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("inventory", "0004_catalogue_price"),
        ("placement", "0008_benchmarks_app"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="BenchmarkRun",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "source",
                            models.CharField(
                                choices=[("measured", "Measured here"), ("published", "Published")],
                                default="measured",
                                max_length=10,
                            ),
                        ),
                        ("reference", models.TextField(blank=True, help_text="Where a published figure comes from")),
                        (
                            "reading",
                            models.CharField(
                                blank=True, help_text="Which reading of a disputed published row", max_length=10
                            ),
                        ),
                        ("published_key", models.CharField(blank=True, max_length=64, null=True, unique=True)),
                        ("group_name", models.CharField(blank=True, max_length=63)),
                        (
                            "topology_kind",
                            models.CharField(
                                choices=[
                                    ("single", "Single"),
                                    ("direct", "Direct pair"),
                                    ("ring", "Ring"),
                                    ("chain", "Chain"),
                                    ("switched", "Switched"),
                                    ("irregular", "Irregular"),
                                ],
                                max_length=10,
                            ),
                        ),
                        (
                            "group_nodes",
                            models.JSONField(blank=True, default=list, help_text="The group's nodes at the time"),
                        ),
                        ("nodes", models.JSONField(blank=True, default=list, help_text="The nodes the run used")),
                        ("node_count", models.PositiveSmallIntegerField()),
                        (
                            "link_gbps",
                            models.FloatField(blank=True, help_text="Slowest cluster link at the time", null=True),
                        ),
                        (
                            "model_name",
                            models.CharField(help_text="The model's slug or published name", max_length=120),
                        ),
                        (
                            "engine",
                            models.CharField(
                                choices=[
                                    ("vllm", "vLLM"),
                                    ("sglang", "SGLang"),
                                    ("llama.cpp", "llama.cpp"),
                                    ("tensorrt-llm", "TensorRT-LLM"),
                                    ("other", "Other"),
                                ],
                                default="vllm",
                                max_length=14,
                            ),
                        ),
                        ("engine_version", models.CharField(blank=True, max_length=120)),
                        (
                            "backend",
                            models.CharField(
                                choices=[
                                    ("nccl", "NCCL"),
                                    ("rocenante", "RoCEnante"),
                                    ("none", "None (one node)"),
                                    ("unknown", "Not known"),
                                ],
                                default="unknown",
                                max_length=10,
                            ),
                        ),
                        ("tp", models.PositiveSmallIntegerField(default=1)),
                        ("pp", models.PositiveSmallIntegerField(default=1)),
                        ("concurrency", models.PositiveIntegerField(default=1)),
                        ("input_len", models.PositiveIntegerField(blank=True, null=True)),
                        ("output_len", models.PositiveIntegerField(blank=True, null=True)),
                        (
                            "num_prompts",
                            models.PositiveIntegerField(
                                blank=True, help_text="Requests sent (runs started here)", null=True
                            ),
                        ),
                        ("prefill_tps", models.FloatField(blank=True, null=True)),
                        (
                            "decode_tps",
                            models.FloatField(blank=True, help_text="Output tokens/s over all streams", null=True),
                        ),
                        ("ttft_ms", models.FloatField(blank=True, null=True)),
                        ("tpot_ms", models.FloatField(blank=True, null=True)),
                        (
                            "derived",
                            models.JSONField(blank=True, default=list, help_text="Fields computed rather than read"),
                        ),
                        ("notes", models.TextField(blank=True)),
                        ("measured_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("queued", "Queued"),
                                    ("running", "Running"),
                                    ("done", "Done"),
                                    ("failed", "Failed"),
                                ],
                                default="done",
                                max_length=8,
                            ),
                        ),
                        ("error", models.TextField(blank=True)),
                        (
                            "command",
                            models.TextField(blank=True, help_text="What a run started from the page executed"),
                        ),
                        ("created_by_name", models.CharField(blank=True, max_length=150)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "created_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "group",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="benchmarks",
                                to="inventory.nodegroup",
                            ),
                        ),
                        (
                            "model",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="benchmarks",
                                to="placement.llmmodel",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "benchmark record",
                        "db_table": "placement_benchmarkrun",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(fields=["model", "status"], name="bench_model_status"),
                            models.Index(fields=["group", "status"], name="bench_group_status"),
                        ],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(("decode_tps__isnull", True), ("decode_tps__gte", 0), _connector="OR"),
                                    models.Q(("prefill_tps__isnull", True), ("prefill_tps__gte", 0), _connector="OR"),
                                    models.Q(("ttft_ms__isnull", True), ("ttft_ms__gte", 0), _connector="OR"),
                                    models.Q(("tpot_ms__isnull", True), ("tpot_ms__gte", 0), _connector="OR"),
                                ),
                                name="bench_numbers_not_negative",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("node_count__gte", 1)), name="bench_node_count_positive"
                            ),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_type, move_content_type_back),
    ]
