"""The model catalogue in the database: the seed migration, GET/POST /api/models,
the config.json upload, deletion, and bad input refused by field with nothing stored."""

from __future__ import annotations

import json

import pytest

from benchmarks.models import BenchmarkRun
from placement.model_catalogue import SEED_MODELS
from placement.models import LlmModel
from placement.perfmodel import PUBLISHED_POINTS
from tests.placement.conftest import placement_state

pytestmark = pytest.mark.django_db

NEW = {
    "slug": "mistral-7b",
    "name": "Mistral 7B",
    "params_b": 7.24,
    "layers": 32,
    "hidden_size": 4096,
    "heads": 32,
    "kv_heads": 8,
    "head_dim": 128,
    "quantization": "bf16",
    "max_context": 32768,
}
LLAMA_CONFIG = {
    "_name_or_path": "meta-llama/Llama-3.1-8B-Instruct",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
    "head_dim": 128,
}


def test_seed_migration_fills_the_catalogue_and_the_published_table():
    assert set(LlmModel.objects.values_list("slug", flat=True)) == {m.slug for m in SEED_MODELS}
    assert LlmModel.objects.get(slug="glm-5.3").spec() == next(m for m in SEED_MODELS if m.slug == "glm-5.3")
    published = BenchmarkRun.objects.filter(source="published")
    assert published.count() == len(PUBLISHED_POINTS)
    assert not published.filter(group__isnull=False).exists()
    assert all(r.reference and r.node_count >= 1 and r.topology_kind for r in published)
    # the disputed first row is kept in both readings, each saying which one it is
    assert set(published.filter(decode_tps=11.86).values_list("reading", flat=True)) == {"one-node", "direct"}


def test_models_list_has_the_catalogue_fields(api_viewer):
    response = api_viewer.get("/api/models")
    assert response.status_code == 200
    row = next(m for m in response.json() if m["slug"] == "gpt-oss-120b")
    for key in (
        "slug",
        "name",
        "params_b",
        "active_params_b",
        "layers",
        "hidden_size",
        "heads",
        "kv_heads",
        "head_dim",
        "experts",
        "experts_per_token",
        "quantization",
        "weights_gb",
        "max_context",
    ):
        assert key in row
    assert row["experts"] == 128 and row["active_params_b"] < row["params_b"] and row["weights_gb"] == 65.3


def test_admin_adds_a_model_and_plans_with_it(api_admin, demo):
    response = api_admin.post("/api/models", NEW)
    assert response.status_code == 201, response.content
    assert response.json()["active_params_b"] == 7.24  # dense: all parameters active
    assert response.json()["weights_size_gb"] == pytest.approx(14.48)
    plans = api_admin.post("/api/plans", {"model": "mistral-7b", "group": demo["single"].pk})
    assert plans.status_code == 200 and plans.json()["plans"][0]["fits"]


@pytest.mark.parametrize(
    "change, field, status",
    [
        ({"layers": 0}, "layers", 422),  # the schema's bounds (ModelSpec's limits table)
        ({"layers": -3}, "layers", 422),
        ({"params_b": -7}, "params_b", 422),
        ({"params_b": 0}, "params_b", 422),
        ({"kv_heads": 5}, "kv_heads", 400),
        ({"max_context": 10**9}, "max_context", 422),
        ({"quantization": "fp3"}, "quantization", 400),
        ({"active_params_b": 9.0}, "active_params_b", 400),
        ({"experts": 8, "experts_per_token": 9, "active_params_b": 2.0}, "experts_per_token", 400),
        ({"weights_gb": 90.0}, "weights_gb", 400),
        ({"params_b": "7.24"}, "params_b", 422),
        ({"layers": "32"}, "layers", 422),
        ({"layers": 32.5}, "layers", 422),
        ({"slug": "Bad Slug!"}, "slug", 400),
        # what the launchers and serving download: once listed as loadable
        ({"hf_repo": "a/b; rm -rf /"}, "hf_repo", 400),
        ({"hf_repo": "mistralai"}, "hf_repo", 400),
        ({"hf_repo": "https://huggingface.co/mistralai/Mistral-7B-v0.1"}, "hf_repo", 400),
    ],
)
def test_absurd_models_are_refused_naming_the_field(api_admin, change, field, status):
    before = placement_state()
    response = api_admin.post("/api/models", {**NEW, **change})
    assert response.status_code == status, response.content
    assert field in [e["path"] for e in response.json()["errors"]]
    assert placement_state() == before


def test_a_model_missing_a_field_is_refused(api_admin):
    before = placement_state()
    body = dict(NEW)
    del body["heads"]
    response = api_admin.post("/api/models", body)
    assert response.status_code == 422 and response.json()["errors"][0]["path"] == "heads"
    assert placement_state() == before


def test_a_duplicate_slug_is_a_conflict(api_admin):
    before = placement_state()
    response = api_admin.post("/api/models", {**NEW, "slug": "llama-3.3-70b"})
    assert response.status_code == 409
    assert response.json()["errors"][0]["path"] == "slug"
    assert placement_state() == before


def test_a_model_from_config_json_is_read_locally_with_estimates_marked(api_admin):
    response = api_admin.post(
        "/api/models/config", {"slug": "llama-8b-fp8", "quantization": "fp8", "config": json.dumps(LLAMA_CONFIG)}
    )
    assert response.status_code == 201, response.content
    row = response.json()
    assert row["params_b"] == pytest.approx(8.03, abs=0.01)
    assert row["layers"] == 32 and row["kv_heads"] == 8 and row["max_context"] == 131072
    assert row["origin"] == "config.json" and "params_b" in row["estimated_fields"]
    # an object works as well as its text
    other = api_admin.post(
        "/api/models/config", {"slug": "llama-8b-b", "quantization": "bf16", "config": LLAMA_CONFIG, "params_b": 8.03}
    )
    assert other.status_code == 201 and other.json()["estimated_fields"] == []


def test_a_hybrid_from_config_json_keeps_its_layer_kinds(api_admin):
    """The import parsed a Qwen3-Next config's 36 gated-DeltaNet layers and their
    state, then stored a plain transformer (only the required fields were copied)."""
    from tests.placement.test_hfconfig import QWEN3_NEXT

    response = api_admin.post("/api/models/config", {"slug": "next-fp8", "quantization": "fp8", "config": QWEN3_NEXT})
    assert response.status_code == 201, response.content
    row = LlmModel.objects.get(slug="next-fp8")
    assert (row.linear_layers, row.kv_layers, row.linear_kind) == (36, 12, "gated-deltanet")
    assert row.state_bytes == 32 * 128 * 128 * 2 + (2 * 16 * 128 + 32 * 128) * 3 * 2
    assert row.spec().kv_bytes_per_token() < row.spec().layers * 2 * 2 * 256 * 2  # KV on 12 layers, not 48


def test_a_config_given_as_a_list_says_what_a_config_is(api_admin):
    response = api_admin.post("/api/models/config", {"slug": "broken", "quantization": "bf16", "config": [1, 2]})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "config", "message": "not a model config: give the text of config.json, or its JSON object"}
    ]


@pytest.mark.parametrize(
    "config, field",
    [
        ("this is not json", "config"),
        ("[1, 2, 3]", "config"),
        (json.dumps({"model_type": "llama"}), "config"),
        (json.dumps({**LLAMA_CONFIG, "num_hidden_layers": 0}), "config.num_hidden_layers"),
        (json.dumps({**LLAMA_CONFIG, "num_key_value_heads": "8"}), "config.num_key_value_heads"),
        (json.dumps({**LLAMA_CONFIG, "num_key_value_heads": 5}), "kv_heads"),
        ("", "config"),
    ],
)
def test_a_config_that_is_not_one_is_refused(api_admin, config, field):
    before = placement_state()
    response = api_admin.post("/api/models/config", {"slug": "broken", "quantization": "bf16", "config": config})
    assert response.status_code == 400, response.content
    assert field in [e["path"] for e in response.json()["errors"]]
    assert placement_state() == before


def test_delete_a_model_nobody_measured_but_keep_one_with_records(api_admin):
    assert api_admin.post("/api/models", NEW).status_code == 201
    assert api_admin.delete("/api/models/mistral-7b").status_code == 204
    assert not LlmModel.objects.filter(slug="mistral-7b").exists()
    before = placement_state()
    response = api_admin.delete("/api/models/qwen3.8-27b")  # the published table names it
    assert response.status_code == 409 and "benchmark record" in response.json()["message"]
    # a model or a variant an address names that is not there: 404, as /api/sparks/nope (they said 400)
    for path in ("/api/models/nope", "/api/models/nope/variants/fp8", "/api/models/llama-3.3-70b/variants/Q2_K"):
        missing = api_admin.delete(path)
        assert missing.status_code == 404, path
    assert api_admin.delete("/api/models/nope").json()["errors"] == [
        {"path": "slug", "message": "no model with slug 'nope'"}
    ]
    assert api_admin.post("/api/models/nope/variants", {"quantization": "fp8"}).status_code == 404
    assert placement_state() == before


def test_model_pages_add_and_upload(admin_client):
    page = admin_client.get("/models/")
    assert page.status_code == 200 and b"GLM-5.3" in page.content and b"published" in page.content
    bad = admin_client.post("/models/new/", {**NEW, "kv_heads": 5, "experts": 0, "experts_per_token": 0})
    assert bad.status_code == 400 and b"must divide heads" in bad.content
    assert not LlmModel.objects.filter(slug="mistral-7b").exists()
    good = admin_client.post("/models/new/", {**NEW, "experts": 0, "experts_per_token": 0})
    assert good.status_code == 302 and LlmModel.objects.filter(slug="mistral-7b").exists()

    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("config.json", json.dumps(LLAMA_CONFIG).encode(), "application/json")
    done = admin_client.post("/models/upload/", {"config": upload, "slug": "llama-up", "quantization": "nvfp4"})
    assert done.status_code == 302 and LlmModel.objects.get(slug="llama-up").origin == "config.json"
    junk = SimpleUploadedFile("config.json", b"\x89PNG\x00\x01", "image/png")
    refused = admin_client.post("/models/upload/", {"config": junk, "slug": "junk", "quantization": "nvfp4"})
    assert refused.status_code == 400 and not LlmModel.objects.filter(slug="junk").exists()


def test_a_flushed_database_gets_the_catalogue_and_the_published_figures_back_once():
    from django.apps import apps
    from django.db.models.signals import post_migrate

    BenchmarkRun.objects.all().delete()
    LlmModel.objects.all().delete()
    for _ in range(2):  # idempotent
        # what `migrate` and `flush` send, app by app (placement's catalogue before benchmarks' figures)
        for config in (apps.get_app_config("placement"), apps.get_app_config("benchmarks")):
            post_migrate.send(sender=config, app_config=config, verbosity=0, interactive=False, using="default")
    assert LlmModel.objects.count() == len(SEED_MODELS)
    assert BenchmarkRun.objects.filter(source="published").count() == len(PUBLISHED_POINTS)


def test_the_model_catalogues_changes_are_in_the_change_log(api_admin, api_viewer):
    """Adding, varying and removing a model left no line in the change log."""
    assert api_admin.post("/api/models", NEW).status_code == 201
    gguf = {"quantization": "Q4_K_M", "gguf_repo": "bartowski/Mistral-7B-GGUF", "gguf_file": "Mistral-7B-Q4_K_M.gguf"}
    assert api_admin.post("/api/models/mistral-7b/variants", gguf).status_code == 201
    assert api_admin.delete("/api/models/mistral-7b/variants/Q4_K_M").status_code == 204
    assert api_admin.delete("/api/models/mistral-7b").status_code == 204
    log = api_viewer.get("/api/changes?object_type=model&object_name=mistral-7b").json()["items"]
    assert [(c["action"], c["user"], c["diff"].get("variants")) for c in reversed(log)] == [
        ("create", "admin1", [None, []]),
        ("update", "admin1", [[], ["Q4_K_M"]]),
        ("update", "admin1", [["Q4_K_M"], []]),
        ("delete", "admin1", [[], None]),
    ]
    assert log[-1]["diff"]["slug"] == [None, "mistral-7b"]
