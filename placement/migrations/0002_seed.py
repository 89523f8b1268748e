"""Seed the model catalogue and the published benchmark figures (placement.seed)."""
from django.db import migrations


def seed(apps, schema_editor):
    from benchmarks.seed import seed_published
    from placement.seed import seed_catalogue

    seed_catalogue(apps.get_model("placement", "LlmModel"))
    seed_published(apps.get_model("placement", "BenchmarkRun"), apps.get_model("placement", "LlmModel"))


def unseed(apps, schema_editor):
    apps.get_model("placement", "BenchmarkRun").objects.filter(published_key__isnull=False).delete()
    apps.get_model("placement", "LlmModel").objects.filter(origin="seed", benchmarks__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("placement", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
