"""Nemotron-3-Super gets the GGUF variant llama.cpp loads (ggml-org's Q4_K
file, 65.10 GiB as llama-bench read it on a DGX Spark): a seed row without it
takes it, so a llama.cpp plan of the model is launchable; an admin's row or a
variant an admin kept under that format stays."""

from typing import Any

from django.db import migrations

SLUG = "nemotron-3-super-120b-a12b"
VARIANT = {
    "quantization": "Q4_K_M",
    "weights_gb": round(65.10 * 1.073741824, 2),
    "hf_repo": "",
    "gguf_repo": "ggml-org/Nemotron-3-Super-120B-GGUF",
    "gguf_file": "",
    "notes": "65.10 GiB per llama-bench on a DGX Spark, which names the file's type Q4_K "
    "(llama.cpp benches/nemotron/nemotron-dgx-spark.md)",
}


def forwards(apps: Any, schema_editor: Any) -> None:
    model = apps.get_model("placement", "LlmModel")
    variant = apps.get_model("placement", "LlmVariant")
    for row in model.objects.filter(slug=SLUG, origin="seed"):
        if not variant.objects.filter(model=row, quantization=VARIANT["quantization"]).exists():
            variant.objects.create(model=row, created_by="seed", **VARIANT)


def backwards(apps: Any, schema_editor: Any) -> None:
    variant = apps.get_model("placement", "LlmVariant")
    variant.objects.filter(
        model__slug=SLUG, model__origin="seed", quantization=VARIANT["quantization"], created_by="seed"
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("placement", "0010_flagship_references")]

    operations = [migrations.RunPython(forwards, backwards)]
