"""Published decode and prefill figures of Sparks, each with its source.

Plain data. ``role`` says what the performance model does with a figure:
"train" (the fit uses it), "holdout" (never used by the fit; the accuracy
check, each with the address it was read from) or "reference" (kept as a
published benchmark, modelled by neither: an architecture not published, or
the same figure as a held-out one quoted by a secondary source).

``decode_tps`` is output tokens/s over all streams, as a benchmark run
stores it: one stream's speed at concurrency 1, the aggregate above it.
``replicas`` independent copies share the streams (a router in front).

Conditions not stated by a source are assumptions, written in ``note``.
``context`` is the decode context (tokens already in the cache, the prompt
plus half the output); ``prompt`` the prompt length behind a prefill figure.
"""

from __future__ import annotations

from dataclasses import dataclass

LLAMA_BENCHES = "https://github.com/ggml-org/llama.cpp/blob/master/benches/dgx-spark.md"
KUBIS = "https://kubis.ai/blog/dgx_series/benchmarks/gpt-oss-120b-topology-benchmark"
_KUBIS = (
    "kubis.ai topology benchmark, gpt-oss-120b MXFP4 on vLLM (--enforce-eager, fp8 KV cache), "
    "llama-benchy pp1024 tg128, 50 runs per concurrency level"
)
CONSELARA = "https://conselara.dev/notes/dgx-spark-benchmarks/"


@dataclass(frozen=True)
class PublishedPoint:
    """One published figure. ``reading`` is None when the point belongs to both
    readings of the disputed table row; ``derived`` marks points computed from
    a published ratio rather than quoted directly; ``quantization`` names the
    variant that ran (None: the model's default form)."""

    key: str
    model_slug: str
    nodes: int
    topology: str  # "single" | "direct" | "ring" | "switched"
    backend: str  # "none" | "nccl" | "rocenante"
    tp: int
    pp: int
    engine: str
    concurrency: int
    decode_tps: float | None
    prefill_tps: float | None
    source: str
    role: str  # "train" | "holdout" | "reference"
    reading: str | None = None
    derived: bool = False
    note: str = ""
    quantization: str | None = None
    ep: int = 1
    link_gbps: float = 200.0
    context: int = 256
    prompt: int = 2048
    url: str = ""
    replicas: int = 1

    @property
    def path(self) -> str:
        if self.topology == "single":
            return "none"
        if self.topology == "switched":
            return "switched-rocenante" if self.backend == "rocenante" else "switched-nccl"
        return self.topology


_TABLE = "NVIDIA GTC Berlin 2026-10 scaling table, Qwen3.8-27B NVFP4, one user"
_ROW1_DECODE = 11.86
_ROW1_PREFILL = 2635.0
_COMMUNITY = "community report (no stable URL recorded; docs/figures.md)"
_RATIO = "NVIDIA GTC Berlin 2026-10, topologies: 'decode on 2 nodes is about 1.84x one node'"


def _kubis_series() -> tuple[PublishedPoint, ...]:
    """The decode throughput table of the kubis.ai benchmark, concurrency 2 to
    64 (concurrency 1 is held out above): solo, cluster TP=2 and two solo
    copies behind LiteLLM's simple-shuffle router. The solo series trains the
    batching constants (routing exponent, cost per extra stream); the cluster
    and the two copies are held out."""
    table = {  # concurrency: (solo, cluster TP=2, 2x solo + simple-shuffle)
        2: (78.4, 104.1, 99.4),
        4: (107.9, 155.3, 127.9),
        8: (153.5, 231.0, 177.5),
        16: (218.5, 342.1, 268.6),
        32: (318.7, 471.7, 382.1),
        64: (315.2, 471.8, 567.9),
    }
    plateau = "the solo and TP=2 series stop growing from 32 to 64 streams (cause not stated by the source)"
    shuffle = "a random router: at low concurrency both copies rarely get an even share, which the prediction assumes"
    points = []
    for c, (solo, tp2, two) in table.items():
        points += [
            PublishedPoint(
                f"gpt-oss-120b-1-kubis-c{c}",
                "gpt-oss-120b",
                1,
                "single",
                "none",
                1,
                1,
                "vllm",
                c,
                solo,
                None,
                f"{_KUBIS}: solo, c{c}",
                "train",
                context=1088,
                url=KUBIS,
                note=plateau if c == 64 else "",
            ),
            PublishedPoint(
                f"gpt-oss-120b-2-kubis-c{c}",
                "gpt-oss-120b",
                2,
                "direct",
                "nccl",
                2,
                1,
                "vllm",
                c,
                tp2,
                None,
                f"{_KUBIS}: cluster TP=2 over the 200GbE stacking link, c{c}",
                "holdout",
                context=1088,
                url=KUBIS,
                note=plateau if c == 64 else "",
            ),
        ]
        if c >= 16:
            points.append(
                PublishedPoint(
                    f"gpt-oss-120b-2x1-kubis-c{c}",
                    "gpt-oss-120b",
                    2,
                    "direct",
                    "none",
                    1,
                    1,
                    "vllm",
                    c,
                    two,
                    None,
                    f"{_KUBIS}: two solo copies behind simple-shuffle, c{c}",
                    "holdout",
                    context=1088,
                    url=KUBIS,
                    replicas=2,
                    note=shuffle,
                )
            )
    return tuple(points)


def _llama_depth_series() -> tuple[PublishedPoint, ...]:
    """One stream's decode after a long context: llama-bench's ``tg32 @ dN``
    rows of the llama.cpp DGX Spark benches (a later run than the depth-0
    figures above, build 2f68ce7cf (6918); ``llama-bench -fa 1 -d
    0,4096,8192,16384,32768 -p 2048 -n 32 -ub 2048``). Held out: the fit
    never saw a context deeper than 1,024 tokens; these test the KV-cache term.
    Added after the model's constants were fixed; they changed none of them."""
    table = {  # (model, variant): tg32 at depth 4,096 / 8,192 / 16,384 / 32,768
        ("gpt-oss-20b", "MXFP4_MOE"): (77.36, 74.00, 68.85, 59.85),
        ("gpt-oss-120b", "MXFP4_MOE"): (53.95, 51.85, 48.03, 41.35),
        ("qwen3-coder-30b-a3b", "Q8_0"): (53.52, 48.58, 40.81, 30.80),
        ("qwen2.5-coder-7b", "Q8_0"): (28.27, 27.42, 25.93, 22.70),
        ("gemma-3-4b", "Q4_0"): (68.94, 67.81, 64.35, 58.38),
    }
    points = []
    for (slug, quant), figures in table.items():
        for depth, tps in zip((4096, 8192, 16384, 32768), figures, strict=True):
            points.append(
                PublishedPoint(
                    f"{slug}-1-llamacpp-d{depth}",
                    slug,
                    1,
                    "single",
                    "none",
                    1,
                    1,
                    "llama.cpp",
                    1,
                    tps,
                    None,
                    f"llama.cpp benches, DGX Spark (build 2f68ce7cf): {slug} {quant}, tg32 @ d{depth}",
                    "holdout",
                    quantization=quant,
                    context=depth + 16,
                    url=LLAMA_BENCHES,
                )
            )
    return tuple(points)


PUBLISHED_POINTS: tuple[PublishedPoint, ...] = (
    (
        # --- training: NVIDIA's scaling table, the ratios quoted with it, the
        # single-node community figures (docs/figures.md), one dense GGUF on llama.cpp
        PublishedPoint(
            "qwen27b-row1-one-node",
            "qwen3.8-27b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            _ROW1_DECODE,
            _ROW1_PREFILL,
            _TABLE + " (row 1; a second source: 'about 12 tok/s on one node')",
            "train",
            reading="one-node",
            note="disputed row read as one node",
        ),
        PublishedPoint(
            "qwen27b-row1-direct",
            "qwen3.8-27b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            1,
            _ROW1_DECODE,
            _ROW1_PREFILL,
            _TABLE + " (row 1 as labelled: '2 nodes, direct')",
            "train",
            reading="direct",
            note="disputed row read as 2 nodes TP2 over a direct cable",
        ),
        PublishedPoint(
            "qwen27b-4-ring", "qwen3.8-27b", 4, "ring", "nccl", 4, 1, "vllm", 1, 32.82, 4446.0, _TABLE, "train"
        ),
        PublishedPoint(
            "qwen27b-4-switch",
            "qwen3.8-27b",
            4,
            "switched",
            "rocenante",
            4,
            1,
            "vllm",
            1,
            36.34,
            4556.0,
            _TABLE,
            "train",
        ),
        PublishedPoint(
            "qwen27b-8-ring", "qwen3.8-27b", 8, "ring", "nccl", 8, 1, "vllm", 1, 40.11, 4962.0, _TABLE, "train"
        ),
        PublishedPoint(
            "qwen27b-8-switch",
            "qwen3.8-27b",
            8,
            "switched",
            "rocenante",
            8,
            1,
            "vllm",
            1,
            52.58,
            5105.0,
            _TABLE,
            "train",
        ),
        PublishedPoint(
            "qwen27b-2-direct-ratio",
            "qwen3.8-27b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            1,
            round(1.84 * _ROW1_DECODE, 2),
            None,
            _RATIO,
            "train",
            reading="one-node",
            derived=True,
            note="1.84 x row 1 read as one node",
        ),
        PublishedPoint(
            "qwen27b-1-node-ratio",
            "qwen3.8-27b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            round(_ROW1_DECODE / 1.84, 2),
            None,
            _RATIO,
            "train",
            reading="direct",
            derived=True,
            note="row 1 (read as 2 nodes direct) / 1.84",
        ),
        PublishedPoint(
            "qwen27b-8-switch-nccl-ratio",
            "qwen3.8-27b",
            8,
            "switched",
            "nccl",
            8,
            1,
            "vllm",
            1,
            round(3.05 * _ROW1_DECODE, 2),
            None,
            "a third report of NVIDIA's 2026-10 figures: '8 nodes: 4.43x with RoCEnante against 3.05x without'",
            "train",
            derived=True,
            note="3.05 x row 1 (the 4.43x matches the table's 8-switch row)",
        ),
        PublishedPoint(
            "gpt-oss-20b-1-llamacpp",
            "gpt-oss-20b",
            1,
            "single",
            "none",
            1,
            1,
            "llama.cpp",
            1,
            79.7,
            3610.0,
            "llama.cpp benches, DGX Spark: gpt-oss-20b MXFP4, tg32 79.74 and pp2048 3610.56",
            "train",
            quantization="MXFP4_MOE",
            context=16,
            url=LLAMA_BENCHES,
        ),
        PublishedPoint(
            "qwen3.6-a3b-1-vllm",
            "qwen3.6-35b-a3b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            98.0,
            6265.0,
            _COMMUNITY + ": ~98 tok/s decode, ~6,265 prefill",
            "train",
        ),
        PublishedPoint(
            "qwen3.5-397b-pp3",
            "qwen3.5-397b-a17b",
            3,
            "ring",
            "nccl",
            1,
            3,
            "vllm",
            1,
            17.9,
            900.0,
            _COMMUNITY + ": 3 nodes PP3 int4, decode ~17.9, prefill ~900",
            "train",
            note="3 nodes cabled as a ring assumed; engine not stated, vLLM assumed",
        ),
        PublishedPoint(
            "qwen2.5-coder-7b-1-llamacpp",
            "qwen2.5-coder-7b",
            1,
            "single",
            "none",
            1,
            1,
            "llama.cpp",
            1,
            29.30,
            2276.28,
            "llama.cpp benches, DGX Spark: Qwen2.5-Coder-7B Q8_0, tg32 and pp2048",
            "train",
            quantization="Q8_0",
            context=16,
            url=LLAMA_BENCHES,
        ),
        # --- held out: never used by the fit
        PublishedPoint(
            "gpt-oss-120b-1-llamacpp",
            "gpt-oss-120b",
            1,
            "single",
            "none",
            1,
            1,
            "llama.cpp",
            1,
            59.02,
            1937.54,
            "llama.cpp benches, DGX Spark: gpt-oss-120b MXFP4, tg32 and pp2048",
            "holdout",
            quantization="MXFP4_MOE",
            context=16,
            url=LLAMA_BENCHES,
        ),
        PublishedPoint(
            "qwen3-coder-30b-1-llamacpp",
            "qwen3-coder-30b-a3b",
            1,
            "single",
            "none",
            1,
            1,
            "llama.cpp",
            1,
            60.92,
            3175.62,
            "llama.cpp benches, DGX Spark: Qwen3-Coder-30B-A3B Q8_0, tg32 and pp2048",
            "holdout",
            quantization="Q8_0",
            context=16,
            url=LLAMA_BENCHES,
        ),
        PublishedPoint(
            "gemma-3-4b-1-llamacpp",
            "gemma-3-4b",
            1,
            "single",
            "none",
            1,
            1,
            "llama.cpp",
            1,
            78.97,
            5713.05,
            "llama.cpp benches, DGX Spark: gemma-3-4b QAT Q4_0, tg32 and pp2048",
            "holdout",
            quantization="Q4_0",
            context=16,
            url=LLAMA_BENCHES,
        ),
        PublishedPoint(
            "gpt-oss-120b-1-arena",
            "gpt-oss-120b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            58.82,
            None,
            "Spark Arena leaderboard, gpt-oss-120b MXFP4 on vLLM, one node, tg128 c1 "
            "(as quoted and reproduced in spark-arena/recipe-registry issue 17)",
            "holdout",
            url="https://github.com/spark-arena/recipe-registry/issues/17",
        ),
        PublishedPoint(
            "gpt-oss-120b-2-arena",
            "gpt-oss-120b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            1,
            75.96,
            None,
            "Spark Arena leaderboard, gpt-oss-120b MXFP4 on vLLM, 2 nodes, tg128 c1",
            "holdout",
            note="cabling not stated: a direct cable assumed",
            url="https://sovgrid.org/blog/two-leaderboards-nobody-reads-together-why-arena-ai-doesn-t-tell-"
            "you-about-self-hosted-ai/",
        ),
        PublishedPoint(
            "gpt-oss-120b-1-kubis",
            "gpt-oss-120b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            57.5,
            None,
            "kubis.ai topology benchmark, gpt-oss-120b solo, llama-benchy pp1024 tg128 c1",
            "holdout",
            context=1088,
            url="https://kubis.ai/blog/dgx_series/benchmarks/gpt-oss-120b-topology-benchmark",
        ),
        PublishedPoint(
            "gpt-oss-120b-2-kubis",
            "gpt-oss-120b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            1,
            69.0,
            None,
            "kubis.ai topology benchmark, gpt-oss-120b cluster TP=2 over the 200GbE "
            "stacking link, llama-benchy pp1024 tg128 c1",
            "holdout",
            context=1088,
            url="https://kubis.ai/blog/dgx_series/benchmarks/gpt-oss-120b-topology-benchmark",
        ),
        PublishedPoint(
            "llama-3.3-70b-1-playbooks",
            "llama-3.3-70b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            4.1,
            None,
            "NVIDIA dgx-spark-playbooks issue 79: Llama-3.3-70B-Instruct-NVFP4 on vLLM "
            "26.02, ~4.0-4.2 tok/s on one Spark",
            "holdout",
            note="midpoint of 4.0-4.2",
            context=1024,
            url="https://github.com/NVIDIA/dgx-spark-playbooks/issues/79",
        ),
        PublishedPoint(
            "qwen3-235b-2-tp2-ep2",
            "qwen3-235b-a22b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            1,
            17.0,
            None,
            "conselara.dev DGX Spark benchmarks: Qwen3-235B-A22B GPTQ-Int4, TP=2 EP=2 over a direct RoCE link, batch 1",
            "holdout",
            ep=2,
            context=512,
            url="https://conselara.dev/notes/dgx-spark-benchmarks/",
        ),
        PublishedPoint(
            "qwen3-235b-2-tp2-ep2-c2",
            "qwen3-235b-a22b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            2,
            24.1,
            None,
            "conselara.dev DGX Spark benchmarks: Qwen3-235B-A22B GPTQ-Int4, TP=2 EP=2, 2 concurrent, aggregate",
            "holdout",
            ep=2,
            context=512,
            url=CONSELARA,
        ),
        PublishedPoint(
            "qwen3-235b-2-tp2-ep2-c4",
            "qwen3-235b-a22b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            4,
            36.4,
            None,
            "conselara.dev DGX Spark benchmarks: Qwen3-235B-A22B GPTQ-Int4, TP=2 EP=2, 4 concurrent, aggregate",
            "holdout",
            ep=2,
            context=512,
            url=CONSELARA,
        ),
        PublishedPoint(
            "qwen3-32b-4-tp4",
            "qwen3-32b",
            4,
            "switched",
            "nccl",
            4,
            1,
            "vllm",
            1,
            round(1000 / 51.95, 2),
            None,
            "NVIDIA developer forum '6x Spark setup': Qwen3-VL-32B-Instruct-FP8, "
            "4 nodes TP, vllm bench serve, 1 prompt of 1,024 tokens, TPOT 51.95 ms",
            "holdout",
            context=1088,
            note=(
                "Qwen3-VL-32B's language model has Qwen3-32B's shape; six Sparks on a switch and "
                "NCCL (no RoCEnante in the command) assumed"
            ),
            url="https://forums.developer.nvidia.com/t/6x-spark-setup/354399/18",
        ),
        PublishedPoint(
            "qwen3.5-397b-4-tp4-100g",
            "qwen3.5-397b-a17b",
            4,
            "switched",
            "nccl",
            4,
            1,
            "vllm",
            1,
            36.76,
            None,
            "NVIDIA developer forum: Qwen3.5-397B-A17B int4-AutoRound on 4 GB10 nodes, TP=4, "
            "MikroTik CRS812 at 100G RoCE, llama-benchy pp2048 tg128 c1",
            "holdout",
            link_gbps=100.0,
            context=2112,
            url=(
                "https://forums.developer.nvidia.com/t/qwen3-5-397b-a17b-int4-autoround-4-x-db10-node-"
                "updated-results-37-94-tok-s/362368"
            ),
        ),
        PublishedPoint(
            "qwen3-32b-1-bf16",
            "qwen3-32b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            3.7,
            None,
            "lyb.re, running LLMs on the DGX Spark with vLLM: 'Qwen3-32B at bf16, produced 3.7 tokens per second'",
            "holdout",
            quantization="bf16",
            note="engine read from the post's title and address (vLLM); sizes not stated: 256 tokens assumed",
            url="https://www.lyb.re/writing/2026-03-10-dgx-spark-vllm",
        ),
        # --- reference: the same figures as held-out ones, as summaries quote them (docs/figures.md)
        PublishedPoint(
            "gpt-oss-120b-1-vllm",
            "gpt-oss-120b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            60.0,
            None,
            "summary of one-node figures (docs/figures.md): vLLM MXFP4 about 59 to 61 tok/s",
            "reference",
            note="midpoint of 59-61; the held-out Spark Arena figure is its source",
        ),
        PublishedPoint(
            "gpt-oss-120b-2-tp2",
            "gpt-oss-120b",
            2,
            "direct",
            "nccl",
            2,
            1,
            "vllm",
            1,
            76.0,
            None,
            "summary of cluster figures (docs/figures.md): 2 nodes TP2 about 76 tok/s",
            "reference",
            note="the held-out Spark Arena figure (75.96) rounded",
        ),
        PublishedPoint(
            "llama-3.3-70b-1",
            "llama-3.3-70b",
            1,
            "single",
            "none",
            1,
            1,
            "vllm",
            1,
            4.0,
            None,
            "summary of one-node figures (docs/figures.md): dense 70B NVFP4 about 4 tok/s",
            "reference",
            note="the held-out playbooks issue 79 figure, rounded",
        ),
        PublishedPoint(
            "glm-5.3-flash-8",
            "glm-5.3-flash",
            8,
            "switched",
            "rocenante",
            8,
            1,
            "vllm",
            1,
            80.0,
            None,
            "NVIDIA GTC Berlin 2026-10: GLM-5.3 Flash about 80 tok/s decode on 8 nodes",
            "reference",
            note="architecture unknown: not modelled, kept as a published benchmark",
        ),
    )
    + _kubis_series()
    + _llama_depth_series()
)
