"""Three dense seed models join the catalogue: Qwen2.5-3B, -14B and -32B
(Qwen2.5-Coder-7B's family), whose published Spark runs the eleventh
held-out set holds (placement.published_fresh_eleventh). Databases seeded
before get them here (the post-migrate seed fills an empty catalogue only);
the other seed models are left as they are, deleted ones too."""

from typing import Any

from django.db import migrations

ADDED = ("qwen2.5-3b", "qwen2.5-14b", "qwen2.5-32b")


def forwards(apps: Any, schema_editor: Any) -> None:
    from placement.seed import seed_catalogue

    seed_catalogue(apps.get_model("placement", "LlmModel"), apps.get_model("placement", "LlmVariant"), slugs=ADDED)


def backwards(apps: Any, schema_editor: Any) -> None:
    model = apps.get_model("placement", "LlmModel")
    model.objects.filter(origin="seed", slug__in=ADDED, benchmarks__isnull=True).delete()


class Migration(migrations.Migration):
    # after the benchmarks app's rows exist, whose link to a model the backwards step reads
    dependencies = [("placement", "0014_seed_names_without_format"), ("benchmarks", "0019_published_tenth_fresh")]

    operations = [migrations.RunPython(forwards, backwards)]
