"""Per-node memory of a plan: weights, the KV cache of the attention layers
that keep one, the recurrent state of linear and state-space layers (a fixed
size per stream, whatever the context), runtime and activations, and what
the engine leaves unused; and the ``--gpu-memory-utilization`` a vLLM launch
gets from that budget. Plain data, no Django.

Memory is in GB (10**9 bytes). ``usable_gb`` is what the engine may use on a
node after the operating system (see SPARK_128_USABLE_GB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from placement.model_catalogue import ModelSpec

# Usable memory of the two Spark models, for callers without a measurement.
# Published: a 128 GB node reports MemTotal 127,600,748 kB (130.7 GB) and the
# OS takes 3 to 4 GB; we subtract 4. The 64 GB variant is scaled from that.
SPARK_128_USABLE_GB = round(127_600_748 * 1024 / 1e9 - 4.0, 1)  # 126.7
SPARK_64_USABLE_GB = round(127_600_748 * 1024 / 1e9 / 2 - 4.0, 1)  # 61.3

# Estimated, per node: CUDA context and cuBLAS/NCCL workspaces (~1 GB), CUDA
# graphs captured by vLLM/SGLang (~1-2 GB), allocator fragmentation (~1 GB).
RUNTIME_OVERHEAD_GB = 4.0
# Estimated activation workspace: a prefill chunk of 8,192 tokens (the order
# of vLLM's max_num_batched_tokens) with ~16 live bf16 values per hidden unit
# per token during one layer (residual, QKV, attention output, MLP gate/up).
ACTIVATION_CHUNK_TOKENS = 8192
ACTIVATION_VALUES_PER_HIDDEN = 16
# Memory an engine leaves unused by default: vLLM's gpu_memory_utilization
# defaults to 0.9; SGLang's mem_fraction_static is ~0.88 (estimated: it varies
# with the GPU); llama.cpp has no cap, 5% kept as headroom because running out
# of unified memory freezes a Spark instead of failing cleanly.
ENGINE_RESERVE_FRACTION: dict[str, float] = {"vllm": 0.10, "sglang": 0.12, "llama.cpp": 0.05}

# Headroom a launch keeps beyond what the plan needs, as a share of the
# node's memory: NVIDIA's TP2 recipe passes --gpu-memory-utilization 0.8 and
# community recipes 0.7 to 0.87 on unified memory, where the OS shares the
# pool (one 4-node report crashed at 0.85 and ran at 0.75). Those recipes
# serve models that fill most of a node; a plan that needs a fifth of a node
# gets a fifth plus this headroom, so that the rest of the unified pool stays
# with the OS and whatever else runs there (no floor: a share the plan does
# not use is taken from the OS, not given to the model). Never more than
# vLLM's own 0.9 default.
GPU_UTIL_HEADROOM = 0.05
GPU_UTIL_MAX = 0.9
# SGLang's --mem-fraction-static covers the weights and the KV pool only; the
# rest of the device is left for activations and CUDA graphs (SGLang's server
# arguments). Its own default on a large GPU is about 0.88 (estimated above).
SGLANG_STATIC_MAX = 0.88


@dataclass(frozen=True)
class MemoryBudget:
    """Per node, on the node that limits the plan (the smallest one)."""

    weights: float
    kv_cache: float
    overhead: float
    reserve: float
    usable: float
    free: float

    @property
    def needed(self) -> float:
        return self.weights + self.kv_cache + self.overhead + self.reserve


def memory_budget(
    model: ModelSpec,
    *,
    tp: int,
    pp: int,
    usable_gb: float,
    context_tokens: int,
    concurrency_per_instance: int,
    engine: str,
    layer_share: float | None = None,
) -> MemoryBudget:
    """Per-node memory of one instance split tp x pp (expert parallelism
    spreads the weights over its tp nodes the same way). ``layer_share`` is
    the node's stage's share of the layers (uneven stages); default 1/pp.
    ``kv_cache`` holds every stream's cache: full-attention KV for the whole
    context, sliding windows, and linear layers' fixed states."""
    share = layer_share if layer_share is not None else 1.0 / pp
    weights = model.weights_size_gb() * share / tp
    streams = concurrency_per_instance
    # the KV cache splits as the KV heads split; a linear layer's state as its heads do
    per_stream_kv = (
        context_tokens * model.kv_bytes_per_token() + model.window_kv_bytes(context_tokens)
    ) / model.kv_shards(tp)
    per_stream_state = model.state_bytes_kept(engine) / tp  # float32 on llama.cpp
    kv = streams * (per_stream_kv + per_stream_state) / 1e9 * share
    activations = ACTIVATION_CHUNK_TOKENS * model.hidden_size * ACTIVATION_VALUES_PER_HIDDEN * 2 / 1e9
    overhead = RUNTIME_OVERHEAD_GB + activations
    reserve = usable_gb * ENGINE_RESERVE_FRACTION[engine]
    free = usable_gb - weights - kv - overhead - reserve
    return MemoryBudget(weights=weights, kv_cache=kv, overhead=overhead, reserve=reserve, usable=usable_gb, free=free)


def _share(gb: float, node_total_gb: float) -> float:
    """``gb`` of the node plus GPU_UTIL_HEADROOM, rounded up to 0.01."""
    share = gb / node_total_gb + GPU_UTIL_HEADROOM
    return -(-round(share * 1000) // 10) / 100


def gpu_memory_utilization(budget: MemoryBudget, node_total_gb: float) -> float:
    """The share of a node's memory a vLLM launch may take (its
    ``--gpu-memory-utilization``): what the plan needs on the node (weights,
    every stream's cache, runtime) plus GPU_UTIL_HEADROOM of the node, rounded
    up to 0.01, at most GPU_UTIL_MAX. vLLM counts it against the device's
    total memory, which on a Spark is the whole unified pool."""
    need = budget.weights + budget.kv_cache + budget.overhead
    return min(_share(need, node_total_gb), GPU_UTIL_MAX)


def sglang_mem_fraction_static(budget: MemoryBudget, node_total_gb: float) -> float:
    """SGLang's ``--mem-fraction-static``: the share of the node for the
    plan's weights and every stream's cache (SGLang's static pools) plus
    GPU_UTIL_HEADROOM, rounded up to 0.01; at most SGLANG_STATIC_MAX, and
    never so high that the runtime's share (activations, CUDA graphs) would
    not fit in what is left."""
    static = budget.weights + budget.kv_cache
    room = math.floor(round((1 - budget.overhead / node_total_gb) * 1000) / 10) / 100
    return min(_share(static, node_total_gb), SGLANG_STATIC_MAX, room)
