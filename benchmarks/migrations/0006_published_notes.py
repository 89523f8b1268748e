"""The published figures' notes say which ran with speculative decoding: vLLM
recipes PR 918's Qwen3.6-35B-A3B run, a training point, ran its recipe's MTP
draft, so its decode is neither fitted on nor compared (its prefill is). The
two llama.cpp training figures name their builds (gpt-oss-20b's are b6767's,
read from the page that shows them)."""

from django.db import migrations


def refresh(apps, schema_editor):
    from benchmarks.seed import refresh_published, seed_published

    run = apps.get_model("benchmarks", "BenchmarkRun")
    seed_published(run, apps.get_model("placement", "LlmModel"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0005_run_copies")]
    operations = [migrations.RunPython(refresh, migrations.RunPython.noop)]
