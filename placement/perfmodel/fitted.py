"""The fitted constants and the leave-one-origin-out residuals. Generated:
do not edit by hand; run ``python -m placement.perfmodel --write``."""

from __future__ import annotations

from .constants import DEFAULT_READING, EngineConstants, PerfConstants, Residual

CONSTANTS_BY_READING: dict[str, PerfConstants] = {
    "one-node": PerfConstants(
        reading="one-node",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.7457323382071113,
                token_overhead_ms=0.0,
                sublayer_us=38.50560589254854,
                prefill_tflops=371.9656567750067,
                prefill_expert_tflops=371.9656567750067,
                prefill_sublayer_us=1.6630600193438894,
                allreduce_extra_us=0.0,
                eager_sublayer_us=49.510495816220384,
                stream_overhead_ms=0.0,
                pp_hop_ms=0.5,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.7457323382071113,
                token_overhead_ms=0.0,
                sublayer_us=38.50560589254854,
                prefill_tflops=35.44385506262861,
                prefill_expert_tflops=35.44385506262861,
                prefill_sublayer_us=1.6630600193438894,
                allreduce_extra_us=351.9991375790027,
                eager_sublayer_us=49.510495816220384,
                stream_overhead_ms=9.95,
                pp_hop_ms=0.5,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.7457323382071113,
                token_overhead_ms=1.041784607840238,
                sublayer_us=25.0,
                prefill_tflops=71.09859342375486,
                prefill_expert_tflops=53.90236201781086,
                prefill_sublayer_us=0.0,
                allreduce_extra_us=0.0,
                eager_sublayer_us=0.0,
                stream_overhead_ms=0.0,
                pp_hop_ms=26.48669078220693,
            ),
        },
        ring_base_us=24.35184499504318,
        switched_nccl_base_us=46.64120438216053,
        rocenante_base_us=9.809972611945074,
        allreduce_step_us=3.9913761686894342,
        link_efficiency=0.5961287643666657,
        class_efficiency={"default": 1.0, "int4": 0.9106559130108334, "gguf": 1.242569645318609},
        linear_us={"gated-deltanet": 0.0, "mamba2": 464.4013210111934},
        routing_exponent=0.65,
        expert_slot_us=5.0,
    ),
    "direct": PerfConstants(
        reading="direct",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.6494016667461763,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=316.9481746411691,
                prefill_expert_tflops=316.9481746411691,
                prefill_sublayer_us=1.637097791653202,
                allreduce_extra_us=0.0,
                eager_sublayer_us=33.59322094004971,
                stream_overhead_ms=0.0,
                pp_hop_ms=0.5,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.6494016667461763,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=35.45428171535106,
                prefill_expert_tflops=35.45428171535106,
                prefill_sublayer_us=1.637097791653202,
                allreduce_extra_us=249.07720919215961,
                eager_sublayer_us=33.59322094004971,
                stream_overhead_ms=9.85,
                pp_hop_ms=0.5,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.6494016667461763,
                token_overhead_ms=0.0,
                sublayer_us=25.0,
                prefill_tflops=71.0610093403585,
                prefill_expert_tflops=54.84752112504439,
                prefill_sublayer_us=0.0,
                allreduce_extra_us=0.0,
                eager_sublayer_us=0.0,
                stream_overhead_ms=0.0,
                pp_hop_ms=25.776548462324918,
            ),
        },
        ring_base_us=66.55645561117458,
        switched_nccl_base_us=91.39653937997507,
        rocenante_base_us=26.67702019496752,
        allreduce_step_us=0.9772155369881712,
        link_efficiency=0.593003801674359,
        class_efficiency={"default": 1.0, "int4": 1.0074095145236182, "gguf": 1.382445874967939},
        linear_us={"gated-deltanet": 0.0, "mamba2": 346.1281308954685},
        routing_exponent=0.59,
        expert_slot_us=5.0,
    ),
}

# published / predicted of each training figure, its origin left out of the fit

LOSO_RESIDUALS: tuple[Residual, ...] = (
    Residual("qwen3.5-35b-a3b-1-bf16", "adadrag-qwen35", "decode", "vllm", "single", "hybrid", 1.101344, "graphs"),
    Residual("qwen3.6-27b-2-sglang-c1", "al-engr-qwen36-tp2", "decode", "sglang", "tp", "hybrid", 0.635047, "graphs"),
    Residual("qwen3.6-27b-2-sglang-c1", "al-engr-qwen36-tp2", "prefill", "sglang", "tp", "hybrid", 0.207076, "graphs"),
    Residual("qwen3.6-27b-2-sglang-c4", "al-engr-qwen36-tp2", "aggregate", "sglang", "tp", "hybrid", 0.51063, "graphs"),
    Residual("qwen3.6-27b-2-sglang-c8", "al-engr-qwen36-tp2", "aggregate", "sglang", "tp", "hybrid", 0.42108, "graphs"),
    Residual("qwen3.5-122b-1-int4-albond", "albond-qwen122", "decode", "vllm", "single", "hybrid", 0.957262, "graphs"),
    Residual("qwen3.5-397b-pp3", "community-pp3", "decode", "vllm", "pp", "hybrid", 1.074519, "graphs"),
    Residual("qwen3.5-397b-pp3", "community-pp3", "prefill", "vllm", "pp", "hybrid", 4.043258, "graphs"),
    Residual(
        "gpt-oss-120b-1-conselara-graphs", "conselara-gptoss", "decode", "vllm", "single", "moe", 0.98171, "graphs"
    ),
    Residual(
        "gpt-oss-120b-1-conselara-eager", "conselara-gptoss", "decode", "vllm", "single", "moe", 0.448197, "eager"
    ),
    Residual(
        "qwen3.5-122b-1-int4-forum", "forum-qwen122-int4", "decode", "vllm", "single", "hybrid", 0.972187, "graphs"
    ),
    Residual("gpt-oss-120b-1-kubis", "kubis-gptoss-solo", "decode", "vllm", "single", "moe", 2.22023, "eager"),
    Residual("gpt-oss-120b-1-kubis-c2", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.934033, "eager"),
    Residual("gpt-oss-120b-1-kubis-c4", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.852377, "eager"),
    Residual("gpt-oss-120b-1-kubis-c8", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 1.978577, "eager"),
    Residual("gpt-oss-120b-1-kubis-c16", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.230087, "eager"),
    Residual("gpt-oss-120b-1-kubis-c32", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.643065, "eager"),
    Residual("gpt-oss-120b-1-kubis-c64", "kubis-gptoss-solo", "aggregate", "vllm", "single", "moe", 2.130583, "eager"),
    Residual(
        "nemotron-super-1-kubis-c1", "kubis-nemotron-super", "decode", "vllm", "single", "hybrid", 0.676813, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c2", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.7728, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c4", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.831436, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c8", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.799975, "graphs"
    ),
    Residual(
        "nemotron-super-1-kubis-c16",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "single",
        "hybrid",
        0.797164,
        "graphs",
    ),
    Residual(
        "nemotron-super-1-kubis-c32", "kubis-nemotron-super", "aggregate", "vllm", "single", "hybrid", 0.82022, "graphs"
    ),
    Residual("nemotron-super-2-kubis-c1", "kubis-nemotron-super", "decode", "vllm", "tp", "hybrid", 0.588088, "graphs"),
    Residual(
        "nemotron-super-2-kubis-c2", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.65333, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c4", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.672506, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c8", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.833293, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c16", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.884648, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c32", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 0.9752, "graphs"
    ),
    Residual(
        "nemotron-super-2-kubis-c64", "kubis-nemotron-super", "aggregate", "vllm", "tp", "hybrid", 1.099245, "graphs"
    ),
    Residual(
        "nemotron-super-2x1-kubis-c1",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.68263,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c2",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.714778,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c4",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.726754,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c8",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.723265,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c16",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.700839,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c32",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.720384,
        "graphs",
    ),
    Residual(
        "nemotron-super-2x1-kubis-c64",
        "kubis-nemotron-super",
        "aggregate",
        "vllm",
        "copies",
        "hybrid",
        0.76784,
        "graphs",
    ),
    Residual(
        "gpt-oss-20b-1-llamacpp", "llamacpp-benches-train", "decode", "llama.cpp", "single", "moe", 0.908032, "graphs"
    ),
    Residual(
        "gpt-oss-20b-1-llamacpp", "llamacpp-benches-train", "prefill", "llama.cpp", "single", "moe", 0.955151, "graphs"
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
    Residual("qwen3-235b-2-llamacpp-rpc", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.780937, "graphs"),
    Residual("qwen3-235b-2-llamacpp-rpc", "llamacpp-rpc-235b", "prefill", "llama.cpp", "pp", "moe", 0.956697, "graphs"),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d4096", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.73461, "graphs"
    ),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d8192", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.738958, "graphs"
    ),
    Residual(
        "qwen3-235b-2-llamacpp-rpc-d16384", "llamacpp-rpc-235b", "decode", "llama.cpp", "pp", "moe", 0.716601, "graphs"
    ),
    Residual("qwen27b-row1-one-node", "nvidia-2026-10", "decode", "vllm", "single", "hybrid", 0.854214, "graphs"),
    Residual("qwen27b-row1-one-node", "nvidia-2026-10", "prefill", "vllm", "single", "hybrid", 0.961015, "graphs"),
    Residual("qwen27b-4-ring", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.791007, "graphs"),
    Residual("qwen27b-4-ring", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.904874, "graphs"),
    Residual("qwen27b-4-switch", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.875844, "graphs"),
    Residual("qwen27b-4-switch", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.927261, "graphs"),
    Residual("qwen27b-8-ring", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.646689, "graphs"),
    Residual("qwen27b-8-ring", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.876592, "graphs"),
    Residual("qwen27b-8-switch", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.847741, "graphs"),
    Residual("qwen27b-8-switch", "nvidia-2026-10", "prefill", "vllm", "tp", "hybrid", 0.901854, "graphs"),
    Residual("qwen27b-2-direct-ratio", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.874455, "graphs"),
    Residual("qwen27b-8-switch-nccl-ratio", "nvidia-2026-10", "decode", "vllm", "tp", "hybrid", 0.583164, "graphs"),
    Residual("qwen3.6-a3b-1-vllm", "vllm-recipes-918", "prefill", "vllm", "single", "hybrid", 1.158225, "graphs"),
)


def default_constants() -> PerfConstants:
    return CONSTANTS_BY_READING[DEFAULT_READING]
