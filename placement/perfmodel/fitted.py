"""The fitted constants and the leave-one-origin-out residuals. Generated:
do not edit by hand; run ``python -m placement.perfmodel --write``."""

from __future__ import annotations

from .constants import DEFAULT_READING, EngineConstants, PerfConstants, Residual

CONSTANTS_BY_READING: dict[str, PerfConstants] = {
    "one-node": PerfConstants(
        reading="one-node",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.719380044079447,
                token_overhead_ms=0.0,
                sublayer_us=31.624947531477687,
                prefill_tflops=330.9931922648104,
                prefill_expert_tflops=330.9931922648104,
                prefill_sublayer_us=1.6055529538961055,
                allreduce_extra_us=0.0,
                eager_sublayer_us=49.12517671600973,
                stream_overhead_ms=0.0,
                pp_hop_ms=0.5,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.719380044079447,
                token_overhead_ms=0.0,
                sublayer_us=31.624947531477687,
                prefill_tflops=35.417973306499775,
                prefill_expert_tflops=35.417973306499775,
                prefill_sublayer_us=1.6055529538961055,
                allreduce_extra_us=339.5045957342036,
                eager_sublayer_us=49.12517671600973,
                stream_overhead_ms=9.9,
                pp_hop_ms=0.5,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.719380044079447,
                token_overhead_ms=0.6662918447337532,
                sublayer_us=25.0,
                prefill_tflops=71.0914195972291,
                prefill_expert_tflops=54.15329940938356,
                prefill_sublayer_us=0.0,
                allreduce_extra_us=0.0,
                eager_sublayer_us=0.0,
                stream_overhead_ms=0.0,
                pp_hop_ms=26.23073259288009,
            ),
        },
        ring_base_us=12.123825063601545,
        switched_nccl_base_us=34.271881579629934,
        rocenante_base_us=0.0,
        allreduce_step_us=4.3887495435947095,
        link_efficiency=0.6040382015625334,
        class_efficiency={"default": 1.0, "int4": 0.9995014707028136, "gguf": 1.2733328398001351},
        linear_us={"gated-deltanet": 29.33420723947685, "mamba2": 473.14657159116774},
        routing_exponent=0.63,
        expert_slot_us=5.0,
    ),
    "direct": PerfConstants(
        reading="direct",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.6256714876534212,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=265.7159164374257,
                prefill_expert_tflops=265.7159164374257,
                prefill_sublayer_us=1.5681094709651442,
                allreduce_extra_us=0.0,
                eager_sublayer_us=24.954325206287095,
                stream_overhead_ms=0.0,
                pp_hop_ms=0.5,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.6256714876534212,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=35.39001340744401,
                prefill_expert_tflops=35.39001340744401,
                prefill_sublayer_us=1.5681094709651442,
                allreduce_extra_us=221.06309624599334,
                eager_sublayer_us=24.954325206287095,
                stream_overhead_ms=9.85,
                pp_hop_ms=0.5,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.6256714876534212,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=71.04476463004731,
                prefill_expert_tflops=55.0800639320248,
                prefill_sublayer_us=0.0,
                allreduce_extra_us=0.0,
                eager_sublayer_us=0.0,
                stream_overhead_ms=0.0,
                pp_hop_ms=25.776548462324918,
            ),
        },
        ring_base_us=41.588234480211796,
        switched_nccl_base_us=70.50642929974556,
        rocenante_base_us=0.0,
        allreduce_step_us=0.0,
        link_efficiency=0.612835544741506,
        class_efficiency={"default": 1.0, "int4": 1.1886863477329581, "gguf": 1.434878643355815},
        linear_us={"gated-deltanet": 83.72664846888497, "mamba2": 358.2672432649644},
        routing_exponent=0.58,
        expert_slot_us=5.0,
    ),
}

# published / predicted of each training figure, its origin left out of the fit

LOSO_RESIDUALS: tuple[Residual, ...] = (
    Residual("qwen3.6-27b-2-sglang-c1", "al-engr-qwen36-tp2", "decode", "sglang", "tp", "hybrid", 0.648002, "graphs"),
    Residual("qwen3.6-27b-2-sglang-c1", "al-engr-qwen36-tp2", "prefill", "sglang", "tp", "hybrid", 0.215344, "graphs"),
    Residual(
        "qwen3.6-27b-2-sglang-c4", "al-engr-qwen36-tp2", "aggregate", "sglang", "tp", "hybrid", 0.521139, "graphs"
    ),
    Residual(
        "qwen3.6-27b-2-sglang-c8", "al-engr-qwen36-tp2", "aggregate", "sglang", "tp", "hybrid", 0.429842, "graphs"
    ),
    Residual("qwen3.5-397b-pp3", "community-pp3", "decode", "vllm", "pp", "hybrid", 0.999565, "graphs"),
    Residual("qwen3.5-397b-pp3", "community-pp3", "prefill", "vllm", "pp", "hybrid", 3.979321, "graphs"),
    Residual(
        "gpt-oss-120b-1-conselara-graphs", "conselara-gptoss", "decode", "vllm", "single", "moe", 1.01684, "graphs"
    ),
    Residual(
        "gpt-oss-120b-1-conselara-eager", "conselara-gptoss", "decode", "vllm", "single", "moe", 0.448099, "eager"
    ),
    Residual("gpt-oss-120b-1-kubis", "kubis-gptoss-solo", "decode", "vllm", "single", "moe", 2.22055, "eager"),
    Residual("gpt-oss-120b-1-kubis-c2", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.935153, "eager"),
    Residual("gpt-oss-120b-1-kubis-c4", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.848647, "eager"),
    Residual("gpt-oss-120b-1-kubis-c8", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.965549, "eager"),
    Residual("gpt-oss-120b-1-kubis-c16", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.206817, "eager"),
    Residual("gpt-oss-120b-1-kubis-c32", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.616257, "eager"),
    Residual("gpt-oss-120b-1-kubis-c64", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.124583, "eager"),
    Residual(
        "nemotron-super-1-kubis-c1", "kubis-nemotron-super", "decode", "vllm", "single", "hybrid", 0.693879, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c2", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.735545, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c4", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.722171, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c8", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.62738, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c16",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "single",
        "hybrid",
        0.563923,
        "graphs",
    ),
    Residual(
        "nemotron-super-1-kubis-c32",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "single",
        "hybrid",
        0.527867,
        "graphs",
    ),
    Residual("nemotron-super-2-kubis-c1", "kubis-nemotron-super", "decode", "vllm", "tp", "hybrid", 0.563875, "graphs"),
    Residual(
        "nemotron-super-2-kubis-c2", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.564825, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c4", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.513789, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c8", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.558574, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c16", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.524327, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c32", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.520653, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c64", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.540866, "graphs"
    ),
    Residual(
        "nemotron-super-2x1-kubis-c1",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.699843,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c2",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.709087,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c4",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.682028,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c8",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.626006,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c16",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.549778,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c32",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.510101,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c64",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.494516,
        "graphs",
    ),
    Residual(
        "gpt-oss-20b-1-llamacpp", "llamacpp-benches-train", "decode", "llama.cpp", "single", "moe", 0.939016, "graphs"
    ),
    Residual(
        "gpt-oss-20b-1-llamacpp", "llamacpp-benches-train", "prefill", "llama.cpp", "single", "moe", 0.959178, "graphs"
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
        1.128055,
        "graphs",
    ),
    Residual("qwen3-235b-2-llamacpp-rpc", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.770355, "graphs"),
    Residual("qwen3-235b-2-llamacpp-rpc", "llamacpp-rpc-235b", "prefill", "llama.cpp", "pp", "moe", 0.955259, "graphs"),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d4096", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.72565, "graphs"
    ),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d8192", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.730852, "graphs"
    ),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d16384", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.710278, "graphs"
    ),
    Residual("qwen27b-row1-one-node", "nvidia-2026-10", "decode", "vllm", "single", "hybrid", 1.496191, "graphs"),
    Residual("qwen27b-row1-one-node", "nvidia-2026-10", "prefill", "vllm", "single", "hybrid", 1.09763, "graphs"),
    Residual("qwen27b-4-ring", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 2.535814, "graphs"),
    Residual("qwen27b-4-ring", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.962501, "graphs"),
    Residual("qwen27b-4-switch", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 2.596283, "graphs"),
    Residual("qwen27b-4-switch", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.986314, "graphs"),
    Residual("qwen27b-8-ring", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 3.317386, "graphs"),
    Residual("qwen27b-8-ring", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.908749, "graphs"),
    Residual("qwen27b-8-switch", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 3.634698, "graphs"),
    Residual("qwen27b-8-switch", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.934939, "graphs"),
    Residual("qwen27b-2-direct-ratio", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 1.956838, "graphs"),
    Residual("qwen27b-8-switch-nccl-ratio", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 2.99152, "graphs"),
    Residual("qwen3.6-a3b-1-vllm", "vllm-recipes-918", "prefill", "vllm", "single", "hybrid", 1.069506, "graphs"),
)


def default_constants() -> PerfConstants:
    return CONSTANTS_BY_READING[DEFAULT_READING]
