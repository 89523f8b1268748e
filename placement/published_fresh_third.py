"""Held-out runs collected on 2026-12-04, a third set, after the model was
frozen at d61cd70 (SGLang's prefill as a cost of tensor parallelism):
published Spark (GB10) figures transcribed from their sources, turned into
points before the model predicted any of them, and nothing of the model
changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, and read again here at their sources before any
prediction. The rules of the first two sets hold (``placement.published_fresh``,
``placement.published_fresh_second``): Sparks or other GB10 machines; vLLM,
SGLang or llama.cpp; plain decoding; a stated format; a model the catalogue
knows; one stream's decode, all streams' decode together, or one stream's
prefill; sizes not stated read as 256 tokens of context; decode context the
prompt plus half the output where both are stated.

And these, decided for this set before any of it was predicted:

- A figure published as "~N" from a stated measurement (a dated benchmark
  with its tool in the repository) is taken at N, its precision in the note.
  An estimate ("estimated", a range such as "~450-500") is left out.
- A source's own summary of one configuration measured on a few prompts
  (a summary row, or one table row across content types) is one figure: the
  summary, else the mean. Its context is the middle prompt's.
- A run whose model, format, engine, harness, image and lab already have a
  held-out figure is a repeat, left out, even on another date.
- A checkpoint in a format the catalogue has no variant of for that model is
  read at the format's bits per weight (``PUBLISHED_VARIANTS``): BF16 at 16,
  AWQ 4-bit as int4.
- A prompt the source states as text, not tokens, is counted as the same
  harness's reports count it where they do (Stravica's backpropagation prompt:
  34 tokens for Qwen, 61 for Llama in their 2025-11-09 reports).

Left out of the collected candidates:

- Stravica's 2026-02-26 re-runs of Qwen3-30B-A3B FP8 (~42) and Qwen3-32B FP8
  (~6): repeats (the second set holds the same lab's, harness's and image's
  runs of both).
- Stravica's MTP rows of Qwen3.8-27B NVFP4 (speculative decoding); the
  "Batched (64 concurrent): ~450-500 tokens/sec aggregate (estimated)" lines
  (estimates).
- dataforgex's TensorRT-LLM rows (not an engine the model knows); the raw
  JSON of a third AWQ run at 18976c7 (not in the source's own results
  document); its concurrency test (requests per second, no tokens).
- The rest of the candidates (inference-atlas, vllm-marlin-sm12x, a MXFP4
  fork, issue threads, leaderboards): speculative decoding, builds that patch
  kernels, models the catalogue lacks, wall times that hold the prefill, or
  figures with no stated run.

Each series is one experiment (``origin``, prefixed "fresh3-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_THIRD = "2026-12-04c"

# What the model frozen at d61cd70 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3.8-27b-1-vllm-nvfp4-stravica", "decode"): (12.17, 7.49, 17.69),
    ("qwen3.8-27b-1-vllm-nvfp4-stravica-c4", "aggregate"): (47.29, 31.94, 55.06),
    ("qwen3.8-27b-1-vllm-nvfp4-stravica-c8", "aggregate"): (91.10, 61.54, 106.08),
    ("llama-3.1-8b-1-vllm-fp8-stravica-0226", "decode"): (23.07, 14.40, 32.52),
    ("qwen3-8b-1-vllm-fp8-stravica-0226", "decode"): (22.58, 14.09, 31.82),
    ("qwen3.5-35b-a3b-1-vllm-fp8-stravica-0226", "decode"): (44.13, 27.15, 64.16),
    ("qwen3-coder-30b-a3b-1-vllm-bf16-dataforgex", "decode"): (31.17, 19.46, 43.93),
    ("qwen3-coder-30b-a3b-1-vllm-awq-dataforgex", "decode"): (65.64, 40.97, 92.50),
    ("qwen3-coder-30b-a3b-1-vllm-awq-dataforgex-seqs8", "decode"): (65.53, 40.91, 92.35),
}

STRAVICA = "https://github.com/Stravica/nvidia-spark/blob/63b2f190c3096cae90e8371f9fca67e1d5ffdf2a/docs/vllm/"
STRAVICA_QWEN38 = STRAVICA + "qwen38-27b-nvfp4.md"
DATAFORGEX = "https://github.com/dataforgex/dgx_spark/blob/{commit}/benchmarks/BENCHMARK_RESULTS.md"
DATAFORGEX_FIRST = DATAFORGEX.format(commit="5e490b4d65edac1ce60784388b08ab69b8672cb7")
DATAFORGEX_SECOND = DATAFORGEX.format(commit="18976c7a50b229872a8fdd285b5e88ebad14405e")


def _stravica_qwen38() -> list[PublishedPoint]:
    """Stravica/nvidia-spark, Qwen3.8-27B NVFP4 on vLLM v0.24.0
    (vllm/vllm-openai:v0.24.0-ubuntu2404, the recipe build) on one Spark, the
    MTP-off baseline: a node.js streaming client, 256 tokens out, prompt size
    not stated; one stream on three content types (one row), 4 and 8 streams."""
    src = "Stravica/nvidia-spark docs/vllm/qwen38-27b-nvfp4.md, unsloth/Qwen3.8-27B-NVFP4 on vLLM v0.24.0"
    common = {
        "quantization": "nvfp4",
        "role": "holdout",
        "url": STRAVICA_QWEN38,
        "origin": "fresh3-stravica-qwen38-nvfp4",
        "note": "Baseline (MTP off, kv-fp8, async on); 256 tokens out, prompt size not stated; an fp8 KV cache, "
        "which the source measured 4% to 12% slower at one stream than bf16 with MTP on",
    }
    return [
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-stravica",
            "qwen3.8-27b",
            decode_tps=11.66,
            source=f"{src}: batch-1 decode, Baseline (MTP off, kv-fp8, async on) | 11.66 | 11.65 | 11.66 "
            "(prose, code, math; their mean)",
            **common,
        ),
        *(
            _pt(
                f"qwen3.8-27b-1-vllm-nvfp4-stravica-c{streams}",
                "qwen3.8-27b",
                decode_tps=tps,
                concurrency=streams,
                source=f"{src}: concurrent aggregate, Baseline, prose c={streams}: {tps:.2f} tok/s",
                **common,
            )
            for streams, tps in ((4, 43.41), (8, 82.82))
        ),
    ]


def _stravica_0226() -> list[PublishedPoint]:
    """Stravica/nvidia-spark, the 2026-02-26 runs of tools/perftest-models.js
    (commit b5aa89c: "Ran perftest-models.js across 5 vLLM models"): one
    streaming request, 500 tokens out, decode as tokens over the time after
    the first token; the three models the second set has no run of."""
    runs = (  # slug, doc, checkpoint and image, prompt tokens, tok/s
        (
            "llama-3.1-8b",
            "llama31-8b-fp8.md",
            "nvidia/Llama-3.1-8B-Instruct-FP8, nvcr.io/nvidia/vllm:25.09-py3 (vLLM 0.10.1.1)",
            61,
            24.0,
        ),
        (
            "qwen3-8b",
            "qwen3-8b-fp8.md",
            "Qwen/Qwen3-8B-FP8, nvcr.io/nvidia/vllm:25.09-py3 (vLLM 0.10.1.1)",
            34,
            21.0,
        ),
        (
            "qwen3.5-35b-a3b",
            "qwen35-35b-a3b-fp8.md",
            "Qwen/Qwen3.5-35B-A3B-FP8, vllm/vllm-openai:qwen3_5-cu130 (transformers 5 and a config line "
            "patched by scripts/start-qwen35.sh; no kernel patched)",
            34,
            48.0,
        ),
    )
    return [
        _pt(
            f"{slug}-1-vllm-fp8-stravica-0226",
            slug,
            quantization="fp8",
            decode_tps=tps,
            context=prompt + 250,
            role="holdout",
            source=f"Stravica/nvidia-spark docs/vllm/{doc}, {checkpoint}: 'Measured Performance (benchmarked "
            f"2026-02-26): Single request: ~{tps:g} tokens/sec generation'",
            note=f"published as ~{tps:g} (0.5 either side); the harness's prompt ({prompt} tokens in its 2025-11-09 "
            "reports), 500 tokens out; prefix caching on",
            url=STRAVICA + doc,
            origin="fresh3-stravica-vllm-0226",
        )
        for slug, doc, checkpoint, prompt, tps in runs
    ]


def _dataforgex() -> list[PublishedPoint]:
    """dataforgex/dgx_spark benchmarks (2025-12-13): Qwen3-Coder-30B-A3B on
    vLLM 0.10.1.1 (nvcr.io/nvidia/vllm:25.09-py3) on one Spark, streaming,
    one request at a time, 3 iterations of three prompts (~20, ~50 and ~100
    tokens in; 100, 300 and 500 out), decode as output tokens over the time
    after the first; the document's summary TPS. Two documents, two server
    configurations: BF16 and AWQ at 256 sequences, then AWQ at 8 sequences
    and 0.3 of the memory."""
    src = "dataforgex/dgx_spark benchmarks/BENCHMARK_RESULTS.md, Qwen3-Coder-30B-A3B on vLLM 0.10.1.1"
    return [
        _pt(
            "qwen3-coder-30b-a3b-1-vllm-bf16-dataforgex",
            "qwen3-coder-30b-a3b",
            quantization="bf16",
            decode_tps=28.2,
            context=200,
            role="holdout",
            source=f"{src}: 'Qwen3-Coder-30B (Full) | vLLM | 0.316 | 28.2' (rows 30.7, 27.9, 26.1)",
            note="Qwen/Qwen3-Coder-30B-A3B-Instruct in BF16; gpu-memory-utilization 0.55, 256 sequences; the "
            "middle prompt's context (~50 in, 300 out)",
            url=DATAFORGEX_FIRST,
            origin="fresh3-dataforgex-vllm",
        ),
        _pt(
            "qwen3-coder-30b-a3b-1-vllm-awq-dataforgex",
            "qwen3-coder-30b-a3b",
            quantization="int4",
            decode_tps=58.6,
            context=200,
            role="holdout",
            source=f"{src}: 'Qwen3-Coder-30B-AWQ | vLLM | 0.050* | 58.6' (rows 67.0, 51.2, 57.6)",
            note="cpatonn/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit read as int4; gpu-memory-utilization 0.85, 256 "
            "sequences; the middle prompt's context (~50 in, 300 out)",
            url=DATAFORGEX_FIRST,
            origin="fresh3-dataforgex-vllm",
        ),
        _pt(
            "qwen3-coder-30b-a3b-1-vllm-awq-dataforgex-seqs8",
            "qwen3-coder-30b-a3b",
            quantization="int4",
            decode_tps=52.0,
            role="holdout",
            source=f"{src} (later version): 'Qwen3-Coder-30B-AWQ (MoE) | vLLM | 0.069 | 52.0' (rows 52.5, 51.4, 52.0)",
            note="cpatonn/Qwen3-Coder-30B-A3B-Instruct-AWQ-4bit read as int4; 8 sequences, gpu-memory-utilization "
            "0.3; output lengths not stated (about 80 to 100 tokens by the times), so 256 tokens of context",
            url=DATAFORGEX_SECOND,
            origin="fresh3-dataforgex-vllm-seqs8",
        ),
    ]


def fresh_2026_12_04_third() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the third set collected on 2026-12-04, marked so."""
    points = (*_stravica_qwen38(), *_stravica_0226(), *_dataforgex())
    return tuple(replace(p, collected=COLLECTED_THIRD) for p in points)
