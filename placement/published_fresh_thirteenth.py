"""Held-out runs collected on 2026-12-05, a thirteenth set (the day's
eighth, hence "2026-12-05h"), after the model was frozen at b1459d6 (whose
published fit is 9f94652's, as for the eleventh and twelfth sets): published
Spark (GB10) figures transcribed from their sources, turned into points
before the model predicted any of them, and nothing of the model changed for
them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with runs on two or more Sparks sought first
(``placement/collected/2026-12-05h.md`` keeps the collection whole, 89
figures of four sources). The figures kept were read again here at their
source before any prediction (elizabetht/spark's article at f602081,
rossingram's guide at 358c8a1, Avarok-Cybersecurity's report at 4a14392).
The rules of the earlier sets hold (``placement.published_fresh`` to
``placement.published_fresh_twelfth``), and these, decided for this set
before any of it was predicted:

- A model of the same architecture and size as a catalogue model is read as
  it (Qwen3-Next-80B-A3B-Instruct as Qwen3-Coder-Next, as the eleventh set
  read Qwen2.5-7B-Instruct as Qwen2.5-Coder-7B).
- An image built with its own kernels (Avarok's NVFP4 Marlin build) is left
  out beside the stock image the same source measured (NVIDIA's 26.01).
- One-stream decode given both as tokens/s and as time per output token is
  one figure: the tokens/s.
- Time to first token is not turned into a prefill figure: it carries the
  request's fixed costs (585 ms for 256 tokens).
- A figure its source itself calls a struggle or a failure is left out, as
  the earlier sets left out stalls.
- Two Sparks whose copies sit behind a round-robin proxy are copies behind
  an even router.

Left out of the collected candidates:

- mark-ramsey-ri's vllm-dgx-spark (as a fork holds it): the same file at the
  same commit as rykersun/vllm-dgx-spark, a held-out run already.
- elizabetht: the disaggregated runs (prefill and decode on different
  Sparks, which the model does not price), the replicated batch the source
  says "struggled" (26.5 tok/s), and the guidellm peak at a concurrency not
  stated.
- rossingram: the batch test's one stream (the same configuration as the
  first test, whose sizes are stated), the long-prompt rows (output over
  wall time over 5,000 to 39,000-token prompts) and the run before tuning.
- Avarok: the MTP column and the MTP concurrency sweep (speculative), the
  Avarok image (above), the TPOT and TTFT tables (above).

Each source's series is one experiment (``origin``, prefixed "fresh13-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_THIRTEENTH = "2026-12-05h"

ELIZABETHT = (
    "https://github.com/elizabetht/spark/blob/f602081cc8405735c686fae75e5449abaeae236c/notebooks/"
    "02_disaggregated-serving/vllm-native/LINKEDIN_ARTICLE.md"
)
ROSSINGRAM = (
    "https://github.com/rossingram/Spark-DGX-Benchmark/blob/358c8a11e939c6289bc4022d4f8d9e079b707bfb/docs/"
    "GPT-OSS-Benchmark-Setup.md"
)
AVAROK = (
    "https://github.com/Avarok-Cybersecurity/dgx-vllm/blob/4a14392eb41cb71d252a8c61e597ea6c984a210c/"
    "NVFP4_BREAKTHROUGH_DGX_SPARK.md"
)

# What the model frozen at b1459d6 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("gpt-oss-120b-1-vllm-mxfp4-rossingram", "decode"): (51.41, 32.09, 72.45),
    ("gpt-oss-120b-1-vllm-mxfp4-rossingram-c16", "aggregate"): (176.22, 119.24, 204.31),
    ("gpt-oss-120b-1-vllm-mxfp4-rossingram-c2", "aggregate"): (75.34, 50.98, 87.35),
    ("gpt-oss-120b-1-vllm-mxfp4-rossingram-c4", "aggregate"): (103.90, 70.30, 120.46),
    ("gpt-oss-120b-1-vllm-mxfp4-rossingram-c8", "aggregate"): (137.06, 92.74, 158.91),
    ("llama-3.1-8b-1-vllm-bf16-elizabetht", "decode"): (14.81, 9.24, 20.87),
    ("llama-3.1-8b-1-vllm-bf16-elizabetht-c8", "aggregate"): (118.06, 79.88, 136.88),
    ("llama-3.1-8b-2x1-vllm-bf16-elizabetht", "aggregate"): (14.81, 10.12, 15.55),
    ("qwen3-coder-next-1-vllm-int4-avarok-1024-1024", "decode"): (57.29, 35.24, 83.29),
    ("qwen3-coder-next-1-vllm-int4-avarok-128-128", "decode"): (57.79, 35.55, 84.02),
    ("qwen3-coder-next-1-vllm-int4-avarok-256-256", "decode"): (57.71, 35.51, 83.91),
    ("qwen3-coder-next-1-vllm-int4-avarok-32768-256", "decode"): (47.69, 29.34, 69.34),
    ("qwen3-coder-next-1-vllm-int4-avarok-4096-4096", "decode"): (55.64, 34.23, 80.90),
    ("qwen3-coder-next-1-vllm-int4-avarok-8192-1024", "decode"): (54.77, 33.69, 79.63),
    ("qwen3-coder-next-1-vllm-nvfp4-avarok-1024-1024", "decode"): (56.80, 34.95, 82.59),
    ("qwen3-coder-next-1-vllm-nvfp4-avarok-128-128", "decode"): (57.30, 35.25, 83.31),
    ("qwen3-coder-next-1-vllm-nvfp4-avarok-256-256", "decode"): (57.23, 35.21, 83.21),
    ("qwen3-coder-next-1-vllm-nvfp4-avarok-32768-256", "decode"): (47.21, 29.04, 68.64),
    ("qwen3-coder-next-1-vllm-nvfp4-avarok-4096-4096", "decode"): (55.15, 33.93, 80.19),
    ("qwen3-coder-next-1-vllm-nvfp4-avarok-8192-1024", "decode"): (54.28, 33.39, 78.92),
}


def _elizabetht() -> list[PublishedPoint]:
    """elizabetht/spark: two DGX Sparks (GB10) cabled directly by two 100 Gb/s
    links, vLLM 0.13.0 (cu130) in a venv, meta-llama/Llama-3.1-8B-Instruct in
    BF16, --gpu-memory-utilization 0.3, CUDA graphs; one-line prompts, 100
    tokens each (14.5 tok/s over 6,874 ms), output over wall time."""
    src = "elizabetht/spark LINKEDIN_ARTICLE.md (f602081): "
    common = {
        "quantization": "bf16",
        "role": "holdout",
        "url": ELIZABETHT,
        "context": 64,
        "note": "vLLM 0.13.0; one-line prompts of about a dozen tokens against 100 generated, output over wall "
        "time (its baseline_metrics.json prints 200 tokens, against the 100 its rate and time give)",
    }
    return [
        _pt(
            "llama-3.1-8b-1-vllm-bf16-elizabetht",
            "llama-3.1-8b",
            decode_tps=14.5,
            source=src + "'| Single node | 6,874 ms | 14.5 tok/s | — |'",
            origin="fresh13-elizabetht-llama8b",
            **common,
        ),
        _pt(
            "llama-3.1-8b-1-vllm-bf16-elizabetht-c8",
            "llama-3.1-8b",
            concurrency=8,
            decode_tps=122.5,
            source=src + "'| Single node | 122.5 tok/s | 817 ms | — |' (8 prompts together, offline LLM API)",
            origin="fresh13-elizabetht-llama8b",
            **common,
        ),
        _pt(
            "llama-3.1-8b-2x1-vllm-bf16-elizabetht",
            "llama-3.1-8b",
            nodes=2,
            topology="direct",
            link_gbps=100.0,
            replicas=2,
            router="even",
            decode_tps=13.7,
            source=src + "'| Replicated | 7,304 ms | 13.7 tok/s | 0.94x |' (two copies behind a round-robin proxy)",
            origin="fresh13-elizabetht-llama8b-copies",
            **common,
        ),
    ]


def _rossingram() -> list[PublishedPoint]:
    """rossingram/Spark-DGX-Benchmark: openai/gpt-oss-120b on NVIDIA's vLLM
    image 25.09 on one DGX Spark, TP1, --async-scheduling, CUDA graphs; a
    short chat prompt, 256 tokens out (non-streaming, completion tokens
    over request time); the batch test's N threads send the same prompt."""
    src = "rossingram docs/GPT-OSS-Benchmark-Setup.md (358c8a1): "
    common = {"quantization": "mxfp4", "role": "holdout", "url": ROSSINGRAM, "origin": "fresh13-rossingram-gptoss"}
    points = [
        _pt(
            "gpt-oss-120b-1-vllm-mxfp4-rossingram",
            "gpt-oss-120b",
            decode_tps=31.7,
            context=105 + 128,
            source=src + "'* Throughput: **31.7 tok/sec**' with '* Prompt: ~105 tokens' and '* Completion: 256 tokens'",
            note="completion tokens over request time, prefill of about 105 tokens included",
            **common,
        )
    ]
    for streams, tps in ((2, 55.0), (4, 83.9), (8, 127.0), (16, 183.4)):
        points.append(
            _pt(
                f"gpt-oss-120b-1-vllm-mxfp4-rossingram-c{streams}",
                "gpt-oss-120b",
                concurrency=streams,
                decode_tps=tps,
                context=128,
                source=src + f"Batch Scaling: '| {streams} | {tps} |'",
                note="completion tokens over the batches' mean request time, of one short chat prompt sent by "
                f"{streams} threads, up to 256 tokens each (prompt length not stated: half the output taken)",
                **common,
            )
        )
    return points


# NVIDIA's vLLM image 26.01 (vLLM 0.13.0+nv26.01, flashinfer-cutlass), batch 1: ISL/OSL -> (NVFP4, AWQ) tok/s
_AVAROK_NGC: dict[tuple[int, int], tuple[float, float]] = {
    (128, 128): (40.1, 38.2),
    (256, 256): (38.0, 35.8),
    (1024, 1024): (36.3, 34.1),
    (4096, 4096): (35.5, 33.4),
    (8192, 1024): (35.4, 33.3),
    (32768, 256): (35.4, 29.8),
}
_AVAROK_ROWS = {
    (128, 128): "| 128/128 (peak) | **111.9** | **47.1** | 40.1 | 39.7 | 38.2 |",
    (256, 256): "| 256/256 (short chat) | **86.9** | **44.0** | 38.0 | 37.2 | 35.8 |",
    (1024, 1024): "| 1024/1024 (standard chat) | **67.1** | **41.8** | 36.3 | 35.4 | 34.1 |",
    (4096, 4096): "| 4096/4096 (long context) | **60.4** | **40.5** | 35.5 | 34.7 | 33.4 |",
    (8192, 1024): "| 8192/1024 (summarization) | **64.7** | **40.9** | 35.4 | 34.8 | 33.3 |",
    (32768, 256): "| 32768/256 (RAG prefill) | **72.1** | **41.9** | 35.4 | 36.2 | 29.8 |",
}
_AVAROK_HEADER = "| Workload | NVFP4+MTP | NVFP4 (Avarok) | NVFP4 (NVIDIA) | AWQ (Avarok) | AWQ (NVIDIA) |"


def _avarok() -> list[PublishedPoint]:
    """Avarok-Cybersecurity/dgx-vllm: Qwen3-Next-80B-A3B-Instruct (read as
    Qwen3-Coder-Next: the same qwen3_next architecture and size) on one DGX
    Spark, NVIDIA's vLLM image 26.01 (vLLM 0.13.0), batch 1, 64K context,
    3 runs after 2 warm-ups, medians: nvidia/Qwen3-Next-80B-A3B-Instruct-NVFP4
    and cyankiwi/Qwen3-Next-80B-A3B-Instruct-AWQ-4bit, decode tok/s."""
    src = "Avarok-Cybersecurity NVFP4_BREAKTHROUGH_DGX_SPARK.md (4a14392), decode at batch 1: "
    points = []
    for (isl, osl), (fp4, awq) in _AVAROK_NGC.items():
        for quant, tps, checkpoint in (
            ("nvfp4", fp4, "nvidia/Qwen3-Next-80B-A3B-Instruct-NVFP4"),
            ("int4", awq, "cyankiwi/Qwen3-Next-80B-A3B-Instruct-AWQ-4bit"),
        ):
            points.append(
                _pt(
                    f"qwen3-coder-next-1-vllm-{quant}-avarok-{isl}-{osl}",
                    "qwen3-coder-next",
                    quantization=quant,
                    decode_tps=tps,
                    context=isl + osl // 2,
                    prompt=isl,
                    role="holdout",
                    url=AVAROK,
                    origin=f"fresh13-avarok-ngc-{quant}",
                    source=src + f"'{_AVAROK_ROWS[isl, osl]}' under '{_AVAROK_HEADER}'",
                    note=f"{checkpoint}, Qwen3-Next-80B-A3B-Instruct read as Qwen3-Coder-Next; the image's "
                    "flags not stated (CUDA graphs taken)",
                )
            )
    return points


def fresh_2026_12_05_thirteenth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the thirteenth set, collected on 2026-12-05, marked so."""
    return tuple(replace(p, collected=COLLECTED_THIRTEENTH) for p in (*_elizabetht(), *_rossingram(), *_avarok()))
