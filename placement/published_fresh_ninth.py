"""Held-out runs collected on 2026-12-05, a ninth set (the day's fourth,
hence "2026-12-05d"), after the model was frozen at 276ef1a (whose published
fit is e7cebc4's: nothing since changed a published prediction; 8784840 and
276ef1a changed the lab's re-fit only): published Spark (GB10) figures
transcribed from their sources, turned into points before the model
predicted any of them, and nothing of the model changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with runs on several nodes, MoE concurrency sweeps
with stated lengths and llama.cpp batches of hybrid models sought first.
The key figures were read again here at their sources before any
prediction (0xBakeer's three result files at 969e526, jkingston's README
table at 0fa1c63, epappas's two-node README at 42a8667). The rules of the
earlier sets hold (``placement.published_fresh`` to
``placement.published_fresh_eighth``), and these, decided for this set
before any of it was predicted:

- An NVFP4 checkpoint whose lm_head is NVFP4 too (Unsloth's Qwen3.8-27B
  NVFP4) is NVFP4 throughout and is read as the catalogue's NVFP4 variant,
  as the fourth set read Unsloth's Qwen3.6-35B-A3B NVFP4; its repository
  is recorded (``placement.published_checkpoints``). (An INT8 lm_head on an
  INT4 body, a mix of two formats, stays left out.)
- A GGUF file of a type the catalogue names is read as the catalogue's
  variant of that type, at the size the catalogue holds for it (Qwen3.8-27B
  Q4_K_M: 17.91 GB, from a UD-Q4_K_XL; a plain Q4_K_M of 27B parameters is
  nearer 16.4 GB), as a plan of that variant would be predicted.
- An engine built from a pull request that adds speculative decoding, run
  without it (no draft model, no speculative flag), is the engine: its
  decoding path is upstream's. (The seventh set's rule, an execution path
  its author changed, is about a run that used the change.)
- A level the source itself calls not comparable (0xBakeer's sweeps: "c=1
  and c=2 use an unbalanced prompt mix; c>=4 is balanced and is the
  comparable part of the curve") is left out; a sweep's level at one stream
  is left out beside the same lab's one-stream figure (one figure per
  configuration), which excludes the first token.
- A prefill figure whose prompt length the source does not give
  (jkingston's "Long prefill") is left out: a prefill prediction needs it.
  A one-stream decode whose lengths are not stated keeps the earlier sets'
  256 tokens of context.
- A prefill figure read as prompt tokens over the time to the first token
  of a cold prompt (a fresh salt, prefix-cache hits read before and after)
  is one prompt's prefill from an empty cache, and kept.

Left out of the collected candidates:

- 0xBakeer/Qwen3.8-27B-FP8-on-a-single-DGX-Spark: the sweeps' 1 and 2
  stream levels (above), every MTP, DSpark and DFlash2 row, the prefill
  table (taken with speculation on), the mixed INT4 AutoRound recipe, the
  README's stock row (another device configuration), and the GGUF batch of
  eight served with one slot (serialised, in the author's words).
- jkingston/qwen3.8-27b-dgx-spark: the three "Long prefill" figures (no
  prompt length), the "Coding decode" column (the same configuration on a
  second workload), every MTP row and the SGLang DSpark row.
- epappas/gx10-cluster: the prefix-cache follow-up (not a prefill), the
  MTP column, and the workspaces of models the catalogue lacks.
- About twenty further sources, each with its reason in the collection
  notes: speculative decoding in every run (r0b0tlab's Qwen3.6-35B-A3B
  sweep), Unsloth's dynamic GGUF mixes, a server its author changed,
  Ollama, models the catalogue lacks, pages whose tables were cut off.

Each series is one experiment (``origin``, prefixed "fresh9-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_NINTH = "2026-12-05d"

# What the model frozen at 276ef1a predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("nemotron-3-super-120b-a12b-2-tp2-vllm-nvfp4-epappas", "prefill"): (5590.66, 5311.12, 17398.02),
    ("qwen3.8-27b-1-vllm-nvfp4-epappas", "decode"): (12.13, 7.46, 17.64),
    ("qwen3.8-27b-1-vllm-nvfp4-epappas", "prefill"): (2651.22, 2518.66, 8250.56),
    ("qwen3.8-27b-1-vllm-bf16-jkingston", "decode"): (4.57, 2.81, 6.65),
    ("qwen3.8-27b-1-vllm-fp8-jkingston", "decode"): (7.30, 4.49, 10.61),
    ("qwen3.8-27b-1-vllm-nvfp4-jkingston", "decode"): (12.17, 7.49, 17.69),
    ("qwen3.8-27b-1-vllm-fp8-0xbakeer", "decode"): (7.30, 4.49, 10.61),
    ("qwen3.8-27b-1-vllm-nvfp4-0xbakeer", "decode"): (12.17, 7.49, 17.69),
    ("qwen3.8-27b-1-vllm-nvfp4-0xbakeer-c8", "aggregate"): (90.94, 61.43, 105.89),
    ("qwen3.8-27b-1-llamacpp-q4km-0xbakeer", "decode"): (12.27, 8.96, 16.05),
    ("qwen3.8-27b-1-vllm-fp8-0xbakeer-c4", "aggregate"): (28.69, 19.38, 33.41),
    ("qwen3.8-27b-1-vllm-fp8-0xbakeer-c8", "aggregate"): (56.09, 37.88, 65.31),
    ("qwen3.8-27b-1-vllm-fp8-0xbakeer-c12", "aggregate"): (82.27, 55.57, 95.80),
    ("qwen3.8-27b-1-vllm-fp8-0xbakeer-c16", "aggregate"): (107.32, 72.49, 124.97),
    ("qwen3.8-27b-1-llamacpp-q4km-0xbakeer-c4", "aggregate"): (40.02, 29.31, 52.59),
    ("qwen3.8-27b-1-llamacpp-q4km-0xbakeer-c8", "aggregate"): (69.66, 51.02, 91.55),
    ("qwen3.8-27b-1-llamacpp-q4km-0xbakeer-c12", "aggregate"): (92.51, 67.74, 121.56),
    ("qwen3.8-27b-1-llamacpp-q4km-0xbakeer-c16", "aggregate"): (110.64, 81.03, 145.40),
}

EPAPPAS = "https://github.com/epappas/gx10-cluster/blob/42a866774e3895339bfda0f8f98663652df0d53b/workspaces/"
JKINGSTON = "https://github.com/jkingston/qwen3.8-27b-dgx-spark/blob/0fa1c63c65c607513bad56d936e54f3ea6a22004/README.md"
BAKEER = (
    "https://github.com/0xBakeer/Qwen3.8-27B-FP8-on-a-single-DGX-Spark/blob/969e52635a6a09b3e0ba8a1088158c001feeab41/"
)
# 0xBakeer's four prompts (one to three sentences each, in the chat template): their token counts are
# not stated, about 64 taken
BAKEER_PROMPT = 64


def _epappas() -> list[PublishedPoint]:
    """epappas/gx10-cluster: ASUS GX10s, vLLM's nightly aarch64 image, no
    --enforce-eager (CUDA-graph mode not stated). Two experiments: both
    nodes at TP=2 over one ConnectX-7 cable with both RoCE twins in use
    (NCCL's own NET/IB lines), Nemotron-3-Super NVFP4's prefill of a cold
    20,000-token prompt; and one node's Qwen3.8-27B NVFP4 without
    speculation: a cold 8,000-token prefill and one stream's decode from
    ``vllm bench serve`` (its defaults: 1,024 tokens in, 128 out)."""
    return [
        _pt(
            "nemotron-3-super-120b-a12b-2-tp2-vllm-nvfp4-epappas",
            "nemotron-3-super-120b-a12b",
            quantization="nvfp4",
            nodes=2,
            topology="direct",
            backend="nccl",
            tp=2,
            prefill_tps=3835.0,
            prompt=20000,
            context=20000,
            role="holdout",
            source="epappas/gx10-cluster vllm-2node-tp2 README: 'ws up vllm-prefill-ladder --rungs 20000 --page "
            "8320' / '#   20k   TTFT 5.22 s   3835 tok/s' (prompt tokens over the time to the first token)",
            note="nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4, vllm-openai:nightly-aarch64, --kv-cache-dtype fp8, "
            "chunked prefill and prefix caching on (the rung salted, so cold), --gpu-memory-utilization 0.80; NCCL "
            "over RoCE on both twins of one cable at 200 Gb/s; CUDA-graph mode not stated",
            url=f"{EPAPPAS}inference/vllm-2node-tp2/README.md",
            origin="fresh9-epappas-nemotron-super-tp2",
        ),
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-epappas",
            "qwen3.8-27b",
            quantization="nvfp4",
            decode_tps=10.6,
            prefill_tps=2384.0,
            context=1024 + 64,
            prompt=8000,
            role="holdout",
            source="epappas/gx10-cluster vllm-qwen3.8-27b-nvfp4 README, SPEC_METHOD=none column: '| Cold 8k prefill "
            "| 5.83 s TTFT · 1364 tok/s | 3.34 s TTFT · 2384 tok/s |' and '| Decode, concurrency 1 (`ws up "
            "vllm-bench-serve`) | **16.4 tok/s** | 10.6 tok/s |'",
            note="unsloth/Qwen3.8-27B-NVFP4 (lm_head NVFP4 too), vllm-openai:nightly-aarch64, --kv-cache-dtype fp8, "
            "--gpu-memory-utilization 0.84, no speculative decoding; the decode at vllm bench serve's 1,024 tokens "
            "in and 128 out (whether its figure counts the first token is not stated); the prefill a cold "
            "8,000-token prompt; CUDA-graph mode not stated",
            url=f"{EPAPPAS}inference/vllm-qwen3.8-27b-nvfp4/README.md",
            origin="fresh9-epappas-qwen3.8",
        ),
    ]


def _jkingston() -> list[PublishedPoint]:
    """jkingston/qwen3.8-27b-dgx-spark: one DGX Spark, a community vLLM image
    built for the GB10 (aeon-vllm-ultimate, digest-pinned), CUDA graphs on,
    no speculation, three runs each; one stream's "Short decode" of three
    checkpoints whose lengths the source does not state."""
    rows = (
        ("bf16", "Qwen BF16", 4.41, "Qwen/Qwen3.8-27B"),
        ("fp8", "Qwen FP8", 7.87, "Qwen/Qwen3.8-27B-FP8"),
        ("nvfp4", "Unsloth NVFP4", 11.20, "unsloth/Qwen3.8-27B-NVFP4"),
    )
    return [
        _pt(
            f"qwen3.8-27b-1-vllm-{quant}-jkingston",
            "qwen3.8-27b",
            quantization=quant,
            decode_tps=tps,
            mode="graphs",
            role="holdout",
            source=f"jkingston/qwen3.8-27b-dgx-spark README: '| {name} | none | {tps:.2f} tok/s | ...' (Short "
            "decode, three-run measurement)",
            note=f"{repo}; aeon-vllm-ultimate (vLLM with GB10 kernels), --gpu-memory-utilization 0.70, "
            "--max-num-seqs 8, float32 Mamba cache, CUDA graphs; prompt and output lengths not stated, so 256 "
            "tokens of context",
            url=JKINGSTON,
            origin="fresh9-jkingston-qwen3.8",
        )
        for quant, name, tps, repo in rows
    ]


def _bakeer() -> list[PublishedPoint]:
    """0xBakeer/Qwen3.8-27B-FP8-on-a-single-DGX-Spark (2026-08-19): one DGX
    Spark, sole occupant, no speculation; four short prompts. One stream:
    512 tokens out, the mean of per-prompt medians of tokens over the time
    after the first token. The sweep: N requests at N streams (one round),
    384 tokens out, completion tokens over the wall time (first tokens
    included). Three experiments: Qwen3.8-27B FP8 and Unsloth's NVFP4 on the
    official vLLM v0.27.1 image (CUDA graphs: "No --enforce-eager"), and a
    Q4_K_M GGUF on llama-server with 16 slots (-fa on, -ngl 999)."""
    sweep_ctx = BAKEER_PROMPT + 384 // 2
    single_ctx = BAKEER_PROMPT + 512 // 2
    results = f"{BAKEER}bench/dflash2/results/"
    fp8 = {
        "quantization": "fp8",
        "mode": "graphs",
        "role": "holdout",
        "note": "Qwen/Qwen3.8-27B-FP8, vllm/vllm-openai:v0.27.1-aarch64, --gpu-memory-utilization 0.80, "
        "--max-num-batched-tokens 16384, prefix caching on, KV cache auto; the DFlash2 overlay mounted but "
        "unused without speculation; prompt lengths not stated (about 64 tokens)",
        "origin": "fresh9-0xbakeer-fp8",
    }
    nvfp4 = {
        **fp8,
        "quantization": "nvfp4",
        "note": "unsloth/Qwen3.8-27B-NVFP4 (lm_head NVFP4 too), vllm/vllm-openai:v0.27.1-aarch64, "
        "--gpu-memory-utilization 0.80, KV cache auto; prompt lengths not stated (about 64 tokens)",
        "origin": "fresh9-0xbakeer-nvfp4",
        "url": f"{results}nvfp4-nospec.json",
    }
    gguf = {
        "engine": "llama.cpp",
        "quantization": "Q4_K_M",
        "role": "holdout",
        "note": "Qwen3.8-27B-Q4_K_M.gguf (repository not named), llama-server built from the DFlash pull request "
        "27342 and run without speculation, -fa on -ngl 999; the sweep with -np 16 -c 65536; the catalogue's "
        "Q4_K_M size of this model (17.91 GB) taken; prompt lengths not stated (about 64 tokens)",
        "origin": "fresh9-0xbakeer-llamacpp",
    }
    points = [
        _pt(
            "qwen3.8-27b-1-vllm-fp8-0xbakeer",
            "qwen3.8-27b",
            decode_tps=7.94,
            context=single_ctx,
            source="0xBakeer DFLASH2.md §1: '| none | 7.94 | 7.96 | 7.93 | 7.93 | **7.94** | — |' (mean of "
            "per-prompt medians, first token excluded, 512 tokens out)",
            url=f"{BAKEER}DFLASH2.md",
            **fp8,
        ),
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-0xbakeer",
            "qwen3.8-27b",
            decode_tps=11.24,
            context=single_ctx,
            source="0xBakeer nvfp4-nospec.json: '\"decode_tps_mean_of_medians\": 11.24' (512 tokens out)",
            **nvfp4,
        ),
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-0xbakeer-c8",
            "qwen3.8-27b",
            concurrency=8,
            decode_tps=77.61,
            context=single_ctx,
            source='0xBakeer nvfp4-nospec.json: \'"batch": { "n": 8, "wall": 50.88, "total_tokens": 3949, '
            '"aggregate_tps": 77.61\' (8 requests of at most 512 tokens at 8 streams)',
            **nvfp4,
        ),
        _pt(
            "qwen3.8-27b-1-llamacpp-q4km-0xbakeer",
            "qwen3.8-27b",
            decode_tps=10.84,
            context=single_ctx,
            source="0xBakeer gguf-q4km-nospec.json: '\"decode_tps_mean_of_medians\": 10.84' (512 tokens out, -c 32768)",
            url=f"{results}gguf-q4km-nospec.json",
            **gguf,
        ),
    ]
    sweeps = (
        (
            "vllm-fp8",
            "sweep-fp8-nospec.json",
            fp8,
            ((4, 30.69, 1536), (8, 59.0, 3072), (12, 83.68, 4608), (16, 107.07, 6144)),
        ),
        (
            "llamacpp-q4km",
            "sweep-gguf-q4km-nospec.json",
            gguf,
            ((4, 31.52, 1536), (8, 45.21, 3072), (12, 53.5, 4599), (16, 59.88, 6144)),
        ),
    )
    for form, file, common, levels in sweeps:
        for streams, tps, total in levels:
            points.append(
                _pt(
                    f"qwen3.8-27b-1-{form}-0xbakeer-c{streams}",
                    "qwen3.8-27b",
                    concurrency=streams,
                    decode_tps=tps,
                    context=sweep_ctx,
                    source=f'0xBakeer {file}: \'"concurrency": {streams}, "completed": {streams}, ... '
                    f'"total_tokens": {total}, "aggregate_tps": {tps}\'',
                    url=f"{results}{file}",
                    **common,
                )
            )
    return points


def fresh_2026_12_05_ninth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the ninth set, collected on 2026-12-05, marked so."""
    points = (*_epappas(), *_jkingston(), *_bakeer())
    return tuple(replace(p, collected=COLLECTED_NINTH) for p in points)
