"""The fitted constants and the leave-one-origin-out residuals. Generated:
do not edit by hand; run ``python -m placement.perfmodel --write``."""

from __future__ import annotations

from .constants import DEFAULT_READING, EngineConstants, PerfConstants, Residual

CONSTANTS_BY_READING: dict[str, PerfConstants] = {
    "one-node": PerfConstants(
        reading="one-node",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.7510314548344349,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=363.91334985894906,
                prefill_expert_tflops=363.91334985894906,
                prefill_sublayer_us=1.6543891454427175,
                allreduce_extra_us=0.0,
                eager_sublayer_us=64.41562249985517,
                stream_overhead_ms=0.0,
                pp_hop_ms=0.5,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.7510314548344349,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=35.43873204859896,
                prefill_expert_tflops=35.43873204859896,
                prefill_sublayer_us=1.6543891454427175,
                allreduce_extra_us=355.2037761451373,
                eager_sublayer_us=64.41562249985517,
                stream_overhead_ms=9.95,
                pp_hop_ms=0.5,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.7510314548344349,
                token_overhead_ms=1.1141093475838642,
                sublayer_us=25.0,
                prefill_tflops=71.09994032422306,
                prefill_expert_tflops=53.85410071904667,
                prefill_sublayer_us=0.0,
                allreduce_extra_us=0.0,
                eager_sublayer_us=0.0,
                stream_overhead_ms=0.0,
                pp_hop_ms=26.53599162431925,
            ),
        },
        ring_base_us=38.48594903981717,
        switched_nccl_base_us=60.770638599251,
        rocenante_base_us=24.034210379163422,
        allreduce_step_us=3.984216119342211,
        link_efficiency=0.5976769570980675,
        class_efficiency={"default": 1.0, "int4": 0.9183377553201211, "gguf": 1.2365621906378605},
        linear_us={"gated-deltanet": 0.0, "mamba2": 477.71230656336405},
        routing_exponent=0.65,
        expert_slot_us=5.0,
    ),
    "direct": PerfConstants(
        reading="direct",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.6826910606706261,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=316.2832178661862,
                prefill_expert_tflops=316.2832178661862,
                prefill_sublayer_us=1.6446877578551808,
                allreduce_extra_us=0.0,
                eager_sublayer_us=44.699926351069465,
                stream_overhead_ms=0.0,
                pp_hop_ms=0.5,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.6826910606706261,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=35.450757679059095,
                prefill_expert_tflops=35.450757679059095,
                prefill_sublayer_us=1.6446877578551808,
                allreduce_extra_us=269.2796541353938,
                eager_sublayer_us=44.699926351069465,
                stream_overhead_ms=9.9,
                pp_hop_ms=0.5,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.6826910606706261,
                token_overhead_ms=0.09523731516630576,
                sublayer_us=25.0,
                prefill_tflops=71.08018905681783,
                prefill_expert_tflops=54.53806939063122,
                prefill_sublayer_us=0.0,
                allreduce_extra_us=0.0,
                eager_sublayer_us=0.0,
                stream_overhead_ms=0.0,
                pp_hop_ms=25.84146787793394,
            ),
        },
        ring_base_us=77.69471832104361,
        switched_nccl_base_us=102.85948531408569,
        rocenante_base_us=35.07373045043568,
        allreduce_step_us=0.4536233061745583,
        link_efficiency=0.5940561102750049,
        class_efficiency={"default": 1.0, "int4": 1.0102674256931798, "gguf": 1.3187901392517525},
        linear_us={"gated-deltanet": 0.0, "mamba2": 366.84694166529346},
        routing_exponent=0.61,
        expert_slot_us=5.0,
    ),
}

# published / predicted of each training figure, its origin left out of the fit

LOSO_RESIDUALS: tuple[Residual, ...] = (
    Residual("qwen3.6-27b-2-sglang-c1", "al-engr-qwen36-tp2", "decode", "sglang", "tp", "hybrid", 0.631725, "graphs"),
    Residual("qwen3.6-27b-2-sglang-c1", "al-engr-qwen36-tp2", "prefill", "sglang", "tp", "hybrid", 0.208603, "graphs"),
    Residual(
        "qwen3.6-27b-2-sglang-c4", "al-engr-qwen36-tp2", "aggregate", "sglang", "tp", "hybrid", 0.507946, "graphs"
    ),
    Residual(
        "qwen3.6-27b-2-sglang-c8", "al-engr-qwen36-tp2", "aggregate", "sglang", "tp", "hybrid", 0.418854, "graphs"
    ),
    Residual("qwen3.5-397b-pp3", "community-pp3", "decode", "vllm", "pp", "hybrid", 0.924185, "graphs"),
    Residual("qwen3.5-397b-pp3", "community-pp3", "prefill", "vllm", "pp", "hybrid", 3.987506, "graphs"),
    Residual(
        "gpt-oss-120b-1-conselara-graphs", "conselara-gptoss", "decode", "vllm", "single", "moe", 0.913828, "graphs"
    ),
    Residual(
        "gpt-oss-120b-1-conselara-eager", "conselara-gptoss", "decode", "vllm", "single", "moe", 0.448386, "eager"
    ),
    Residual("gpt-oss-120b-1-kubis", "kubis-gptoss-solo", "decode", "vllm", "single", "moe", 2.220145, "eager"),
    Residual("gpt-oss-120b-1-kubis-c2", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.934315, "eager"),
    Residual("gpt-oss-120b-1-kubis-c4", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.856267, "eager"),
    Residual("gpt-oss-120b-1-kubis-c8", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.988346, "eager"),
    Residual("gpt-oss-120b-1-kubis-c16", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.244754, "eager"),
    Residual("gpt-oss-120b-1-kubis-c32", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.654408, "eager"),
    Residual("gpt-oss-120b-1-kubis-c64", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.121513, "eager"),
    Residual(
        "nemotron-super-1-kubis-c1", "kubis-nemotron-super", "decode", "vllm", "single", "hybrid", 0.651936, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c2", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.718111, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c4", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.739503, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c8", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.678216, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c16",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "single",
        "hybrid",
        0.644641,
        "graphs",
    ),
    Residual(
        "nemotron-super-1-kubis-c32",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "single",
        "hybrid",
        0.635786,
        "graphs",
    ),
    Residual("nemotron-super-2-kubis-c1", "kubis-nemotron-super", "decode", "vllm", "tp", "hybrid", 0.58835, "graphs"),
    Residual(
        "nemotron-super-2-kubis-c2", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.611481, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c4", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.584484, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c8", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.673497, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c16", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.671146, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c32", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.703685, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c64", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.76442, "graphs"
    ),
    Residual(
        "nemotron-super-2x1-kubis-c1",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.657539,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c2",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.677751,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c4",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.671008,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c8",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.642479,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c16",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.594399,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c32",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.582878,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c64",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.595401,
        "graphs",
    ),
    Residual(
        "gpt-oss-20b-1-llamacpp", "llamacpp-benches-train", "decode", "llama.cpp", "single", "moe", 0.90721, "graphs"
    ),
    Residual(
        "gpt-oss-20b-1-llamacpp", "llamacpp-benches-train", "prefill", "llama.cpp", "single", "moe", 0.955046, "graphs"
    ),
    Residual(
        "qwen2.5-coder-7b-1-llamacpp",
        "llamacpp-benches-train",
        "decode",
        "llama.cpp",
        "single",
        "dense",
        1.455562,
        "graphs",
    ),
    Residual(
        "qwen2.5-coder-7b-1-llamacpp",
        "llamacpp-benches-train",
        "prefill",
        "llama.cpp",
        "single",
        "dense",
        1.127977,
        "graphs",
    ),
    Residual("qwen3-235b-2-llamacpp-rpc", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.781218, "graphs"),
    Residual("qwen3-235b-2-llamacpp-rpc", "llamacpp-rpc-235b", "prefill", "llama.cpp", "pp", "moe", 0.956734, "graphs"),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d4096", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.734848, "graphs"
    ),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d8192", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.739173, "graphs"
    ),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d16384", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.716768, "graphs"
    ),
    Residual("qwen27b-row1-one-node", "nvidia-2026-10", "decode", "vllm", "single", "hybrid", 0.889304, "graphs"),
    Residual("qwen27b-row1-one-node", "nvidia-2026-10", "prefill", "vllm", "single", "hybrid", 0.957553, "graphs"),
    Residual("qwen27b-4-ring", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.749294, "graphs"),
    Residual("qwen27b-4-ring", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.903413, "graphs"),
    Residual("qwen27b-4-switch", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.80109, "graphs"),
    Residual("qwen27b-4-switch", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.925765, "graphs"),
    Residual("qwen27b-8-ring", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.641047, "graphs"),
    Residual("qwen27b-8-ring", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.875777, "graphs"),
    Residual("qwen27b-8-switch", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.743903, "graphs"),
    Residual("qwen27b-8-switch", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.901016, "graphs"),
    Residual("qwen27b-2-direct-ratio", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.866051, "graphs"),
    Residual("qwen27b-8-switch-nccl-ratio", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.578077, "graphs"),
    Residual("qwen3.6-a3b-1-vllm", "vllm-recipes-918", "decode", "vllm", "single", "hybrid", 1.290269, "graphs"),
    Residual("qwen3.6-a3b-1-vllm", "vllm-recipes-918", "prefill", "vllm", "single", "hybrid", 1.069506, "graphs"),
)


def default_constants() -> PerfConstants:
    return CONSTANTS_BY_READING[DEFAULT_READING]
