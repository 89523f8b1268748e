"""Qwen3.6-35B-A3B's own form, NVFP4, gets the Hugging Face repository its
seed variant names (RedHatAI/Qwen3.6-35B-A3B-NVFP4). The seed keeps a model's
own form on its row, and this row had no repository: vLLM and SGLang plans
of the model fell back to its FP8 variant, so the catalogue's NVFP4 was never
planned or launched from the database. A seed row still without a repository
takes it; an admin's row, or a repository an admin set, stays."""

from typing import Any

from django.db import migrations

SLUG = "qwen3.6-35b-a3b"
REPO = "RedHatAI/Qwen3.6-35B-A3B-NVFP4"


def forwards(apps: Any, schema_editor: Any) -> None:
    apps.get_model("placement", "LlmModel").objects.filter(slug=SLUG, origin="seed", hf_repo="").update(hf_repo=REPO)


def backwards(apps: Any, schema_editor: Any) -> None:
    apps.get_model("placement", "LlmModel").objects.filter(slug=SLUG, origin="seed", hf_repo=REPO).update(hf_repo="")


class Migration(migrations.Migration):
    dependencies = [("placement", "0012_gguf_qwen3_32b")]

    operations = [migrations.RunPython(forwards, backwards)]
