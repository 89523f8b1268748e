"""The flagship seed models get the published repository an engine loads
their default variant from (docs/figures.md, "Loadable references"): seed rows
an admin left without one take it; a repository an admin recorded stays."""

from typing import Any

from django.db import migrations

REFERENCES = {
    "qwen3.8-27b": "nvidia/Qwen3.8-27B-NVFP4",
    "glm-5.3": "nvidia/GLM-5.3-NVFP4",
    "qwen3.5-397b-a17b": "Intel/Qwen3.5-397B-A17B-int4-AutoRound",
    "minicpm5-2b": "openbmb/MiniCPM5-2B",
}


def forwards(apps: Any, schema_editor: Any) -> None:
    model = apps.get_model("placement", "LlmModel")
    for slug, repo in REFERENCES.items():
        model.objects.filter(slug=slug, origin="seed", hf_repo="").update(hf_repo=repo)


def backwards(apps: Any, schema_editor: Any) -> None:
    model = apps.get_model("placement", "LlmModel")
    for slug, repo in REFERENCES.items():
        model.objects.filter(slug=slug, origin="seed", hf_repo=repo).update(hf_repo="")


class Migration(migrations.Migration):
    dependencies = [("placement", "0009_nvfp4_references")]

    operations = [migrations.RunPython(forwards, backwards)]
