"""Held-out runs collected on 2026-12-04, after the performance model was
frozen (``placement.perfmodel.report.FRESH``): constants, residuals and the
range method as they stood at that commit predicted these figures once, and
nothing of the model was changed for them.

What was taken, decided before any of them was predicted:

- Sparks (or other GB10 machines), vLLM, SGLang or llama.cpp, plain decoding
  (no MTP, EAGLE, NEXTN, DFlash or n-gram), a stated format, a model the
  catalogue knows; one stream's decode, all streams' decode together, or
  prefill at one stream.
- Left out: figures of completion tokens over wall time (they hold the
  prefill), runs on builds that patch kernels (a patched Marlin, FlashInfer
  and vLLM pull requests applied to a source build), checkpoints that mix
  formats the catalogue has no variant for (int4 with FP8 shared experts,
  NVFP4 MLPs with FP8 attention), Ollama, and models the catalogue lacks.
- Sizes not stated: 256 tokens of context, as for every published figure.

Each series is one experiment (``origin``). GGUF files are read at the size
the run's llama-bench reported where it did (``PUBLISHED_VARIANTS``), else
at their type's bits per weight. ``docs/figures.md`` lists them all.
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt, llama_batched_points

COLLECTED = "2026-12-04"

NEMOTRON_BENCH = "https://github.com/ggml-org/llama.cpp/blob/master/benches/nemotron/nemotron-dgx-spark.md"
DANDINPOWER = "https://github.com/DandinPower/llama.cpp_bench/blob/99971a00ad879741cdae8f5ea07b758b45d53f45/dgx_spark/"
ELSUNG = (
    "https://github.com/elsung/dgx-spark-deepseek-v4-flash/blob/77b5fdf53a22b183efbf058c75a43f947aac9669/"
    "results/llamacpp-gb10.md"
)
ENTRPI = "https://github.com/Entrpi/qwen3.5-122B-A10B-on-spark/blob/1d0f2e1af3c4953783af554a07110738bc891d6b/README.md"
KUBESIMPLIFY = (
    "https://github.com/kubesimplify/website/blob/c3935fb39b712624992004e48e4e2cc7d05bd477/content/blog/"
    "qwen3-8-27b-on-dgx-spark.md"
)

# What the model frozen at f4e432a predicted for each figure, once: (key, metric): (predicted,
# low, high). tests/placement/test_perfmodel.py keeps the model's predictions here: a change that
# moves one means the set has been seen by a changed model (see the module's docstring).
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("nemotron-super-1-llamacpp", "decode"): (25.67, 18.75, 33.59),
    ("nemotron-super-1-llamacpp", "prefill"): (1098.27, 640.79, 2815.49),
    ("nemotron-super-1-llamacpp-d32768", "decode"): (25.00, 18.26, 32.71),
    ("nemotron-super-1-llamacpp-batched-c4", "aggregate"): (51.49, 31.71, 67.16),
    ("nemotron-super-1-llamacpp-batched-c8", "aggregate"): (65.32, 40.22, 85.20),
    ("nemotron-super-1-llamacpp-batched-c32", "aggregate"): (92.19, 56.77, 120.25),
    ("qwen3-30b-a3b-1-llamacpp-q4km", "decode"): (83.01, 60.63, 108.61),
    ("qwen3-30b-a3b-1-llamacpp-q4km", "prefill"): (2736.81, 1596.81, 7016.01),
    ("qwen3-32b-1-llamacpp-q4km", "decode"): (12.16, 8.88, 15.92),
    ("qwen3-32b-1-llamacpp-q4km", "prefill"): (537.59, 313.66, 1378.15),
    ("qwen3-8b-1-llamacpp-q4km", "decode"): (42.90, 31.33, 56.13),
    ("qwen3-8b-1-llamacpp-q4km", "prefill"): (2150.78, 1254.89, 5513.68),
    ("qwen3-30b-a3b-1-llamacpp-q4km-d2048", "decode"): (79.15, 57.81, 103.57),
    ("qwen3.6-35b-a3b-1-llamacpp-elsung", "decode"): (76.22, 55.67, 99.72),
    ("qwen3.6-35b-a3b-1-llamacpp-elsung", "prefill"): (2871.32, 1675.29, 7360.85),
    ("qwen3.6-27b-1-llamacpp-elsung", "decode"): (14.49, 10.58, 18.96),
    ("qwen3.6-27b-1-llamacpp-elsung", "prefill"): (636.52, 371.38, 1631.77),
    ("gemma-3-27b-1-llamacpp-elsung", "decode"): (15.46, 11.29, 20.22),
    ("gemma-3-27b-1-llamacpp-elsung", "prefill"): (645.74, 376.76, 1655.40),
    ("qwen3.5-122b-1-int4-entrpi", "decode"): (28.48, 17.52, 41.41),
    ("qwen3.8-27b-1-llamacpp-kubesimplify", "decode"): (12.76, 9.32, 16.69),
    ("qwen3.8-27b-1-llamacpp-kubesimplify", "prefill"): (651.66, 380.22, 1670.59),
    ("qwen3.8-27b-1-vllm-fp8-kubesimplify", "decode"): (7.27, 4.47, 10.57),
    ("qwen3.8-27b-1-vllm-fp8-kubesimplify", "prefill"): (1847.02, 1754.67, 5747.88),
    ("qwen3.8-27b-1-vllm-fp8-kubesimplify-c10", "aggregate"): (66.71, 45.06, 77.68),
    ("qwen3.8-27b-1-vllm-nvfp4-kubesimplify", "decode"): (12.09, 7.44, 17.57),
    ("qwen3.8-27b-1-vllm-nvfp4-kubesimplify", "prefill"): (2676.77, 2542.93, 8330.05),
    ("qwen3.8-27b-1-vllm-nvfp4-kubesimplify-c2", "aggregate"): (23.78, 16.06, 27.69),
    ("qwen3.8-27b-1-vllm-nvfp4-kubesimplify-c5", "aggregate"): (56.68, 38.28, 66.00),
    ("qwen3.8-27b-1-vllm-nvfp4-kubesimplify-c10", "aggregate"): (105.18, 71.05, 122.48),
    ("qwen3.8-27b-1-vllm-nvfp4-kubesimplify-d100k", "decode"): (8.89, 5.47, 12.92),
    ("qwen3.8-27b-1-sglang-fp8-kubesimplify", "decode"): (7.27, 4.57, 10.09),
    ("qwen3.8-27b-1-sglang-fp8-kubesimplify", "prefill"): (304.20, 177.49, 779.83),
    ("qwen3.8-27b-1-sglang-fp8-kubesimplify-c10", "aggregate"): (66.71, 41.08, 87.02),
    ("gpt-oss-120b-1-llamacpp-batched-c2", "aggregate"): (85.36, 52.56, 111.33),
    ("gpt-oss-120b-1-llamacpp-batched-c4", "aggregate"): (113.57, 69.93, 148.13),
    ("gpt-oss-120b-1-llamacpp-batched-c8", "aggregate"): (145.76, 89.76, 190.12),
    ("gpt-oss-120b-1-llamacpp-batched-c16", "aggregate"): (183.67, 113.10, 239.57),
    ("gpt-oss-120b-1-llamacpp-batched-c32", "aggregate"): (230.99, 142.24, 301.29),
    ("qwen3-coder-30b-a3b-1-llamacpp-batched-c2", "aggregate"): (79.38, 48.88, 103.54),
    ("qwen3-coder-30b-a3b-1-llamacpp-batched-c4", "aggregate"): (105.58, 65.01, 137.71),
    ("qwen3-coder-30b-a3b-1-llamacpp-batched-c8", "aggregate"): (134.21, 82.64, 175.05),
    ("qwen3-coder-30b-a3b-1-llamacpp-batched-c16", "aggregate"): (166.10, 102.28, 216.64),
    ("qwen3-coder-30b-a3b-1-llamacpp-batched-c32", "aggregate"): (202.95, 124.98, 264.72),
    ("gemma-3-4b-1-llamacpp-batched-c2", "aggregate"): (146.35, 90.12, 190.88),
    ("gemma-3-4b-1-llamacpp-batched-c4", "aggregate"): (280.95, 173.01, 366.45),
    ("gemma-3-4b-1-llamacpp-batched-c8", "aggregate"): (520.16, 320.31, 678.46),
    ("gemma-3-4b-1-llamacpp-batched-c16", "aggregate"): (905.76, 557.76, 1181.41),
    ("gemma-3-4b-1-llamacpp-batched-c32", "aggregate"): (1439.22, 886.25, 1877.21),
}


def _nemotron_bench() -> list[PublishedPoint]:
    """llama.cpp's own Nemotron-3-Super bench on a DGX Spark (build 04a65daab,
    8268; ggml-org/Nemotron-3-Super-120B-GGUF, 'nemotron 120B.A12B Q4_K',
    65.10 GiB): llama-bench tg32 and pp2048 with flash attention, and
    llama-batched-bench (512-token prompts, 32 tokens out per sequence)."""
    src = "llama.cpp benches/nemotron/nemotron-dgx-spark.md (build 04a65daab), Nemotron-3-Super Q4_K"
    common = {
        "engine": "llama.cpp",
        "quantization": "Q4_K_M",
        "role": "holdout",
        "url": NEMOTRON_BENCH,
        "origin": "llamacpp-nemotron-super-bench",
        "note": "llama-bench names the file's type Q4_K; read at the 65.10 GiB it reported",
    }
    return [
        _pt(
            "nemotron-super-1-llamacpp",
            "nemotron-3-super-120b-a12b",
            decode_tps=19.94,
            prefill_tps=768.84,
            context=16,
            source=f"{src}: tg32 19.94, pp2048 768.84",
            **common,
        ),
        _pt(
            "nemotron-super-1-llamacpp-d32768",
            "nemotron-3-super-120b-a12b",
            decode_tps=19.45,
            context=32768 + 16,
            source=f"{src}: tg32 @ d32768 19.45",
            **common,
        ),
        *(
            _pt(
                f"nemotron-super-1-llamacpp-batched-c{streams}",
                "nemotron-3-super-120b-a12b",
                concurrency=streams,
                decode_tps=tps,
                context=512 + 16,
                source=f"{src}: llama-batched-bench PP 512, TG 32, B {streams}, S_TG {tps:g} t/s (all sequences)",
                **common,
            )
            for streams, tps in ((4, 31.66), (8, 41.62), (32, 56.16))
        ),
    ]


def _dandinpower() -> list[PublishedPoint]:
    """One lab's llama-bench logs on a DGX Spark (build e95d0bc8f, 7280; flash
    attention, all layers on the GPU, five repetitions): tg256 at a depth of
    512 tokens (and 2,048 for one model) and pp512, Q4_K_M files."""
    runs = (  # key part, slug, tg256 @ d512, pp512, the model's name
        ("qwen3-30b-a3b", "qwen3-30b-a3b", 89.80, 2541.61, "Qwen3-30B-A3B-Instruct-2507 (the same architecture)"),
        ("qwen3-32b", "qwen3-32b", 10.75, 762.22, "Qwen3-32B"),
        ("qwen3-8b", "qwen3-8b", 43.94, 3167.93, "Qwen3-8B"),
    )
    src = "DandinPower/llama.cpp_bench, dgx_spark (build e95d0bc8f)"
    common = {
        "engine": "llama.cpp",
        "quantization": "Q4_K_M",
        "role": "holdout",
        "url": DANDINPOWER + "decoding.log",
        "origin": "dandinpower-llamacpp",
    }
    points = [
        _pt(
            f"{key}-1-llamacpp-q4km",
            slug,
            decode_tps=tg,
            prefill_tps=pp,
            context=512 + 128,
            prompt=512,
            source=f"{src}: {name} Q4_K_M, tg256 @ d512 {tg:g}, pp512 {pp:g}",
            **common,
        )
        for key, slug, tg, pp, name in runs
    ]
    points.append(
        _pt(
            "qwen3-30b-a3b-1-llamacpp-q4km-d2048",
            "qwen3-30b-a3b",
            decode_tps=84.40,
            context=2048 + 128,
            source=f"{src}: Qwen3-30B-A3B-Instruct-2507 Q4_K_M, tg256 @ d2048 84.40",
            **common,
        )
    )
    return points


def _elsung() -> list[PublishedPoint]:
    """A lab's llama-bench table on one GB10 (-ngl 999 -fa 1 -p 512 -n 128 -r 3;
    the build is not stated, and the repository says an agent ran the suite)."""
    runs = (  # key, slug, variant, file, pp512, tg128
        ("qwen3.6-35b-a3b", "qwen3.6-35b-a3b", "Q4_K_M", "Qwen3.6-35B-A3B-UD-Q4_K_M.gguf", 2305.0, 67.4),
        ("qwen3.6-27b", "qwen3.6-27b", "IQ4_XS", "Qwen3.6-27B-IQ4_XS.gguf", 898.9, 13.7),
        ("gemma-3-27b", "gemma-3-27b", "Q4_0", "gemma-3-27B-it-QAT-Q4_0.gguf", 1030.6, 13.8),
    )
    return [
        _pt(
            f"{key}-1-llamacpp-elsung",
            slug,
            engine="llama.cpp",
            quantization=variant,
            decode_tps=tg,
            prefill_tps=pp,
            context=64,
            prompt=512,
            role="holdout",
            source=f"elsung/dgx-spark-deepseek-v4-flash, results/llamacpp-gb10.md: {file}, pp512 {pp:g}, tg128 {tg:g}",
            note="file size not stated: read at its type's bits per weight; llama.cpp build not stated",
            url=ELSUNG,
            origin="elsung-llamacpp",
        )
        for key, slug, variant, file, pp, tg in runs
    ]


def _entrpi() -> list[PublishedPoint]:
    """Qwen3.5-122B-A10B's plain int4 profile ('base': no speculative
    decoding) on vLLM 0.23 (a community sm121 image), one stream."""
    return [
        _pt(
            "qwen3.5-122b-1-int4-entrpi",
            "qwen3.5-122b-a10b",
            decode_tps=28.2,
            quantization="int4",
            mode="graphs",
            role="holdout",
            source="Entrpi/qwen3.5-122B-A10B-on-spark: profile 'base', plain INT4, no speculative decode, "
            "28.2 tok/s c=1 (vLLM 0.23, CUDA graphs captured at boot)",
            note="prompt and output lengths not stated: 256 tokens of context assumed",
            url=ENTRPI,
            origin="entrpi-qwen122",
        )
    ]


def _kubesimplify() -> list[PublishedPoint]:
    """kubesimplify.com's Qwen3.8-27B on one DGX Spark (2026-08-17): llama.cpp
    b10423 (Unsloth's UD-Q4_K_XL, 16.68 GiB; llama-bench tg128 and pp2048),
    vLLM 0.27.2rc1 (spark-arena's nightly image, fp8 KV cache, no MTP) in FP8
    and NVFP4, and SGLang (lmsysorg/sglang:latest-cu130) in FP8 with NEXTN off,
    each measured with llama-benchy pp2048 tg128 at 1 to 10 streams."""
    src = "kubesimplify.com, Running Qwen3.8-27B on DGX Spark (2026-08-17)"
    bench = {"context": 2048 + 64, "prompt": 2048, "role": "holdout", "url": KUBESIMPLIFY}
    vllm_fp8 = {**bench, "quantization": "fp8", "origin": "kubesimplify-qwen38-vllm-fp8"}
    vllm_fp4 = {**bench, "quantization": "nvfp4", "origin": "kubesimplify-qwen38-vllm-nvfp4"}
    sglang = {**bench, "engine": "sglang", "quantization": "fp8", "origin": "kubesimplify-qwen38-sglang-fp8"}
    nvfp4_note = "Unsloth's NVFP4 checkpoint (unsloth/Qwen3.8-27B-NVFP4)"
    return [
        _pt(
            "qwen3.8-27b-1-llamacpp-kubesimplify",
            "qwen3.8-27b",
            engine="llama.cpp",
            quantization="Q4_K_M",
            decode_tps=11.6,
            prefill_tps=837.4,
            context=64,
            prompt=2048,
            role="holdout",
            source=f"{src}: llama.cpp b10423, UD-Q4_K_XL, tg128 11.6, pp2048 837.4",
            note="Unsloth's UD-Q4_K_XL mix, read at the 16.68 GiB the post gives",
            url=KUBESIMPLIFY,
            origin="kubesimplify-qwen38-llamacpp",
        ),
        _pt(
            "qwen3.8-27b-1-vllm-fp8-kubesimplify",
            "qwen3.8-27b",
            decode_tps=8.2,
            prefill_tps=1914.0,
            source=f"{src}: vLLM 0.27.2rc1 FP8, c1: pp2048 1,914, tg128 8.2",
            **vllm_fp8,
        ),
        _pt(
            "qwen3.8-27b-1-vllm-fp8-kubesimplify-c10",
            "qwen3.8-27b",
            concurrency=10,
            decode_tps=57.9,
            source=f"{src}: vLLM 0.27.2rc1 FP8, c10: 57.9 tok/s all streams",
            **vllm_fp8,
        ),
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-kubesimplify",
            "qwen3.8-27b",
            decode_tps=11.5,
            prefill_tps=1794.0,
            source=f"{src}: vLLM 0.27.2rc1 NVFP4, c1: pp2048 1,794, tg128 11.5",
            note=nvfp4_note,
            **vllm_fp4,
        ),
        *(
            _pt(
                f"qwen3.8-27b-1-vllm-nvfp4-kubesimplify-c{streams}",
                "qwen3.8-27b",
                concurrency=streams,
                decode_tps=tps,
                source=f"{src}: vLLM 0.27.2rc1 NVFP4, c{streams}: {tps:g} tok/s all streams",
                note=nvfp4_note,
                **vllm_fp4,
            )
            for streams, tps in ((2, 21.6), (5, 49.8), (10, 84.3))
        ),
        _pt(
            "qwen3.8-27b-1-vllm-nvfp4-kubesimplify-d100k",
            "qwen3.8-27b",
            decode_tps=9.8,
            source=f"{src}: vLLM 0.27.2rc1 NVFP4, 'decode at 100K context depth is still 9.8 t/s single-stream'",
            note=nvfp4_note + "; fp8 KV cache",
            **{**vllm_fp4, "context": 100_000 + 64},
        ),
        _pt(
            "qwen3.8-27b-1-sglang-fp8-kubesimplify",
            "qwen3.8-27b",
            decode_tps=7.7,
            prefill_tps=1225.0,
            source=f"{src}: SGLang latest-cu130 FP8, NEXTN off, c1: pp2048 1,225, tg128 7.7",
            **sglang,
        ),
        _pt(
            "qwen3.8-27b-1-sglang-fp8-kubesimplify-c10",
            "qwen3.8-27b",
            concurrency=10,
            decode_tps=54.3,
            source=f"{src}: SGLang latest-cu130 FP8, NEXTN off, c10: 54.3 tok/s all streams",
            **sglang,
        ),
    ]


def _llama_batched() -> list[PublishedPoint]:
    """llama-batched-bench on a DGX Spark, from llama.cpp's benches page
    (build 2f68ce7cf, beside its llama-bench figures): B sequences of a
    512-token prompt decode 32 tokens each at once, S_TG being all their
    tokens over the time; B = 2 to 32. Found after the set's first report,
    while looking for llama.cpp runs at several streams (the model borrows
    vLLM's batching for llama.cpp), and taken by the same rules, before any
    change to the model: the three models the page's llama-bench figures hold
    out. The two it trains on (gpt-oss-20b, Qwen2.5-Coder-7B) have tables
    too; they are for the next fit, which would also make these no longer
    unseen."""
    table = {  # (model, variant): S_TG at B = 2, 4, 8, 16, 32
        ("gpt-oss-120b", "MXFP4_MOE"): (60.35, 95.08, 146.65, 220.02, 312.56),
        ("qwen3-coder-30b-a3b", "Q8_0"): (64.11, 102.01, 154.91, 232.98, 345.01),
        ("gemma-3-4b", "Q4_0"): (126.21, 231.11, 369.93, 550.47, 801.81),
    }
    return llama_batched_points(table, role="holdout", origin="llamacpp-benches-batched")


def fresh_2026_12_04() -> tuple[PublishedPoint, ...]:
    """Every held-out figure collected on 2026-12-04, marked so."""
    points = (*_nemotron_bench(), *_dandinpower(), *_elsung(), *_entrpi(), *_kubesimplify(), *_llama_batched())
    return tuple(replace(p, collected=COLLECTED) for p in points)
