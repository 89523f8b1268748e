"""Quantized variants in the database: seeded with the catalogue, listed by
GET /api/models with each engine's reference, added and removed by lab admins
(API and page), refused by field, and chosen by the planner for the engine."""

from __future__ import annotations

import pytest

from placement.model_catalogue import SEED_BY_SLUG
from placement.models import LlmVariant

pytestmark = pytest.mark.django_db

# An admin's own GGUF build of a model the catalogue has none for (Qwen3-30B-A3B: the published
# llama.cpp runs of it used the Instruct-2507 checkpoint, another version).
GGUF = {
    "quantization": "Q4_K_M",
    "gguf_repo": "bartowski/Qwen_Qwen3-30B-A3B-GGUF",
    "gguf_file": "Qwen_Qwen3-30B-A3B-Q4_K_M.gguf",
    "weights_gb": 19.8,
}


def variants_state():
    return sorted(LlmVariant.objects.values_list("model__slug", "quantization", "weights_gb", "gguf_repo"))


def test_the_migration_seeds_every_variant_besides_the_default_form():
    for spec in SEED_BY_SLUG.values():
        stored = set(LlmVariant.objects.filter(model__slug=spec.slug).values_list("quantization", flat=True))
        assert stored == {v.quantization for v in spec.variants} - {spec.quantization}, spec.slug


def test_models_list_carries_variants_and_engine_references(api_viewer):
    row = next(m for m in api_viewer.get("/api/models").json() if m["slug"] == "llama-3.3-70b")
    by_quant = {v["quantization"]: v for v in row["variants"]}
    assert list(by_quant)[0] == "nvfp4" and by_quant["nvfp4"]["default"]
    gguf = by_quant["Q4_K_M"]
    assert gguf["format"] == "gguf" and gguf["weights_size_gb"] == 43.1
    assert gguf["engines"]["llama.cpp"]["file"] == "Llama-3.3-70B-Instruct-Q4_K_M.gguf"
    assert not gguf["engines"]["vllm"]["loadable"] and "GGUF" in gguf["engines"]["vllm"]["reason"]
    assert "llama.cpp loads GGUF files only" in by_quant["nvfp4"]["engines"]["llama.cpp"]["reason"]


def test_an_admin_adds_a_gguf_variant_and_llama_cpp_plans_with_it(api_admin, api_member, demo):
    assert api_member.post("/api/models/qwen3-30b-a3b/variants", GGUF).status_code == 403
    response = api_admin.post("/api/models/qwen3-30b-a3b/variants", GGUF)
    assert response.status_code == 201, response.content
    assert "Q4_K_M" in [v["quantization"] for v in response.json()["variants"]]
    plans = api_admin.post("/api/plans", {"model": "qwen3-30b-a3b", "group": demo["single"].pk, "engine": "llama.cpp"})
    assert plans.status_code == 200, plans.content
    assert plans.json()["variant"] == "Q4_K_M"
    assert plans.json()["plans"][0]["memory_per_node_gb"]["weights"] == pytest.approx(19.8)
    fp8 = api_admin.post("/api/plans", {"model": "qwen3-30b-a3b", "group": demo["single"].pk, "engine": "vllm"})
    assert fp8.json()["variant"] == "fp8"
    assert fp8.json()["plans"][0]["memory_per_node_gb"]["weights"] == pytest.approx(30.5)
    assert api_admin.delete("/api/models/qwen3-30b-a3b/variants/Q4_K_M").status_code == 204
    assert not LlmVariant.objects.filter(model__slug="qwen3-30b-a3b", quantization="Q4_K_M").exists()


def test_a_variant_the_engine_cannot_load_is_refused_naming_it(api_viewer, demo):
    response = api_viewer.post(
        "/api/plans", {"model": "llama-3.3-70b", "group": demo["single"].pk, "engine": "vllm", "variant": "Q4_K_M"}
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "variant"
    assert "does not load GGUF" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    "change, field, status",
    [
        ({"quantization": "Q4_K_XL"}, "quantization", 400),
        ({"quantization": "nvfp4", "gguf_repo": "", "gguf_file": ""}, "quantization", 409),  # the model's own form
        ({"weights_gb": -3}, "weights_gb", 422),  # the schema's bounds
        ({"weights_gb": "19.8"}, "weights_gb", 422),
        ({"gguf_file": "model.bin"}, "gguf_file", 400),
        ({"gguf_file": "a/../../../etc/x.gguf"}, "gguf_file", 400),  # once passed to llama-server --hf-file
        ({"gguf_file": "Q4_K_M/./x.gguf"}, "gguf_file", 400),
        ({"hf_repo": "a/b"}, "hf_repo", 400),
        ({"gguf_repo": "x; rm -rf /"}, "gguf_repo", 400),
    ],
)
def test_bad_variants_are_refused_naming_the_field(api_admin, change, field, status):
    before = variants_state()
    response = api_admin.post("/api/models/llama-3.3-70b/variants", {**GGUF, **change})
    assert response.status_code == status, response.content
    assert field in [e["path"] for e in response.json()["errors"]]
    assert variants_state() == before


def test_a_second_variant_of_one_format_is_a_conflict(api_admin):
    before = variants_state()
    response = api_admin.post("/api/models/llama-3.3-70b/variants", GGUF)
    assert response.status_code == 409 and response.json()["errors"][0]["path"] == "quantization"
    assert variants_state() == before


def test_the_catalogue_page_shows_variants_and_admins_add_one(admin_client, client, viewer_user):
    page = admin_client.get("/models/").content.decode()
    assert "Llama-3.3-70B-Instruct-Q4_K_M.gguf" in page and "does not load GGUF" in page
    assert "/models/llama-3.3-70b/variants/new/" in page
    client.force_login(viewer_user)
    assert "/variants/new/" not in client.get("/models/").content.decode()
    assert client.get("/models/qwen3-30b-a3b/variants/new/").status_code == 403
    bad = admin_client.post("/models/qwen3-30b-a3b/variants/new/", {**GGUF, "gguf_file": "x.bin"})
    assert bad.status_code == 400 and "gguf" in bad.content.decode().lower()
    good = admin_client.post("/models/qwen3-30b-a3b/variants/new/", GGUF)
    assert good.status_code == 302
    assert LlmVariant.objects.filter(model__slug="qwen3-30b-a3b", quantization="Q4_K_M").exists()


def test_quantization_names_are_matched_whatever_their_case(api_admin, demo):
    """GGUF file names say q4_k_m, llama.cpp's tables Q4_K_M: both name one
    format. A variant added as q4_k_m is stored as Q4_K_M, planned for by
    either spelling and removed by either; a second one in other case is the
    same format (a conflict)."""
    response = api_admin.post("/api/models/qwen3-30b-a3b/variants", {**GGUF, "quantization": " q4_k_m"})
    assert response.status_code == 201, response.content
    stored = LlmVariant.objects.get(model__slug="qwen3-30b-a3b", gguf_repo=GGUF["gguf_repo"])
    assert stored.quantization == "Q4_K_M"
    again = api_admin.post("/api/models/qwen3-30b-a3b/variants", {**GGUF, "quantization": "Q4_k_M"})
    assert again.status_code == 409 and again.json()["errors"][0]["path"] == "quantization"
    for spelling in ("q4_k_m", "Q4_K_M"):
        body = {"model": "qwen3-30b-a3b", "group": demo["single"].pk, "engine": "llama.cpp", "variant": spelling}
        plans = api_admin.post("/api/plans", body)
        assert plans.status_code == 200, plans.content
        assert plans.json()["variant"] == "Q4_K_M"
    nvfp4 = api_admin.post(
        "/api/plans", {"model": "llama-3.3-70b", "group": demo["single"].pk, "engine": "vllm", "variant": "NVFP4"}
    )
    assert nvfp4.status_code == 200 and nvfp4.json()["variant"] == "nvfp4"
    assert api_admin.delete("/api/models/qwen3-30b-a3b/variants/q4_k_m").status_code == 204
    assert not LlmVariant.objects.filter(model__slug="qwen3-30b-a3b", quantization="Q4_K_M").exists()


def test_published_gguf_files_make_llama_cpp_plans_launchable_and_the_migration_gives_them_to_older_rows(
    api_member, demo
):
    """llama.cpp loads GGUF files only: Nemotron-3-Super's seed row carries
    ggml-org's Q4_K file (65.10 GiB as llama-bench read it) and Qwen3-8B
    unsloth's Q4_K_M (4.68 GiB), and a llama.cpp plan of either uses that file
    and has launch commands. A database seeded before them gets them from
    migration 0011, once; an admin's own Q4_K_M stays."""
    from importlib import import_module

    from django.apps import apps as django_apps

    plans = api_member.post(
        "/api/plans", {"model": "nemotron-3-super-120b-a12b", "group": demo["single"].pk, "engine": "llama.cpp"}
    )
    assert plans.status_code == 200, plans.content
    body = plans.json()
    assert body["variant"] == "Q4_K_M"
    assert body["plans"][0]["memory_per_node_gb"]["weights"] == pytest.approx(69.9)
    launch = body["plans"][body["recommended"]]["launch"]
    assert "ggml-org/Nemotron-3-Super-120B-GGUF" in launch["llama.cpp-rpc"]

    small = api_member.post("/api/plans", {"model": "qwen3-8b", "group": demo["single"].pk, "engine": "llama.cpp"})
    assert small.status_code == 200 and small.json()["variant"] == "Q4_K_M"
    small_launch = small.json()["plans"][small.json()["recommended"]]["launch"]["llama.cpp-rpc"]
    assert "unsloth/Qwen3-8B-GGUF" in small_launch and "Qwen3-8B-Q4_K_M.gguf" in small_launch

    forwards = import_module("placement.migrations.0011_gguf_references").forwards
    rows = LlmVariant.objects.filter(model__slug__in=["nemotron-3-super-120b-a12b", "qwen3-8b"], quantization="Q4_K_M")
    rows.delete()  # as a database seeded before the variants were known
    forwards(django_apps, None)
    forwards(django_apps, None)
    assert sorted(rows.values_list("model__slug", "weights_gb", "gguf_repo", "created_by")) == [
        ("nemotron-3-super-120b-a12b", 69.9, "ggml-org/Nemotron-3-Super-120B-GGUF", "seed"),
        ("qwen3-8b", 5.03, "unsloth/Qwen3-8B-GGUF", "seed"),
    ]
    rows = rows.filter(model__slug="nemotron-3-super-120b-a12b")
    rows.update(gguf_repo="a-lab/own-nemotron-GGUF", created_by="admin")
    forwards(django_apps, None)
    assert list(rows.values_list("gguf_repo", flat=True)) == ["a-lab/own-nemotron-GGUF"]


def test_qwen3_32bs_published_gguf_makes_its_llama_cpp_plan_launchable_and_0012_gives_it_to_older_rows(
    api_member, demo
):
    """The lab whose llama-bench logs carry Qwen3-32B Q4_K_M (18.40 GiB)
    downloaded it as unsloth/Qwen3-32B-GGUF's Qwen3-32B-Q4_K_M.gguf: the seed
    row carries it, a llama.cpp plan uses it and can be launched, and a
    database seeded before it gets it from migration 0012, once; an admin's
    own Q4_K_M stays."""
    from importlib import import_module

    from django.apps import apps as django_apps

    plans = api_member.post("/api/plans", {"model": "qwen3-32b", "group": demo["single"].pk, "engine": "llama.cpp"})
    assert plans.status_code == 200, plans.content
    body = plans.json()
    assert body["variant"] == "Q4_K_M" and body["launch_missing"] == {}
    assert body["plans"][0]["memory_per_node_gb"]["weights"] == pytest.approx(19.76)
    launch = body["plans"][body["recommended"]]["launch"]["llama.cpp-rpc"]
    assert "unsloth/Qwen3-32B-GGUF" in launch and "Qwen3-32B-Q4_K_M.gguf" in launch

    forwards = import_module("placement.migrations.0012_gguf_qwen3_32b").forwards
    rows = LlmVariant.objects.filter(model__slug="qwen3-32b", quantization="Q4_K_M")
    rows.delete()  # as a database seeded before the variant was known
    forwards(django_apps, None)
    forwards(django_apps, None)
    assert list(rows.values_list("weights_gb", "gguf_repo", "gguf_file", "created_by")) == [
        (19.76, "unsloth/Qwen3-32B-GGUF", "Qwen3-32B-Q4_K_M.gguf", "seed")
    ]
    rows.update(gguf_repo="a-lab/own-qwen3-32b-GGUF", created_by="admin")
    forwards(django_apps, None)
    assert list(rows.values_list("gguf_repo", flat=True)) == ["a-lab/own-qwen3-32b-GGUF"]


def test_qwen25s_own_gguf_files_make_their_llama_cpp_plans_launchable_and_0016_gives_them_to_older_rows(
    api_member, demo
):
    """Qwen2.5-14B's seed row carries Qwen's own GGUF types, the files a
    published Spark run names: a llama.cpp plan picks Q4_K_M, is sized at its
    bits per weight and launches with ``-hf REPO:TYPE`` (which takes a split
    file whole), and any type can be asked for. A database seeded before gets
    the three types of each model from migration 0016, once; an admin's own
    Q8_0 stays."""
    from importlib import import_module

    from django.apps import apps as django_apps

    body = {"model": "qwen2.5-14b", "group": demo["single"].pk, "engine": "llama.cpp"}
    plans = api_member.post("/api/plans", body)
    assert plans.status_code == 200, plans.content
    answer = plans.json()
    assert answer["variant"] == "Q4_K_M" and answer["launch_missing"] == {}
    launch = answer["plans"][answer["recommended"]]["launch"]["llama.cpp-rpc"]
    assert "llama-server -hf Qwen/Qwen2.5-14B-Instruct-GGUF:Q4_K_M " in launch
    eight = api_member.post("/api/plans", {**body, "variant": "q8_0"}).json()  # any case
    assert eight["variant"] == "Q8_0"
    assert "-hf Qwen/Qwen2.5-14B-Instruct-GGUF:Q8_0 " in eight["plans"][eight["recommended"]]["launch"]["llama.cpp-rpc"]

    forwards = import_module("placement.migrations.0016_gguf_qwen25").forwards
    rows = LlmVariant.objects.filter(model__slug__startswith="qwen2.5-", gguf_repo__startswith="Qwen/Qwen2.5-")
    expected = sorted(rows.values_list("model__slug", "quantization", "weights_gb", "gguf_repo", "notes", "created_by"))
    assert len(expected) == 9 and {r[5] for r in expected} == {"seed"}
    rows.delete()  # as a database seeded before the catalogue named them
    forwards(django_apps, None)
    forwards(django_apps, None)
    assert sorted(
        rows.values_list("model__slug", "quantization", "weights_gb", "gguf_repo", "notes", "created_by")
    ) == (expected)
    own = rows.filter(model__slug="qwen2.5-32b", quantization="Q8_0")
    own.update(gguf_repo="a-lab/own-qwen2.5-32b-GGUF", created_by="admin")
    forwards(django_apps, None)
    assert list(
        LlmVariant.objects.filter(model__slug="qwen2.5-32b", quantization="Q8_0").values_list("gguf_repo", flat=True)
    ) == ["a-lab/own-qwen2.5-32b-GGUF"]


def test_qwen36_nvfp4_plans_and_launches_from_its_own_repository(api_member, demo):
    """Qwen3.6-35B-A3B's own form is NVFP4, kept on its row; the row now has
    the repository its seed variant names, so vLLM plans and launches the
    NVFP4 checkpoint (before, the row had none and plans fell back to FP8).
    placement 0013 gives it to a seed row stored without one, once; a
    repository an admin set stays."""
    from importlib import import_module

    from django.apps import apps as django_apps

    from placement.models import LlmModel

    plans = api_member.post("/api/plans", {"model": "qwen3.6-35b-a3b", "group": demo["single"].pk, "engine": "vllm"})
    assert plans.status_code == 200, plans.content
    body = plans.json()
    assert body["variant"] == "nvfp4" and body["launch_missing"] == {}
    launch = body["plans"][body["recommended"]]["launch"]["vllm"]
    assert "vllm serve RedHatAI/Qwen3.6-35B-A3B-NVFP4 " in launch

    forwards = import_module("placement.migrations.0013_qwen36_nvfp4_repo").forwards
    row = LlmModel.objects.filter(slug="qwen3.6-35b-a3b")
    row.update(hf_repo="")  # as a database seeded before
    forwards(django_apps, None)
    forwards(django_apps, None)
    assert list(row.values_list("hf_repo", flat=True)) == ["RedHatAI/Qwen3.6-35B-A3B-NVFP4"]
    row.update(hf_repo="a-lab/own-qwen36-nvfp4")
    forwards(django_apps, None)
    assert list(row.values_list("hf_repo", flat=True)) == ["a-lab/own-qwen36-nvfp4"]


def test_two_seed_models_no_longer_carry_a_format_in_their_names(api_viewer, client, viewer_user, demo):
    """Qwen3-32B and Qwen3-30B-A3B have variants in several formats: their
    names say the model, the variant says the format. placement 0014 renames
    a seed row still under its old "(FP8)" name, once; a name an admin gave
    stays."""
    names = {m["slug"]: m["name"] for m in api_viewer.get("/api/models").json()}
    assert (names["qwen3-32b"], names["qwen3-30b-a3b"]) == ("Qwen3-32B", "Qwen3-30B-A3B")
    client.force_login(viewer_user)
    page = client.get(f"/plans/?model=qwen3-32b&group={demo['single'].pk}&engine=llama.cpp&variant=Q4_K_M")
    assert page.status_code == 200
    assert "<h2>Qwen3-32B on " in page.content.decode() and "Qwen3-32B (FP8)" not in page.content.decode()
    from importlib import import_module

    from django.apps import apps as django_apps

    from placement.models import LlmModel

    migration = import_module("placement.migrations.0014_seed_names_without_format")
    rows = LlmModel.objects.filter(slug__in=["qwen3-32b", "qwen3-30b-a3b"]).order_by("slug")
    LlmModel.objects.filter(slug="qwen3-32b").update(name="Qwen3-32B (FP8)")  # as a database seeded before
    LlmModel.objects.filter(slug="qwen3-30b-a3b").update(name="Our Qwen3 MoE")  # an admin's name
    migration.forwards(django_apps, None)
    migration.forwards(django_apps, None)
    assert list(rows.values_list("name", flat=True)) == ["Our Qwen3 MoE", "Qwen3-32B"]
