"""Held-out figures collected on 2026-12-04, after the performance model was
frozen (placement.perfmodel.report.FRESH): stored as published rows, their
notes saying so."""

from django.db import migrations


def refresh(apps, schema_editor):
    from benchmarks.seed import refresh_published, seed_published

    run = apps.get_model("benchmarks", "BenchmarkRun")
    seed_published(run, apps.get_model("placement", "LlmModel"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0007_backend_socket")]
    operations = [migrations.RunPython(refresh, migrations.RunPython.noop)]
