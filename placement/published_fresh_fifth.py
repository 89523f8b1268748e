"""Held-out runs collected on 2026-12-04, a fifth set, after the model was
frozen at e7cebc4 (llama.cpp's recurrent-state passes, priced after the
fourth set had been seen): published Spark (GB10) figures transcribed from
their sources, turned into points before the model predicted any of them,
and nothing of the model changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with llama.cpp runs of hybrid models sought first
(the runs that judge the change), and read again here at their sources
before any prediction. The rules of the earlier sets hold
(``placement.published_fresh`` to ``placement.published_fresh_fourth``):
Sparks or other GB10 machines; vLLM, SGLang or llama.cpp; plain decoding; a
stated format; a model the catalogue knows; one stream's decode, all
streams' decode together, or one stream's prefill; a llama-bench figure at
its own sizes (tgN: half of N tokens of context; ppN: a prompt of N); a
format the catalogue has no variant of for that model read at its bits per
weight; output over wall time kept only when the prompts are stated to be a
short chat or task line.

Left out of the collected candidates:

- The same lab's llama-server runs at 1 to 8 concurrent requests: output
  over each batch's wall time, prefill included, of one fixed prompt whose
  content and length are not stated.
- sumner-harris/gb10-llm-docker-recipes' vLLM runs of Nemotron-3-Super and
  gpt-oss-120b at 1 to 6 requests: system output throughput over prompts of
  about 2,000 tokens (a wall time over long prompts).
- inference-atlas's 64-request runs (speculative decoding, patched images),
  the same lab's MTP and non-standard quant variants, and repositories and
  pages the earlier rounds used.

Each series is one experiment (``origin``, prefixed "fresh5-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_FIFTH = "2026-12-04e"

# What the model frozen at e7cebc4 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack", "decode"): (50.85, 37.14, 66.53),
    ("qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack", "prefill"): (2153.96, 1256.74, 5521.84),
    ("qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack-pp2048", "prefill"): (3774.63, 2202.33, 9676.52),
    ("qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack-pp8192", "prefill"): (3583.16, 2090.62, 9185.69),
    ("qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack-pp32768", "prefill"): (2978.78, 1737.99, 7636.32),
}

GDEVSNACK = (
    "https://github.com/gdevsnack-ai-labs/gb10-local-llm-benchmark/blob/"
    "32f0f3423dd3424cb8a386e060f1abb007ce0783/docs/public/QWEN36_35B_FULL_BENCHMARK_V1.md"
)


def _gdevsnack() -> list[PublishedPoint]:
    """gdevsnack-ai-labs/gb10-local-llm-benchmark (run 2026-09-05, released
    2026-09-10): Qwen3.6-35B-A3B in GGUF Q8_0 on upstream llama.cpp's
    llama-bench on one DGX Spark (-ngl 999, flash attention, batch 2048,
    ubatch 512, f16 KV cache, 5 repetitions): pp512, pp2048, pp8192,
    pp32768 and tg512. The build is kept in the lab's private run manifests."""
    src = "gdevsnack-ai-labs/gb10-local-llm-benchmark QWEN36_35B_FULL_BENCHMARK_V1.md, Qwen3.6-35B-A3B Q8_0 llama-bench"
    line = "'| Q8_0 | 1941.3 | 1935.1 | 1894.9 | 1779.2 | 58.7 |' (PP512, PP2K, PP8K, PP32K, TG512)"
    common = {
        "engine": "llama.cpp",
        "quantization": "Q8_0",
        "role": "holdout",
        "url": GDEVSNACK,
        "origin": "fresh5-gdevsnack-llamacpp",
        "note": "file size not stated: read at Q8_0's bits per weight; llama.cpp build not stated (kept in the "
        "lab's private manifests); f16 KV cache",
    }
    return [
        _pt(
            "qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack",
            "qwen3.6-35b-a3b",
            decode_tps=58.7,
            prefill_tps=1941.3,
            context=256,
            prompt=512,
            source=f"{src}: {line}: tg512 58.7, pp512 1941.3",
            **common,
        ),
        *(
            _pt(
                f"qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack-pp{prompt}",
                "qwen3.6-35b-a3b",
                prefill_tps=tps,
                prompt=prompt,
                source=f"{src}: {line}: pp{prompt} {tps}",
                **common,
            )
            for prompt, tps in ((2048, 1935.1), (8192, 1894.9), (32768, 1779.2))
        ),
    ]


def fresh_2026_12_04_fifth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the fifth set collected on 2026-12-04, marked so."""
    return tuple(replace(p, collected=COLLECTED_FIFTH) for p in _gdevsnack())
