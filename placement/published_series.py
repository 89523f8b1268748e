"""Published Spark series: one source's figures over concurrency or context.

Plain data, read by ``placement.published`` (which lists every figure); see
``placement.published_point`` for what the fields mean. Each series names its
role and why in its docstring.
"""

from __future__ import annotations

from collections.abc import Mapping

from placement.published_point import PublishedPoint

LLAMA_BENCHES = "https://github.com/ggml-org/llama.cpp/blob/master/benches/dgx-spark.md"
KUBIS = "https://kubis.ai/blog/dgx_series/benchmarks/gpt-oss-120b-topology-benchmark"
KUBIS_NEMOTRON = "https://kubis.ai/blog/dgx_series/benchmarks/nemotron3-super-120b-topology-benchmark"
_KUBIS = (
    "kubis.ai topology benchmark, gpt-oss-120b MXFP4 on vLLM (--enforce-eager, fp8 KV cache), "
    "llama-benchy pp1024 tg128, 50 runs per concurrency level"
)
_KUBIS_NEMOTRON = (
    "kubis.ai topology benchmark, Nemotron-3-Super-120B-A12B NVFP4 on vLLM 0.17.2rc1 with the SM12.1 CUTLASS "
    "patch, llama-benchy pp1024 tg128, 50 runs per concurrency level"
)
QWEN397_FORUM = (
    "https://forums.developer.nvidia.com/t/qwen3-5-397b-a17b-int4-autoround-4-x-db10-node-updated-results-37-94-tok-s/"
    "362368"
)
AL_ENGR_TP2 = "https://al-engr.com/qwen3.6-tp2-result.html"
LLAMA_RPC = "https://github.com/ggml-org/llama.cpp/pull/15405"
DJANGODEVRENG = "https://github.com/djangodevreng/dgx-spark-benchmarks"

_PLATEAU = "the solo and TP=2 series stop growing from 32 to 64 streams (cause not stated by the source)"
_SHUFFLE = "LiteLLM simple-shuffle: each request goes to a copy at random (router 'random')"


def _pt(key: str, slug: str, **kw: object) -> PublishedPoint:
    """A point by keyword, with the defaults of a one-node vLLM run at one stream."""
    fields: dict[str, object] = {
        "nodes": 1,
        "topology": "single",
        "backend": "none",
        "tp": 1,
        "pp": 1,
        "engine": "vllm",
        "concurrency": 1,
        "decode_tps": None,
        "prefill_tps": None,
        **kw,
    }
    return PublishedPoint(key, slug, **fields)  # type: ignore[arg-type]


def kubis_gptoss_series() -> tuple[PublishedPoint, ...]:
    """The decode throughput table of the kubis.ai gpt-oss-120b benchmark,
    concurrency 2 to 64 (concurrency 1 is listed with the single figures):
    solo, cluster TP=2 and two solo copies behind LiteLLM's simple-shuffle
    router. The solo series trains the batching constants (routing exponent,
    cost per extra stream); the cluster and the two copies are held out."""
    table = {  # concurrency: (solo, cluster TP=2, 2x solo + simple-shuffle)
        2: (78.4, 104.1, 99.4),
        4: (107.9, 155.3, 127.9),
        8: (153.5, 231.0, 177.5),
        16: (218.5, 342.1, 268.6),
        32: (318.7, 471.7, 382.1),
        64: (315.2, 471.8, 567.9),
    }
    points = []
    common = {"engine": "vllm", "context": 1088, "url": KUBIS, "mode": "eager"}
    for c, (solo, tp2, two) in table.items():
        note = _PLATEAU if c == 64 else ""
        points += [
            _pt(
                f"gpt-oss-120b-1-kubis-c{c}",
                "gpt-oss-120b",
                concurrency=c,
                decode_tps=solo,
                source=f"{_KUBIS}: solo, c{c}",
                role="train",
                note=note,
                origin="kubis-gptoss-solo",
                **common,
            ),
            _pt(
                f"gpt-oss-120b-2-kubis-c{c}",
                "gpt-oss-120b",
                nodes=2,
                topology="direct",
                backend="nccl",
                tp=2,
                concurrency=c,
                decode_tps=tp2,
                source=f"{_KUBIS}: cluster TP=2 over the 200GbE stacking link, c{c}",
                role="holdout",
                note=note,
                origin="kubis-gptoss-tp2",
                **common,
            ),
            _pt(
                f"gpt-oss-120b-2x1-kubis-c{c}",
                "gpt-oss-120b",
                nodes=2,
                topology="direct",
                concurrency=c,
                decode_tps=two,
                source=f"{_KUBIS}: two solo copies behind simple-shuffle, c{c}",
                role="holdout",
                replicas=2,
                router="random",
                note=_SHUFFLE,
                origin="kubis-gptoss-copies",
                **common,
            ),
        ]
    return tuple(points)


def kubis_nemotron_series() -> tuple[PublishedPoint, ...]:
    """The kubis.ai Nemotron-3-Super-120B-A12B topology benchmark: solo
    (c1 to c32; c64 ran out of memory), cluster TP=2 over the stacking link
    and two solo copies behind simple-shuffle (c1 to c64). Trains the
    hybrid (Mamba-2) costs, tensor parallelism at several streams and the
    copies' router; CUDA-graph mode not stated."""
    solo = {1: 16.29, 2: 28.47, 4: 43.68, 8: 55.79, 16: 69.08, 32: 83.50}
    tp2 = {1: 22.97, 2: 37.77, 4: 52.99, 8: 82.77, 16: 103.71, 32: 128.27, 64: 156.40}
    shuffle = {1: 16.43, 2: 30.37, 4: 50.22, 8: 73.81, 16: 96.53, 32: 124.21, 64: 156.02}
    common = {"engine": "vllm", "context": 1088, "url": KUBIS_NEMOTRON, "origin": "kubis-nemotron-super"}
    points = []
    for c, tps in solo.items():
        points.append(
            _pt(
                f"nemotron-super-1-kubis-c{c}",
                "nemotron-3-super-120b-a12b",
                concurrency=c,
                decode_tps=tps,
                source=f"{_KUBIS_NEMOTRON}: solo, c{c}",
                role="train",
                **common,
            )
        )
    for c, tps in tp2.items():
        points.append(
            _pt(
                f"nemotron-super-2-kubis-c{c}",
                "nemotron-3-super-120b-a12b",
                nodes=2,
                topology="direct",
                backend="nccl",
                tp=2,
                concurrency=c,
                decode_tps=tps,
                source=f"{_KUBIS_NEMOTRON}: cluster TP=2 (Ray) over the 200GbE stacking link, c{c}",
                role="train",
                **common,
            )
        )
    for c, tps in shuffle.items():
        points.append(
            _pt(
                f"nemotron-super-2x1-kubis-c{c}",
                "nemotron-3-super-120b-a12b",
                nodes=2,
                topology="direct",
                concurrency=c,
                decode_tps=tps,
                source=f"{_KUBIS_NEMOTRON}: two solo copies behind simple-shuffle, c{c}",
                role="train",
                replicas=2,
                router="random",
                note=_SHUFFLE,
                **common,
            )
        )
    return tuple(points)


def llama_depth_series() -> tuple[PublishedPoint, ...]:
    """One stream's decode after a long context: llama-bench's ``tg32 @ dN``
    rows of the llama.cpp DGX Spark benches (a later run than the depth-0
    figures, build 2f68ce7cf (6918); ``llama-bench -fa 1 -d
    0,4096,8192,16384,32768 -p 2048 -n 32 -ub 2048``). Held out: the fit
    never saw a context deeper than 1,024 tokens; these test the KV-cache term."""
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
                _pt(
                    f"{slug}-1-llamacpp-d{depth}",
                    slug,
                    engine="llama.cpp",
                    decode_tps=tps,
                    source=f"llama.cpp benches, DGX Spark (build 2f68ce7cf): {slug} {quant}, tg32 @ d{depth}",
                    role="holdout",
                    quantization=quant,
                    context=depth + 16,
                    url=LLAMA_BENCHES,
                    origin="llamacpp-benches-depth",
                )
            )
    return tuple(points)


def llama_batched_series() -> tuple[PublishedPoint, ...]:
    """llama-batched-bench on a DGX Spark, from llama.cpp's benches page
    (build 2f68ce7cf, the same page as the llama-bench figures): B sequences
    of a 512-token prompt decode 32 tokens each at once, S_TG being all their
    tokens over the time; B = 2 to 32 (B = 1 is the one-stream figure
    llama-bench measures beside it). The tables of the two models whose
    llama-bench figures train the fit train llama.cpp's own batching costs
    (its cost per extra stream, and what a step without CUDA graphs costs
    each sublayer; the cost per expert slot stays the shared one); the page's
    three other tables are held out (``published_fresh``: collected after
    the model was frozen).

    The tool feeds every sequence the same token at every position
    (tools/batched-bench/batched-bench.cpp adds token 0), so a MoE batch's
    sequences route alike; yet its step grows with the batch as if each
    token's experts were read apart (gpt-oss-120b's step nearly doubles from
    one sequence to two), so the figures are predicted like any other batch
    (PERFORMANCE_MODEL.md)."""
    table = {  # (model, variant): S_TG at B = 2, 4, 8, 16, 32
        ("gpt-oss-20b", "MXFP4_MOE"): (95.00, 151.90, 254.09, 400.94, 614.82),
        ("qwen2.5-coder-7b", "Q8_0"): (54.46, 104.33, 195.67, 335.01, 593.27),
    }
    return tuple(llama_batched_points(table, role="train", origin="llamacpp-benches-batched-train"))


def llama_batched_points(
    table: Mapping[tuple[str, str], tuple[float, ...]], *, role: str, origin: str
) -> list[PublishedPoint]:
    """The figures of llama-batched-bench tables on llama.cpp's benches page
    (build 2f68ce7cf; 512-token prompts, 32 tokens out per sequence): for each
    (model, GGUF type), S_TG at B = 2, 4, 8, 16 and 32 sequences."""
    return [
        _pt(
            f"{slug}-1-llamacpp-batched-c{streams}",
            slug,
            engine="llama.cpp",
            concurrency=streams,
            decode_tps=tps,
            source=f"llama.cpp benches, DGX Spark (build 2f68ce7cf): {slug} {quant}, llama-batched-bench PP 512, "
            f"TG 32, B {streams}: S_TG {tps:g} t/s (all sequences)",
            role=role,
            quantization=quant,
            context=512 + 16,
            url=LLAMA_BENCHES,
            origin=origin,
        )
        for (slug, quant), figures in table.items()
        for streams, tps in zip((2, 4, 8, 16, 32), figures, strict=True)
    ]


def qwen397_forum_series() -> tuple[PublishedPoint, ...]:
    """The NVIDIA forum's Qwen3.5-397B-A17B int4-AutoRound run on four
    Sparks (TP=4 over a MikroTik CRS812 at 100G, NCCL 2.29.2 over RoCEv2,
    vLLM 0.16.1rc1 with torch.compile and CUDA graphs, llama-benchy): total
    throughput at 2 and 4 streams (tg128). Held out, with the same run's one
    stream (listed with the single figures)."""
    common = {
        "nodes": 4,
        "topology": "switched",
        "backend": "nccl",
        "tp": 4,
        "link_gbps": 100.0,
        "context": 2112,
        "url": QWEN397_FORUM,
        "mode": "graphs",
        "origin": "forum-qwen397-tp4",
        "role": "holdout",
    }
    return (
        _pt(
            "qwen3.5-397b-4-tp4-100g-c2",
            "qwen3.5-397b-a17b",
            concurrency=2,
            decode_tps=60.0,
            source="NVIDIA developer forum: Qwen3.5-397B-A17B int4 on 4 GB10, TP=4, CRS812 100G: tg128 c2 total 59-61",
            note="midpoint of 59-61",
            **common,
        ),
        _pt(
            "qwen3.5-397b-4-tp4-100g-c4",
            "qwen3.5-397b-a17b",
            concurrency=4,
            decode_tps=82.0,
            source="NVIDIA developer forum: Qwen3.5-397B-A17B int4 on 4 GB10, TP=4, CRS812 100G: tg128 c4 total 74-90",
            note="midpoint of 74-90 over prompt lengths",
            **common,
        ),
    )


def al_engr_sglang_series() -> tuple[PublishedPoint, ...]:
    """al-engr.com: Qwen3.6-27B-FP8 on SGLang 0.5.12 (scitrera/dgx-spark-sglang)
    across two Sparks, TP=2, NCCL on the 200 Gb/s bond0 cluster interface, no
    speculative decoding: one stream, 4 and 8 streams (tg128), pp512. SGLang's
    only published multi-node Spark series at several streams: trains what
    tensor parallelism and an extra stream cost SGLang."""
    common = {
        "engine": "sglang",
        "nodes": 2,
        "topology": "direct",
        "backend": "nccl",
        "tp": 2,
        "quantization": "fp8",
        "context": 576,
        "prompt": 512,
        "url": AL_ENGR_TP2,
        "origin": "al-engr-qwen36-tp2",
        "role": "train",
    }
    src = "al-engr.com: Qwen3.6-27B-FP8, SGLang 0.5.12, TP=2 over two Sparks (200 Gb/s), llama-benchy"
    return (
        _pt(
            "qwen3.6-27b-2-sglang-c1",
            "qwen3.6-27b",
            decode_tps=8.1,
            prefill_tps=601.0,
            source=f"{src}: tg128 c1, pp512",
            **common,
        ),
        _pt(
            "qwen3.6-27b-2-sglang-c4",
            "qwen3.6-27b",
            concurrency=4,
            decode_tps=25.5,
            source=f"{src}: tg128 c4 aggregate",
            **common,
        ),
        _pt(
            "qwen3.6-27b-2-sglang-c8",
            "qwen3.6-27b",
            concurrency=8,
            decode_tps=40.9,
            source=f"{src}: tg128 c8 aggregate",
            **common,
        ),
    )


def llama_rpc_series() -> tuple[PublishedPoint, ...]:
    """llama.cpp RPC across two Sparks on their 200G cable (a comment on
    ggml-org/llama.cpp PR 15405, before the change): Qwen3-VL-235B-A22B
    Q4_K_M (124.91 GiB; its language model has Qwen3-235B-A22B's shape), one
    stream's tg32 at depth 0 to 16,384 and pp2048. llama.cpp's only published
    multi-node Spark run: trains its pipeline hop."""
    common = {
        "engine": "llama.cpp",
        "nodes": 2,
        "topology": "direct",
        "backend": "none",
        "pp": 2,
        "quantization": "Q4_K_M",
        "url": LLAMA_RPC,
        "origin": "llamacpp-rpc-235b",
        "role": "train",
        "note": "Qwen3-VL-235B-A22B's language model: Qwen3-235B-A22B's shape",
    }
    src = "llama.cpp PR 15405, two DGX Sparks over RPC (200G): qwen3vlmoe 235B.A22B Q4_K_M"
    points = [
        _pt(
            "qwen3-235b-2-llamacpp-rpc",
            "qwen3-235b-a22b",
            decode_tps=12.98,
            prefill_tps=528.52,
            context=16,
            source=f"{src}, tg32 and pp2048",
            **common,
        )
    ]
    for depth, tps in ((4096, 11.62), (8192, 11.15), (16384, 9.90)):
        points.append(
            _pt(
                f"qwen3-235b-2-llamacpp-rpc-d{depth}",
                "qwen3-235b-a22b",
                decode_tps=tps,
                context=depth + 16,
                source=f"{src}, tg32 @ d{depth}",
                **common,
            )
        )
    return tuple(points)


# djangodevreng/dgx-spark-benchmarks, test 01-chat (llama-benchy 0.4.0, --pp 1024 --tg 1024, three runs,
# concurrency 1, 5 and 10): model directory, precision, tg1024 c1, c5 and c10 (t/s total), pp1024 c1.
_DJANGODEVRENG_RUNS: tuple[tuple[str, str, str, float, float, float, float], ...] = (
    ("nemotron-3/nemotron-3-nano-30b-a3b", "nemotron-3-nano-30b-a3b", "bf16", 29.27, 54.60, 72.26, 2388.16),
    ("nemotron-3/nemotron-3-nano-30b-a3b", "nemotron-3-nano-30b-a3b", "nvfp4", 63.14, 150.46, 206.05, 2766.01),
    ("nemotron-3/nemotron-3-nano-30b-a3b", "nemotron-3-nano-30b-a3b", "fp8", 46.43, 96.16, 129.66, 1440.91),
    ("qwen-3.6/qwen-3.6-35b-a3b", "qwen3.6-35b-a3b", "bf16", 30.49, 64.61, 84.61, 1802.37),
    ("qwen-3.6/qwen-3.6-35b-a3b", "qwen3.6-35b-a3b", "nvfp4", 42.62, 133.38, 196.13, 6486.84),
    ("qwen-3.6/qwen-3.6-35b-a3b", "qwen3.6-35b-a3b", "fp8", 51.86, 109.52, 150.15, 4453.68),
    ("qwen-3.6/qwen-3.6-27b", "qwen3.6-27b", "bf16", 4.54, 20.86, 39.82, 955.71),
    ("qwen-3.6/qwen-3.6-27b", "qwen3.6-27b", "fp8", 7.80, 36.80, 65.43, 551.90),
    ("qwen-3.8/qwen-3.8-27b", "qwen3.8-27b", "bf16", 4.50, 20.61, 39.14, 1094.68),
    ("qwen-3.8/qwen-3.8-27b", "qwen3.8-27b", "fp8", 7.95, 37.54, 66.85, 558.56),
    ("gpt-oss/gpt-oss-20b", "gpt-oss-20b", "mxfp4", 46.47, 129.65, 180.39, 11792.96),
)


def djangodevreng_series() -> tuple[PublishedPoint, ...]:
    """djangodevreng/dgx-spark-benchmarks: one lab's suite on one Spark, vLLM 0.26.0
    (vllm/vllm-openai:v0.26.0-aarch64-cu129-ubuntu2404), CUDA graphs, fp8 KV cache, no prefix
    caching, Marlin kernels for its fp8 and NVFP4 runs (``meta.json`` of each run), every model
    in bf16 and in its quantised forms. 01-chat: 1,024-token prompts, 1,024 tokens out, at 1, 5
    and 10 streams. The split was fixed by precision before the runs were predicted: the bf16
    and FP4 runs train (what a format's weights cost to read, on models the fit knew only in
    one form), the fp8 runs are held out. One figure (Qwen3.6-35B-A3B fp8, 51.86 tok/s) was
    read before the split, while checking a held-out page's claim. Its Nemotron-3-Super run
    used MTP speculative decoding and is left out."""
    points = []
    for folder, slug, precision, c1, c5, c10, prefill in _DJANGODEVRENG_RUNS:
        train = precision != "fp8"
        base = f"{slug}-1-djangodevreng-{precision}"
        common = {
            "engine": "vllm",
            "quantization": precision,
            "context": 1536,
            "prompt": 1024,
            "mode": "graphs",
            "url": f"{DJANGODEVRENG}/tree/main/results/{folder}/{precision}",
            "origin": f"djangodevreng-{slug}-{'train' if train else 'fp8'}",
            "role": "train" if train else "holdout",
        }
        src = f"djangodevreng/dgx-spark-benchmarks, {folder}/{precision}, vLLM 0.26.0, llama-benchy pp1024 tg1024"
        # Prefill is on the record, not compared. The fp8 and NVFP4 runs forced Marlin kernels,
        # which widen the weights to bf16 before multiplying; the bf16 runs reach about 53 TFLOPS
        # where NVIDIA's NVFP4 table reaches about 146, a ratio of 2.75 where the model fixes the
        # formats' compute rates at 4 (COMPUTE_RATE_BY_CLASS, not fitted); and with the MXFP4 run's
        # 11,793 tok/s the fit drops its prefill cost per sublayer to zero and predicts PR 918's
        # prefill four times too fast (PERFORMANCE_MODEL.md, weak spots).
        points += [
            _pt(
                base,
                slug,
                decode_tps=c1,
                source=f"{src}: tg1024 c1",
                note=f"pp1024 c1 {prefill:g} tok/s on the record, not compared (see the series)",
                **common,
            ),
            _pt(f"{base}-c5", slug, concurrency=5, decode_tps=c5, source=f"{src}: tg1024 c5, total", **common),
            _pt(f"{base}-c10", slug, concurrency=10, decode_tps=c10, source=f"{src}: tg1024 c10, total", **common),
        ]
    return tuple(points)
