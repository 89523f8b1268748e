"""Two seed models lose the weights format from their names: "Qwen3-32B
(FP8)" and "Qwen3-30B-A3B (FP8)" are "Qwen3-32B" and "Qwen3-30B-A3B". Each
has variants in other formats (INT4, Q4_K_M, BF16), and a plan of one of them
showed the model as FP8 beside the format it ran; the format is the
variant's to say. A seed row still under its old name takes the new one; a
name an admin gave stays."""

from typing import Any

from django.db import migrations

RENAMED = {
    "qwen3-32b": ("Qwen3-32B (FP8)", "Qwen3-32B"),
    "qwen3-30b-a3b": ("Qwen3-30B-A3B (FP8)", "Qwen3-30B-A3B"),
}


def forwards(apps: Any, schema_editor: Any) -> None:
    model = apps.get_model("placement", "LlmModel")
    for slug, (old, new) in RENAMED.items():
        model.objects.filter(slug=slug, origin="seed", name=old).update(name=new)


def backwards(apps: Any, schema_editor: Any) -> None:
    model = apps.get_model("placement", "LlmModel")
    for slug, (old, new) in RENAMED.items():
        model.objects.filter(slug=slug, origin="seed", name=new).update(name=old)


class Migration(migrations.Migration):
    dependencies = [("placement", "0013_qwen36_nvfp4_repo")]

    operations = [migrations.RunPython(forwards, backwards)]
