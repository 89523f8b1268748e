"""The models and published figures the performance model is now checked on
(placement.published), and up-to-date notes on the figures already stored."""
from django.db import migrations


def seed(apps, schema_editor):
    from benchmarks.seed import refresh_published, seed_published
    from placement.seed import seed_catalogue

    run = apps.get_model("placement", "BenchmarkRun")
    seed_catalogue(apps.get_model("placement", "LlmModel"), apps.get_model("placement", "LlmVariant"))
    seed_published(run, apps.get_model("placement", "LlmModel"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("placement", "0003_variants")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
