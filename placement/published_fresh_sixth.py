"""Held-out runs collected on 2026-12-05, a sixth set, after the model was
frozen at 39b6057 (whose published fit is e7cebc4's: nothing since changed a
published prediction): published Spark (GB10) figures transcribed from their
sources, turned into points before the model predicted any of them, and
nothing of the model changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with llama.cpp batches of hybrid models, runs on
several nodes and MoE batches of 64 streams or more sought first, and read
again here at their sources, at the cited commits, before any prediction.
The rules of the earlier sets hold (``placement.published_fresh`` to
``placement.published_fresh_fifth``): Sparks or other GB10 machines; vLLM,
SGLang or llama.cpp; plain decoding; a stated format; a model the catalogue
knows; one stream's decode, all streams' decode together, or one stream's
prefill; sizes not stated read as 256 tokens of context; decode context the
prompt plus half the output where both are stated, half the output where
only the output is; output over a request's wall time kept only when the
prompts are a short chat or task line; a format the catalogue has no
variant of for that model read at its bits per weight.

And these, decided for this set before any of it was predicted:

- A concurrency sweep's figure is kept only where the client held that many
  streams for the whole measurement: a level whose requests do not fill
  whole rounds of its clients (the last round runs fewer streams), or that
  sends fewer requests than it has clients, is left out.
- Where a run states one stream's decode exactly, its sweep's one-stream
  level is left out (one figure per configuration); else that level is the
  one-stream figure (the single-GX10 sweep's 75.2, beside its "~75").
- A figure the source rounds ("~304") is kept, and its note says so.
- A cluster's CUDA-graph mode is the one its stated serve line sets, for
  every run on that cluster whose own flags are not listed (the note says so).

Left out of the collected candidates:

- CoralLeiCN/DGXSpark-Small-LLMs' aggregate output rates: output over the
  benchmark's elapsed time, prefill of ~524-token prompts included (a wall
  time over long prompts); its MTP and EAGLE sweeps; an earlier, differently
  configured 72-client profile.
- heitor-mocelin/dgx-spark-research: the TP=2 cluster's 32-stream row (the
  engine's RPC timed out); the NCCL-over-TCP-sockets transport figure (a
  path the model does not price); the single-GX10 sweep's 64-stream level
  (96 requests through 64 clients: the last third ran at 32) and 128-stream
  level (96 requests: never more than 96 streams); the NVFP4 matrix's
  aggregates (its runner, prompts and output lengths are not published);
  the small models' co-resident runs (a second model served beside them);
  models the catalogue lacks (GLM-4.7, Gemma 4).
- A Nemotron-3-Super llama.cpp figure in a pull-request comment
  (eugr/spark-vllm-docker 93: no build, method, lengths or exact quant
  type), as the fourth set left it out; 0xBakeer/inference-atlas (every GB10
  run speculative); pages whose stored copies stop before their figures;
  Ollama's figures; a tokens-per-second that counts characters over four.

Each series is one experiment (``origin``, prefixed "fresh6-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_SIXTH = "2026-12-05"

# What the model frozen at 39b6057 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3.8-27b-1-sglang-nvfp4-coralleicn", "decode"): (12.15, 7.65, 16.87),
    ("qwen3.8-27b-1-sglang-fp8-coralleicn", "decode"): (7.29, 4.59, 10.12),
    ("qwen3.6-35b-a3b-2-tp2-vllm-nvfp4-heitor", "decode"): (61.85, 36.99, 132.01),
    ("qwen3.6-35b-a3b-2-tp2-vllm-nvfp4-heitor-c4", "aggregate"): (161.12, 153.07, 369.55),
    ("qwen3.6-35b-a3b-2-tp2-vllm-nvfp4-heitor-c16", "aggregate"): (285.71, 271.43, 655.31),
    ("qwen3-coder-30b-a3b-2-tp2-vllm-nvfp4-heitor", "decode"): (64.77, 38.74, 138.25),
    ("qwen3-coder-30b-a3b-2-pp2-vllm-nvfp4-heitor", "decode"): (58.03, 34.71, 123.86),
    ("qwen3-coder-30b-a3b-2-pp2-vllm-nvfp4-heitor-c8", "aggregate"): (193.19, 183.53, 443.11),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor", "decode"): (60.41, 37.17, 87.83),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c2", "aggregate"): (97.20, 65.65, 113.18),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c4", "aggregate"): (143.01, 96.60, 166.53),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c8", "aggregate"): (192.35, 129.93, 223.98),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c16", "aggregate"): (239.80, 161.98, 279.23),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c32", "aggregate"): (282.90, 191.09, 329.41),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c48", "aggregate"): (306.13, 206.78, 356.46),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-heitor-c96", "aggregate"): (343.07, 231.73, 399.47),
    ("llama-3.3-70b-1-vllm-nvfp4-heitor", "decode"): (5.19, 3.24, 7.31),
    ("qwen3-32b-1-vllm-nvfp4-heitor", "decode"): (10.70, 6.68, 15.08),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-heitor", "decode"): (20.25, 12.46, 29.44),
    ("nemotron-3-nano-30b-a3b-1-vllm-nvfp4-heitor", "decode"): (52.50, 32.30, 76.33),
    ("qwen3-8b-1-vllm-nvfp4-heitor", "decode"): (36.30, 22.66, 51.15),
    ("qwen3-8b-1-vllm-nvfp4-heitor-c4", "aggregate"): (143.81, 97.30, 166.73),
    ("qwen3-8b-1-vllm-nvfp4-heitor-c16", "aggregate"): (554.29, 375.04, 642.64),
    ("qwen3-8b-1-vllm-nvfp4-heitor-c32", "aggregate"): (1057.24, 715.35, 1225.76),
    ("llama-3.1-8b-1-vllm-nvfp4-heitor", "decode"): (37.14, 23.18, 52.34),
    ("llama-3.1-8b-1-vllm-nvfp4-heitor-c4", "aggregate"): (147.29, 99.66, 170.76),
    ("llama-3.1-8b-1-vllm-nvfp4-heitor-c16", "aggregate"): (569.55, 385.37, 660.33),
    ("llama-3.1-8b-1-vllm-nvfp4-heitor-c32", "aggregate"): (1090.72, 738.01, 1264.58),
}

CORAL = "https://github.com/CoralLeiCN/DGXSpark-Small-LLMs/blob/"
CORAL_NVFP4 = (
    f"{CORAL}6a4319f328e47ff7dec93aa9318c9f1bde9431b2/docs/experiments/qwen3.8-27b-nvfp4/sglang/dgx-spark/"
    "2026-09-20T16-28-58Z-concurrency-performance-report.md"
)
CORAL_FP8 = (
    f"{CORAL}7de7cfe89bc196ed2e2921096edba7c0b0b8bc79/docs/experiments/qwen3.8-27b-fp8/sglang/dgx-spark/"
    "2026-09-14T20-12-03Z-aiperf-concurrency-baseline.md"
)
HEITOR = "https://github.com/heitor-mocelin/dgx-spark-research/blob/fd753a23f7aca2419dd33a3006b8f54bc1cbdcf8/"
HEITOR_QWEN36_TP2 = f"{HEITOR}2xAsusGx10/results/qwen36_tp2_cluster.json"
HEITOR_CODER = f"{HEITOR}2xAsusGx10/results/transport_and_blocked_models.md"
HEITOR_QWEN36 = f"{HEITOR}AsusGx10/vllm-qwen3.6-35b-a3b/benchmarks/concurrency_sweep.json"
HEITOR_MATRIX = f"{HEITOR}AsusGx10/benchmarks/README.md"
HEITOR_SMALL = f"{HEITOR}AsusGx10/benchmarks/small-models/"


def _coral() -> list[PublishedPoint]:
    """CoralLeiCN/DGXSpark-Small-LLMs: Qwen3.8-27B on SGLang
    0.0.0.dev1+g5f55db35e (the lab's own images) on one DGX Spark, no
    speculative decoding; AIPerf streaming requests of ~524 prompt tokens
    and 128 forced output tokens. One stream's decode is the mean per-user
    rate after the first token. Two runs, two experiments: NVFP4 (RUN-0007,
    2026-09-20) and FP8 (RUN-0010, 2026-09-14)."""
    common = {"engine": "sglang", "role": "holdout"}
    return [
        _pt(
            "qwen3.8-27b-1-sglang-nvfp4-coralleicn",
            "qwen3.8-27b",
            quantization="nvfp4",
            decode_tps=12.28,
            context=524 + 64,
            source="CoralLeiCN/DGXSpark-Small-LLMs RUN-0008 report of RUN-0007, nvidia/Qwen3.8-27B-NVFP4 on SGLang "
            "g5f55db35e: '| 1 | 12.28 | 12.23 | 12.05 | 81.41 | 0.08 |' (mean decode tok/s per user at c1)",
            note="FP8 KV cache and float32 Mamba state; CUDA graphs captured through batch 72; ~524 prompt tokens "
            "and 128 output tokens, so 588 tokens of context",
            url=CORAL_NVFP4,
            origin="fresh6-coralleicn-sglang-nvfp4",
            **common,
        ),
        _pt(
            "qwen3.8-27b-1-sglang-fp8-coralleicn",
            "qwen3.8-27b",
            quantization="fp8",
            decode_tps=8.22,
            context=525 + 64,
            source="CoralLeiCN/DGXSpark-Small-LLMs RUN-0010, Qwen/Qwen3.8-27B-FP8 on SGLang g5f55db35e, TP 1: "
            "'| 1 | 413.88 / 424.14 | ... | 8.06 | 8.22 | ...' (per-user decode tok/s at c1)",
            note="BF16 KV cache and gated-DeltaNet state; CUDA-graph mode not stated; 524-526 prompt tokens and "
            "128 output tokens, so 589 tokens of context; prefix caching on",
            url=CORAL_FP8,
            origin="fresh6-coralleicn-sglang-fp8",
            **common,
        ),
    ]


def _heitor_cluster() -> list[PublishedPoint]:
    """heitor-mocelin/dgx-spark-research 2xAsusGx10 (2026-06-12/13): two
    ASUS Ascent GX10 joined by one QSFP112 cable (NCCL over RoCE, both x4
    rails), vLLM 0.22.1rc1 nightly with Ray, served with --enforce-eager (the
    cluster's stated serve line). Qwen3.6-35B-A3B NVFP4 at TP=2 (fp8 KV
    cache): one stream's decode after the first token, 256 tokens out, and
    completion tokens over the wall time of a load phase of one short chat
    line at 4 and 16 clients. Qwen3-Coder-30B-A3B NVFP4 at TP=2 and at PP=2:
    one stream, 200 tokens out, and PP=2's 8-stream aggregate."""
    cluster = {
        "nodes": 2,
        "topology": "direct",
        "backend": "nccl",
        "mode": "eager",
        "quantization": "nvfp4",
        "role": "holdout",
    }
    qwen36 = "heitor-mocelin/dgx-spark-research 2xAsusGx10 qwen36_tp2_cluster.json, Qwen3.6-35B-A3B NVFP4, TP=2"
    qwen36_note = (
        "--distributed-executor-backend ray --enforce-eager --kv-cache-dtype fp8 --max-num-batched-tokens 4096; "
        "checkpoint not named (22 GB NVFP4); one short chat line, 256 tokens out, so half the output of context"
    )
    coder = "heitor-mocelin/dgx-spark-research transport_and_blocked_models.md, Qwen3-Coder-30B-A3B NVFP4"
    coder_note = (
        "checkpoint not named; NVFP4 read at its bits per weight (the catalogue has no NVFP4 variant of it); "
        "200 tokens out of a prompt not stated, so half the output of context; --enforce-eager from the "
        "cluster's stated serve line (the run's own flags are not listed)"
    )
    qwen = {
        "tp": 2,
        "context": 128,
        "note": qwen36_note,
        "url": HEITOR_QWEN36_TP2,
        "origin": "fresh6-heitor-qwen36-tp2",
    }
    pair = {"context": 100, "url": HEITOR_CODER, "origin": "fresh6-heitor-coder-tp-pp"}
    tp_pp_row = "'| **PP=2** (pipeline-parallel) | **57 tok/s** | 202 ms | ~304 tok/s | **78%** |'"
    return [
        _pt(
            "qwen3.6-35b-a3b-2-tp2-vllm-nvfp4-heitor",
            "qwen3.6-35b-a3b",
            decode_tps=25.61,
            source=f"{qwen36}: '\"decode_tok_s_mean\": 25.61' (5 streamed runs of 256 tokens)",
            **qwen,
            **cluster,
        ),
        *(
            _pt(
                f"qwen3.6-35b-a3b-2-tp2-vllm-nvfp4-heitor-c{streams}",
                "qwen3.6-35b-a3b",
                concurrency=streams,
                decode_tps=tps,
                source=f'{qwen36}: sweep \'"concurrency": {streams}, "requests": {requests}, ... '
                f"\"agg_tok_s\": {tps}' (completion tokens over the load phase's wall time)",
                **qwen,
                **cluster,
            )
            for streams, requests, tps in ((4, 12, 95.4), (16, 48, 346.4))
        ),
        _pt(
            "qwen3-coder-30b-a3b-2-tp2-vllm-nvfp4-heitor",
            "qwen3-coder-30b-a3b",
            tp=2,
            decode_tps=36.0,
            source=f"{coder}: '| **IB / RDMA** | **36.0** | **52 ms** |' (single stream, 6 reps, 200 tokens)",
            note=coder_note,
            **pair,
            **cluster,
        ),
        _pt(
            "qwen3-coder-30b-a3b-2-pp2-vllm-nvfp4-heitor",
            "qwen3-coder-30b-a3b",
            pp=2,
            decode_tps=57.0,
            source=f"{coder}: {tp_pp_row}",
            note=coder_note,
            **pair,
            **cluster,
        ),
        _pt(
            "qwen3-coder-30b-a3b-2-pp2-vllm-nvfp4-heitor-c8",
            "qwen3-coder-30b-a3b",
            pp=2,
            concurrency=8,
            decode_tps=304.0,
            source=f"{coder}: {tp_pp_row} (c8 aggregate)",
            note=f"{coder_note}; '~304' in the source",
            **pair,
            **cluster,
        ),
    ]


def _heitor_single() -> list[PublishedPoint]:
    """heitor-mocelin/dgx-spark-research AsusGx10 (2026-06-06/07), one ASUS
    Ascent GX10, vLLM nightly images, NVFP4 checkpoints run by vLLM's Marlin
    FP4 fallback (the lab's words). Three experiments: the production
    Qwen3.6-35B-A3B server's concurrency sweep (one short chat line, 192
    tokens out with ignore_eos, streaming; tokens over each level's wall
    time), the NVFP4 matrix's single-stream decode (streamed, 5 reps), and
    the small models' runs (one short chat line, 256 tokens out, one round
    of c requests at each level)."""
    sweep_note = (
        "vllm/vllm-openai:nightly, --quantization modelopt, Marlin FP4 fallback for the experts "
        "(VLLM_USE_FLASHINFER_MOE_FP4=0), fp8 KV cache, --max-num-seqs 128, prefix caching; CUDA graphs (no "
        "--enforce-eager in the launch); one short chat line, 192 tokens out, so half the output of context"
    )
    sweep = [
        _pt(
            f"qwen3.6-35b-a3b-1-vllm-nvfp4-heitor{'' if streams == 1 else f'-c{streams}'}",
            "qwen3.6-35b-a3b",
            quantization="nvfp4",
            concurrency=streams,
            decode_tps=tps,
            context=96,
            mode="graphs",
            role="holdout",
            source=f"heitor-mocelin/dgx-spark-research vllm-qwen3.6-35b-a3b/benchmarks: '| {streams} | {tps} |' "
            f"(aggregate tok/s, {requests} requests through {streams} clients)",
            note=sweep_note,
            url=HEITOR_QWEN36,
            origin="fresh6-heitor-qwen36-sweep",
        )
        for streams, requests, tps in (
            (1, 8, 75.2),
            (2, 8, 123.8),
            (4, 8, 199.4),
            (8, 16, 338.9),
            (16, 32, 467.4),
            (32, 64, 671.1),
            (48, 96, 753.3),
            (96, 96, 951.4),
        )
    ]
    matrix_note = (
        "checkpoint not named; Marlin FP4 fallback, --gpu-memory-utilization 0.85, 32k context; vLLM image, KV "
        "cache type, CUDA-graph mode, prompt and output lengths not stated, so 256 tokens of context"
    )
    matrix = [
        _pt(
            f"{slug}-1-vllm-nvfp4-heitor",
            slug,
            quantization="nvfp4",
            decode_tps=tps,
            role="holdout",
            source=f"heitor-mocelin/dgx-spark-research NVFP4 matrix: '| {name} | {kind} | ... | **{tps}** | ...' "
            "(measured single-stream)",
            note=matrix_note,
            url=HEITOR_MATRIX,
            origin="fresh6-heitor-matrix",
        )
        for slug, name, kind, tps in (
            ("llama-3.3-70b", "Llama-3.3-70B", "dense", 5.4),
            ("qwen3-32b", "Qwen3-32B", "dense", 11.0),
            ("nemotron-3-super-120b-a12b", "Nemotron-3-Super-120B-A12B", "MoE", 14.6),
            ("nemotron-3-nano-30b-a3b", "Nemotron-3-Nano-30B-A3B", "MoE", 54.1),
        )
    ]
    small_note = (
        "vllm/vllm-openai:cu130-nightly, --max-num-seqs 64, --gpu-memory-utilization 0.85, default KV cache; "
        "checkpoint {path} not named further; CUDA graphs (no --enforce-eager); one short chat line, 256 tokens "
        "out, so half the output of context"
    )
    small = []
    for slug, file, path, decode, series in (
        ("qwen3-8b", "qwen3-8b.json", "/models/qwen3-8b-nvfp4", 39.6, ((4, 166.3), (16, 634.3), (32, 1174.3))),
        ("llama-3.1-8b", "llama31-8b.json", "/models/llama31-8b-nvfp4", 41.7, ((4, 171.2), (16, 657.6), (32, 1204.4))),
    ):
        src = f"heitor-mocelin/dgx-spark-research small-models/{file}"
        common = {
            "quantization": "nvfp4",
            "context": 128,
            "mode": "graphs",
            "role": "holdout",
            "note": small_note.format(path=path),
            "url": f"{HEITOR_SMALL}{file}",
            "origin": "fresh6-heitor-small",
        }
        small.append(
            _pt(
                f"{slug}-1-vllm-nvfp4-heitor",
                slug,
                decode_tps=decode,
                source=f'{src}: \'"decode_tps": {{"mean": {decode}\' (3 streamed runs)',
                **common,
            )
        )
        small += [
            _pt(
                f"{slug}-1-vllm-nvfp4-heitor-c{streams}",
                slug,
                concurrency=streams,
                decode_tps=tps,
                source=f'{src}: \'"{streams}": {{"agg_tps": {tps}\' ({streams} requests of 256 tokens at once)',
                **common,
            )
            for streams, tps in series
        ]
    return sweep + matrix + small


def fresh_2026_12_05() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the sixth set, collected on 2026-12-05, marked so."""
    points = (*_coral(), *_heitor_cluster(), *_heitor_single())
    return tuple(replace(p, collected=COLLECTED_SIXTH) for p in points)
