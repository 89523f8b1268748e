"""Qwen3-32B gets the GGUF file llama.cpp loads that a published Spark run
names with its size: unsloth's Q4_K_M, 18.40 GiB (one lab's llama-bench
logs, whose download list names the repository and file). A seed row
without the variant takes it, so a llama.cpp plan of the model is
launchable; an admin's row, or a variant an admin keeps under that format,
stays (as placement 0011 did for Nemotron-3-Super and Qwen3-8B)."""

from typing import Any

from django.db import migrations

SLUG = "qwen3-32b"
FIELDS = {
    "quantization": "Q4_K_M",
    "weights_gb": round(18.40 * 1.073741824, 2),
    "hf_repo": "",
    "gguf_repo": "unsloth/Qwen3-32B-GGUF",
    "gguf_file": "Qwen3-32B-Q4_K_M.gguf",
    "notes": "18.40 GiB per llama-bench on a DGX Spark (DandinPower/llama.cpp_bench, model_download.md)",
}


def forwards(apps: Any, schema_editor: Any) -> None:
    variant = apps.get_model("placement", "LlmVariant")
    for row in apps.get_model("placement", "LlmModel").objects.filter(slug=SLUG, origin="seed"):
        if not variant.objects.filter(model=row, quantization=FIELDS["quantization"]).exists():
            variant.objects.create(model=row, created_by="seed", **FIELDS)


def backwards(apps: Any, schema_editor: Any) -> None:
    apps.get_model("placement", "LlmVariant").objects.filter(
        model__slug=SLUG, model__origin="seed", gguf_repo=FIELDS["gguf_repo"], created_by="seed"
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("placement", "0011_gguf_references")]

    operations = [migrations.RunPython(forwards, backwards)]
