"""Published figures added after 0012: the sixth set of held-out runs,
collected on 2026-12-05 (placement.published_fresh_sixth), stored as
published rows (the post-migrate seed fills an empty table only), and every
published row's notes brought to the seed's words."""

from django.db import migrations


def refresh(apps, schema_editor):
    from benchmarks.seed import refresh_published, seed_published

    run = apps.get_model("benchmarks", "BenchmarkRun")
    seed_published(run, apps.get_model("placement", "LlmModel"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0012_published_fifth_fresh")]
    operations = [migrations.RunPython(refresh, migrations.RunPython.noop)]
