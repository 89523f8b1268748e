"""Held-out runs collected on 2026-12-05, a fourteenth set (the day's
ninth, hence "2026-12-05i"), after the model was frozen at b7bbb58 (whose
published fit is 9f94652's, as for the eleventh to thirteenth sets):
published Spark (GB10) figures transcribed from their sources, turned into
points before the model predicted any of them, and nothing of the model
changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with runs on two or more Sparks sought first
(``placement/collected/2026-12-05i.md`` keeps the collection whole, 26
figures of two sources). No citable run on several Sparks was found. The
figure kept was read again here at its source before any prediction
(bytebunkerlabs/dgx-spark-serve's bench/results.jsonl at 6817bf2, its
recipe, harness and image profile at the same commit). The rules of the
earlier sets hold (``placement.published_fresh`` to
``placement.published_fresh_thirteenth``), and these, decided for this set
before any of it was predicted:

- Repeated runs of one configuration are one figure: their median, as the
  source's harness prints it (13.85, 13.87 and 13.87 tok/s: 13.87, the
  figure its commit states).
- A prompt whose tokens the source does not count (a chat prompt of about
  fifty words) is taken as 64 tokens; the decode figure excludes the first
  token, so the prompt only sets the context.

Left out of the collected candidates:

- 0xBakeer/inference-atlas (files not read in the fifth and ninth sets, the
  same lab): every row was measured with MTP speculative decoding on, in a
  patched image (MiaAI-Lab's mia-vllm-gb10-linear-b12x), and its prefill
  rows with speculation on, which the fifth and ninth sets left out alike.
- bytebunkerlabs: the two-node TP2 run (Inkling-Small, not a catalogue
  model).

The source's series is one experiment (``origin``, prefixed "fresh14-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_FOURTEENTH = "2026-12-05i"

BYTEBUNKER = "https://github.com/bytebunkerlabs/dgx-spark-serve/blob/6817bf2a381530164fc1cb0674a01b950dafead2/bench/results.jsonl"

# What the model frozen at b7bbb58 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3-8b-1-vllm-bf16-bytebunker", "decode"): (14.48, 9.04, 20.41),
}


def _bytebunker() -> list[PublishedPoint]:
    """bytebunkerlabs/dgx-spark-serve: Qwen/Qwen3-8B in BF16 on one DGX Spark
    (GB10) of a two-Spark lab, NVIDIA's vLLM image 26.07 (vLLM 0.24.0), TP1,
    --gpu-memory-utilization 0.7, --max-model-len 32768, CUDA graphs (the
    engine's start compiled them); one streaming chat request, 256 tokens out,
    decode in tokens per second after the first token."""
    return [
        _pt(
            "qwen3-8b-1-vllm-bf16-bytebunker",
            "qwen3-8b",
            quantization="bf16",
            decode_tps=13.87,
            context=64 + 128,
            role="holdout",
            url=BYTEBUNKER,
            origin="fresh14-bytebunker-qwen3-8b",
            source="bytebunkerlabs bench/results.jsonl (6817bf2), the median of three runs: "
            '\'"run": 1, ... "decode_tok_s": 13.85\', \'"run": 2, ... "decode_tok_s": 13.87\', '
            "'\"run\": 3, ... \"decode_tok_s\": 13.87' (commit: 'Qwen3-8B solo on spark-1 — 13.87 tok/s decode')",
            note="NGC vLLM 26.07 (vLLM 0.24.0); a chat prompt of about fifty words (taken as 64 tokens), 256 "
            "tokens out, thinking tokens counted; decode after the first token",
        )
    ]


def fresh_2026_12_05_fourteenth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the fourteenth set, collected on 2026-12-05, marked so."""
    return tuple(replace(p, collected=COLLECTED_FOURTEENTH) for p in _bytebunker())
