"""Weight formats and quantized variants of a model, and which engine loads which.

Owns the formats people run on Sparks: the safetensors formats vLLM and SGLang
load (nvfp4, mxfp4, fp8, bf16, int4) and the GGUF types llama.cpp loads
(Q2_K ... Q8_0, the IQ types, F16, MXFP4_MOE), each with its real bits per
weight; a model's variants (one format, its file size when known, where each
engine finds it); and ``engine_reference``: the reference an engine is given
for a variant, or why that engine cannot load it. Plain data, no Django.

Bits per weight:
- safetensors formats are the format's own size (values plus block scales).
- GGUF mixes (Q4_K_M keeps some tensors at Q6_K, ...) are the whole-file
  bits per weight llama.cpp's quantize README measures on Llama-3.1-8B
  (github.com/ggml-org/llama.cpp/blob/master/tools/quantize/README.md), so
  embeddings and output tensors are counted; Q3_K_M (missing there) is the
  same README's older Llama-2-7B figure; Q4_0 and MXFP4_MOE are their ggml
  block layouts (Q4_0: 32 4-bit values + one fp16 scale = 18 bytes per 32;
  MXFP4: 32 4-bit values + one E8M0 scale = 17 bytes per 32).
A published file size, when known, always wins over parameters x bits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SAFETENSORS = "safetensors"
GGUF = "gguf"
SERVING_ENGINES = ("vllm", "sglang")  # load Hugging Face safetensors repositories
LLAMA_CPP = "llama.cpp"


@dataclass(frozen=True)
class QuantFormat:
    """One weight format. ``compute`` names the arithmetic the kernels run
    (the performance model's compute-rate class): fp4, fp8, bf16, int4
    (weight-only, computed in bf16) or gguf (llama.cpp's quantized kernels)."""

    name: str
    container: str  # "safetensors" | "gguf"
    bits_per_weight: float
    compute: str
    label: str

    @property
    def bytes_per_weight(self) -> float:
        return self.bits_per_weight / 8.0


_README = "llama.cpp tools/quantize README, Llama-3.1-8B"


def _gguf(name: str, bpw: float, source: str = _README) -> QuantFormat:
    return QuantFormat(name, GGUF, bpw, "gguf", f"GGUF {name} ({bpw:g} bits/weight, {source})")


QUANT_FORMATS: dict[str, QuantFormat] = {
    f.name: f
    for f in (
        # 4-bit E2M1 values + one FP8 (E4M3) scale per 16 values: 4 + 8/16 = 4.5 bits
        QuantFormat("nvfp4", SAFETENSORS, 4.5, "fp4", "NVFP4 (4.5 bits/weight with its block scales)"),
        # OCP MX: 4-bit values + one E8M0 scale per 32 values: 4 + 8/32 = 4.25 bits
        QuantFormat("mxfp4", SAFETENSORS, 4.25, "fp4", "MXFP4 (4.25 bits/weight with its block scales)"),
        # GPTQ/AWQ 4-bit with one fp16 scale per group of 32: 4 + 16/32 = 4.5 bits
        # (group 128 gives ~4.25; the larger figure never under-estimates memory)
        QuantFormat("int4", SAFETENSORS, 4.5, "int4", "int4 GPTQ/AWQ (4.5 bits/weight with scales)"),
        QuantFormat("fp8", SAFETENSORS, 8.0, "fp8", "FP8 (8 bits/weight)"),
        QuantFormat("bf16", SAFETENSORS, 16.0, "bf16", "BF16 (16 bits/weight)"),
        _gguf("IQ1_S", 2.0042),
        _gguf("IQ1_M", 2.1460),
        _gguf("IQ2_XXS", 2.3824),
        _gguf("IQ2_XS", 2.5882),
        _gguf("IQ2_S", 2.7403),
        _gguf("IQ2_M", 2.9294),
        _gguf("IQ3_XXS", 3.2548),
        _gguf("IQ3_XS", 3.4977),
        _gguf("IQ3_S", 3.6606),
        _gguf("IQ3_M", 3.7628),
        _gguf("IQ4_XS", 4.4597),
        _gguf("IQ4_NL", 4.6818),
        _gguf("Q2_K_S", 2.9697),
        _gguf("Q2_K", 3.1593),
        _gguf("Q3_K_S", 3.6429),
        _gguf("Q3_K_M", 3.91, "llama.cpp quantize README, Llama-2-7B"),
        _gguf("Q3_K_L", 4.2979),
        _gguf("Q4_0", 4.5, "ggml block layout"),
        _gguf("Q4_K_S", 4.6672),
        _gguf("Q4_K_M", 4.8944),
        _gguf("Q5_K_S", 5.5704),
        _gguf("Q5_K_M", 5.7036),
        _gguf("Q6_K", 6.5633),
        _gguf("Q8_0", 8.5008),
        _gguf("F16", 16.0005),
        # gpt-oss GGUFs: experts in MXFP4, attention and embeddings kept wider; the
        # published file sizes (ggml-org/gpt-oss-*-GGUF) win over this figure.
        _gguf("MXFP4_MOE", 4.25, "ggml MXFP4 block layout, experts only"),
    )
}

SAFETENSORS_FORMATS = tuple(k for k, f in QUANT_FORMATS.items() if f.container == SAFETENSORS)
GGUF_FORMATS = tuple(k for k, f in QUANT_FORMATS.items() if f.container == GGUF)
_BY_FOLDED = {k.casefold(): k for k in QUANT_FORMATS}


def canonical_quantization(name: str) -> str:
    """A format's name as the catalogue spells it, whatever the case it was
    given in (GGUF file names say ``q4_k_m``, llama.cpp's tables ``Q4_K_M``;
    ``NVFP4`` is ``nvfp4``); surrounding blanks dropped. A name that is no
    known format comes back stripped, for the caller's check to refuse."""
    text = name.strip() if isinstance(name, str) else name
    return _BY_FOLDED.get(text.casefold(), text) if isinstance(text, str) else text


_REPO_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_GGUF_FILE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}\.gguf$")


def is_hub_repo(value: str) -> bool:
    """Whether ``value`` names a Hugging Face repository (owner/name), as a variant's references must."""
    return bool(_REPO_RE.match(value))


@dataclass(frozen=True)
class ModelVariant:
    """One quantized form of a model: its format, its file size when known
    (GB, 10**9 bytes), and where each engine finds it: a Hugging Face
    safetensors repository (vLLM, SGLang) or a GGUF repository and file
    (llama.cpp)."""

    quantization: str
    weights_gb: float | None = None
    hf_repo: str = ""
    gguf_repo: str = ""
    gguf_file: str = ""
    notes: str = ""

    @property
    def format(self) -> QuantFormat:
        return QUANT_FORMATS[self.quantization]

    def weights_size_gb(self, params_b: float) -> float:
        """The file size when known, else parameters x bits per weight."""
        if self.weights_gb is not None:
            return float(self.weights_gb)
        return params_b * self.format.bytes_per_weight

    def validate(self) -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        fmt = QUANT_FORMATS.get(self.quantization)
        if fmt is None:
            errors.append(("quantization", "unknown; one of " + ", ".join(QUANT_FORMATS)))
        if self.weights_gb is not None and (
            isinstance(self.weights_gb, bool)
            or not isinstance(self.weights_gb, (int, float))
            or not 0 < self.weights_gb < 10_000
        ):
            errors.append(("weights_gb", "must be a number above 0 (GB), or empty"))
        for name in ("hf_repo", "gguf_repo"):
            value = getattr(self, name)
            if value and not _REPO_RE.match(value):
                errors.append((name, "a Hugging Face repository: owner/name"))
        if self.gguf_file and (
            not _GGUF_FILE_RE.match(self.gguf_file) or {".", ".."} & set(self.gguf_file.split("/"))
        ):  # "a/../../etc/x.gguf" reached llama-server's --hf-file
            errors.append(("gguf_file", "a .gguf file name inside the repository (folders allowed, no '.' or '..')"))
        if fmt is not None and fmt.container == SAFETENSORS and (self.gguf_repo or self.gguf_file):
            errors.append(("gguf_repo", f"{self.quantization} is a safetensors format: no GGUF file"))
        if fmt is not None and fmt.container == GGUF and self.hf_repo:
            errors.append(("hf_repo", f"{self.quantization} is a GGUF type: give gguf_repo, not hf_repo"))
        if self.gguf_file and not self.gguf_repo:
            errors.append(("gguf_repo", "required with gguf_file"))
        return errors


@dataclass(frozen=True)
class EngineReference:
    """What an engine is given to load a variant, or why it cannot.

    vLLM/SGLang: ``repo`` is the Hugging Face repository (``vllm serve REPO``).
    llama.cpp: ``repo`` and ``file`` (``llama-server --hf-repo REPO
    --hf-file FILE``); without a file, ``repo:QUANT`` (``-hf REPO:QUANT``)
    lets llama.cpp pick the file of that type.
    """

    engine: str
    quantization: str
    repo: str | None = None
    file: str | None = None
    reason: str | None = None

    @property
    def loadable(self) -> bool:
        return self.reason is None

    @property
    def ref(self) -> str | None:
        """One string naming the weights: REPO, REPO/FILE, or REPO:QUANT."""
        if self.repo is None:
            return None
        if self.engine != LLAMA_CPP:
            return self.repo
        return f"{self.repo}/{self.file}" if self.file else f"{self.repo}:{self.quantization}"


def engine_reference(variant: ModelVariant, engine: str) -> EngineReference:
    """The reference ``engine`` loads ``variant`` from, or the reason it cannot."""
    fmt = QUANT_FORMATS.get(variant.quantization)
    q = variant.quantization
    if fmt is None:
        return EngineReference(engine, q, reason=f"unknown quantization {q!r}")
    if engine in SERVING_ENGINES:
        name = "vLLM" if engine == "vllm" else "SGLang"
        if fmt.container == GGUF:
            return EngineReference(
                engine,
                q,
                reason=(
                    f"{name} does not load GGUF as its primary path: pick a safetensors variant "
                    f"({', '.join(SAFETENSORS_FORMATS)}) or run this one with llama.cpp"
                ),
            )
        if not variant.hf_repo:
            return EngineReference(engine, q, reason=f"no Hugging Face repository recorded for the {q} variant")
        return EngineReference(engine, q, repo=variant.hf_repo)
    if engine == LLAMA_CPP:
        if fmt.container == SAFETENSORS:
            return EngineReference(
                engine,
                q,
                reason=(
                    f"llama.cpp loads GGUF files only, not {q} safetensors: pick a GGUF variant "
                    "(or convert with convert_hf_to_gguf.py)"
                ),
            )
        if not variant.gguf_repo:
            return EngineReference(engine, q, reason=f"no GGUF repository recorded for the {q} variant")
        return EngineReference(engine, q, repo=variant.gguf_repo, file=variant.gguf_file or None)
    return EngineReference(engine, q, reason=f"unknown engine {engine!r}; one of vllm, sglang, llama.cpp")


def variant_for_engine(
    variants: tuple[ModelVariant, ...] | list[ModelVariant], engine: str, preferred: str | None = None
) -> ModelVariant | None:
    """The variant an engine runs: ``preferred`` if that engine can load it,
    else the first loadable one in the given order (None if none is)."""
    ordered = sorted(variants, key=lambda v: v.quantization != preferred)
    for v in ordered:
        if engine_reference(v, engine).loadable:
            return v
    return None
