"""The published figures' notes say which ran with speculative decoding (the
vLLM blog's Nemotron-3-Super run: MTP, its decode not compared)."""

from django.db import migrations


def refresh(apps, schema_editor):
    from benchmarks.seed import refresh_published, seed_published

    run = apps.get_model("benchmarks", "BenchmarkRun")
    seed_published(run, apps.get_model("placement", "LlmModel"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0002_run_heartbeat"), ("placement", "0010_flagship_references")]
    operations = [migrations.RunPython(refresh, migrations.RunPython.noop)]
