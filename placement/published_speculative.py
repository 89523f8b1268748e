"""Published Spark (GB10) runs decoded with MTP speculative decoding, kept for
reference only.

The performance model predicts plain decoding, so these figures are neither
fitted on nor compared with its predictions (``role="reference"``,
``speculative="mtp"``: ``PublishedPoint.compared_decode_tps`` is None). They
are shown beside plans of their very configuration (model, format, engine,
one Spark, the same number of streams) as what drafting gave there.

They were collected on 2026-12-05 (``placement/collected/2026-12-05j.md``,
sections 1b, 1c and 2) and left out of the fifteenth set because every level
ran with a draft. Each figure was read again here at its source, at the
commit named below, and kept only where its number, its concurrency, the
engine's version, the checkpoint and the speculative configuration are all
written there:

- Avarok-Cybersecurity/atlas, the vLLM + MTP baseline legs of an
  engine-against-engine campaign on one DGX Spark ("dgx2 (spark-43fa)",
  "NVIDIA GB10 Grace Blackwell, 121.7 GB unified"): Qwen3.8-27B NVFP4,
  C=1..128, in site/src/lib/ladder.generated.json at 0dac434 (the command
  also in bench/ladder38/published.json at 17fd1d9); Qwen3.6-35B-A3B-FP8,
  C=1..16, in site/src/lib/ladders.generated.json at 3e3ee19 (the command in
  bench/baselines/qwen36-35b-a3b/published.json at 73b35b9). The other
  engine's rows are not kept (a custom engine).
- r0b0tlab/qwen36-35b-a3b-nvfp4-sm121-vllm, NVIDIA's Qwen3.6-35B-A3B NVFP4
  on a locally built, patched vLLM 0.24.1.dev0 image with MTP (2 draft
  tokens), ``vllm bench serve`` 2,048 tokens in and 512 out, C=1..32:
  benchmarks/runs/nvidia-qwen36-native-20260711T100947Z/concurrency/
  summary.json and runtime-manifest.json, and scripts/run_concurrency.sh,
  at 75687ac.

``decode_tps`` is the aggregate output rate over all streams the source
prints (at one stream, that stream's rate), over the wall time including the
first token. ``context`` is the prompt and half the output, as the fifteenth
set reads these ladders. ``mode`` is left empty: the Atlas commands have no
--enforce-eager, and no figure here ran eager. ``collected`` is left empty:
these are not a held-out set. The checkpoint each ran (unsloth's
Qwen3.8-27B NVFP4, Qwen's Qwen3.6-35B-A3B FP8, NVIDIA's Qwen3.6-35B-A3B NVFP4)
is recorded with the others in ``placement.published_checkpoints``.
"""

from __future__ import annotations

from placement.published_point import PublishedPoint
from placement.published_series import _pt

_ATLAS_BLOB = "https://github.com/Avarok-Cybersecurity/atlas/blob/"

ATLAS_QWEN38 = _ATLAS_BLOB + "0dac434fa20799c51b6f4674cc190a7d2275e9d4/site/src/lib/ladder.generated.json"
ATLAS_QWEN38_MANIFEST = _ATLAS_BLOB + "17fd1d9bef4a63465492acab20e3ae559f77b0b5/bench/ladder38/published.json"
ATLAS_QWEN36 = _ATLAS_BLOB + "3e3ee1904d1936f47068ecf6cee5b87c7e382866/site/src/lib/ladders.generated.json"
ATLAS_QWEN36_MANIFEST = (
    _ATLAS_BLOB + "73b35b9724928e7ee13baee8d6e5556f8d3bdf48/bench/baselines/qwen36-35b-a3b/published.json"
)

_R0B0TLAB_BLOB = (
    "https://github.com/r0b0tlab/qwen36-35b-a3b-nvfp4-sm121-vllm/blob/75687ac2c39a75bc2f2e0ee76da5f0621987a347/"
    "benchmarks/runs/nvidia-qwen36-native-20260711T100947Z/"
)
R0B0TLAB = _R0B0TLAB_BLOB + "concurrency/summary.json"
R0B0TLAB_MANIFEST = _R0B0TLAB_BLOB + "runtime-manifest.json"

_ATLAS_IMAGE = "vllm/vllm-openai:latest @ sha256:0a51ea5b4ae2dc5d81890e5173f54203d2a3ae0cfffe51b8fd2afd4391bfd967"

# vLLM 0.27.1 + MTP, Qwen3.8-27B NVFP4 (series "vllm-mtp"): streams -> (tok_s, ttft_p50_ms, tpot_p50_ms, raw file)
_ATLAS_QWEN38: dict[int, tuple[float, float, float, str]] = {
    1: (19.72, 286.71, 50.37, "vllm_fp8_mtp_reference.json"),
    2: (37.11, 390.84, 53.22, "c2_vllm_mtp_dgx2_20260818.json"),
    4: (71.61, 604.84, 54.51, "vllm_fp8_mtp_reference.json"),
    8: (124.48, 936.14, 60.8, "vllm_fp8_mtp_reference.json"),
    16: (197.03, 1620.35, 76.25, "vllm_fp8_mtp_reference.json"),
    32: (283.48, 3066.96, 107.45, "vllm_fp8_mtp_reference.json"),
    64: (361.39, 5278.74, 167.48, "vllm_fp8_mtp_reference.json"),
    128: (358.57, 8500.7, 269.54, "vllm_fp8_mtp_reference.json"),
}

# vLLM 0.27.1 + MTP, Qwen3.6-35B-A3B-FP8 (subject "qwen36-35b-a3b", series "vllm-mtp", every rung from
# vllm_moe_c1_16.json): streams -> (tok_s, ttft_p50_ms, tpot_p50_ms)
_ATLAS_QWEN36: dict[int, tuple[float, float, float]] = {
    1: (52.11, 165.03, 19.49),
    2: (93.16, 241.01, 21.1),
    4: (145.94, 350.68, 26.75),
    8: (222.08, 473.49, 34.27),
    16: (329.93, 711.18, 46.47),
}

# vLLM 0.24.1.dev0 + MTP (2 draft tokens), nvidia/Qwen3.6-35B-A3B-NVFP4, summary.json rows:
# concurrency -> (output_throughput_tok_s, p50_ttft_ms, mean_tpot_ms), printed to full precision
_R0B0TLAB_QWEN36: dict[int, tuple[float, float, float]] = {
    1: (90.8597915603042, 346.63096148869954, 10.350325867539265),
    2: (134.7058070130705, 492.9965527553577, 13.700471598234774),
    4: (193.22372815136248, 769.0947327500908, 18.9298314249263),
    8: (286.31210297127143, 1187.631516775582, 24.297936840314257),
    16: (373.4742438482367, 2408.7907957436983, 36.31560552075861),
    32: (463.67497421863027, 2521.5824632323347, 57.755258138488536),
}


def _suffix(streams: int) -> str:
    return f"-c{streams}" if streams > 1 else ""


def _mtp(key: str, slug: str, quantization: str, streams: int, tps: float, **kw: object) -> PublishedPoint:
    """One level of a one-Spark vLLM ladder decoded with MTP, kept for reference."""
    return _pt(
        key + _suffix(streams),
        slug,
        quantization=quantization,
        concurrency=streams,
        decode_tps=tps,
        role="reference",
        speculative="mtp",
        **kw,
    )


def _atlas_qwen38() -> list[PublishedPoint]:
    """Avarok-Cybersecurity/atlas: one DGX Spark (GB10, "dgx2"), vLLM 0.27.1
    (the stock vllm/vllm-openai image, digest 0a51ea5b), ``vllm serve --model
    unsloth/Qwen3.8-27B-NVFP4 --max-model-len 2048 --max-num-seqs 128
    --gpu-memory-utilization 0.85 --enable-prefix-caching --dtype bfloat16
    --kv-cache-dtype fp8 --speculative-config
    '{"method":"mtp","num_speculative_tokens":3}'`` (no --enforce-eager); C
    streams at once, 128-token prompts (about 200 after the chat template, a
    nonce each), up to 1,024 tokens out, thinking off, temperature 0, output
    tokens over each batch's wall time, the mean of three timed repetitions
    after one warm-up."""
    src = "Avarok-Cybersecurity/atlas site/src/lib/ladder.generated.json (0dac434), series 'vllm-mtp': "
    points = []
    for streams, (tps, ttft, tpot, raw) in _ATLAS_QWEN38.items():
        rerun = (
            "; this level is the 2026-08-18 re-run measured as a pair with the other engine (harness 1f10d4887b), "
            "which replaced the 2026-08-17 reading of 38.79 printed in bench/ladder38/RESULTS.md"
            if streams == 2
            else ""
        )
        points.append(
            _mtp(
                "qwen3.8-27b-1-vllm-nvfp4-atlas-mtp",
                "qwen3.8-27b",
                "nvfp4",
                streams,
                tps,
                context=200 + 512,
                url=ATLAS_QWEN38,
                origin="atlas-qwen38-mtp",
                source=src + f"'\"c\": {streams}, \"tok_s\": {tps:g}' ('ttft_p50_ms': {ttft:g}, "
                f"'tpot_p50_ms': {tpot:g}, 'source': '{raw}')",
                note="vLLM 0.27.1 (" + _ATLAS_IMAGE + "), unsloth/Qwen3.8-27B-NVFP4 (Unsloth's NVFP4, read as "
                'NVFP4), speculative config {"method":"mtp","num_speculative_tokens":3} ("vLLM\'s own '
                'Qwen3_5MTP, K=4"), fp8 KV cache, 2,048-token context, up to 128 sequences, prefix caching on, no '
                "--enforce-eager (CUDA-graph mode not stated); isl 128 (about 200 rendered prompt tokens) and osl "
                "1,024 (a cap; ladders.generated.json at 3e3ee19 notes completion minima of 753 at 64 and 691 at 128 "
                "streams), output over the batch's "
                "wall time incl. the first token; command also in bench/ladder38/published.json (17fd1d9)" + rerun,
            )
        )
    return points


def _atlas_qwen36() -> list[PublishedPoint]:
    """Avarok-Cybersecurity/atlas: the same Spark and image (vLLM 0.27.1),
    ``--model Qwen/Qwen3.6-35B-A3B-FP8 --max-model-len 2048 --max-num-seqs
    128 --gpu-memory-utilization 0.85 --enable-prefix-caching --dtype
    bfloat16 --kv-cache-dtype auto --speculative-config
    '{"method":"mtp","num_speculative_tokens":3}'`` with
    VLLM_USE_DEEP_GEMM=0 and VLLM_TEST_FORCE_FP8_MARLIN=1 (FP8 MoE on Marlin:
    DeepGEMM fails at weight load on SM121); the same harness and workload,
    one measurement (2026-09-19), stopped at 16 streams on purpose."""
    src = (
        "Avarok-Cybersecurity/atlas site/src/lib/ladders.generated.json (3e3ee19), subject 'qwen36-35b-a3b', "
        "series 'vllm-mtp': "
    )
    points = []
    for streams, (tps, ttft, tpot) in _ATLAS_QWEN36.items():
        points.append(
            _mtp(
                "qwen3.6-35b-a3b-1-vllm-fp8-atlas-mtp",
                "qwen3.6-35b-a3b",
                "fp8",
                streams,
                tps,
                context=200 + 512,
                url=ATLAS_QWEN36,
                origin="atlas-qwen36-fp8-mtp",
                source=src + f"'\"c\": {streams}, \"tok_s\": {tps:g}' ('ttft_p50_ms': {ttft:g}, "
                f"'tpot_p50_ms': {tpot:g}, 'source': 'vllm_moe_c1_16.json')",
                note="vLLM 0.27.1 (" + _ATLAS_IMAGE + ", label vllm/vllm-openai:v0.27.1), "
                "Qwen/Qwen3.6-35B-A3B-FP8 (FP8 block-scale), speculative config "
                '{"method":"mtp","num_speculative_tokens":3} ("vLLM\'s own MTP drafter, K=4"), KV cache '
                "bf16 (--kv-cache-dtype auto with --dtype bfloat16, as the source reads it), FP8 MoE forced onto "
                "Marlin (VLLM_USE_DEEP_GEMM=0 VLLM_TEST_FORCE_FP8_MARLIN=1), 2,048-token context, up to 128 "
                "sequences, prefix caching on, no --enforce-eager (CUDA-graph mode not stated); isl 128 (200 "
                "prompt tokens per request in the raw file) and osl 1,024 (a cap), output over the batch's wall "
                "time incl. the first token; command in bench/baselines/qwen36-35b-a3b/published.json (73b35b9)",
            )
        )
    return points


def _r0b0tlab_qwen36() -> list[PublishedPoint]:
    """r0b0tlab/qwen36-35b-a3b-nvfp4-sm121-vllm: one GB10, a locally built
    image (id a072794d) of vLLM 0.24.1.dev0+gee0da84ab.d20260702 with the
    repository's patch rerouting W4A16-labelled targets to native W4A4,
    nvidia/Qwen3.6-35B-A3B-NVFP4 at revision 491c2f1e (``modelopt_mixed``),
    FP8 KV cache, MTP with 2 draft tokens (Triton draft MoE), FlashInfer
    attention, B12X routed experts, PIECEWISE CUDA graphs; ``vllm bench
    serve`` on random 2,048-token prompts with exactly 512 tokens out
    (--ignore-eos), max(8, 2C) prompts per repetition, the mean of
    repetitions 2 and 3."""
    src = (
        "r0b0tlab/qwen36-35b-a3b-nvfp4-sm121-vllm benchmarks/runs/nvidia-qwen36-native-20260711T100947Z/"
        "concurrency/summary.json (75687ac): "
    )
    points = []
    for streams, (tps, ttft, tpot) in _R0B0TLAB_QWEN36.items():
        points.append(
            _mtp(
                "qwen3.6-35b-a3b-1-vllm-nvfp4-r0b0tlab-mtp",
                "qwen3.6-35b-a3b",
                "nvfp4",
                streams,
                tps,
                context=2048 + 256,
                url=R0B0TLAB,
                origin="r0b0tlab-qwen36-nvfp4-mtp",
                source=src + f'\'"concurrency": {streams}, ... "output_throughput_tok_s": {tps!r}\' '
                f"('p50_ttft_ms': {ttft!r}, 'mean_tpot_ms': {tpot!r})",
                note="vLLM 0.24.1.dev0+gee0da84ab.d20260702 in a locally built, patched image (sha256:a072794d, "
                "'native W4A4 reroute'), nvidia/Qwen3.6-35B-A3B-NVFP4 revision 491c2f1e (quantization "
                "modelopt_mixed: NVFP4 with FP8 dense layers, read as NVFP4), SPECULATIVE_CONFIG "
                '{"method":"mtp","num_speculative_tokens":2,"moe_backend":"triton"} (mtp_acceptance_rate '
                "0.8562858589620727 over the run), fp8 KV cache, 65,536-token context, up to 32 sequences, "
                "gpu-memory-utilization 0.88, effective CUDA-graph mode PIECEWISE (engine log: enforce_eager=False), "
                "prefix caching off; vllm bench serve random 2,048 in / 512 out with --ignore-eos, temperature 0, "
                "reasoning parser qwen3, output throughput over the run incl. prefill; profile in "
                "runtime-manifest.json, command in scripts/run_concurrency.sh (75687ac)",
            )
        )
    return points


def published_speculative() -> tuple[PublishedPoint, ...]:
    """Every published Spark figure decoded with MTP kept here, for reference."""
    return (*_atlas_qwen38(), *_atlas_qwen36(), *_r0b0tlab_qwen36())
