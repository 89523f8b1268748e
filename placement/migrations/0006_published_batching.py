"""The published figures added with the batching constants (aggregate decode
at 2 to 64 streams, long-context decode, one more one-node figure), and
up-to-date notes on the figures already stored."""
from django.db import migrations


def seed(apps, schema_editor):
    from benchmarks.seed import refresh_published, seed_published
    from placement.seed import seed_catalogue

    run = apps.get_model("placement", "BenchmarkRun")
    seed_catalogue(apps.get_model("placement", "LlmModel"), apps.get_model("placement", "LlmVariant"))
    seed_published(run, apps.get_model("placement", "LlmModel"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("placement", "0005_saved_plans")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
