"""Held-out runs collected on 2026-12-05, an eighth set (the day's third,
hence "2026-12-05c"), after the model was frozen at f6519e7 (whose published
fit is e7cebc4's: nothing since changed a published prediction; 5fc6dcb,
which names checkpoints, changed none either): published Spark (GB10)
figures transcribed from their sources, turned into points before the model
predicted any of them, and nothing of the model changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with vLLM and SGLang runs on several nodes, MoE
concurrency sweeps with stated lengths and llama.cpp tables sought first;
no run on more than one Spark passed the rules this time. The key figures
were read again here at their sources (pulsar-gb10-vllm-stack's three
result files and its harness's defaults at 203dcd1; the gpt-oss-120b
matrix's README at 83764c9) before any prediction. The rules of the earlier
sets hold (``placement.published_fresh`` to
``placement.published_fresh_seventh``), and these, decided for this set
before any of it was predicted:

- A level whose requests do not fill whole rounds of its streams (10
  requests at 4 or 6 streams) is left out, as the seventh set's rule for
  PalatineVision's levels: its last round runs fewer streams.
- A prompt's prefill over a cache already holding other tokens (llama-bench's
  ``pp2048 @ d4096``) is not a figure the model predicts (a prompt from an
  empty cache): left out. Decode at depth (``tg32 @ d4096``) is kept, its
  context the depth plus half the 32 tokens, as the pool's own llama.cpp
  depth tables are.
- A re-run of a configuration the pool already holds, by another lab on
  another build, is a new measurement and is kept (the NVIDIA forum's
  llama-bench table of gpt-oss-120b beside ggml's own).
- Of a sweep over reasoning efforts, the effort whose every request wrote
  the full output is kept (its lengths are known).
- A benchmark's default prompt and output length stand for the run's when
  the result file does not record them and nothing published contradicts
  them (pulsar-gb10-vllm-stack: 512 in, 256 out, consistent with its wall
  times).

Left out of the collected candidates:

- sumner-harris/gb10-llm-docker-recipes: the 4 and 6 stream levels of both
  matrices (10 requests), the low and medium efforts (output length varies),
  every MTP, MTPv2 and EAGLE row, and models the catalogue lacks.
- luisefigueroa/pulsar-gb10-vllm-stack: DeepSeek-V4-Flash, Laguna and
  Qwen3-1.7B (not in the catalogue), the MTP runs, a prompt-style variant,
  and a two-node Qwen3.6-27B run that failed.
- The forum's llama-bench table: its prefills at depth, and a second block
  whose build line the stored copy cuts off.
- About 30 further sources, each with its reason in the collection notes:
  engines their authors changed, speculative runs, Ollama and TensorRT-LLM,
  models the catalogue lacks, figures marked "estimated".

Each series is one experiment (``origin``, prefixed "fresh8-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_EIGHTH = "2026-12-05c"

# What the model frozen at f6519e7 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("gpt-oss-120b-1-vllm-mxfp4-sumner", "decode"): (50.50, 31.52, 71.17),
    ("gpt-oss-120b-1-vllm-mxfp4-sumner-c2", "aggregate"): (73.32, 49.61, 85.00),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-sumner", "decode"): (20.22, 12.44, 29.40),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-sumner-c2", "aggregate"): (30.49, 20.59, 35.50),
    ("nemotron-3-nano-30b-a3b-1-vllm-nvfp4-pulsar", "decode"): (52.47, 32.28, 76.28),
    ("nemotron-3-nano-30b-a3b-1-vllm-nvfp4-pulsar-c4", "aggregate"): (134.22, 90.66, 156.29),
    ("nemotron-3-nano-30b-a3b-1-vllm-nvfp4-pulsar-c16", "aggregate"): (258.89, 174.87, 301.45),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar", "decode"): (20.24, 12.45, 29.43),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c4", "aggregate"): (42.51, 28.71, 49.49),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c16", "aggregate"): (68.04, 45.96, 79.22),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c32", "aggregate"): (81.19, 54.84, 94.54),
    ("qwen3.6-27b-1-vllm-fp8-pulsar", "decode"): (7.05, 4.34, 10.26),
    ("qwen3.6-27b-1-vllm-fp8-pulsar-c2", "aggregate"): (14.02, 9.47, 16.32),
    ("qwen3.6-27b-1-vllm-fp8-pulsar-c4", "aggregate"): (27.68, 18.70, 32.23),
    ("qwen3.6-27b-1-vllm-fp8-pulsar-c8", "aggregate"): (53.98, 36.46, 62.85),
    ("qwen3.6-27b-1-vllm-fp8-pulsar-c16", "aggregate"): (102.83, 69.46, 119.74),
    ("gpt-oss-120b-1-llamacpp-forum", "decode"): (61.25, 44.73, 80.14),
    ("gpt-oss-120b-1-llamacpp-forum", "prefill"): (1967.37, 1147.87, 5043.49),
    ("gpt-oss-120b-1-llamacpp-forum-d4096", "decode"): (58.66, 42.85, 76.75),
    ("gpt-oss-120b-1-llamacpp-forum-d8192", "decode"): (56.35, 41.15, 73.72),
    ("gpt-oss-120b-1-llamacpp-forum-d16384", "decode"): (52.22, 38.14, 68.33),
    ("gpt-oss-120b-1-llamacpp-forum-d32768", "decode"): (45.55, 33.27, 59.60),
}

SUMNER = "https://github.com/sumner-harris/gb10-llm-docker-recipes/blob/"
PULSAR = "https://github.com/luisefigueroa/pulsar-gb10-vllm-stack/blob/203dcd19a4cf3b745c1b36b54f1dd80637a8dca4/"
FORUM = "https://forums.developer.nvidia.com/t/llama-cpp-experimental-native-mxfp4-support-for-blackwell-pr/355639"
# SPEED-Bench throughput_2k prompts: 2,008.9 tokens at the mean (the Nemotron matrix's count of the same ten)
SPEED_2K = 2009


def _sumner() -> list[PublishedPoint]:
    """sumner-harris/gb10-llm-docker-recipes: one GB10, vLLM 0.28.0 (the
    official Ubuntu 24.04 image, digest-pinned), closed loop over ten fixed
    prompts (nine SPEED-Bench throughput_2k prompts and a short one), 512
    tokens out, output tokens over each cell's wall time (first tokens
    included); CUDA graphs for gpt-oss-120b (a capture size set, no
    --enforce-eager), not stated for Nemotron-3-Super."""
    gpt = (
        f"{SUMNER}83764c9d1aa4033db8210e131af0a7ce4fc154bf/gpt-oss-120b-mxfp4/benchmarks/2026-09-24-throughput-matrix/"
    )
    nemo = f"{SUMNER}cfc98c7df8a281ce1d621b84b41374d70511cb16/nemotron-3-super-120b-nvfp4/benchmark-results/"
    gpt_common = {
        "quantization": "mxfp4",
        "mode": "graphs",
        "context": SPEED_2K + 256,
        "role": "holdout",
        "note": "openai/gpt-oss-120b (native MXFP4), vLLM 0.28.0, TP=1, fp8 KV cache, no prefix caching, "
        "max-num-seqs 8, MoE backend auto; reasoning effort high (every request wrote 512 tokens); prompt "
        "lengths of the gpt-oss tokenizer not stated, the same prompts' 2,009 Nemotron tokens taken",
        "origin": "fresh8-sumner-gpt-oss-120b",
    }
    nemo_common = {
        "quantization": "nvfp4",
        "context": SPEED_2K + 256,
        "role": "holdout",
        "note": "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4, vLLM 0.28.0, TP=1, FlashInfer attention, fp8 KV "
        "cache, prefix caching on, max-num-seqs 8, no speculative decoding; reasoning medium (every request "
        "wrote 512 tokens); CUDA-graph mode not stated",
        "origin": "fresh8-sumner-nemotron-super",
    }
    return [
        _pt(
            "gpt-oss-120b-1-vllm-mxfp4-sumner",
            "gpt-oss-120b",
            decode_tps=33.90,
            source="sumner-harris/gb10-llm-docker-recipes throughput matrix README: '| high | 1 | 33.90 |' (system "
            "output tok/s, 10 requests at one stream)",
            url=f"{gpt}README.md",
            **gpt_common,
        ),
        _pt(
            "gpt-oss-120b-1-vllm-mxfp4-sumner-c2",
            "gpt-oss-120b",
            concurrency=2,
            decode_tps=57.60,
            source="sumner-harris/gb10-llm-docker-recipes throughput matrix README: '| high | 2 | 57.60 |' (system "
            "output tok/s, 10 requests at two streams)",
            url=f"{gpt}README.md",
            **gpt_common,
        ),
        _pt(
            "nemotron-3-super-120b-a12b-1-vllm-nvfp4-sumner",
            "nemotron-3-super-120b-a12b",
            decode_tps=13.21,
            source="sumner-harris/gb10-llm-docker-recipes combined_matrix.csv, baseline, medium, one stream: "
            "decode_tok_s_mean 13.2110650286623 (each request's rate after its first token)",
            url=f"{nemo}combined_matrix.csv",
            **nemo_common,
        ),
        _pt(
            "nemotron-3-super-120b-a12b-1-vllm-nvfp4-sumner-c2",
            "nemotron-3-super-120b-a12b",
            concurrency=2,
            decode_tps=21.20,
            source="sumner-harris/gb10-llm-docker-recipes combined_matrix.csv, baseline, medium, two streams: "
            "system_output_tok_s 21.200684393339078",
            url=f"{nemo}combined_matrix.csv",
            **nemo_common,
        ),
    ]


def _pulsar() -> list[PublishedPoint]:
    """luisefigueroa/pulsar-gb10-vllm-stack: one GB10, the official vLLM
    v0.26.0 image, CUDA graphs (serve.sh adds no --enforce-eager on one
    node), validate/bench_serve.py: streaming completions, 512-token prompts
    and 256 tokens out (its defaults; ignore_eos), a warm-up at each level,
    then max(2c, 4) requests; all streams' figure is output tokens over the
    level's wall time, one stream's the median request's rate after its
    first token."""
    series = (
        (
            "nemotron-3-nano-30b-a3b",
            "nvfp4",
            "bench-nano.json",
            "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4, --moe-backend marlin (VLLM_MARLIN_USE_ATOMIC_ADD=1), "
            "max-num-seqs 16",
            ((1, 61.94), (4, 182.98), (16, 398.61)),
        ),
        (
            "nemotron-3-super-120b-a12b",
            "nvfp4",
            "bench-super.json",
            "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4, --moe-backend marlin, fp8 KV cache, max-num-seqs 32, "
            "no speculative decoding",
            ((1, 16.2), (4, 45.18), (16, 98.26), (32, 112.61)),
        ),
        (
            "qwen3.6-27b",
            "fp8",
            "bench-qwen27b-fp8.json",
            "Qwen/Qwen3.6-27B-FP8, max-num-seqs 16, no speculative decoding",
            ((1, 8.0), (2, 15.69), (4, 28.68), (8, 55.93), (16, 92.68)),
        ),
    )
    points = []
    for slug, quant, file, note, levels in series:
        common = {
            "quantization": quant,
            "mode": "graphs",
            "context": 512 + 128,
            "role": "holdout",
            "note": f"{note}; vLLM v0.26.0 official image; 512 tokens in, 256 out (bench_serve.py's defaults)",
            "origin": f"fresh8-pulsar-{slug}",
            "url": f"{PULSAR}results/{file}",
        }
        for streams, tps in levels:
            if streams == 1:
                points.append(
                    _pt(
                        f"{slug}-1-vllm-{quant}-pulsar",
                        slug,
                        decode_tps=tps,
                        source=f'luisefigueroa/pulsar-gb10-vllm-stack {file}: \'"concurrency": 1, ... '
                        f'"decode_tps_p50": {tps}\'',
                        **common,
                    )
                )
                continue
            points.append(
                _pt(
                    f"{slug}-1-vllm-{quant}-pulsar-c{streams}",
                    slug,
                    concurrency=streams,
                    decode_tps=tps,
                    source=f'luisefigueroa/pulsar-gb10-vllm-stack {file}: \'"concurrency": {streams}, "n": '
                    f'{2 * streams}, ... "aggregate_tps": {tps}\'',
                    **common,
                )
            )
    return points


def _forum() -> list[PublishedPoint]:
    """The NVIDIA developer forum's thread on llama.cpp's native MXFP4 for
    Blackwell: llama-bench on a Spark (the post of 19 December 2025, build
    74e05131e (7486), built for sm_121a), gpt-oss-120b MXFP4 (59.02 GiB; the
    GGUF's repository not stated), pp2048 and tg32 at depths 0 to 32,768."""
    common = {
        "engine": "llama.cpp",
        "quantization": "MXFP4_MOE",
        "role": "holdout",
        "note": "llama.cpp build 74e05131e (7486), possibly with the then-open native MXFP4 pull request #17906; "
        "llama-bench flags not shown",
        "url": FORUM,
        "origin": "fresh8-forum-llamacpp-gpt-oss-120b",
    }
    points = [
        _pt(
            "gpt-oss-120b-1-llamacpp-forum",
            "gpt-oss-120b",
            decode_tps=59.05,
            prefill_tps=1937.39,
            context=16,
            prompt=2048,
            source="NVIDIA forum, llama.cpp native MXFP4 thread, Spark: 'CUDA pp2048 1937.39 ± 9.65', 'CUDA tg32 "
            "59.05 ± 0.13'",
            **common,
        )
    ]
    for depth, tps in ((4096, 55.90), (8192, 53.14), (16384, 49.49), (32768, 42.87)):
        points.append(
            _pt(
                f"gpt-oss-120b-1-llamacpp-forum-d{depth}",
                "gpt-oss-120b",
                decode_tps=tps,
                context=depth + 16,
                source=f"NVIDIA forum, llama.cpp native MXFP4 thread, Spark: 'tg32 @ d{depth} {tps:.2f}'",
                **common,
            )
        )
    return points


def fresh_2026_12_05_eighth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the eighth set, collected on 2026-12-05, marked so."""
    points = (*_sumner(), *_pulsar(), *_forum())
    return tuple(replace(p, collected=COLLECTED_EIGHTH) for p in points)
