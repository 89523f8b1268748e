"""The seed Llama NVFP4 references become the names NVIDIA's vLLM support
matrix uses (nvidia/Llama-3.3-70B-Instruct-NVFP4, nvidia/Llama-3.1-8B-Instruct-NVFP4):
only seed rows still holding the old name change; an admin's edits stay."""

from typing import Any

from django.db import migrations

RENAMED = {
    "nvidia/Llama-3.3-70B-Instruct-FP4": "nvidia/Llama-3.3-70B-Instruct-NVFP4",
    "nvidia/Llama-3.1-8B-Instruct-FP4": "nvidia/Llama-3.1-8B-Instruct-NVFP4",
}


def _rename(apps: Any, names: dict[str, str]) -> None:
    model = apps.get_model("placement", "LlmModel")
    variant = apps.get_model("placement", "LlmVariant")
    for old, new in names.items():
        model.objects.filter(origin="seed", hf_repo=old).update(hf_repo=new)
        variant.objects.filter(created_by="seed", hf_repo=old).update(hf_repo=new)


def forwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, RENAMED)


def backwards(apps: Any, schema_editor: Any) -> None:
    _rename(apps, {new: old for old, new in RENAMED.items()})


class Migration(migrations.Migration):
    dependencies = [("placement", "0008_benchmarks_app")]

    operations = [migrations.RunPython(forwards, backwards)]
