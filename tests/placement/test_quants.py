"""Weight formats, a model's quantized variants and which engine loads which
(placement.quants, placement.model_catalogue.choose_variant): pure, no database."""

from __future__ import annotations

import pytest

from placement.model_catalogue import SEED_BY_SLUG, choose_variant
from placement.quants import (
    GGUF_FORMATS,
    QUANT_FORMATS,
    SAFETENSORS_FORMATS,
    ModelVariant,
    canonical_quantization,
    engine_reference,
)


def test_format_names_are_unique_whatever_their_case():
    # "mxfp4" (safetensors) and llama.cpp's "MXFP4_MOE" must never be confused
    assert len({name.lower() for name in QUANT_FORMATS}) == len(QUANT_FORMATS)
    assert set(SAFETENSORS_FORMATS) == {"nvfp4", "mxfp4", "fp8", "bf16", "int4"}
    for name in ("Q2_K", "Q3_K_M", "Q4_0", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "IQ2_XXS", "IQ4_XS", "F16", "MXFP4_MOE"):
        assert name in GGUF_FORMATS


def test_gguf_bits_per_weight_grow_with_the_type():
    order = [
        "IQ1_S",
        "IQ2_XXS",
        "IQ2_M",
        "Q2_K",
        "IQ3_M",
        "Q3_K_L",
        "IQ4_XS",
        "Q4_K_M",
        "Q5_K_M",
        "Q6_K",
        "Q8_0",
        "F16",
    ]
    bits = [QUANT_FORMATS[q].bits_per_weight for q in order]
    assert bits == sorted(bits)
    # the measured whole-file figures of llama.cpp's quantize README (Llama-3.1-8B)
    assert QUANT_FORMATS["Q4_K_M"].bits_per_weight == pytest.approx(4.8944)
    assert QUANT_FORMATS["Q8_0"].bits_per_weight == pytest.approx(8.5008)


def test_gguf_sizes_come_from_bits_per_weight_unless_the_file_size_is_known():
    q4 = ModelVariant("Q4_K_M", gguf_repo="bartowski/x-GGUF")
    # 70.55 B parameters at 4.8944 bits: 43.2 GB (llama.cpp's README lists 43.1 GB for a 70B Q4_K_M)
    assert q4.weights_size_gb(70.55) == pytest.approx(43.16, abs=0.01)
    assert ModelVariant("Q8_0").weights_size_gb(8.03) == pytest.approx(8.53, abs=0.01)
    assert ModelVariant("Q4_K_M", weights_gb=42.5).weights_size_gb(70.55) == 42.5
    # a smaller GGUF really lets a model use less memory in a plan
    llama = SEED_BY_SLUG["llama-3.3-70b"]
    assert llama.with_variant(llama.variant("Q4_K_M")).weights_size_gb() == 43.1
    assert llama.with_variant(llama.variant("fp8")).weights_size_gb() == pytest.approx(70.55)


@pytest.mark.parametrize(
    "quant, engine, ref, words",
    [
        ("nvfp4", "vllm", "nvidia/Llama-3.3-70B-Instruct-NVFP4", None),
        ("nvfp4", "sglang", "nvidia/Llama-3.3-70B-Instruct-NVFP4", None),
        ("nvfp4", "llama.cpp", None, "llama.cpp loads GGUF files only, not nvfp4 safetensors"),
        ("Q4_K_M", "vllm", None, "vLLM does not load GGUF as its primary path"),
        ("Q4_K_M", "sglang", None, "SGLang does not load GGUF as its primary path"),
        ("Q4_K_M", "llama.cpp", "bartowski/Llama-3.3-70B-Instruct-GGUF/Llama-3.3-70B-Instruct-Q4_K_M.gguf", None),
    ],
)
def test_engine_reference_or_the_reason_it_cannot_load(quant, engine, ref, words):
    variant = SEED_BY_SLUG["llama-3.3-70b"].variant(quant)
    result = engine_reference(variant, engine)
    assert result.ref == ref
    assert result.loadable == (words is None)
    if words:
        assert words in result.reason


def test_a_gguf_variant_without_a_file_is_named_by_its_type():
    ref = engine_reference(ModelVariant("MXFP4_MOE", gguf_repo="ggml-org/gpt-oss-120b-GGUF"), "llama.cpp")
    assert (ref.repo, ref.file, ref.ref) == ("ggml-org/gpt-oss-120b-GGUF", None, "ggml-org/gpt-oss-120b-GGUF:MXFP4_MOE")
    missing = engine_reference(ModelVariant("fp8"), "vllm")
    assert not missing.loadable and "no Hugging Face repository" in missing.reason


@pytest.mark.parametrize(
    "variant, field",
    [
        (ModelVariant("Q4_K_XL"), "quantization"),
        (ModelVariant("Q4_K_M", weights_gb=-1), "weights_gb"),
        (ModelVariant("Q4_K_M", hf_repo="org/model"), "hf_repo"),
        (ModelVariant("nvfp4", gguf_repo="org/model-GGUF"), "gguf_repo"),
        (ModelVariant("Q4_K_M", gguf_repo="org/model-GGUF", gguf_file="model.bin"), "gguf_file"),
        (ModelVariant("Q4_K_M", gguf_file="model.gguf"), "gguf_repo"),
        (ModelVariant("fp8", hf_repo="not a repo; rm -rf /"), "hf_repo"),
    ],
)
def test_bad_variants_name_the_field(variant, field):
    assert field in [name for name, _ in variant.validate()]


def test_choose_variant_follows_the_engine():
    gpt = SEED_BY_SLUG["gpt-oss-120b"]
    assert choose_variant(gpt, "vllm").variant.quantization == "mxfp4"
    llama_cpp = choose_variant(gpt, "llama.cpp")
    assert llama_cpp.variant.quantization == "MXFP4_MOE" and llama_cpp.error is None
    assert llama_cpp.spec.weights_size_gb() == pytest.approx(63.37, abs=0.01)
    asked = choose_variant(gpt, "vllm", "MXFP4_MOE")
    assert asked.error and "GGUF" in asked.error
    unknown = choose_variant(gpt, "vllm", "Q2_K")
    assert unknown.error and "no 'Q2_K' variant" in unknown.error
    # no GGUF recorded: the plan keeps the default form and says why
    nothing = choose_variant(SEED_BY_SLUG["glm-5.3"], "llama.cpp")
    assert nothing.error is None and nothing.variant.quantization == "nvfp4" and "GGUF" in nothing.note


def test_seed_variants_are_valid_and_each_names_where_an_engine_finds_it():
    for spec in SEED_BY_SLUG.values():
        assert spec.validate() == [], spec.slug
        for v in spec.variants:
            refs = [engine_reference(v, e) for e in ("vllm", "sglang", "llama.cpp")]
            assert any(r.loadable for r in refs), (spec.slug, v.quantization)


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("q4_k_m", "Q4_K_M"),
        ("Q4_K_M", "Q4_K_M"),
        (" mxfp4_moe ", "MXFP4_MOE"),
        ("NVFP4", "nvfp4"),
        ("iq2_xxs", "IQ2_XXS"),
    ],
)
def test_quantization_names_are_matched_whatever_their_case(given, canonical):
    assert canonical_quantization(given) == canonical
    llama = SEED_BY_SLUG["llama-3.3-70b"]
    if canonical in {v.quantization for v in llama.all_variants()}:
        assert llama.variant(given).quantization == canonical
    assert canonical_quantization("Q4_K_XL") == "Q4_K_XL"  # no such format: left for the check to refuse
