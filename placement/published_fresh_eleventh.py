"""Held-out runs collected on 2026-12-05, an eleventh set (the day's sixth,
hence "2026-12-05f"), after the model was frozen at 067611f (whose published
fit is 9f94652's: llama.cpp's own cost per expert slot): published Spark
(GB10) figures transcribed from their sources, turned into points before the
model predicted any of them, and nothing of the model changed for them.

They were gathered by someone who saw no prediction, from sources none of
the earlier rounds used, with llama.cpp batches, MoE concurrency sweeps and
runs on several nodes sought first (none of the first passed the rules; the
collection is kept whole in ``placement/collected/2026-12-05f.md``). The
figures were read again here at their source before any prediction
(pendakwahteknologi's results CSV and its benchmark script at dad1309). The
rules of the earlier sets hold (``placement.published_fresh`` to
``placement.published_fresh_tenth``), and these, decided for this set before
any of it was predicted:

- A dense model of a family the catalogue holds joins the catalogue with its
  public config values before its figures are predicted (Qwen2.5-3B, -14B
  and -32B, beside Qwen2.5-Coder-7B); a model whose config the catalogue
  cannot be given from public values it holds is left for a later set
  (GLM-4.7, GLM-5.3-Flash, Qwen3.8-Flash-Next, Nemotron-Labs-3-Puzzle-75B,
  Gemma-4-26B-A4B). Qwen2.5-7B-Instruct has Qwen2.5-Coder-7B's
  architecture (28 layers, hidden 3584, 28 heads and 4 KV heads) and is
  predicted as it, as the first set read Qwen3-30B-A3B-Instruct-2507 as
  Qwen3-30B-A3B.
- A GGUF file of a type the catalogue names, whose size the run does not
  state, is that type at its bits per weight over the model's parameters
  (Qwen2.5-Coder-7B's Q8_0 keeps the size the catalogue holds); a split
  file (``-00001-of-00003.gguf``) is the whole model, as llama.cpp loads
  every part.
- llama-bench's ``-p 128,256,512`` gives one prefill figure per prompt
  length, each kept (the three are below the default micro-batch of 512,
  so one chunk each); ``-n 128`` at depth 0 gives the decode figure, at
  the earlier sets' 64 tokens of context.
- Ollama's runs are left out: Ollama runs new architectures on its own
  engine, neither llama.cpp's server nor another engine the model prices.

Left out of the collected candidates:

- BTankut/dgx-spark-sglang-moe-configs (GLM-4.7 FP8 on four Sparks),
  WeZZard/dgx-spark-bench (GLM-5.3-Flash and Qwen3.8-Flash-Next on two),
  sxuff/gx10-nemotron-kit (Nemotron-Labs-3-Puzzle-75B-A9B): models the
  catalogue lacks (above).
- Kleybrink/dgx-spark-bench: Ollama (above).
- About forty further sources, each with its reason in the collection:
  speculative decoding, copies of others' figures, pages read only as
  excerpts, hardware other than GB10.

Each model is one experiment (``origin``, prefixed "fresh11-"): one lab's
one sweep of its three files.
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_point import PublishedPoint
from placement.published_series import _pt

COLLECTED_ELEVENTH = "2026-12-05f"

# What the model frozen at 067611f predicted for each figure, once: (key, metric): (predicted, low,
# high). The set's goals are read from here (``placement.perfmodel.report.fresh_sets``), and
# tests/placement/test_perfmodel.py fails while the stored model predicts otherwise, until the
# model changes on purpose and the report says the set has been seen since.
PREDICTED_ONCE: dict[tuple[str, str], tuple[float, float, float]] = {
    ("qwen2.5-3b-1-llamacpp-q4km-pendakwah", "decode"): (92.95, 67.88, 121.61),
    ("qwen2.5-3b-1-llamacpp-q4km-pendakwah", "prefill"): (5683.73, 3316.21, 14570.64),
    ("qwen2.5-3b-1-llamacpp-q4km-pendakwah-pp128", "prefill"): (5735.65, 3346.50, 14703.74),
    ("qwen2.5-3b-1-llamacpp-q4km-pendakwah-pp256", "prefill"): (5718.23, 3336.34, 14659.10),
    ("qwen2.5-3b-1-llamacpp-q5km-pendakwah", "decode"): (83.52, 61.00, 109.28),
    ("qwen2.5-3b-1-llamacpp-q5km-pendakwah", "prefill"): (5683.73, 3316.21, 14570.64),
    ("qwen2.5-3b-1-llamacpp-q5km-pendakwah-pp128", "prefill"): (5735.65, 3346.50, 14703.74),
    ("qwen2.5-3b-1-llamacpp-q5km-pendakwah-pp256", "prefill"): (5718.23, 3336.34, 14659.10),
    ("qwen2.5-3b-1-llamacpp-q80-pendakwah", "decode"): (61.85, 45.17, 80.92),
    ("qwen2.5-3b-1-llamacpp-q80-pendakwah", "prefill"): (5683.73, 3316.21, 14570.64),
    ("qwen2.5-3b-1-llamacpp-q80-pendakwah-pp128", "prefill"): (5735.65, 3346.50, 14703.74),
    ("qwen2.5-3b-1-llamacpp-q80-pendakwah-pp256", "prefill"): (5718.23, 3336.34, 14659.10),
    ("qwen2.5-7b-1-llamacpp-q4km-pendakwah", "decode"): (47.33, 34.57, 61.93),
    ("qwen2.5-7b-1-llamacpp-q4km-pendakwah", "prefill"): (2317.35, 1352.07, 5940.69),
    ("qwen2.5-7b-1-llamacpp-q4km-pendakwah-pp128", "prefill"): (2329.05, 1358.90, 5970.68),
    ("qwen2.5-7b-1-llamacpp-q4km-pendakwah-pp256", "prefill"): (2325.14, 1356.62, 5960.65),
    ("qwen2.5-7b-1-llamacpp-q5km-pendakwah", "decode"): (41.46, 30.28, 54.24),
    ("qwen2.5-7b-1-llamacpp-q5km-pendakwah", "prefill"): (2317.35, 1352.07, 5940.69),
    ("qwen2.5-7b-1-llamacpp-q5km-pendakwah-pp128", "prefill"): (2329.05, 1358.90, 5970.68),
    ("qwen2.5-7b-1-llamacpp-q5km-pendakwah-pp256", "prefill"): (2325.14, 1356.62, 5960.65),
    ("qwen2.5-7b-1-llamacpp-q80-pendakwah", "decode"): (29.00, 21.18, 37.94),
    ("qwen2.5-7b-1-llamacpp-q80-pendakwah", "prefill"): (2317.35, 1352.07, 5940.69),
    ("qwen2.5-7b-1-llamacpp-q80-pendakwah-pp128", "prefill"): (2329.05, 1358.90, 5970.68),
    ("qwen2.5-7b-1-llamacpp-q80-pendakwah-pp256", "prefill"): (2325.14, 1356.62, 5960.65),
    ("qwen2.5-14b-1-llamacpp-q4km-pendakwah", "decode"): (25.65, 18.73, 33.56),
    ("qwen2.5-14b-1-llamacpp-q4km-pendakwah", "prefill"): (1199.07, 699.61, 3073.91),
    ("qwen2.5-14b-1-llamacpp-q4km-pendakwah-pp128", "prefill"): (1206.76, 704.09, 3093.61),
    ("qwen2.5-14b-1-llamacpp-q4km-pendakwah-pp256", "prefill"): (1204.18, 702.59, 3087.01),
    ("qwen2.5-14b-1-llamacpp-q5km-pendakwah", "decode"): (22.34, 16.32, 29.23),
    ("qwen2.5-14b-1-llamacpp-q5km-pendakwah", "prefill"): (1199.07, 699.61, 3073.91),
    ("qwen2.5-14b-1-llamacpp-q5km-pendakwah-pp128", "prefill"): (1206.76, 704.09, 3093.61),
    ("qwen2.5-14b-1-llamacpp-q5km-pendakwah-pp256", "prefill"): (1204.18, 702.59, 3087.01),
    ("qwen2.5-14b-1-llamacpp-q80-pendakwah", "decode"): (15.45, 11.28, 20.21),
    ("qwen2.5-14b-1-llamacpp-q80-pendakwah", "prefill"): (1199.07, 699.61, 3073.91),
    ("qwen2.5-14b-1-llamacpp-q80-pendakwah-pp128", "prefill"): (1206.76, 704.09, 3093.61),
    ("qwen2.5-14b-1-llamacpp-q80-pendakwah-pp256", "prefill"): (1204.18, 702.59, 3087.01),
    ("qwen2.5-32b-1-llamacpp-q4km-pendakwah", "decode"): (12.18, 8.90, 15.94),
    ("qwen2.5-32b-1-llamacpp-q4km-pendakwah", "prefill"): (544.18, 317.51, 1395.05),
    ("qwen2.5-32b-1-llamacpp-q4km-pendakwah-pp128", "prefill"): (546.29, 318.74, 1400.45),
    ("qwen2.5-32b-1-llamacpp-q4km-pendakwah-pp256", "prefill"): (545.58, 318.33, 1398.65),
    ("qwen2.5-32b-1-llamacpp-q5km-pendakwah", "decode"): (10.54, 7.70, 13.79),
    ("qwen2.5-32b-1-llamacpp-q5km-pendakwah", "prefill"): (544.18, 317.51, 1395.05),
    ("qwen2.5-32b-1-llamacpp-q5km-pendakwah-pp128", "prefill"): (546.29, 318.74, 1400.45),
    ("qwen2.5-32b-1-llamacpp-q5km-pendakwah-pp256", "prefill"): (545.58, 318.33, 1398.65),
    ("qwen2.5-32b-1-llamacpp-q80-pendakwah", "decode"): (7.19, 5.25, 9.41),
    ("qwen2.5-32b-1-llamacpp-q80-pendakwah", "prefill"): (544.18, 317.51, 1395.05),
    ("qwen2.5-32b-1-llamacpp-q80-pendakwah-pp128", "prefill"): (546.29, 318.74, 1400.45),
    ("qwen2.5-32b-1-llamacpp-q80-pendakwah-pp256", "prefill"): (545.58, 318.33, 1398.65),
}

PENDAKWAH = (
    "https://github.com/pendakwahteknologi/gx10-benchmarks/blob/dad1309ebbb5452b10fb603ba1b4ec144b4d97bd/"
    "03-inference-llama-cpp/results/benchmark_20260402_231928.csv"
)

# per (model size, GGUF type): the parts the file is split into, then pp128, pp256, pp512 and tg128 (tok/s)
# as the CSV holds them
_RUNS: dict[tuple[str, str], tuple[int, float, float, float, float]] = {
    ("3B", "Q4_K_M"): (1, 4658.637876, 6126.178802, 6761.772236, 94.386748),
    ("3B", "Q5_K_M"): (1, 4289.569819, 5753.568023, 6583.180587, 81.341296),
    ("3B", "Q8_0"): (1, 3520.588615, 4819.274388, 5790.416785, 63.668410),
    ("7B", "Q4_K_M"): (2, 2793.774402, 3494.214511, 3424.115179, 43.970561),
    ("7B", "Q5_K_M"): (2, 2558.697264, 3218.554702, 3222.508287, 37.203126),
    ("7B", "Q8_0"): (3, 2131.756744, 2500.327153, 2581.642747, 28.675363),
    ("14B", "Q4_K_M"): (3, 1475.870491, 1703.855534, 1672.206623, 22.805805),
    ("14B", "Q5_K_M"): (3, 1350.234476, 1552.767056, 1474.378640, 18.763506),
    ("14B", "Q8_0"): (4, 1126.164030, 1203.428661, 1166.951608, 14.167741),
    ("32B", "Q4_K_M"): (5, 598.075572, 674.175420, 705.318724, 9.670018),
    ("32B", "Q5_K_M"): (6, 624.470772, 613.159823, 619.901786, 8.470243),
    ("32B", "Q8_0"): (9, 507.676046, 493.403408, 492.244109, 6.305714),
}
_SLUG = {"3B": "qwen2.5-3b", "7B": "qwen2.5-coder-7b", "14B": "qwen2.5-14b", "32B": "qwen2.5-32b"}


def _file(size: str, quant: str) -> str:
    """The GGUF file of a (size, type) as the CSV names it: the first of its parts."""
    parts = _RUNS[size, quant][0]
    split = f"-00001-of-{parts:05d}" if parts > 1 else ""
    return f"qwen2.5-{size.lower()}-instruct-{quant.lower()}{split}.gguf"


def _csv(size: str, quant: str, prompt: int, tps: float, tg: bool = False) -> str:
    """The CSV line of one figure, as the file holds it."""
    pp, gen = ("0,0", f"128,{tps:.6f}") if tg else (f"{prompt},{tps:.6f}", "0,0")
    return f"'{size},{quant},{pp},{gen},{_file(size, quant)},0'"


def _pendakwah() -> list[PublishedPoint]:
    """pendakwahteknologi/gx10-benchmarks (2026-04-02): llama-bench on one
    ASUS Ascent GX10 (GB10), llama.cpp build 6de97b9 with CUDA, ``-p
    128,256,512 -n 128 -r 3 -ngl 99 -fa 1`` (n_ubatch 512, f16 KV cache),
    Qwen's own Qwen2.5-{3B,7B,14B,32B}-Instruct-GGUF files in Q4_K_M,
    Q5_K_M and Q8_0; the mean of three repetitions."""
    points = []
    for (size, quant), (_, pp128, pp256, pp512, tg128) in _RUNS.items():
        slug = _SLUG[size]
        name = f"qwen2.5-{size.lower()}"
        key = f"{name}-1-llamacpp-{quant.lower().replace('_', '')}-pendakwah"
        common = {
            "engine": "llama.cpp",
            "quantization": quant,
            "role": "holdout",
            "note": f"Qwen/Qwen2.5-{size}-Instruct-GGUF {_file(size, quant)}"
            + (" (Qwen2.5-Coder-7B's architecture)" if size == "7B" else "")
            + "; llama-bench -fa 1 -ngl 99 -r 3, n_ubatch 512, build 6de97b9",
            "url": PENDAKWAH,
            "origin": f"fresh11-pendakwah-{name}",
        }
        src = "pendakwahteknologi/gx10-benchmarks benchmark_20260402_231928.csv: "
        points.append(
            _pt(
                key,
                slug,
                decode_tps=round(tg128, 2),
                prefill_tps=round(pp512, 2),
                context=64,
                prompt=512,
                source=src + _csv(size, quant, 0, tg128, tg=True) + " and " + _csv(size, quant, 512, pp512),
                **common,
            )
        )
        for prompt, tps in ((128, pp128), (256, pp256)):
            points.append(
                _pt(
                    f"{key}-pp{prompt}",
                    slug,
                    prefill_tps=round(tps, 2),
                    prompt=prompt,
                    source=src + _csv(size, quant, prompt, tps),
                    **common,
                )
            )
    return points


def fresh_2026_12_05_eleventh() -> tuple[PublishedPoint, ...]:
    """Every held-out figure of the eleventh set, collected on 2026-12-05, marked so."""
    return tuple(replace(p, collected=COLLECTED_ELEVENTH) for p in _pendakwah())
