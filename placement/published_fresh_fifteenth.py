"""Held-out runs collected on 2026-12-05, a fifteenth set (the day's
tenth, hence "2026-12-05j"), after the model was frozen at ebb67e2 (whose
published fit is 9f94652's, as for the eleventh to fourteenth sets):
published Spark (GB10) figures transcribed from their sources, turned into
points before the model predicted any of them, and nothing of the model
changed for them.

They were gathered by someone who saw no prediction, following the leads
the fourteenth collection left, with runs on two or more Sparks sought
first (``placement/collected/2026-12-05j.md`` keeps the collection whole, 32
figures of two sources). No citable run of a catalogue model on several
Sparks was found. The figures kept were read again here at their source
before any prediction (Avarok-Cybersecurity/atlas's bench/ladder38/
published.json at 17fd1d9 and site/src/lib/ladder.generated.json at
0dac434). The rules of the earlier sets hold (``placement.published_fresh``
to ``placement.published_fresh_fourteenth``), and these, decided for this
set before any of it was predicted:

- An engine-against-engine campaign's baseline legs are runs of that
  engine: the vLLM legs are kept, with the image and command the source
  records; the other engine's rows are not (a custom engine).
- A ladder's level at one stream whose rate includes the first token is
  the configuration's one-stream figure where the source gives no other
  (its first token, 156 ms, is 0.2% of the level's wall time).
- Where two stored versions of a table disagree in the last digits (390.36
  against 390.42 at 128 streams), the source's record of the leg
  (published.json, which the later generated files repeat) is read.
- An average context while decoding is the rendered prompt the source
  states (about 200 tokens) and half of the output budget (1,024 tokens).

Left out of the collected candidates:

- Avarok's vLLM + MTP ladders of Qwen3.8-27B and Qwen3.6-35B-A3B FP8
  (speculative), its older Qwen3.6-27B W4A4 ladder (speculation not stated,
  and its rows' lengths not printed beside them), and pull request 388's
  ladder (no vLLM version, image or flags found).
- r0b0tlab/qwen36-35b-a3b-nvfp4-sm121-vllm: every level with MTP
  (speculative), in a locally patched image.

The source's series is one experiment (``origin``, prefixed "fresh15-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_FIFTEENTH = "2026-12-05j"

ATLAS = (
    "https://github.com/Avarok-Cybersecurity/atlas/blob/0dac434fa20799c51b6f4674cc190a7d2275e9d4/"
    "site/src/lib/ladder.generated.json"
)

# What the model frozen at ebb67e2 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3.8-27b-1-vllm-nvfp4-atlas", "decode"): (12.15, 7.47, 17.66),
    ("qwen3.8-27b-1-vllm-nvfp4-atlas-c2", "aggregate"): (24.02, 16.23, 27.97),
    ("qwen3.8-27b-1-vllm-nvfp4-atlas-c4", "aggregate"): (46.98, 31.73, 54.70),
    ("qwen3.8-27b-1-vllm-nvfp4-atlas-c8", "aggregate"): (89.96, 60.77, 104.76),
    ("qwen3.8-27b-1-vllm-nvfp4-atlas-c16", "aggregate"): (165.83, 112.01, 193.10),
    ("qwen3.8-27b-1-vllm-nvfp4-atlas-c32", "aggregate"): (286.74, 193.69, 333.89),
    ("qwen3.8-27b-1-vllm-nvfp4-atlas-c64", "aggregate"): (451.25, 304.80, 525.44),
    ("qwen3.8-27b-1-vllm-nvfp4-atlas-c128", "aggregate"): (632.75, 427.40, 736.79),
}

# vLLM 0.27.1 without speculation, Qwen3.8-27B NVFP4: streams -> (mean tok/s over 3 reps, TTFT p50 ms)
_LADDER: dict[int, tuple[float, float]] = {
    1: (11.04, 155.95),
    2: (21.34, 235.35),
    4: (41.2, 419.59),
    8: (78.18, 729.44),
    16: (137.11, 1176.06),
    32: (219.5, 2240.16),
    64: (312.26, 4009.21),
    128: (390.42, 6710.78),
}


def _atlas() -> list[PublishedPoint]:
    """Avarok-Cybersecurity/atlas: one DGX Spark (GB10, "dgx2"), the stock
    vllm/vllm-openai image at vLLM 0.27.1 (digest 0a51ea5b), ``vllm serve
    unsloth/Qwen3.8-27B-NVFP4 --max-model-len 4096 --max-num-seqs 128
    --gpu-memory-utilization 0.85 --enable-prefix-caching --dtype bfloat16
    --kv-cache-dtype bfloat16``, no speculation, CUDA graphs (no
    --enforce-eager); C streams at once, 128-token prompts (about 200 after
    the chat template, a nonce each so no prefix is shared), 1,024 tokens
    out, thinking off, output tokens over each batch's wall time, the mean of
    three timed repetitions."""
    src = "Avarok-Cybersecurity/atlas ladder.generated.json (0dac434), series 'vllm-nospec': "
    points = []
    for streams, (tps, ttft) in _LADDER.items():
        points.append(
            _pt(
                "qwen3.8-27b-1-vllm-nvfp4-atlas" + (f"-c{streams}" if streams > 1 else ""),
                "qwen3.8-27b",
                quantization="nvfp4",
                concurrency=streams,
                decode_tps=tps,
                context=200 + 512,
                role="holdout",
                url=ATLAS,
                origin="fresh15-atlas-qwen38-nospec",
                source=src + f"'\"c\": {streams}, \"tok_s\": {tps:g}' ('ttft_p50_ms': {ttft:g})",
                note="vLLM 0.27.1 (vllm/vllm-openai), bf16 KV cache, no speculative decoding, 4,096-token context, "
                "up to 128 sequences; about 200 prompt tokens and 1,024 out, output over the batch's wall time",
            )
        )
    return points


def fresh_2026_12_05_fifteenth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the fifteenth set, collected on 2026-12-05, marked so."""
    return tuple(replace(p, collected=COLLECTED_FIFTEENTH) for p in _atlas())
