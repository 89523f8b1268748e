"""The models and published figures the performance model is now checked on
(placement.published), and up-to-date notes on the figures already stored."""
from django.db import migrations


def seed(apps, schema_editor):
    from placement.seed import refresh_published, seed_placement

    run = apps.get_model("placement", "BenchmarkRun")
    seed_placement(apps.get_model("placement", "LlmModel"), run, apps.get_model("placement", "LlmVariant"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("placement", "0003_variants")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
