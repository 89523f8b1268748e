"""Seed models get the GGUF files llama.cpp loads where a published Spark run
names the file and its size: Nemotron-3-Super (ggml-org's Q4_K, 65.10 GiB,
llama.cpp's own Nemotron bench) and Qwen3-8B (unsloth's Q4_K_M, 4.68 GiB,
one lab's llama-bench logs). A seed row without the variant takes it, so a
llama.cpp plan of the model is launchable; an admin's row, or a variant an
admin keeps under that format, stays."""

from typing import Any

from django.db import migrations

GIB = 1.073741824
VARIANTS = {
    "nemotron-3-super-120b-a12b": {
        "quantization": "Q4_K_M",
        "weights_gb": round(65.10 * GIB, 2),
        "hf_repo": "",
        "gguf_repo": "ggml-org/Nemotron-3-Super-120B-GGUF",
        "gguf_file": "",
        "notes": "65.10 GiB per llama-bench on a DGX Spark, which names the file's type Q4_K "
        "(llama.cpp benches/nemotron/nemotron-dgx-spark.md)",
    },
    "qwen3-8b": {
        "quantization": "Q4_K_M",
        "weights_gb": round(4.68 * GIB, 2),
        "hf_repo": "",
        "gguf_repo": "unsloth/Qwen3-8B-GGUF",
        "gguf_file": "Qwen3-8B-Q4_K_M.gguf",
        "notes": "4.68 GiB per llama-bench on a DGX Spark (DandinPower/llama.cpp_bench, model_download.md)",
    },
}


def forwards(apps: Any, schema_editor: Any) -> None:
    model = apps.get_model("placement", "LlmModel")
    variant = apps.get_model("placement", "LlmVariant")
    for slug, fields in VARIANTS.items():
        for row in model.objects.filter(slug=slug, origin="seed"):
            if not variant.objects.filter(model=row, quantization=fields["quantization"]).exists():
                variant.objects.create(model=row, created_by="seed", **fields)


def backwards(apps: Any, schema_editor: Any) -> None:
    variant = apps.get_model("placement", "LlmVariant")
    for slug, fields in VARIANTS.items():
        variant.objects.filter(
            model__slug=slug,
            model__origin="seed",
            quantization=fields["quantization"],
            gguf_repo=fields["gguf_repo"],
            created_by="seed",
        ).delete()


class Migration(migrations.Migration):
    dependencies = [("placement", "0010_flagship_references")]

    operations = [migrations.RunPython(forwards, backwards)]
