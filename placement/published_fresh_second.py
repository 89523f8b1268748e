"""Held-out runs collected on 2026-12-04, a second set, after the model was
frozen at daa5b2a: published Spark (GB10) figures transcribed from their
sources, turned into points before the model predicted any of them, and
nothing of the model changed for them.

What was taken, decided before any of them was predicted (the first set's
rules, ``placement.published_fresh``):

- Sparks (or other GB10 machines), vLLM, SGLang or llama.cpp, plain decoding
  (no MTP, EAGLE, NEXTN, DFlash or n-gram), a stated format, a model the
  catalogue knows; one stream's decode, all streams' decode together, or
  prefill at one stream.
- Left out: figures of completion tokens over wall time (they hold the
  prefill), runs on builds that patch kernels, checkpoints that mix formats
  the catalogue has no variant for, Ollama, and models the catalogue lacks.
- Sizes not stated: 256 tokens of context, as for every published figure.

And these, decided for this set:

- A run over 1 GbE RJ45 (or any link whose transport NCCL or RPC really used
  is not stated) is left out: the model knows 200G RoCE cables and switches,
  not a LAN.
- vLLM's "output token throughput" of N requests sent all at once with no
  concurrency cap and varied output lengths (ShareGPT) is not N streams for
  the run's length: left out; the same run's single request is kept (1/TPOT,
  ``derived``).
- llama.cpp RPC over the direct 200G QSFP cable: nodes 2, pp = nodes,
  backend "none", 200 Gb/s; RPC's transport is not stated, TCP over the cable
  assumed. A three-node star through one hub node has no faithful topology
  ("ring" is wrong for a star): left out.
- Repeats of one figure are each a figure when the source states them as
  separate runs (separate tables, pairs of nodes or logs), else their mean.
- A model the catalogue lacks (Llama-3.1-70B) stays out, even with the shape
  of one it has.
- Decode context: prompt + half the output when sizes are stated; llama-bench
  runs pp and tg as separate tests, so tgN at depth d is d + N/2 (tg256 at
  depth 0: 128). Combined pp+tg figures (-pg) would be left out; a prefill at
  a depth is left out (a point has no depth for its prefill; the depth series
  of ``published_series`` takes only tg at depth too).
- Mixed-type GGUF files (Unsloth's UD-Q4_K_XL, UD-Q8_K_XL) are read only when
  the source states their size; else left out.

Left out of the collected candidates:

- KoyoImai LLM_inference and LLM_inference5: every RJ45 1 Gb/s row (2 and 3
  nodes): a LAN. LLM_inference5's 3-node QSFP star (140.86 pp128, 17.95 tg256):
  no faithful topology.
- KoyoImai LLM_inference2 (gpt-oss-120b, vLLM): num-prompts 10, 100 and 250
  (all sent at once, ShareGPT, no concurrency cap); every RJ45 row (TP2 and
  TP4 over 1 GbE; NCCL's transport on it not stated).
- LMSYS: the 7,949 tok/s prefill at batch 32 (not one stream's prefill);
  Llama 3.1 70B and DeepSeek-R1 14B (not in the catalogue); Ollama figures.
- TrevorS/strieber-gpt-3: pp2048 at depths 4,096 to 32,768 (a prefill at a
  depth).
- mrdbourke/gpu-benchmarking llama-server runs (gpt-oss-20b UD-Q4_K_XL,
  Nemotron-3-Nano UD-Q8_K_XL): a mixed-type file the catalogue has no size or
  type for (the CSVs state no file size).
- The per-stream 1/TPOT of mrdbourke's vLLM Nemotron run at 10 streams: a
  point at 10 streams is their aggregate, which is kept.
- Stravica's long-context TTFTs (prefix caching on; deviations above the
  means).

Each series is one experiment (``origin``, prefixed "fresh2-"). GGUF files
are read at the size the run's llama-bench reported where it did
(``PUBLISHED_VARIANTS``), else at their type's bits per weight.
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_SECOND = "2026-12-04b"

# What the model frozen at daa5b2a predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen3-235b-a22b-1-llamacpp-q2k-koyo", "decode"): (26.49, 19.35, 34.67),
    ("qwen3-235b-a22b-1-llamacpp-q2k-koyo", "prefill"): (256.56, 149.69, 657.72),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1", "decode"): (15.48, 11.30, 20.25),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1", "prefill"): (256.56, 149.69, 657.72),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair2", "decode"): (15.48, 11.30, 20.25),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair2", "prefill"): (256.56, 149.69, 657.72),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1-pp8192", "decode"): (15.48, 11.30, 20.25),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1-pp8192", "prefill"): (493.82, 288.12, 1265.94),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1-tg2048", "decode"): (15.32, 11.19, 20.04),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1-tg2048", "prefill"): (493.82, 288.12, 1265.94),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1-tg8192", "decode"): (14.80, 10.81, 19.36),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1-tg8192", "prefill"): (493.82, 288.12, 1265.94),
    ("qwen3-235b-a22b-1-llamacpp-q2k-koyo-b8643", "decode"): (26.49, 19.35, 34.67),
    ("qwen3-235b-a22b-1-llamacpp-q2k-koyo-b8643", "prefill"): (256.56, 149.69, 657.72),
    ("qwen3-235b-a22b-1-llamacpp-q2k-koyo5", "decode"): (26.49, 19.35, 34.67),
    ("qwen3-235b-a22b-1-llamacpp-q2k-koyo5", "prefill"): (256.56, 149.69, 657.72),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo5", "decode"): (15.48, 11.30, 20.25),
    ("qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo5", "prefill"): (256.56, 149.69, 657.72),
    ("gpt-oss-120b-1-vllm-eager-koyo", "decode"): (48.79, 29.18, 104.13),
    ("gpt-oss-120b-2-tp2-ep2-vllm-eager-koyo", "decode"): (57.92, 34.64, 123.62),
    ("llama-3.1-8b-1-sglang-fp8-lmsys", "decode"): (23.09, 14.53, 32.05),
    ("llama-3.1-8b-1-sglang-fp8-lmsys", "prefill"): (961.28, 560.86, 2464.30),
    ("llama-3.1-8b-1-sglang-fp8-lmsys-c32", "aggregate"): (664.80, 442.67, 890.74),
    ("gpt-oss-20b-1-llamacpp-q4km-trevors", "decode"): (87.81, 64.13, 114.89),
    ("gpt-oss-20b-1-llamacpp-q4km-trevors", "prefill"): (3579.61, 2088.54, 9176.58),
    ("gpt-oss-20b-1-llamacpp-q4km-trevors-d4096", "decode"): (84.82, 61.95, 110.97),
    ("gpt-oss-20b-1-llamacpp-q4km-trevors-d8192", "decode"): (82.09, 59.96, 107.41),
    ("gpt-oss-20b-1-llamacpp-q4km-trevors-d16384", "decode"): (77.14, 56.34, 100.93),
    ("gpt-oss-20b-1-llamacpp-q4km-trevors-d32768", "decode"): (68.84, 50.28, 90.07),
    ("nemotron-3-nano-30b-a3b-1-vllm-fp8-mrdbourke-c10", "aggregate"): (159.12, 107.48, 185.28),
    ("nemotron-3-nano-30b-a3b-1-vllm-fp8-mrdbourke-c10-0129", "aggregate"): (159.12, 107.48, 185.28),
    ("qwen3-32b-1-vllm-fp8-stravica-1258", "decode"): (6.25, 3.90, 8.80),
    ("qwen3-32b-1-vllm-fp8-stravica-1711", "decode"): (6.25, 3.90, 8.80),
    ("qwen3-30b-a3b-1-vllm-fp8-stravica-1258", "decode"): (45.19, 28.21, 63.69),
    ("qwen3-30b-a3b-1-vllm-fp8-stravica-1711", "decode"): (45.19, 28.21, 63.69),
    ("llama-3.3-70b-1-vllm-fp8-stravica-1258", "decode"): (2.97, 1.86, 4.19),
    ("llama-3.3-70b-1-vllm-fp8-stravica-1711", "decode"): (2.97, 1.86, 4.19),
}

KOYO = "https://github.com/KoyoImai/dgx_spark_cluster/blob/150137a481fe016bd6dc946660378158250f6344/"
KOYO_RPC = KOYO + "LLM_inference/README.md"
KOYO_SINGLE = KOYO + "LLM/README.md"
KOYO_STAR = KOYO + "LLM_inference5/README.md"
KOYO_VLLM = KOYO + "LLM_inference2/README.md"
LMSYS = (
    "https://github.com/lm-sys/lm-sys.github.io/blob/304936053ec495e26d7b83f0ceb85e9a0787ba14/blog/"
    "2025-10-13-nvidia-dgx-spark.md"
)
TREVORS = (
    "https://github.com/TrevorS/strieber-gpt-3/blob/0d3f1ef56c8d43da1db18eac6b4d0fd042a459e7/benchmarks/"
    "RESULTS-ANALYSIS.md"
)
MRDBOURKE = (
    "https://github.com/mrdbourke/gpu-benchmarking/blob/30e8b4bc94139e751ea32c0a8d578e35abee3cd7/"
    "benchmark_results/NVIDIA_GB10/vLLM_NVIDIA_GB10_NVIDIA_Nemotron_3_Nano_30B_A3B_FP8_text_only_"
)
MRDBOURKE_0130 = MRDBOURKE + "20260130_015912.txt"
MRDBOURKE_0129 = MRDBOURKE + "20260129_043248.txt"
STRAVICA = (
    "https://github.com/Stravica/nvidia-spark/blob/63b2f190c3096cae90e8371f9fca67e1d5ffdf2a/docs/reports/"
    "model-comparison-2025-11-09T"
)
STRAVICA_1258 = STRAVICA + "12-58-21-675Z.md"
STRAVICA_1711 = STRAVICA + "17-11-44-162Z.txt"

_Q2K = "Qwen3-235B-A22B Q2_K (79.80 GiB)"
_RPC = {
    "nodes": 2,
    "topology": "direct",
    "backend": "none",
    "pp": 2,
    "link_gbps": 200.0,
}
_RPC_NOTE = (
    "llama.cpp RPC (rpc-server on the second Spark): a layer split over the direct 200G QSFP cable; "
    "RPC's transport not stated, TCP over the cable assumed"
)


def _koyo_rpc() -> list[PublishedPoint]:
    """KoyoImai/dgx_spark_cluster, LLM_inference: llama-bench (-ngl 99 -r 3)
    of Qwen3-235B-A22B Q2_K on one Spark and over RPC on two Sparks joined by a
    QSFP cable (two pairs of nodes), four measurement conditions: pp128/tg256,
    then pp8192 with tg256, tg2048 and tg8192 (pair 1 only)."""
    src = f"KoyoImai/dgx_spark_cluster LLM_inference, llama-bench {_Q2K}"
    common = {
        "engine": "llama.cpp",
        "quantization": "Q2_K",
        "role": "holdout",
        "url": KOYO_RPC,
        "origin": "fresh2-koyo-llamacpp-rpc",
    }
    two = {**common, **_RPC}
    build = "; build 25eec6f32 (8672) is logged for the pair-1 run only, the others' not stated"
    rpc_runs = (  # key part, condition, pp prompt, pp t/s, tg tokens, tg t/s
        ("pair1", "condition 1, pair 1 (node15-16)", 128, 110.26, 256, 16.50),
        ("pair2", "condition 1, pair 2 (node17-18)", 128, 106.96, 256, 16.18),
        ("pair1-pp8192", "condition 2, pair 1", 8192, 191.53, 256, 16.64),
        ("pair1-tg2048", "condition 3, pair 1", 8192, 195.53, 2048, 16.00),
        ("pair1-tg8192", "condition 4, pair 1", 8192, 189.18, 8192, 13.99),
    )
    return [
        _pt(
            "qwen3-235b-a22b-1-llamacpp-q2k-koyo",
            "qwen3-235b-a22b",
            decode_tps=18.47,
            prefill_tps=138.20,
            context=128,
            prompt=128,
            source=f"{src}, one Spark: pp128 138.20, tg256 18.47",
            note="read at the 79.80 GiB llama-bench reported; build not stated",
            **common,
        ),
        *(
            _pt(
                f"qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-{part}",
                "qwen3-235b-a22b",
                decode_tps=tg,
                prefill_tps=pp,
                context=tokens // 2,
                prompt=prompt,
                source=f"{src}, 2 Sparks QSFP 200Gbps RPC, {condition}: pp{prompt} {pp:.2f}, tg{tokens} {tg:.2f}",
                note=_RPC_NOTE + build + "; read at the 79.80 GiB llama-bench reported",
                **two,
            )
            for part, condition, prompt, pp, tokens, tg in rpc_runs
        ),
    ]


def _koyo_single() -> list[PublishedPoint]:
    """KoyoImai/dgx_spark_cluster, LLM: the lab's first single-Spark
    llama-bench log (build f49e91787, 8643; -ngl 99 -p 128 -n 256 -r 3)."""
    return [
        _pt(
            "qwen3-235b-a22b-1-llamacpp-q2k-koyo-b8643",
            "qwen3-235b-a22b",
            engine="llama.cpp",
            quantization="Q2_K",
            decode_tps=17.54,
            prefill_tps=134.11,
            context=128,
            prompt=128,
            role="holdout",
            source=f"KoyoImai/dgx_spark_cluster LLM, llama-bench build f49e91787 (8643), {_Q2K}: "
            "pp128 134.11, tg256 17.54",
            note="read at the 79.80 GiB llama-bench reported",
            url=KOYO_SINGLE,
            origin="fresh2-koyo-llamacpp-single",
        )
    ]


def _koyo_star() -> list[PublishedPoint]:
    """KoyoImai/dgx_spark_cluster, LLM_inference5 (2026-04-17): llama-bench
    (-p 128 -n 256 -r 3, build not stated) on one Spark and over RPC on two
    Sparks on one QSFP cable (the hub node15 and node16). Its 3-node star and
    RJ45 rows are left out (the module's docstring)."""
    src = f"KoyoImai/dgx_spark_cluster LLM_inference5, llama-bench {_Q2K}"
    common = {
        "engine": "llama.cpp",
        "quantization": "Q2_K",
        "role": "holdout",
        "url": KOYO_STAR,
        "origin": "fresh2-koyo5-llamacpp-rpc",
        "context": 128,
        "prompt": 128,
    }
    return [
        _pt(
            "qwen3-235b-a22b-1-llamacpp-q2k-koyo5",
            "qwen3-235b-a22b",
            decode_tps=15.63,
            prefill_tps=108.30,
            source=f"{src}, one Spark: pp128 108.30, tg256 15.63",
            note="read at the 79.80 GiB llama-bench reported; build not stated",
            **common,
        ),
        _pt(
            "qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo5",
            "qwen3-235b-a22b",
            decode_tps=15.99,
            prefill_tps=108.85,
            source=f"{src}, 2 Sparks QSFP 200Gbps RPC: pp128 108.85, tg256 15.99",
            note=_RPC_NOTE + "; build not stated; read at the 79.80 GiB llama-bench reported",
            **common,
            **_RPC,
        ),
    ]


def _koyo_vllm() -> list[PublishedPoint]:
    """KoyoImai/dgx_spark_cluster, LLM_inference2 (2026-04-14): gpt-oss-120b
    MXFP4 on vLLM 0.11.0 (nvcr.io/nvidia/vllm:25.11-py3, Ray) with
    --enable-expert-parallel --enforce-eager, ``vllm bench serve`` on ShareGPT
    with num-prompts 1: one Spark (TP1) and two on a QSFP cable (TP2, experts
    split over both), one request's decode as 1/TPOT."""
    src = "KoyoImai/dgx_spark_cluster LLM_inference2, vLLM 0.11.0 gpt-oss-120b MXFP4, ShareGPT num-prompts 1"
    common = {
        "quantization": "mxfp4",
        "mode": "eager",
        "derived": True,
        "role": "holdout",
        "url": KOYO_VLLM,
        "origin": "fresh2-koyo-vllm-gptoss",
    }
    lengths = "ShareGPT prompt and output lengths not stated: 256 tokens of context assumed"
    return [
        _pt(
            "gpt-oss-120b-1-vllm-eager-koyo",
            "gpt-oss-120b",
            decode_tps=round(1000 / 30.64, 2),
            source=f"{src}, one Spark TP1: Mean TPOT 30.64 ms (Output tok/s 32.28)",
            note=f"1/TPOT; --enable-expert-parallel does nothing at TP1; {lengths}",
            **common,
        ),
        _pt(
            "gpt-oss-120b-2-tp2-ep2-vllm-eager-koyo",
            "gpt-oss-120b",
            nodes=2,
            topology="direct",
            backend="nccl",
            tp=2,
            ep=2,
            link_gbps=200.0,
            decode_tps=round(1000 / 22.33, 2),
            source=f"{src}, 2 Sparks QSFP 200Gbps TP2 + EP: Mean TPOT 22.33 ms (Output tok/s 44.36)",
            note="1/TPOT; NCCL on the QSFP interface with NCCL_IB_DISABLE=0 and NCCL_NET_GDR_LEVEL=5 (RoCE set, "
            f"no NCCL log shown); {lengths}",
            **common,
        ),
    ]


def _lmsys() -> list[PublishedPoint]:
    """LMSYS's DGX Spark review (2025-10-13): SGLang (lmsysorg/sglang:spark,
    version not stated), Llama 3.1 8B FP8 on one Spark, batch 1 and 32."""
    src = "LMSYS NVIDIA DGX Spark In-Depth Review, SGLang Llama 3.1 8B (FP8)"
    common = {
        "engine": "sglang",
        "quantization": "fp8",
        "role": "holdout",
        "url": LMSYS,
        "origin": "fresh2-lmsys-sglang",
        "note": "prompt and output lengths not stated (the figures' sheet is not stored): 256 tokens of context "
        "and a 2,048-token prompt assumed; SGLang version not stated",
    }
    return [
        _pt(
            "llama-3.1-8b-1-sglang-fp8-lmsys",
            "llama-3.1-8b",
            decode_tps=20.5,
            prefill_tps=7991.0,
            source=f"{src}: 'at batch 1, it achieved 7,991 tps prefill / 20.5 tps decode'",
            **common,
        ),
        _pt(
            "llama-3.1-8b-1-sglang-fp8-lmsys-c32",
            "llama-3.1-8b",
            concurrency=32,
            decode_tps=368.0,
            source=f"{src}: 'scaling up linearly to 7,949 tps / 368 tps at batch 32' (decode, all streams)",
            **common,
        ),
    ]


def _trevors() -> list[PublishedPoint]:
    """TrevorS/strieber-gpt-3 benchmarks (2025-11-03): llama-bench of
    gpt-oss-20b 'Q4_K_M' on a GB10 (flash attention, ubatch 2048, mmap off,
    5 repetitions; build not stated): pp2048 and tg32 at depths 0 to 32,768.
    The prefills at a depth are left out."""
    src = "TrevorS/strieber-gpt-3 RESULTS-ANALYSIS.md, llama-bench gpt-oss-20b Q4_K_M"
    common = {
        "engine": "llama.cpp",
        "quantization": "Q4_K_M",
        "role": "holdout",
        "url": TREVORS,
        "origin": "fresh2-trevors-llamacpp",
        "note": "file size not stated: read at Q4_K_M's bits per weight (llama.cpp's gpt-oss files keep the "
        "experts in MXFP4 whatever the label); build not stated",
    }
    return [
        _pt(
            "gpt-oss-20b-1-llamacpp-q4km-trevors",
            "gpt-oss-20b",
            decode_tps=90.06,
            prefill_tps=3713.75,
            context=16,
            prompt=2048,
            source=f"{src}: depth 0, pp2048 3,713.75, tg32 90.06",
            **common,
        ),
        *(
            _pt(
                f"gpt-oss-20b-1-llamacpp-q4km-trevors-d{depth}",
                "gpt-oss-20b",
                decode_tps=tps,
                context=depth + 16,
                source=f"{src}: tg32 @ d{depth} {tps:.2f}",
                **common,
            )
            for depth, tps in ((4096, 81.15), (8192, 76.21), (16384, 69.39), (32768, 60.30))
        ),
    ]


def _mrdbourke_vllm() -> list[PublishedPoint]:
    """mrdbourke/gpu-benchmarking: vLLM 0.12.0 (nvcr.io/nvidia/vllm:25.12.post1-py3)
    serving NVIDIA's Nemotron-3-Nano-30B-A3B FP8 on one Spark (fp8 KV cache),
    ``vllm bench serve`` random dataset, 100 prompts at most 10 at once, input
    1,000 and output 300 tokens (range ratio 0.3, --ignore-eos): two logged
    runs, each its own figure."""
    src = "mrdbourke/gpu-benchmarking, vLLM 0.12.0 Nemotron-3-Nano-30B-A3B-FP8, max concurrency 10"
    common = {
        "quantization": "fp8",
        "concurrency": 10,
        "context": 1000 + 150,
        "role": "holdout",
        "origin": "fresh2-mrdbourke-vllm-nemotron",
        "note": "Output token throughput over the run (100 requests, at most 10 at once; holds the prefills and "
        "the tail); lengths 1,000 in / 300 out +-30%; fp8 KV cache",
    }
    return [
        _pt(
            "nemotron-3-nano-30b-a3b-1-vllm-fp8-mrdbourke-c10",
            "nemotron-3-nano-30b-a3b",
            decode_tps=146.06,
            source=f"{src}, run 2026-01-30: Output token throughput (tok/s): 146.06",
            url=MRDBOURKE_0130,
            **common,
        ),
        _pt(
            "nemotron-3-nano-30b-a3b-1-vllm-fp8-mrdbourke-c10-0129",
            "nemotron-3-nano-30b-a3b",
            decode_tps=128.59,
            source=f"{src}, run 2026-01-29: Output token throughput (tok/s): 128.59",
            url=MRDBOURKE_0129,
            **common,
        ),
    ]


def _stravica() -> list[PublishedPoint]:
    """Stravica/nvidia-spark model comparisons (2025-11-09): vLLM
    0.10.1.1 (nvcr.io/nvidia/vllm:25.09-py3) on one Spark, one streaming
    request of 500 output tokens, decode as tokens over the time after the
    first token, mean of 3 iterations; two reports, each its own run."""
    runs = (  # key part, slug, checkpoint, prompt tokens, report 12:58, report 17:11
        ("qwen3-32b", "qwen3-32b", "Qwen/Qwen3-32B-FP8", 34, 6.21, 6.25),
        (
            "qwen3-30b-a3b",
            "qwen3-30b-a3b",
            "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8 (the same architecture)",
            34,
            41.28,
            42.02,
        ),
        ("llama-3.3-70b", "llama-3.3-70b", "nvidia/Llama-3.3-70B-Instruct-FP8", 61, 2.80, 2.74),
    )
    src = "Stravica/nvidia-spark model comparison, vLLM 0.10.1.1"
    return [
        _pt(
            f"{key}-1-vllm-fp8-stravica-{report}",
            slug,
            quantization="fp8",
            decode_tps=tps,
            context=prompt + 250,
            role="holdout",
            source=f"{src}, report {report[:2]}:{report[2:]}: {checkpoint}, TPS (tok/s) {tps:.2f}",
            note=f"{prompt}-token prompt, 500 tokens out; prefix caching on",
            url=url,
            origin="fresh2-stravica-vllm",
        )
        for key, slug, checkpoint, prompt, early, late in runs
        for report, tps, url in (("1258", early, STRAVICA_1258), ("1711", late, STRAVICA_1711))
    ]


def fresh_2026_12_04_second() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the second set collected on 2026-12-04, marked so."""
    points = (
        *_koyo_rpc(),
        *_koyo_single(),
        *_koyo_star(),
        *_koyo_vllm(),
        *_lmsys(),
        *_trevors(),
        *_mrdbourke_vllm(),
        *_stravica(),
    )
    return tuple(replace(p, collected=COLLECTED_SECOND) for p in points)
