"""Held-out runs collected on 2026-12-04, a fourth set, after the model was
frozen at 2e5f5ce (whose published fit is d61cd70's: nothing since changed a
published prediction): published Spark (GB10) figures transcribed from their
sources, turned into points before the model predicted any of them, and
nothing of the model changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with SGLang runs, runs on several nodes and
llama.cpp batches sought first (where the earlier sets found the misses),
and read again here at their sources before any prediction. The rules of the
earlier sets hold (``placement.published_fresh``,
``placement.published_fresh_second``, ``placement.published_fresh_third``):
Sparks or other GB10 machines; vLLM, SGLang or llama.cpp; plain decoding; a
stated format; a model the catalogue knows; one stream's decode, all
streams' decode together, or one stream's prefill; sizes not stated read as
256 tokens of context; decode context the prompt plus half the output where
both are stated; a source's summary of one configuration is one figure (the
summary, else the mean); a repeat of a held-out configuration of the same
lab is left out.

And these, decided for this set before any of it was predicted:

- Output tokens over a request's wall time, prefill included, are kept when
  the source's prompts are a short chat or task line against up to 1,024
  generated tokens (the prefill is then well under 1% of the time); a wall
  time over long prompts stays out, as before.
- Where the output is stated and the prompt is not, the decode context is
  half the output (the prompt read as none).
- llama.cpp's NVFP4 GGUF type (16-value FP4 blocks with an FP8 scale, run
  by Blackwell's FP4 tensor cores) is read as the catalogue's NVFP4 format:
  4.5 bits per weight, FP4 compute, the default efficiency class, as the
  MXFP4 GGUF type already is. Qwen3.6-27B has no NVFP4 variant in the
  catalogue: it is read at that format's bits per weight
  (``PUBLISHED_VARIANTS``).
- A checkpoint that keeps some layers in FP8 beside NVFP4 (Unsloth's
  Qwen3.6-35B-A3B-NVFP4) is read as the catalogue's NVFP4 variant; the
  note says so.

Left out of the collected candidates:

- unslothai/unsloth's two-Spark llama.cpp RPC tables (studio spark_serving
  code comments, PR 10323): no commit of the file that holds them could be
  read, the two-node runs used a fork's build, and the GPU clocks were
  pinned below their default.
- A Nemotron-3-Super llama.cpp figure in a pull-request comment
  (eugr/spark-vllm-docker 93): no build, method, lengths or exact quant type.
- LocalAI's "patched" llama.cpp columns (a patch series of kernels) and its
  vLLM column (another session, harness and build not stated); every
  speculative row (DFlash, MTP, NEXTN, EAGLE) of the SGLang sources; "~N"
  expected figures (an SGLang gpt-oss-120b TP2 README); pages whose stored
  copies stop before their figures; models the catalogue lacks.

Each series is one experiment (``origin``, prefixed "fresh4-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_FOURTH = "2026-12-04d"

# What the model frozen at 2e5f5ce predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav", "decode"): (60.36, 37.98, 83.77),
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c2", "aggregate"): (97.05, 64.62, 130.04),
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c8", "aggregate"): (191.79, 127.71, 256.98),
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c10", "aggregate"): (207.37, 138.08, 277.84),
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c189", "aggregate"): (373.51, 248.71, 500.45),
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c263", "aggregate"): (387.47, 258.00, 519.15),
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c367", "aggregate"): (399.96, 266.32, 535.89),
    ("qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c457", "aggregate"): (407.17, 271.12, 545.55),
    ("qwen3.6-27b-1-llamacpp-nvfp4-localai-c8", "aggregate"): (84.77, 62.08, 111.40),
    ("qwen3.6-27b-1-llamacpp-nvfp4-localai-c32", "aggregate"): (282.57, 206.94, 371.33),
    ("qwen3.6-27b-1-llamacpp-nvfp4-localai-c64", "aggregate"): (462.38, 338.62, 607.61),
    ("qwen3.6-27b-1-llamacpp-nvfp4-localai-c128", "aggregate"): (678.13, 496.62, 891.13),
    ("qwen3.6-35b-a3b-1-llamacpp-nvfp4-localai-c8", "aggregate"): (183.71, 134.54, 241.42),
    ("qwen3.6-35b-a3b-1-llamacpp-nvfp4-localai-c32", "aggregate"): (277.56, 203.27, 364.74),
    ("qwen3.6-35b-a3b-1-llamacpp-nvfp4-localai-c64", "aggregate"): (317.92, 232.82, 417.77),
    ("qwen3.6-35b-a3b-1-llamacpp-nvfp4-localai-c128", "aggregate"): (354.37, 259.52, 465.68),
    ("qwen3.8-27b-1-vllm-nvfp4-eugr", "decode"): (12.16, 7.48, 17.68),
}

ANUBHAV = (
    "https://github.com/anubhavgupta/Qwen3.6-35b-SGLang-DGX-Spark/blob/"
    "703abc5087dac6578739865e11da791da465b6a1/numbers.md"
)
LOCALAI = (
    "https://github.com/mudler/LocalAI/blob/3466094c68b2393bd2ae3b4e66e5619b4dea5fb1/"
    "backend/cpp/llama-cpp-localai-paged/docs/final_benchmark.csv"
)
EUGR = (
    "https://github.com/eugr/spark-vllm-docker/blob/2b6101737294e7117a136aa05042aaa0018ce72b/"
    "qwen3.8-27b-nvfp4-mtp-benchmark.md"
)


def _sglang_qwen36() -> list[PublishedPoint]:
    """anubhavgupta/Qwen3.6-35b-SGLang-DGX-Spark (measured 2026-10-01/02):
    unsloth/Qwen3.6-35B-A3B-NVFP4 on SGLang nightly-cu134-20260909-708f51e
    on one Spark (flashinfer attention, fp8 KV cache, CUDA graphs), the "no
    spec" rows. Four short prompts (a puzzle, a chat question, a code task, an
    essay), max_tokens 1,024, sampled at temperature 1.0, non-streaming:
    output tokens over wall time. Two server set-ups, two experiments: the
    default (--mem-fraction-static 0.5) at 1, 2, 8 and 10 requests, and the
    'threshold' runs at 0.95 with the most requests that fit each context."""
    src = "anubhavgupta/Qwen3.6-35b-SGLang-DGX-Spark numbers.md, Qwen3.6-35B-A3B NVFP4 on SGLang nightly 708f51e"
    note = (
        "unsloth/Qwen3.6-35B-A3B-NVFP4 (NVFP4 experts; attention, DeltaNet projections, lm_head and layers "
        "32-39's experts in FP8) read as the NVFP4 variant; fp8 KV cache; output tokens over wall time, prefill "
        "included, of short prompts; prompt and output sizes not stated (max_tokens 1,024), so 256 tokens of "
        "context; requests that finish early leave fewer streams running"
    )
    common = {"engine": "sglang", "quantization": "nvfp4", "role": "holdout", "url": ANUBHAV, "note": note}
    default = [
        _pt(
            "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav",
            "qwen3.6-35b-a3b",
            decode_tps=66.7,
            source=f"{src}: 'no spec | 66.7 | 66.4 | 67.0 | 66.6 | 66.6 | 94.0' (c=1 mean over 4 prompts x 2 runs)",
            origin="fresh4-anubhav-sglang",
            **common,
        ),
        _pt(
            "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c2",
            "qwen3.6-35b-a3b",
            concurrency=2,
            decode_tps=94.0,
            source=f"{src}: 'no spec | ... | 94.0' (c=2 agg: the code and essay prompts together, 2 rounds)",
            origin="fresh4-anubhav-sglang",
            **common,
        ),
        _pt(
            "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c8",
            "qwen3.6-35b-a3b",
            concurrency=8,
            decode_tps=204.3,
            source=f"{src}: Concurrency 8 at 262K context (0.5 fraction), 'no spec | 204.3' combined tok/s",
            origin="fresh4-anubhav-sglang",
            **common,
        ),
        _pt(
            "qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c10",
            "qwen3.6-35b-a3b",
            concurrency=10,
            decode_tps=round((223.9 + 229.2) / 2, 2),
            source=f"{src}: 'no spec | 223.9' (Speed: concurrency 10) and 'no spec | 229.2' (Concurrency 10 at "
            "262K context), one set-up measured twice: their mean",
            origin="fresh4-anubhav-sglang",
            **common,
        ),
    ]
    threshold = [
        _pt(
            f"qwen3.6-35b-a3b-1-sglang-nvfp4-anubhav-c{streams}",
            "qwen3.6-35b-a3b",
            concurrency=streams,
            decode_tps=tps,
            source=f"{src}: Threshold throughput at 0.95, 'no spec | {cap} | ... | {streams} | {tps}' combined tok/s",
            origin="fresh4-anubhav-sglang-threshold",
            **{**common, "note": f"{note}; --mem-fraction-static 0.95, {cap} tokens per stream reserved"},
        )
        for cap, streams, tps in (("32K", 189, 1059.3), ("16K", 263, 1212.9), ("8K", 367, 1389.9), ("4K", 457, 1434.2))
    ]
    return default + threshold


def _localai_batched() -> list[PublishedPoint]:
    """mudler/LocalAI backend/cpp/llama-cpp-localai-paged (re-measured
    2026-06-27): unpatched llama.cpp at 9d5d882d ("stock") on one GB10,
    llama-batched-bench -fa on -ngl 99, 128 tokens in and 128 out per
    sequence, 8 to 128 parallel sequences; all sequences' decode together
    (S_TG). Qwen3.6-27B (dense, 48 gated-DeltaNet and 16 attention layers) and
    Qwen3.6-35B-A3B in llama.cpp's NVFP4 GGUF type."""
    table = {  # slug: (checkpoint, {sequences: S_TG})
        "qwen3.6-27b": ("mudler/Qwen3.6-27B-NVFP4-GGUF", {8: 68.3, 32: 119.9, 64: 142.8, 128: 155.1}),
        "qwen3.6-35b-a3b": ("mudler/Qwen3.6-35B-A3B-NVFP4-GGUF", {8: 186.7, 32: 267.4, 64: 320.5, 128: 347.2}),
    }
    short = {"qwen3.6-27b": "q36-27b-nvfp4", "qwen3.6-35b-a3b": "q36-35b-a3b-nvfp4"}
    return [
        _pt(
            f"{slug}-1-llamacpp-nvfp4-localai-c{npl}",
            slug,
            engine="llama.cpp",
            quantization="nvfp4",
            concurrency=npl,
            decode_tps=tps,
            context=128 + 64,
            role="holdout",
            source=f"mudler/LocalAI llama-cpp-localai-paged docs/final_benchmark.csv: '{short[slug]},llama-stock,"
            f"{npl},{tps}' (decode_agg_tps, llama-batched-bench)",
            note=f"{checkpoint} (llama.cpp's NVFP4 GGUF type) read as NVFP4; upstream llama.cpp at 9d5d882d, the "
            "'stock' column; npp 128 / ntg 128, so 192 tokens of context",
            url=LOCALAI,
            origin="fresh4-localai-llamacpp",
        )
        for slug, (checkpoint, series) in table.items()
        for npl, tps in series.items()
    ]


def _eugr() -> list[PublishedPoint]:
    """eugr/spark-vllm-docker (2026-08-17): unsloth/Qwen3.8-27B-NVFP4 on vLLM
    in that project's image (refreshed after 2026-08-14, version not stated)
    on one Spark, the "No MTP" row: one warm-up, five requests of one frozen
    prompt, 1,024 tokens out each, decode rate apart from the first token."""
    return [
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-eugr",
            "qwen3.8-27b",
            quantization="nvfp4",
            decode_tps=10.77,
            context=512,
            role="holdout",
            source="eugr/spark-vllm-docker qwen3.8-27b-nvfp4-mtp-benchmark.md: 'No MTP | 5 | 10.77 tok/s | 0.562x "
            "| 0.147 s | 95.13 s'",
            note="the recipe's fp8 KV cache and flashinfer attention; 1,024 tokens out of a prompt whose size is "
            "not stated (0.147 s to the first token), so half the output of context; vLLM build not stated",
            url=EUGR,
            origin="fresh4-eugr-vllm",
        )
    ]


def fresh_2026_12_04_fourth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the fourth set collected on 2026-12-04, marked so."""
    points = (*_sglang_qwen36(), *_localai_batched(), *_eugr())
    return tuple(replace(p, collected=COLLECTED_FOURTH) for p in points)
