"""Held-out runs collected on 2026-12-05, a twelfth set (the day's seventh,
hence "2026-12-05g"), after the model was frozen at 7731663 (whose published
fit is 9f94652's, as for the eleventh set): published Spark (GB10) figures
transcribed from their sources, turned into points before the model
predicted any of them, and nothing of the model changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with llama.cpp runs of several streams sought first
(``placement/collected/2026-12-05g.md`` keeps the collection whole, 83
figures of three sources). The figures kept were read again here at their
source before any prediction (jschmied/dgx-spark-setup-guide at c3d8262,
26178d6, 6e6b1ce and 8a5566e; mARTin-B78's TUTORIAL.md and sample
llama-swap config at 3e2944c; wutonglab's results CSV, env templates and
bench.py at c68a422). The rules of the earlier sets hold
(``placement.published_fresh`` to ``placement.published_fresh_eleventh``):
GB10 machines; vLLM, SGLang or llama.cpp; plain decoding; a stated format; a
model the catalogue knows (a fine-tune read as its base architecture); one
stream's decode, all streams' decode together, or one stream's prefill;
decode context the prompt plus half the output where both are stated, half
the output where only it is; output over wall time kept only when the
prompts are a short chat or task line against up to 1,024 generated tokens;
llama-benchy's pp2048 tg128 at 2,048 + 64 tokens of context; runs on builds
that patch kernels left out; a GGUF type the catalogue names, whose size the
run does not state, read at that type's bits per weight. And these, decided
for this set before any of it was predicted:

- Unsloth's dynamic GGUF mixes are read as the type their name starts from:
  UD-Q4_K_XL as Q4_K_M, UD-Q8_K_XL as Q8_0 (the first set read UD-Q4_K_M as
  Q4_K_M), at that type's bits per weight; a size the source gives only as
  "~50 GB" in prose is not a stated size.
- Where a source tunes one server step by step, the row with the engine's
  default flags is kept (the model predicts defaults); the tuned rows repeat
  the configuration with flags it does not price.
- Figures the source prints with "~" are kept as printed, with the "~" in
  the source's words.
- A launch configuration the source publishes as its sample config is read
  as the set-up (its CUDA-graph mode, its speculative decoding); a model the
  sample does not configure, beside a sibling configured with MTP, has no
  stated decoding and is left out.
- One configuration measured by its source at several output lengths keeps
  the lengths the rules allow, each a figure; a tuning sweep's variants that
  differ only in flags the model does not price (attention backend, batched
  token budget, an FP8 KV cache at short prompts) are left out beside the
  source's baseline.

Left out of the collected candidates:

- jschmied: the 4-request "Combined" rows of Qwen3-Coder-Next (4 x 1,024
  tokens over the 44.6 s and 56.8 s wall times the rows print: output over
  wall time over 1,168-token prompts), the c=4 aggregates of the vLLM
  sweeps (total output over wall time over 4,000-token prompts, per
  bench_client.py), the c=8 and c=16 rows (queued at --max-num-seqs 4,
  the source says), the tuned llama-server rows, and Qwen3.8-27B's 11.4 on
  short prompts of unstated size (the same configuration is kept at its
  stated 4,000 tokens).
- mARTin-B78: Qwen3.5-35B-A3B FP8 (MTP-2 in the sample config; its prefill
  timed out), Qwen3.6-35B-A3B FP8 (not in the sample config, beside the
  MTP sibling; its prefill timed out), gpt-oss-120b (an image built from a
  fork with its own MXFP4 kernels), and the models the catalogue lacks.
- wutonglab: the MTP-1 variant, the NVFP4 variant (the source notes it fell
  back to a dequantised BF16 path), the 256-token rows (the source's
  first-request warm-up length), the 2,048-token rows (past the wall-time
  rule's 1,024), and the tuning variants (above).

Each lab's model and engine is one experiment (``origin``, prefixed
"fresh12-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_TWELFTH = "2026-12-05g"

JSCHMIED = "https://github.com/jschmied/dgx-spark-setup-guide/blob/"
MARTIN = (
    "https://github.com/mARTin-B78/dgx-spark_lite-llm_llama-swap_vllm_llama-cpp_ollama/blob/"
    "3e2944cd0dc61c58c2f4e3db8672d823b8274972/TUTORIAL.md"
)
WUTONG = (
    "https://github.com/wutonglab/spark-llm-deployment-evaluation/blob/c68a422d6fbfd723b8f6630a39355c26446f08a2/"
    "case-studies/qwen3.6-35b-a3b-fp8-on-dgx-spark/data/baseline-results.csv"
)

# What the model frozen at 7731663 predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("nemotron-3-nano-30b-a3b-1-vllm-nvfp4-martin", "decode"): (50.37, 30.13, 107.50),
    ("nemotron-3-nano-30b-a3b-1-vllm-nvfp4-martin", "prefill"): (6753.25, 5402.60, 8103.90),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-martin", "decode"): (20.22, 12.44, 29.40),
    ("nemotron-3-super-120b-a12b-1-vllm-nvfp4-martin", "prefill"): (2591.57, 2461.99, 8064.93),
    ("qwen3-coder-next-1-llamacpp-q4km-jschmied", "decode"): (63.54, 46.41, 83.14),
    ("qwen3-coder-next-1-llamacpp-q4km-jschmied", "prefill"): (2788.42, 1626.92, 7148.30),
    ("qwen3-coder-next-1-vllm-fp8-martin", "decode"): (42.08, 25.89, 61.19),
    ("qwen3-coder-next-1-vllm-fp8-martin", "prefill"): (2675.17, 2541.41, 8325.08),
    ("qwen3-coder-next-1-vllm-int4-martin", "decode"): (57.08, 35.11, 82.99),
    ("qwen3-coder-next-1-vllm-int4-martin", "prefill"): (3016.49, 2865.67, 9387.27),
    ("qwen3.5-35b-a3b-1-llamacpp-q4km-martin", "decode"): (68.67, 50.16, 89.85),
    ("qwen3.5-35b-a3b-1-llamacpp-q4km-martin", "prefill"): (4255.23, 2482.74, 10908.57),
    ("qwen3.6-27b-1-vllm-nvfp4-jschmied", "decode"): (11.70, 7.20, 17.02),
    ("qwen3.6-35b-a3b-1-llamacpp-q80-jschmied", "decode"): (50.61, 36.96, 66.21),
    ("qwen3.6-35b-a3b-1-llamacpp-q80-jschmied", "prefill"): (3284.80, 1916.54, 8420.82),
    ("qwen3.6-35b-a3b-1-llamacpp-q80-jschmied-c4", "aggregate"): (108.10, 79.17, 142.06),
    ("qwen3.6-35b-a3b-1-vllm-fp8-wutong-c1-o1024", "decode"): (44.08, 27.12, 64.10),
    ("qwen3.6-35b-a3b-1-vllm-fp8-wutong-c1-o512", "decode"): (44.13, 27.15, 64.16),
    ("qwen3.6-35b-a3b-1-vllm-fp8-wutong-c4-o1024", "aggregate"): (105.59, 71.32, 122.95),
    ("qwen3.6-35b-a3b-1-vllm-fp8-wutong-c4-o512", "aggregate"): (105.86, 71.50, 123.27),
    ("qwen3.8-27b-1-vllm-nvfp4-jschmied", "decode"): (12.00, 7.38, 17.44),
}


def _jschmied() -> list[PublishedPoint]:
    """jschmied/dgx-spark-setup-guide: one GB10 ("One GB10 (sm_121a, 128 GB
    unified)"), llama.cpp's llama-server built from source (build not
    stated) and stock vLLM wheels."""
    tuning = JSCHMIED + "c3d8262ec7be8f88b8059373ea5bb3d0aa71be7c/08-performance-tuning.md"
    router = JSCHMIED + "26178d6e15c591c643eec16ec73c60ed81a782e7/08-performance-tuning.md"
    vllm024 = JSCHMIED + "6e6b1cea42f61e8ee1685ccb41c063c570326d53/appendix/vllm-switch.md"
    vllm027 = JSCHMIED + "8a5566e697d13f50e6479dcfd176b42e52ab0d68/appendix/qwen38-27b-nvfp4-vllm027.md"
    src = "jschmied/dgx-spark-setup-guide 08-performance-tuning.md"
    coder = {
        "engine": "llama.cpp",
        "quantization": "Q4_K_M",
        "role": "holdout",
        "url": tuning,
        "origin": "fresh12-jschmied-coder-next-llamacpp",
        "note": "unsloth/Qwen3-Coder-Next-GGUF UD-Q4_K_XL read as Q4_K_M at its bits per weight; llama-server "
        "with default flags and --parallel 2 (n_ubatch 512), one request; build not stated",
    }
    q36 = {
        "engine": "llama.cpp",
        "quantization": "Q8_0",
        "role": "holdout",
        "url": router,
        "origin": "fresh12-jschmied-qwen3.6-35b-llamacpp",
        "note": "Qwen3.6-35B-A3B-UD-Q8_K_XL.gguf read as Q8_0 at its bits per weight; llama-server router, "
        "--parallel 4, q8_0 KV cache, /completion with ignore_eos, warm-up run discarded; build not stated",
    }
    return [
        _pt(
            "qwen3-coder-next-1-llamacpp-q4km-jschmied",
            "qwen3-coder-next",
            decode_tps=50.82,
            prefill_tps=1012.0,
            context=1197 + 1024,
            prompt=1197,
            source=f"{src} (c3d8262), 8.3 Measured baselines (single-stream, 1197 -> 2048 tokens): "
            "'| Baseline (default flags + `--parallel 2`) | 40.5 s | 1012 t/s | **50.82 t/s** | 88-94 % |'",
            **coder,
        ),
        _pt(
            "qwen3.6-35b-a3b-1-llamacpp-q80-jschmied",
            "qwen3.6-35b-a3b",
            decode_tps=54.5,
            prefill_tps=2080.0,
            context=1291 + 128,
            prompt=1291,
            source=f"{src} (26178d6), 8.9 Single-stream (1291-token prompt): "
            "'| Prefill | **~2080 t/s** (1291 tokens ≈ 0.62 s) |' and '| Generation | **~54.5 t/s**, flat from "
            "256 → 1200 tokens |'",
            **q36,
        ),
        _pt(
            "qwen3.6-35b-a3b-1-llamacpp-q80-jschmied-c4",
            "qwen3.6-35b-a3b",
            concurrency=4,
            decode_tps=96.0,
            context=1291 + 128,
            prompt=1291,
            source=f"{src} (26178d6), 8.9 Concurrent (4 streams × 1291 → 256 tokens): "
            "'| Combined generation | **~96 t/s** (1.76× single-stream) |' (its wall-clock row, prefill "
            "included, is ~78)",
            **q36,
        ),
        _pt(
            "qwen3.6-27b-1-vllm-nvfp4-jschmied",
            "qwen3.6-27b",
            quantization="nvfp4",
            decode_tps=11.8,
            context=4000 + 128,
            prompt=4000,
            role="holdout",
            url=vllm024,
            origin="fresh12-jschmied-qwen3.6-27b-vllm",
            source="jschmied/dgx-spark-setup-guide appendix/vllm-switch.md (6e6b1ce), nspec sweep, util 0.6, "
            "256-token outputs: '| 0 (off) | 11.8 | — | 13.8 | — |' under '| MTP nspec | c=1 decode t/s | accept "
            "| c=4 aggregate t/s | accept |'",
            note="nvidia/Qwen3.6-27B-NVFP4 on vllm==0.24.0, fp8 KV cache, MTP off; c=1 decode excludes the first "
            "token (bench_client.py, committed later at 7fd41eb, whose 4,000-token input is taken)",
        ),
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-jschmied",
            "qwen3.8-27b",
            quantization="nvfp4",
            decode_tps=11.2,
            context=4000 + 128,
            prompt=4000,
            role="holdout",
            url=vllm027,
            origin="fresh12-jschmied-qwen3.8-27b-vllm",
            source="jschmied/dgx-spark-setup-guide appendix/qwen38-27b-nvfp4-vllm027.md (8a5566e), 'Real-text "
            "prompts, 4000-token input, 256-token output, `ignore_eos`': '| 0 | 11.2 | 31.0 | 30.8 | 30.8 | — |' "
            "under '| n | c=1 decode | c=4 agg | c=8 agg | c=16 agg | mean accept len |'",
            note="unsloth/Qwen3.8-27B-NVFP4 on stock vllm==0.27.1, fp8 KV cache, piecewise CUDA graphs, MTP off "
            "(n = 0)",
        ),
    ]


# llama-benchy pp2048 tg128 at one stream (the TUTORIAL.md table, 2026-04-23): key part, slug,
# engine, quantization, pp, tg, mode, the table's row, the sample config's set-up
_MARTIN: tuple[tuple[str, str, str, str, float, float, str, str, str], ...] = (
    (
        "nemotron-3-nano-30b-a3b-1-vllm-nvfp4",
        "nemotron-3-nano-30b-a3b",
        "vllm",
        "nvfp4",
        8063.0,
        58.0,
        "eager",
        "| Nemotron-3-Nano-30B-A3B-NVFP4 | vLLM | 8063 ±180 | 58 | 59 | 305 | Fastest 30B on the Spark, 0% ctx "
        "degradation |",
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4, --kv-cache-dtype fp8 --enforce-eager --quantization "
        "modelopt_fp4 (the sample config)",
    ),
    (
        "qwen3.5-35b-a3b-1-llamacpp-q4km",
        "qwen3.5-35b-a3b",
        "llama.cpp",
        "Q4_K_M",
        1820.0,
        57.5,
        "",
        "| Qwen3.5-35B-Uncensored-Q4_K_M | llama.cpp | 1820 ±13 | 57.5 | 59 | 1112 | GGUF — generation speed "
        "matches FP8 vLLM |",
        "Qwen3.5-35B-A3B-Uncensored-HauhauCS-Aggressive-Q4_K_M.gguf, a fine-tune read as Qwen3.5-35B-A3B; "
        "llama-server --parallel 4 --no-mmap (the sample config), build not stated",
    ),
    (
        "qwen3-coder-next-1-vllm-fp8",
        "qwen3-coder-next",
        "vllm",
        "fp8",
        3060.0,
        33.6,
        "",
        "| Qwen3-Coder-Next-FP8-Dynamic | vLLM | 3060 ±1268 | 33.6 | 35 | 889 | 0% @16k | |",
        "Qwen3-Coder-Next-FP8-Dynamic, --kv-cache-dtype fp8 --attention-backend flashinfer (the sample config)",
    ),
    (
        "qwen3-coder-next-1-vllm-int4",
        "qwen3-coder-next",
        "vllm",
        "int4",
        4098.0,
        68.0,
        "",
        "| Qwen3-Coder-Next-int4-AutoRound | vLLM | 4098 ±555 | **68** | 69 | 509 | 0% @16k | Fastest generation "
        "in M tier |",
        "Qwen3-Coder-Next-int4-AutoRound, --kv-cache-dtype fp8 --optimization-level 3 --performance-mode "
        "throughput (the sample config)",
    ),
    (
        "nemotron-3-super-120b-a12b-1-vllm-nvfp4",
        "nemotron-3-super-120b-a12b",
        "vllm",
        "nvfp4",
        1880.0,
        15.0,
        "",
        "| Nemotron-3-Super-120B-A12B-NVFP4 | vLLM | 1880 ±57 | 15 | 16 | 1169 | 0% @16k | |",
        "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4, --kv-cache-dtype fp8 --moe-backend cutlass "
        "--attention-backend TRITON_ATTN --mamba_ssm_cache_dtype float32 (the sample config)",
    ),
)


def _martin() -> list[PublishedPoint]:
    """mARTin-B78's multi-model stack on a "single DGX Spark GB10"
    (TUTORIAL.md at 3e2944c): llama-benchy, 3 runs, pp2048 tg128 at depth 0
    (and 16,384), one stream; vLLM in images built on spark-vllm-docker's
    GB10 wheels (versions not stated) and a llama.cpp image."""
    return [
        _pt(
            f"{key}-martin",
            slug,
            engine=engine,
            quantization=quant,
            decode_tps=tg,
            prefill_tps=pp,
            context=2048 + 64,
            prompt=2048,
            mode=mode,
            role="holdout",
            url=MARTIN,
            origin=f"fresh12-martin-{key}",
            source=f"mARTin-B78 TUTORIAL.md, Benchmark Results (2026-04-23, single DGX Spark GB10): '{row}'",
            note=setup + "; llama-benchy pp2048 tg128, 3 runs",
        )
        for key, slug, engine, quant, pp, tg, mode, row, setup in _MARTIN
    ]


def _wutong() -> list[PublishedPoint]:
    """wutonglab/spark-llm-deployment-evaluation: Qwen/Qwen3.6-35B-A3B-FP8 in
    NVIDIA's vLLM image 26.03.post1 on one DGX Spark (GB10), TP1, the
    baseline variant (vLLM's defaults: no MTP, default KV cache and
    attention); bench.py issues short chat lines at a fixed concurrency for
    60 s and reports completion tokens over the cell's wall time."""
    points = []
    for streams, output, tps in ((1, 512, 52.0), (1, 1024, 53.0), (4, 512, 168.0), (4, 1024, 190.0)):
        points.append(
            _pt(
                f"qwen3.6-35b-a3b-1-vllm-fp8-wutong-c{streams}-o{output}",
                "qwen3.6-35b-a3b",
                quantization="fp8",
                concurrency=streams,
                decode_tps=tps,
                context=output // 2,
                role="holdout",
                url=WUTONG,
                origin="fresh12-wutong-qwen3.6-35b-vllm-fp8",
                source=f"wutonglab baseline-results.csv: 'baseline,{streams},{output},{tps:g},'",
                note="completion tokens over the cell's wall time, first tokens included, of one-line prompts "
                f"against {output} generated tokens (ignore_eos); --max-num-batched-tokens 16384, "
                "--gpu-memory-utilization 0.85, prefix caching",
            )
        )
    return points


def fresh_2026_12_05_twelfth() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the twelfth set, collected on 2026-12-05, marked so."""
    return tuple(replace(p, collected=COLLECTED_TWELFTH) for p in (*_jschmied(), *_martin(), *_wutong()))
