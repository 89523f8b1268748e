"""Seed the model catalogue and the published benchmark figures (placement.seed)."""
from django.db import migrations


def seed(apps, schema_editor):
    from placement.seed import seed_placement

    seed_placement(apps.get_model("placement", "LlmModel"), apps.get_model("placement", "BenchmarkRun"))


def unseed(apps, schema_editor):
    apps.get_model("placement", "BenchmarkRun").objects.filter(published_key__isnull=False).delete()
    apps.get_model("placement", "LlmModel").objects.filter(origin="seed", benchmarks__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("placement", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
