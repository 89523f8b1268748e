"""Held-out runs collected on 2026-12-05, a tenth set (the day's fifth,
hence "2026-12-05e"), after the model was frozen at 4393195 (whose published
fit is e7cebc4's: nothing since changed a published prediction):
published Spark (GB10) figures transcribed from their sources, turned into
points before the model predicted any of them, and nothing of the model
changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with runs on several nodes, MoE concurrency sweeps,
llama.cpp batches of hybrids and long prefills sought first; no run on more
than one Spark passed the rules. The figures were read again here at their
sources before any prediction (chrislyz's README table at d911fd0,
trobdev's report table at 1ff668f and its harness at e4163f6). The rules of
the earlier sets hold (``placement.published_fresh`` to
``placement.published_fresh_ninth``), and these, decided for this set before
any of it was predicted:

- A llama-bench sweep over prompt lengths gives one prefill figure per
  length, each kept (the model predicts a prompt's prefill at its length);
  over output lengths at depth 0 it gives one decode figure, tg128's (the
  others are the same configuration a few hundred tokens deeper).
- A one-stream rate whose clock starts at the first answer token while its
  count holds every output token is left out when the server may have
  reasoned first (a reasoning parser on, thinking not turned off in the
  request): its rate is overstated by however many tokens the model
  thought. The same run's all-streams figure (every token over the wall
  time) is kept.
- A checkpoint is recorded only as its source names it: "the nvidia/
  W4A16_NVFP4 checkpoint" names no repository.

Left out of the collected candidates:

- trobdev/dgxspark-vllm-qwen: the one-stream "none" figure (above), every
  speculative column, the checkpoint table (measured with speculation on),
  the n-gram row and the flag variants.
- chrislyz/A-DGX-Spark-CookBook: tg256 to tg2048 (above), and the inference
  table the README copies from NVIDIA's blog.
- About thirty further sources, each with its reason in the collection
  notes: speculative decoding in every configuration (inference-atlas,
  GLM-5.3 on four and eight Sparks, and others), an MXFP4 fork that also
  quantises attention and the output layer, figures that could not be
  pinned to a commit, estimates and copies of others' figures, and pages
  whose tables were cut off.

Each series is one experiment (``origin``, prefixed "fresh10-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_TENTH = "2026-12-05e"

# What the model frozen at 4393195 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("gpt-oss-20b-1-llamacpp-chrislyz", "decode"): (79.89, 58.35, 104.53),
    ("gpt-oss-20b-1-llamacpp-chrislyz", "prefill"): (3539.59, 2065.19, 9073.98),
    ("gpt-oss-20b-1-llamacpp-chrislyz-pp512", "prefill"): (2773.67, 1618.31, 7110.49),
    ("gpt-oss-20b-1-llamacpp-chrislyz-pp1024", "prefill"): (3256.18, 1899.84, 8347.45),
    ("gpt-oss-20b-1-llamacpp-chrislyz-pp4096", "prefill"): (3470.04, 2024.62, 8895.69),
    ("gpt-oss-20b-1-llamacpp-chrislyz-pp8192", "prefill"): (3338.83, 1948.06, 8559.32),
    ("gpt-oss-20b-1-llamacpp-chrislyz-pp16384", "prefill"): (3104.08, 1811.10, 7957.54),
    ("gpt-oss-20b-1-llamacpp-chrislyz-pp32678", "prefill"): (2723.26, 1588.90, 6981.27),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-trobdev-c4", "aggregate"): (142.46, 96.22, 165.88),
}

CHRISLYZ = "https://github.com/chrislyz/A-DGX-Spark-CookBook/blob/d911fd0ea209c92cac1c6ff32e89ae76ace71280/README.md"
TROBDEV = (
    "https://github.com/trobdev/dgxspark-vllm-qwen/blob/1ff668ffacdb4340cd44456f1751a5d5bf2c3bc3/OPTIMIZATION_REPORT.md"
)
# trobdev's four chat prompts (a system and a user message each, in the chat template): their token
# counts are not stated, about 128 taken
TROBDEV_PROMPT = 128


def _chrislyz() -> list[PublishedPoint]:
    """chrislyz/A-DGX-Spark-CookBook "Our Benchmarks": llama-bench on one
    DGX Spark, gpt-oss-20b MXFP4 (11.27 GiB; the GGUF's repository not
    named), -fa 1 -b 2048 -ub 2048, prompts of 512 to 32,678 tokens and
    generations of 128 to 2,048 from an empty cache; the llama.cpp build
    is not stated."""
    common = {
        "engine": "llama.cpp",
        "quantization": "MXFP4_MOE",
        "role": "holdout",
        "note": "gpt-oss-mxfp4.gguf (repository not named), llama-bench -fa 1 -t 1 -b 2048 -ub 2048; llama.cpp "
        "build not stated",
        "url": CHRISLYZ,
        "origin": "fresh10-chrislyz-llamacpp-gpt-oss-20b",
    }
    row = "'|gpt-oss 20B MXFP4 MoE|11.27 GiB|20.91 B|CUDA|1|{test}|{tps}|'"
    points = [
        _pt(
            "gpt-oss-20b-1-llamacpp-chrislyz",
            "gpt-oss-20b",
            decode_tps=83.93,
            prefill_tps=4464.13,
            context=64,
            prompt=2048,
            source="chrislyz/A-DGX-Spark-CookBook README: "
            + row.format(test="tg128", tps="83.93 ± 0.15")
            + " and "
            + row.format(test="pp2048", tps="4464.13 ± 3.16"),
            **common,
        )
    ]
    for prompt, tps in (
        (512, "4154.93 ± 65.62"),
        (1024, "4466.19 ± 15.87"),
        (4096, "4441.50 ± 14.76"),
        (8192, "4337.99 ± 14.47"),
        (16384, "4061.96 ± 6.42"),
        (32678, "3494.22 ± 5.34"),
    ):
        points.append(
            _pt(
                f"gpt-oss-20b-1-llamacpp-chrislyz-pp{prompt}",
                "gpt-oss-20b",
                prefill_tps=float(tps.split(" ")[0]),
                prompt=prompt,
                source="chrislyz/A-DGX-Spark-CookBook README: " + row.format(test=f"pp{prompt}", tps=tps),
                **common,
            )
        )
    return points


def _trobdev() -> list[PublishedPoint]:
    """trobdev/dgxspark-vllm-qwen (2026-08-03): one GIGABYTE AI TOP ATOM
    (GB10), vLLM 0.26.1rc1 built by eugr/spark-vllm-docker, no
    --enforce-eager, Qwen3.6-35B-A3B in NVIDIA's W4A16 NVFP4 on Marlin; the
    control without speculative decoding: four streams, one round of four
    short chat requests (at most 512 tokens each) at a time, all their
    output tokens over the round's wall time, the median of 3 to 8 rounds."""
    return [
        _pt(
            "qwen3.6-35b-a3b-1-vllm-nvfp4-trobdev-c4",
            "qwen3.6-35b-a3b",
            quantization="nvfp4",
            concurrency=4,
            decode_tps=181.3,
            context=TROBDEV_PROMPT + 256,
            mode="graphs",
            role="holdout",
            source="trobdev/dgxspark-vllm-qwen OPTIMIZATION_REPORT §5.1: '| **c=4** | 215.7 | 232.3 | **227.8** | "
            "227.2 | 206.5 | 174.3 | 208.8 | **181.3** |' (the none column: no speculative decoding)",
            note="'the nvidia/ W4A16_NVFP4 checkpoint' (repository not named), vLLM 0.26.1rc1 (eugr build), "
            "--gpu-memory-utilization 0.75, --max-num-seqs 32, prefix caching on (warmed), reasoning parser qwen3, "
            "KV cache auto; requests of at most 512 tokens that may stop early (the round's tail runs fewer "
            "streams); prompt lengths not stated (about 128 tokens)",
            url=TROBDEV,
            origin="fresh10-trobdev-qwen3.6-35b-a3b",
        )
    ]


def fresh_2026_12_05_tenth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the tenth set, collected on 2026-12-05, marked so."""
    points = (*_chrislyz(), *_trobdev())
    return tuple(replace(p, collected=COLLECTED_TENTH) for p in points)
