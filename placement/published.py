"""Published decode and prefill figures of Sparks, each with its source.

Plain data: ``PUBLISHED_POINTS`` lists every figure, the single ones below and
the series of ``placement.published_series``. ``placement.published_point``
says what the fields and roles mean. The split between trained and held-out
figures is by experiment (``origin``): a whole experiment is either fitted on
or held out, never both, and the held-out ones carry the address they were
read from.
"""

from __future__ import annotations

from dataclasses import replace

from placement.published_checkpoints import CHECKPOINT_BY_KEY
from placement.published_fresh import fresh_2026_12_04
from placement.published_fresh_eighth import fresh_2026_12_05_eighth
from placement.published_fresh_eleventh import fresh_2026_12_05_eleventh
from placement.published_fresh_fifteenth import fresh_2026_12_05_fifteenth
from placement.published_fresh_fifth import fresh_2026_12_04_fifth
from placement.published_fresh_fourteenth import fresh_2026_12_05_fourteenth
from placement.published_fresh_fourth import fresh_2026_12_04_fourth
from placement.published_fresh_ninth import fresh_2026_12_05_ninth
from placement.published_fresh_second import fresh_2026_12_04_second
from placement.published_fresh_seventh import fresh_2026_12_05_seventh
from placement.published_fresh_sixth import fresh_2026_12_05
from placement.published_fresh_tenth import fresh_2026_12_05_tenth
from placement.published_fresh_third import fresh_2026_12_04_third
from placement.published_fresh_thirteenth import fresh_2026_12_05_thirteenth
from placement.published_fresh_twelfth import fresh_2026_12_05_twelfth
from placement.published_point import PublishedPoint
from placement.published_series import (
    KUBIS,
    LLAMA_BENCHES,
    _pt,
    al_engr_sglang_series,
    djangodevreng_series,
    kubis_gptoss_series,
    kubis_nemotron_series,
    llama_batched_series,
    llama_depth_series,
    llama_rpc_series,
    qwen397_forum_series,
)
from placement.published_speculative import published_speculative

__all__ = ["PUBLISHED_POINTS", "PublishedPoint"]

CONSELARA = "https://conselara.dev/notes/dgx-spark-benchmarks/"
RECIPES_918 = "https://github.com/vllm-project/recipes/pull/918"
FORUM_QWEN122 = (
    "https://forums.developer.nvidia.com/t/qwen3-5-122b-a10b-nvfp4-quantized-for-dgx-spark-234gb-75gb-runs-on-128gb/"
    "361819/29"
)
ALBOND_QWEN122 = "https://github.com/albond/DGX_Spark_Qwen3.5-122B-A10B-AR-INT4"
ADADRAG_QWEN35 = "https://github.com/adadrag/qwen3.5-dgx-spark"
LLAMA_BENCHES_B6767 = "https://jetsonhacks.com/wp-content/uploads/2025/10/spark-llamacpp-bench.html"

_TABLE = "NVIDIA GTC Berlin 2026-10 scaling table, Qwen3.8-27B NVFP4, one user"
_ROW1_DECODE = 11.86
_ROW1_PREFILL = 2635.0
_COMMUNITY = "community report (no stable URL recorded; docs/figures.md)"
_RATIO = "NVIDIA GTC Berlin 2026-10, topologies: 'decode on 2 nodes is about 1.84x one node'"


_BASE: tuple[PublishedPoint, ...] = (
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
            "llama.cpp benches, DGX Spark (build b6767, 5acd45546, 2025-10-15): gpt-oss-20b MXFP4, tg32 79.74 and "
            "pp2048 3610.56",
            "train",
            quantization="MXFP4_MOE",
            context=16,
            note="an earlier build of the benches, as the jetsonhacks.com mirror shows it; the page at "
            "ggml-org/llama.cpp benches/dgx-spark.md now shows build 2f68ce7cf (6918): tg32 84.10, pp2048 3782.76",
            url=LLAMA_BENCHES_B6767,
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
            97.7,
            6265.0,
            "vLLM recipes PR 918: Qwen3.6-35B-A3B NVFP4 on vLLM 0.28.0, one GB10 at TP1, aiperf on SPEED-Bench "
            "8K input, 256 output, concurrency 1: 6,265 prefill and 97.7 decode tok/s",
            "train",
            context=8192 + 128,
            prompt=8192,
            url=RECIPES_918,
            note="Re-labelled MTP speculative decoding from its own source: the vLLM recipes guide for "
            "Qwen/Qwen3.6-35B-A3B, where PR 918 recorded these figures, says "
            "'DGX Spark (GB10) and DGX Station (GB300) run the checkpoint on the default loader with FlashInfer "
            "attention, --moe-backend marlin and a 3-token MTP draft on Triton', and of these figures 'The flag set "
            "is unchanged [...] so the command the builder emits for GB10 is the one that produced these numbers'; "
            "PR 918 're-ran the GB10 NVFP4 profile from #854' and 'confirmed the existing flag set'. An older snapshot "
            "of the recipe (models/Qwen/Qwen3.6-35B-A3B.yaml in vllm-project/recipes at commit 8959cf6, 2026-08-21, "
            "before PRs 854 and 918) has its 'DGX Spark NVFP4' "
            'command with --speculative-config \'{"method":"mtp","num_speculative_tokens":3,"moe_backend":'
            '"triton"}\'. Its decode is neither fitted on nor compared; its prefill is',
            speculative="mtp",
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
            "llama.cpp benches, DGX Spark (build 2f68ce7cf): Qwen2.5-Coder-7B Q8_0, tg32 and pp2048",
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
            "train",
            context=1088,
            note="trained on with the rest of its series (an eager-mode run: with conselara's pair it sets "
            "the eager cost)",
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
    + kubis_gptoss_series()
    + llama_depth_series()
)

# The experiment each of the figures above belongs to (see published_point).
_ORIGINS = {
    # NVIDIA's table as its series: one node, the rings, the switched groups and the
    # ratios quoted beside it (PERFORMANCE_MODEL.md, "Ranges")
    "qwen27b-4-ring": "nvidia-2026-10-ring",
    "qwen27b-8-ring": "nvidia-2026-10-ring",
    "qwen27b-4-switch": "nvidia-2026-10-switch",
    "qwen27b-8-switch": "nvidia-2026-10-switch",
    "qwen27b-2-direct-ratio": "nvidia-2026-10-ratios",
    "qwen27b-1-node-ratio": "nvidia-2026-10-ratios",
    "qwen27b-": "nvidia-2026-10",
    "gpt-oss-20b-1-llamacpp": "llamacpp-benches-train",
    "qwen2.5-coder-7b-1-llamacpp": "llamacpp-benches-train",
    "qwen3.6-a3b-1-vllm": "vllm-recipes-918",
    "qwen3.5-397b-pp3": "community-pp3",
    "gpt-oss-120b-1-llamacpp": "llamacpp-benches-holdout",
    "qwen3-coder-30b-1-llamacpp": "llamacpp-benches-holdout",
    "gemma-3-4b-1-llamacpp": "llamacpp-benches-holdout",
    "gpt-oss-120b-1-arena": "spark-arena-gptoss",
    "gpt-oss-120b-2-arena": "spark-arena-gptoss",
    "gpt-oss-120b-1-kubis": "kubis-gptoss-solo",
    "gpt-oss-120b-2-kubis": "kubis-gptoss-tp2",
    "llama-3.3-70b-1-playbooks": "playbooks-79",
    "qwen3-235b-2-tp2-ep2": "conselara-qwen235-ep",
    "qwen3-32b-4-tp4": "forum-6x-spark",
    "qwen3.5-397b-4-tp4-100g": "forum-qwen397-tp4",
    "qwen3-32b-1-bf16": "lyb-re",
}
_MODES = {"gpt-oss-120b-1-kubis": "eager", "gpt-oss-120b-2-kubis": "eager", "qwen3.5-397b-4-tp4-100g": "graphs"}


def _origin(key: str) -> str:
    for prefix, origin in _ORIGINS.items():
        if key.startswith(prefix):
            return origin
    return ""


_SINGLES = tuple(replace(p, origin=p.origin or _origin(p.key), mode=p.mode or _MODES.get(p.key, "")) for p in _BASE)

# Runs collected for the second fit (2026-12), each with the address it was read from.
_ADDED = (
    # --- trained on: the only published pair of the same build with and without CUDA graphs
    _pt(
        "gpt-oss-120b-1-conselara-graphs",
        "gpt-oss-120b",
        decode_tps=59.0,
        source="conselara.dev: gpt-oss-120b MXFP4 on vLLM 0.19.0 (NGC 26.04), one node, CUDA graphs: ~59 tok/s",
        role="train",
        mode="graphs",
        url=CONSELARA,
        origin="conselara-gptoss",
    ),
    _pt(
        "gpt-oss-120b-1-conselara-eager",
        "gpt-oss-120b",
        decode_tps=26.0,
        source="conselara.dev: the same with --enforce-eager: ~26 tok/s ('cuts throughput by ~55% on SM121')",
        role="train",
        mode="eager",
        url=CONSELARA,
        origin="conselara-gptoss",
    ),
    # --- trained on (collected for the third fit, 2026-12-02): hybrid gated-DeltaNet MoE models on
    # one node, in int4 and bf16, each from its own source
    _pt(
        "qwen3.5-122b-1-int4-forum",
        "qwen3.5-122b-a10b",
        decode_tps=28.6,
        source="NVIDIA developer forum, Qwen3.5-122B-A10B on one Spark: Intel AutoRound int4 (Marlin) on vLLM "
        "0.17.0rc1 (eugr's image), text generation of 500 tokens in 17.5 s, one request at a time",
        role="train",
        note="prompt not stated: 256 tokens of context assumed; the time includes the first token",
        url=FORUM_QWEN122,
        origin="forum-qwen122-int4",
    ),
    _pt(
        "qwen3.5-122b-1-int4-albond",
        "qwen3.5-122b-a10b",
        decode_tps=28.3,
        source="albond/DGX_Spark_Qwen3.5-122B-A10B-AR-INT4, results: baseline (vLLM 0.19 + AutoRound int4 + "
        "FlashInfer), one Spark, before its speculative decoding and int8 LM-head steps",
        role="train",
        note="sizes not stated: 256 tokens assumed",
        url=ALBOND_QWEN122,
        origin="albond-qwen122",
    ),
    _pt(
        "qwen3.5-35b-a3b-1-bf16",
        "qwen3.5-35b-a3b",
        decode_tps=31.8,
        source="adadrag/qwen3.5-dgx-spark, token speed on DGX Spark: Qwen3.5-35B-A3B in bf16 on vLLM "
        "(cu130-nightly, no speculative decoding), 35 prompt tokens and 1,024 output tokens in 32.2 s",
        role="train",
        context=547,
        url=ADADRAG_QWEN35,
        origin="adadrag-qwen35",
    ),
    # the same forum post's NVFP4 run: an older community image (vLLM 0.16.0rc2) whose NVFP4 MoE path
    # ran at half the int4 build's speed; the model has one efficiency per format and no image, so
    # the figure is kept on the record and not modelled (PERFORMANCE_MODEL.md, weak spots)
    _pt(
        "qwen3.5-122b-1-nvfp4-forum",
        "qwen3.5-122b-a10b",
        quantization="nvfp4",
        decode_tps=15.1,
        source="NVIDIA developer forum, the same comparison: txn545/Qwen3.5-122B-A10B-NVFP4 (ModelOpt) on "
        "vLLM 0.16.0rc2 (Avarok's image), text generation of 500 tokens in 33.1 s",
        role="reference",
        note="a build's kernel, not the format: later builds' NVFP4 MoE path (FlashInfer CUTLASS) is not "
        "this slow; kept as a published benchmark",
        url=FORUM_QWEN122,
        origin="forum-qwen122-nvfp4",
    ),
    # --- held out
    _pt(
        "nemotron-super-1-vllm-blog",
        "nemotron-3-super-120b-a12b",
        decode_tps=23.2,
        prefill_tps=1884.0,
        prompt=7234,
        source="vLLM blog 2026-06-01, vLLM on DGX Spark: Nemotron-3-Super-120B-A12B-NVFP4, one Spark, "
        "cu130-nightly, decode 22.7-23.7 tok/s, prefill ~1,884 tok/s on a 7,234-token prompt",
        role="holdout",
        note="midpoint of 22.7-23.7; as summarised by AI-Daily-Builder (site-one-liart-13.vercel.app). "
        "Re-labelled MTP speculative decoding from its sources: the blog ran 'the current Nemotron-3-Super DGX "
        "Spark recipe' on cu130-nightly, NVIDIA's Nemotron 3 Super DGX Spark deployment guide, whose vLLM "
        "recipe on that image serves the checkpoint's MTP layer as a draft ('MTP + NVFP4 on DGX Spark requires "
        "a vLLM nightly build (cu130)', docs.nvidia.com/nemotron/nightly/usage-cookbook/Nemotron-3-Super/"
        "SparkDeploymentGuide), and the same model's forum run with MTP on one Spark decoded 23.45 tok/s "
        "(thelgtm.dev); kubis.ai's plain decode on one Spark is 16.29. Its prefill is compared",
        url="https://vllm.ai/blog/2026-06-01-vllm-dgx-spark",
        origin="vllm-blog-nemotron-super",
        speculative="mtp",
    ),
    _pt(
        "nemotron-nano-1-vllm-forum",
        "nemotron-3-nano-30b-a3b",
        decode_tps=67.0,
        source="ai-muninn.com, DGX Spark part 25: 'the public 67 tok/s forum baseline (eugr)' for Nemotron 3 "
        "Nano 30B-A3B NVFP4 on vLLM, one Spark, single stream",
        role="holdout",
        note="the baseline quoted by a secondary source; the post's own 74.75 used patched kernels (not modelled)",
        url="https://ai-muninn.com/en/blog/dgx-spark-nemotron-3-nano-w4a16-74-toks",
        origin="ai-muninn-nemotron-nano",
    ),
    _pt(
        "qwen3-coder-next-2-sglang-arena",
        "qwen3-coder-next",
        nodes=2,
        topology="direct",
        backend="nccl",
        tp=2,
        engine="sglang",
        decode_tps=60.51,
        source="Spark Arena leaderboard (as reported by sectorhq.co): Qwen3-Coder-Next on SGLang, FP8, two nodes",
        role="holdout",
        note=(
            "cabling not stated: a direct cable assumed; tensor parallel as Spark Arena's runner (sparkrun) "
            "launches this model on SGLang: its recipe qwen3-coder-next-fp8-sglang-cluster (scitrera/sparkrun "
            "84c5ed3) runs --tp-size 2 without speculative decoding, and sparkrun sets NCCL_NET=IB with the "
            "RoCE devices it detects"
        ),
        url="https://www.sectorhq.co/news/nvidia-dgx-spark-boosts-openweight-llm-performance-setting-new-benchmarks",
        origin="spark-arena-sglang",
    ),
    _pt(
        "qwen3-8b-1-bf16",
        "qwen3-8b",
        decode_tps=13.1,
        source="lyb.re, running LLMs on the DGX Spark with vLLM: 'Qwen3-8B was better at 13.1 tok/s' (bf16)",
        role="holdout",
        note="sizes not stated: 256 tokens assumed",
        url="https://www.lyb.re/writing/2026-03-10-dgx-spark-vllm",
        origin="lyb-re",
    ),
    _pt(
        "qwen3-30b-a3b-1-fp8",
        "qwen3-30b-a3b",
        decode_tps=52.5,
        source="lyb.re: Qwen3-30B-A3B FP8 on vLLM (a community Docker image) at 51-54 tok/s",
        role="holdout",
        note="midpoint of 51-54; sizes not stated: 256 tokens assumed",
        url="https://www.lyb.re/writing/2026-03-10-dgx-spark-vllm",
        origin="lyb-re",
    ),
    _pt(
        "qwen3.6-a3b-1-fp8",
        "qwen3.6-35b-a3b",
        decode_tps=30.5,
        quantization="fp8",
        source="AI-Daily-Builder, Qwen3 MoE on DGX Spark: Qwen3.6-35B-A3B FP8 without MTP 'plateaus at 28-33 "
        "tok/s single-user'",
        role="holdout",
        note="midpoint of 28-33; 512 in / 512 out assumed from the page's single-user scenario",
        context=768,
        url="https://site-one-liart-13.vercel.app/en/dgx/qwen3-moe-nvfp4-benchmarks-dgx-spark",
        origin="builder-daily-qwen36",
    ),
    _pt(
        "qwen3.6-a3b-1-fp8-c32",
        "qwen3.6-35b-a3b",
        concurrency=32,
        decode_tps=155.6,
        quantization="fp8",
        source="AI-Daily-Builder: the same FP8 without MTP, 155.6 tok/s at concurrency 32 (1024 in / 512 out)",
        role="holdout",
        context=1280,
        url="https://site-one-liart-13.vercel.app/en/dgx/qwen3-moe-nvfp4-benchmarks-dgx-spark",
        origin="builder-daily-qwen36",
    ),
    _pt(
        "gpt-oss-120b-2x1-kubis-c1",
        "gpt-oss-120b",
        nodes=2,
        topology="direct",
        concurrency=1,
        decode_tps=57.7,
        source="kubis.ai topology benchmark, gpt-oss-120b: two solo copies behind simple-shuffle, c1",
        role="holdout",
        replicas=2,
        router="random",
        mode="eager",
        context=1088,
        url=KUBIS,
        origin="kubis-gptoss-copies",
    ),
)

_POINTS: tuple[PublishedPoint, ...] = (
    _SINGLES
    + _ADDED
    + kubis_nemotron_series()
    + qwen397_forum_series()
    + al_engr_sglang_series()
    + llama_rpc_series()
    + djangodevreng_series()
    + llama_batched_series()
    + fresh_2026_12_04()
    + fresh_2026_12_04_second()
    + fresh_2026_12_04_third()
    + fresh_2026_12_04_fourth()
    + fresh_2026_12_04_fifth()
    + fresh_2026_12_05()
    + fresh_2026_12_05_seventh()
    + fresh_2026_12_05_eighth()
    + fresh_2026_12_05_ninth()
    + fresh_2026_12_05_tenth()
    + fresh_2026_12_05_eleventh()
    + fresh_2026_12_05_twelfth()
    + fresh_2026_12_05_thirteenth()
    + fresh_2026_12_05_fourteenth()
    + fresh_2026_12_05_fifteenth()
    # runs decoded with MTP, kept for reference beside the plans of their configuration
    + published_speculative()
)

# each figure with the checkpoint its source names (placement.published_checkpoints)
PUBLISHED_POINTS: tuple[PublishedPoint, ...] = tuple(
    replace(p, checkpoint=CHECKPOINT_BY_KEY[p.key]) if p.key in CHECKPOINT_BY_KEY else p for p in _POINTS
)
