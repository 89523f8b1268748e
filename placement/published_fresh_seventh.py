"""Held-out runs collected on 2026-12-05, a seventh set (the day's second,
hence "2026-12-05b"), after the model was frozen at 9d1158a (whose published
fit is e7cebc4's: nothing since changed a published prediction): published
Spark (GB10) figures transcribed from their sources, turned into points
before the model predicted any of them, and nothing of the model changed
for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with vLLM and SGLang runs on several nodes (their
CUDA-graph mode stated), MoE concurrency sweeps with stated lengths and
llama.cpp batches of hybrid models sought first, and read again here at
their sources, at the cited commits, before any prediction. The rules of
the earlier sets hold (``placement.published_fresh`` to
``placement.published_fresh_sixth``), and these, decided for this set
before any of it was predicted:

- A stream's own rate while other streams run (a per-session or TPOT rate
  at more than one stream) is neither figure the model predicts (one stream
  alone, or all streams together): left out. At one stream it is that
  stream's decode, and is kept.
- A format the catalogue has no name for is left out (its bits per weight
  are not stated): Unsloth's dynamic "UD-*_XL" GGUF mixes, an INT4 body
  with an INT8 lm_head, a fine-tune's own mixed NVFP4 ("XS"). GPTQ, AWQ and
  AutoRound INT4 checkpoints are the catalogue's "int4", read at its bits
  per weight where it has no variant of the model.
- vLLM built with kernels for the GB10 (the community's patched Marlin
  builds, as earlier sets kept community images) is vLLM; a run whose
  engine's execution path was changed by its author (an all-reduce taken
  out of the CUDA graphs) is not, and is left out.
- A pair joined by RoCE with one twin named in NCCL_IB_HCA is priced at
  100 Gb/s (one twin tops out near it: docs/launch-and-fabric.md); a pair
  whose cabling is not described beyond "RDMA 200Gb/s" is read as a direct
  cable (the note says so).
- One figure per configuration: a run's flag variants (another attention
  backend, an environment variable) are left out beside its baseline; of a
  sweep with two prompt sizes, the short chat lines are kept.
- A prefill figure of a 128-token prompt is left out (request set-up more
  than prompt processing).

Left out of the collected candidates:

- jvr0x/dgx-spark-bench: every level above one stream (per-session rates;
  the window aggregates include 1,024-token prefills); its llama.cpp runs
  (Unsloth UD-Q4_K_XL and UD-Q8_K_XL, and gpt-oss-20b's "UD-Q4_K_XL");
  its speculative series.
- my-other-github-account/spark-bench-reproducers: the AEON fine-tune of
  Qwen3.6-27B (its own mixed NVFP4 "XS"), flag variants B and C, the pp128
  prefill, every DFlash row.
- czcrimpy/DGX_Spark_Qwen3.6-35B-A3B-Optimized: the INT8 lm_head run (a
  format of its own, serve line not published) and its MTP runs.
- flash7777/vllm-marlin-sm12x: the TP=2 graphs-versus-eager pair of
  Qwen3-Coder-Next (the author's "UF17" all-reduce outside the CUDA graphs,
  launcher not stated), TCP-socket figures, EAGLE3 rows, W4A8 beside W4A16,
  context matrices past 0 tokens, the author's own torchrun server.
- PalatineVision/dgx-spark-benchmark: per-stream TPOT rates above one
  stream, levels whose 50 requests do not fill whole rounds (20, 30, 40) or
  that have more clients than requests (60 to 100), its RAG prompts (1,221
  and ~1,600 tokens) beside the chat lines, and models the catalogue lacks.
- About 30 further sources, each with its reason in the collection notes:
  Ollama figures, speculative runs, models the catalogue lacks, pages whose
  stored copies stop before their tables.

Each series is one experiment (``origin``, prefixed "fresh7-").
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_SEVENTH = "2026-12-05b"

# What the model frozen at 9d1158a predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-jvr0x", "decode"): (60.05, 36.94, 87.31),
    ("qwen3.6-27b-1-vllm-nvfp4-jvr0x", "decode"): (11.83, 7.28, 17.20),
    ("nemotron-3-nano-30b-a3b-1-vllm-fp8-jvr0x", "decode"): (40.39, 24.85, 58.72),
    ("qwen3.6-35b-a3b-1-vllm-nvfp4-reproducers", "decode"): (60.38, 37.15, 87.79),
    ("qwen3.6-35b-a3b-1-vllm-int4-czcrimpy", "decode"): (60.89, 37.46, 88.53),
    ("qwen3-coder-30b-a3b-2-tp2-vllm-int4-flash7777", "decode"): (71.30, 49.67, 88.49),
    ("qwen3-coder-30b-a3b-2-pp2-vllm-int4-flash7777", "decode"): (63.52, 39.22, 80.18),
    ("qwen3-coder-30b-a3b-2-ep2-vllm-int4-flash7777", "decode"): (63.64, 39.30, 80.34),
    ("qwen3-coder-30b-a3b-1-vllm-int4-flash7777", "decode"): (65.60, 40.95, 92.45),
    ("qwen3-coder-30b-a3b-1-vllm-nvfp4-flash7777", "decode"): (64.94, 40.54, 91.52),
    ("qwen3-coder-30b-a3b-1-vllm-fp8-flash7777", "decode"): (45.25, 28.25, 63.77),
    ("qwen3-coder-30b-a3b-1-vllm-bf16-flash7777", "decode"): (31.16, 19.45, 43.92),
    ("qwen3-coder-next-1-vllm-int4-flash7777", "decode"): (57.77, 35.54, 84.00),
    ("llama-3.3-70b-2-tp2-vllm-bf16-rykersun", "decode"): (3.52, 2.45, 4.37),
    ("qwen3-30b-a3b-1-vllm-bf16-palatine", "decode"): (31.18, 19.46, 43.94),
    ("qwen3-30b-a3b-1-vllm-bf16-palatine-c5", "aggregate"): (70.58, 47.76, 81.83),
    ("qwen3-30b-a3b-1-vllm-bf16-palatine-c10", "aggregate"): (93.26, 63.10, 108.12),
    ("qwen3-30b-a3b-1-vllm-bf16-palatine-c50", "aggregate"): (172.01, 116.39, 199.43),
    ("qwen3-30b-a3b-1-vllm-fp8-palatine", "decode"): (45.30, 28.27, 63.84),
    ("qwen3-30b-a3b-1-vllm-fp8-palatine-c5", "aggregate"): (101.37, 68.59, 117.53),
    ("qwen3-30b-a3b-1-vllm-fp8-palatine-c10", "aggregate"): (131.44, 88.94, 152.40),
    ("qwen3-30b-a3b-1-vllm-fp8-palatine-c50", "aggregate"): (222.22, 150.36, 257.65),
    ("qwen3-30b-a3b-1-vllm-int4-palatine", "decode"): (65.70, 41.01, 92.59),
    ("qwen3-30b-a3b-1-vllm-int4-palatine-c5", "aggregate"): (144.79, 97.97, 167.87),
    ("qwen3-30b-a3b-1-vllm-int4-palatine-c10", "aggregate"): (183.03, 123.84, 212.20),
    ("qwen3-30b-a3b-1-vllm-int4-palatine-c50", "aggregate"): (278.57, 188.49, 322.97),
    ("qwen3-32b-1-vllm-bf16-palatine-c10", "aggregate"): (38.33, 25.94, 44.44),
    ("qwen3-32b-1-vllm-bf16-palatine-c50", "aggregate"): (186.76, 126.36, 216.53),
    ("qwen3-32b-1-vllm-int4-palatine-c5", "aggregate"): (53.99, 36.53, 62.60),
    ("qwen3-32b-1-vllm-int4-palatine-c10", "aggregate"): (106.82, 72.27, 123.84),
    ("qwen3-32b-1-vllm-int4-palatine-c50", "aggregate"): (491.43, 332.51, 569.76),
    ("qwen3-32b-1-vllm-fp8-palatine-c5", "aggregate"): (31.11, 21.05, 36.06),
    ("qwen3-32b-1-vllm-fp8-palatine-c10", "aggregate"): (61.81, 41.82, 71.67),
    ("qwen3-32b-1-vllm-fp8-palatine-c50", "aggregate"): (294.03, 198.94, 340.89),
}

JVR = "https://github.com/jvr0x/dgx-spark-bench/blob/a486d93911d504bfeaa33d6af5cdb454fcf29cae/results/"
REPRO = (
    "https://github.com/my-other-github-account/spark-bench-reproducers/blob/"
    "19f08389c8e736b453c029f1f066ddb958961899/qwen36-35b-a3b-dflash-spark/results/ar-pp128-tg128-thinkON.json"
)
CZ = (
    "https://github.com/czcrimpy/DGX_Spark_Qwen3.6-35B-A3B-Optimized/blob/"
    "a5bbfa90649760849cfac052aa425cc1bf95ec3c/benchmarks/README.md"
)
FLASH = "https://github.com/flash7777/vllm-marlin-sm12x/blob/ae90dc66e23ec274d205e0148596a0bd233026b5/"
RYKER = (
    "https://github.com/rykersun/vllm-dgx-spark/blob/a23f5766102c9f999bf5af6bf13e22f82868de47/PERFORMANCE_ANALYSIS.md"
)
PALATINE = "https://github.com/PalatineVision/dgx-spark-benchmark/blob/108f5fa324afa595b499735f7fd5cc51b191bbe1/"


def _jvr() -> list[PublishedPoint]:
    """jvr0x/dgx-spark-bench: the repository's own closed-loop harness on one
    DGX Spark, 1,024-token prompts and 256 tokens out (so 1,152 tokens of
    context), 30 s of warm-up then a 180 s window; one stream's decode is
    the mean of each request's rate after its first token, at one stream."""
    common = {"context": 1024 + 128, "role": "holdout"}
    return [
        _pt(
            "qwen3.6-35b-a3b-1-vllm-nvfp4-jvr0x",
            "qwen3.6-35b-a3b",
            quantization="nvfp4",
            mode="graphs",
            decode_tps=77.4,
            source='jvr0x/dgx-spark-bench qwen3.6-35b-nvfp4-nvidia-specoff.json: \'"concurrency": 1, '
            '"agg_tok_s": 74.0, "per_session_tok_s": 77.4\'',
            note="nvidia/Qwen3.6-35B-A3B-NVFP4 (modelopt), vLLM 0.25.1 (AEON image), MTP off, enforce_eager false, "
            "fp8 KV cache, chunked prefill, async scheduling",
            url=f"{JVR}qwen3.6-35b-nvfp4-nvidia-specoff.json",
            origin="fresh7-jvr0x-qwen36-35b",
            **common,
        ),
        _pt(
            "qwen3.6-27b-1-vllm-nvfp4-jvr0x",
            "qwen3.6-27b",
            quantization="nvfp4",
            mode="graphs",
            decode_tps=12.2,
            source='jvr0x/dgx-spark-bench qwen3.6-27b-nvfp4-nvidia-27b.json: \'"concurrency": 1, '
            '"agg_tok_s": 11.4, "per_session_tok_s": 12.2\'',
            note="nvidia/Qwen3.6-27B-NVFP4 (modelopt), vLLM 0.23 (AEON image), no MTP, cuda_graphs true, fp8 KV "
            "cache; NVFP4 read at its bits per weight",
            url=f"{JVR}qwen3.6-27b-nvfp4-nvidia-27b.json",
            origin="fresh7-jvr0x-qwen36-27b",
            **common,
        ),
        _pt(
            "nemotron-3-nano-30b-a3b-1-vllm-fp8-jvr0x",
            "nemotron-3-nano-30b-a3b",
            quantization="fp8",
            decode_tps=40.7,
            source='jvr0x/dgx-spark-bench nemotron3-nano-30b-fp8.json: \'"concurrency": 1, "agg_tok_s": 39.8, '
            '"per_session_tok_s": 40.7\'',
            note="nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8, vLLM 0.23, no speculative decoding; CUDA-graph mode "
            "and image not stated",
            url=f"{JVR}nemotron3-nano-30b-fp8.json",
            origin="fresh7-jvr0x-nemotron-nano",
            **common,
        ),
    ]


def _repro_and_cz() -> list[PublishedPoint]:
    """Two one-stream runs of Qwen3.6-35B-A3B on one DGX Spark: the
    RedHatAI NVFP4 checkpoint's autoregressive baseline (llama-benchy 0.3.7,
    pp128 tg128, 30 runs) and Intel's INT4 AutoRound checkpoint (one request
    at a time, short chat lines, output over the request's wall time)."""
    return [
        _pt(
            "qwen3.6-35b-a3b-1-vllm-nvfp4-reproducers",
            "qwen3.6-35b-a3b",
            quantization="nvfp4",
            mode="graphs",
            decode_tps=42.98,
            context=128 + 64,
            role="holdout",
            source="my-other-github-account/spark-bench-reproducers README: '| AR baseline ... | 42.98 | 43.00 | "
            "0.13 |' (median tg tok/s, llama-benchy c1)",
            note="RedHatAI/Qwen3.6-35B-A3B-NVFP4, vLLM nightly (spark-arena eugr image), flash_attn, no "
            "--enforce-eager and no speculative config in launch_server_ar.sh; 128 tokens in, 128 out",
            url=REPRO,
            origin="fresh7-reproducers-qwen36-35b",
        ),
        _pt(
            "qwen3.6-35b-a3b-1-vllm-int4-czcrimpy",
            "qwen3.6-35b-a3b",
            quantization="int4",
            mode="graphs",
            decode_tps=64.1,
            role="holdout",
            source="czcrimpy/DGX_Spark_Qwen3.6-35B-A3B-Optimized benchmarks/README.md: '| ... "
            "01-baseline-intel-int4-autoround.txt | Intel INT4 + FlashInfer | 64.1 | 66.1 |'",
            note="Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound, vLLM (eugr's spark-vllm-docker build), FlashInfer, no "
            "--enforce-eager; 10 requests of 23-48 prompt tokens and 64 to 2,048 tokens out, averaged, so sizes "
            "read as 256 tokens of context; INT4 read at its bits per weight",
            url=CZ,
            origin="fresh7-czcrimpy-qwen36-int4",
        ),
    ]


def _flash() -> list[PublishedPoint]:
    """flash7777/vllm-marlin-sm12x: vLLM with Marlin kernels built for the
    GB10 (SM121), one request at a time, a short chat line with up to 400
    tokens out (the "long" prompt at no added context), output over the
    request's wall time; so 220 tokens of context. Qwen3-Coder-30B-A3B INT4
    AutoRound on a DGX Spark and a Lenovo PGX joined by one QSFP56 cable
    (NCCL over RoCE through one twin, Ray, CUDA graphs), the same model on
    one Spark in four formats, and Qwen3-Coder-Next INT4 on one Spark."""
    pair = {
        "nodes": 2,
        "topology": "direct",
        "backend": "nccl",
        "link_gbps": 100.0,
        "quantization": "int4",
        "mode": "graphs",
        "context": 220,
        "role": "holdout",
        "url": f"{FLASH}BENCHMARK_MULTINODE.md",
        "origin": "fresh7-flash7777-coder-two-nodes",
        "note": "--distributed-executor-backend ray --kv-cache-memory-bytes 10G --quantization auto_round, no "
        "--enforce-eager; NCCL_IB_HCA=rocep1s0f0 (one twin of the cabled port), so priced at 100 Gb/s",
    }
    src = "flash7777/vllm-marlin-sm12x BENCHMARK_MULTINODE.md, Qwen3-Coder-30B-A3B INT4 AutoRound, decode (ctx=0)"
    formats_src = "flash7777/vllm-marlin-sm12x RESULTS.md, Qwen3-Coder-30B-A3B on one DGX Spark (ctx=0, long)"
    one = {
        "context": 220,
        "role": "holdout",
        "url": f"{FLASH}RESULTS.md",
        "origin": "fresh7-flash7777-coder-formats",
        "note": "vllm-next image (vLLM 26.01 base, CUTLASS 4.3.5); CUDA-graph mode not stated in RESULTS.md; "
        "formats other than the catalogue's read at their bits per weight",
    }
    return [
        _pt(
            "qwen3-coder-30b-a3b-2-tp2-vllm-int4-flash7777",
            "qwen3-coder-30b-a3b",
            tp=2,
            decode_tps=91.6,
            source=f"{src}: '| TP=2 (Tensor Parallel) | 45.3 | **91.6** | **+102%** |' (RoCE column)",
            **pair,
        ),
        _pt(
            "qwen3-coder-30b-a3b-2-pp2-vllm-int4-flash7777",
            "qwen3-coder-30b-a3b",
            pp=2,
            decode_tps=71.3,
            source=f"{src}: '| PP=2 (Pipeline Parallel) | 70.4 | 71.3 | +1% |' (RoCE column)",
            **pair,
        ),
        _pt(
            "qwen3-coder-30b-a3b-2-ep2-vllm-int4-flash7777",
            "qwen3-coder-30b-a3b",
            tp=2,
            ep=2,
            decode_tps=85.5,
            source=f"{src}: '| EP=2 (Expert Parallel) | 35.0 | **85.5** | **+144%** |' (RoCE column; TP=2 with "
            "--enable-expert-parallel)",
            **pair,
        ),
        *(
            _pt(
                f"qwen3-coder-30b-a3b-1-vllm-{quant}-flash7777",
                "qwen3-coder-30b-a3b",
                quantization=quant,
                decode_tps=tps,
                source=f"{formats_src}: {row}",
                **one,
            )
            for quant, tps, row in (
                ("int4", 86.9, "'| INT4 W4A16 | — | Marlin FP16 mma.sync | 86.4 | 86.9 | 78% |'"),
                ("nvfp4", 65.0, "'| NVFP4 | — | FlashInfer CUTLASS | — | 65.0 | 74% |'"),
                ("fp8", 50.5, "'| FP8 dynamic | — | Triton MoE | — | 50.5 | ~80% |'"),
                ("bf16", 30.6, "'| BF16 | — | — | — | 30.6 | ~80% |'"),
            )
        ),
        _pt(
            "qwen3-coder-next-1-vllm-int4-flash7777",
            "qwen3-coder-next",
            quantization="int4",
            mode="graphs",
            decode_tps=70.0,
            context=220,
            role="holdout",
            source="flash7777/vllm-marlin-sm12x RESULTS_CONTINUOUS.md, Qwen3-Coder-Next INT4 AutoRound, TP=1: "
            "'| 0 | 70.0 |' (long output, ctx 0)",
            note="'Image: vllm-next (vLLM 0.15, Marlin W4A16, CUDA Graphs)'; INT4 read at its bits per weight",
            url=f"{FLASH}RESULTS_CONTINUOUS.md",
            origin="fresh7-flash7777-coder-next",
        ),
    ]


def _rykersun() -> list[PublishedPoint]:
    """rykersun/vllm-dgx-spark: Llama-3.3-70B in BF16 over two DGX Sparks,
    TP=2 through Ray, NCCL over RoCE (NET/IBext_v10), CUDA graphs; one
    request of a short chat line and 500 tokens out, output over its wall
    time."""
    return [
        _pt(
            "llama-3.3-70b-2-tp2-vllm-bf16-rykersun",
            "llama-3.3-70b",
            nodes=2,
            topology="direct",
            backend="nccl",
            tp=2,
            quantization="bf16",
            mode="graphs",
            decode_tps=3.17,
            context=275,
            role="holdout",
            source="rykersun/vllm-dgx-spark PERFORMANCE_ANALYSIS.md: 'Duration: 157 seconds for 500 tokens / "
            "Throughput: 3.17 tokens/second'",
            note="meta-llama/Llama-3.3-70B-Instruct in BF16 (no quantization flag), vLLM version not stated; "
            "'--enforce-eager removed, 67 graphs captured'; the cabling is described as 'InfiniBand RDMA "
            "(200Gb/s)' only, read as a direct cable; BF16 read at its bits per weight",
            url=RYKER,
            origin="fresh7-rykersun-llama70b",
        )
    ]


def _palatine() -> list[PublishedPoint]:
    """PalatineVision/dgx-spark-benchmark: ``vllm bench serve`` on one DGX
    Spark, 50 chat-line prompts of 42 tokens on average and 256 tokens out
    (so 170 tokens of context), at 1, 5, 10 and 50 concurrent requests.
    One stream's decode is 1000 / the median TPOT at one stream; all
    streams' decode the output throughput (output over the benchmark's
    duration, the short prompts' prefill inside). The vLLM version and the
    serve flags of these models are not published, nor whether a second
    server shared the GPU (the repository's compose file runs two)."""
    base = f"{PALATINE}final_results/"
    note = (
        "vLLM version, serve flags and CUDA-graph mode not published; whether a second vLLM server shared the "
        "GPU is not stated"
    )
    series = (
        # (slug, checkpoint, format, file prefix, folder, c1 TPOT ms or None, (concurrency, output tok/s, stamp))
        (
            "qwen3-30b-a3b",
            "Qwen_Qwen3-30B-A3B",
            "bf16",
            "qwen-30b-a3b",
            33.5205,
            ((1, 0.0, "20260209_211016"), (5, 48.7, "20260209_211750"), (10, 70.2, "20260209_212227"))
            + ((50, 259.6, "20260209_213102"),),
        ),
        (
            "qwen3-30b-a3b",
            "Qwen_Qwen3-30B-A3B-FP8",
            "fp8",
            "qwen-30b-a3b",
            19.2044,
            ((1, 0.0, "20260210_074736"), (5, 92.2, "20260210_075159"), (10, 133.0, "20260210_075429"))
            + ((50, 486.6, "20260210_075916"),),
        ),
        (
            "qwen3-30b-a3b",
            "Qwen_Qwen3-30B-A3B-GPTQ-Int4",
            "int4",
            "qwen-30b-a3b",
            12.4276,
            ((1, 0.0, "20260210_115659"), (5, 158.7, "20260210_115952"), (10, 237.2, "20260210_120122"))
            + ((50, 718.6, "20260210_120418"),),
        ),
        (
            "qwen3-32b",
            "Qwen_Qwen3-32B",
            "bf16",
            "qwen-32b",
            None,
            ((10, 34.4, "20260210_031752"), (50, 151.9, "20260210_033828")),
        ),
        (
            "qwen3-32b",
            "Qwen_Qwen3-32B-AWQ",
            "int4",
            "qwen-32b",
            None,
            ((5, 59.4, "20260210_154534"), (10, 114.2, "20260210_154937"), (50, 442.6, "20260210_155610")),
        ),
        (
            "qwen3-32b",
            "Qwen_Qwen3-32B-FP8",
            "fp8",
            "qwen-32b",
            None,
            ((5, 31.2, "20260210_084351"), (10, 61.7, "20260210_085128"), (50, 276.8, "20260210_090302")),
        ),
    )
    points = []
    for slug, checkpoint, quant, folder, tpot, levels in series:
        common = {
            "quantization": quant,
            "context": 42 + 128,
            "role": "holdout",
            "note": f"{checkpoint.replace('_', '/', 1)}; {note}",
            "origin": f"fresh7-palatine-{slug}-{quant}",
        }
        for streams, tps, stamp in levels:
            file = f"{checkpoint}_conc{streams}_in32000_out1024_low_context_chat_{stamp}.json"
            url = f"{base}{folder}/results/{file}"
            if streams == 1:
                assert tpot is not None
                points.append(
                    _pt(
                        f"{slug}-1-vllm-{quant}-palatine",
                        slug,
                        decode_tps=round(1000.0 / tpot, 2),
                        source=f"PalatineVision/dgx-spark-benchmark {file}: median_tpot_ms {tpot} at one stream "
                        "(1000 / TPOT)",
                        url=url,
                        **common,
                    )
                )
                continue
            points.append(
                _pt(
                    f"{slug}-1-vllm-{quant}-palatine-c{streams}",
                    slug,
                    concurrency=streams,
                    decode_tps=tps,
                    source=f"PalatineVision/dgx-spark-benchmark {file}: output_throughput {tps} (50 requests, "
                    f"max_concurrency {streams})",
                    url=url,
                    **common,
                )
            )
    return points


def fresh_2026_12_05_seventh() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the seventh set, collected on 2026-12-05, marked so."""
    points = (*_jvr(), *_repro_and_cz(), *_flash(), *_rykersun(), *_palatine())
    return tuple(replace(p, collected=COLLECTED_SEVENTH) for p in points)
