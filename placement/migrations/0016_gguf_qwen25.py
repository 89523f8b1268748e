"""Qwen2.5-3B, -14B and -32B get the GGUF files llama.cpp loads: Qwen's own
Q4_K_M, Q5_K_M and Q8_0 (Qwen/Qwen2.5-*-Instruct-GGUF), the files a
published Spark run names (pendakwahteknologi/gx10-benchmarks), so a
llama.cpp plan of these models is launchable (``-hf REPO:TYPE``). A seed row
without the variant takes it; an admin's row, or a variant an admin keeps
under that format, stays (as placement 0011 and 0012 did). Databases that
placement 0015 seeded after the catalogue named them have them already."""

from typing import Any

from django.db import migrations

SIZES = {"qwen2.5-3b": "3B", "qwen2.5-14b": "14B", "qwen2.5-32b": "32B"}
TYPES = ("Q4_K_M", "Q5_K_M", "Q8_0")
NOTES = "Qwen's own GGUF file, run on a GB10 by pendakwahteknologi/gx10-benchmarks; size not stated"


def forwards(apps: Any, schema_editor: Any) -> None:
    variant = apps.get_model("placement", "LlmVariant")
    for row in apps.get_model("placement", "LlmModel").objects.filter(slug__in=SIZES, origin="seed"):
        repo = f"Qwen/Qwen2.5-{SIZES[row.slug]}-Instruct-GGUF"
        for quant in TYPES:
            if not variant.objects.filter(model=row, quantization=quant).exists():
                variant.objects.create(
                    model=row, created_by="seed", quantization=quant, weights_gb=None, gguf_repo=repo, notes=NOTES
                )


def backwards(apps: Any, schema_editor: Any) -> None:
    apps.get_model("placement", "LlmVariant").objects.filter(
        model__slug__in=SIZES, model__origin="seed", gguf_repo__startswith="Qwen/Qwen2.5-", created_by="seed"
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("placement", "0015_seed_qwen25")]

    operations = [migrations.RunPython(forwards, backwards)]
