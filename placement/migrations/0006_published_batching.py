"""The published figures added with the batching constants (aggregate decode
at 2 to 64 streams, long-context decode, one more one-node figure), and
up-to-date notes on the figures already stored."""
from django.db import migrations


def seed(apps, schema_editor):
    from placement.seed import refresh_published, seed_placement

    run = apps.get_model("placement", "BenchmarkRun")
    seed_placement(apps.get_model("placement", "LlmModel"), run, apps.get_model("placement", "LlmVariant"))
    refresh_published(run)


class Migration(migrations.Migration):
    dependencies = [("placement", "0005_saved_plans")]
    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
