"""The performance model's constants: published hardware facts, estimated
engine figures, the shape of the fitted constants, and the fitted values.

The fitted values live in ``fitted.py`` (generated: ``python -m
placement.perfmodel --write``; a test keeps them in step with a refit).
NVIDIA's table disagrees with itself on its first row (2 nodes direct, or one
node): both readings are fitted and kept; ``DEFAULT_READING`` says which one
the product uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from placement.quants import QUANT_FORMATS

# --- published hardware facts and estimated engine constants -----------------

# Published: LPDDR5x bandwidth of one GB10 node.
NODE_MEMORY_BW_GBPS = 273.0
# Published: the GB10's peak tensor throughput, 1 PFLOP of FP4 with sparsity
# (NVIDIA's DGX Spark page), the most any format reaches: a bound, never a speed.
NODE_PEAK_FLOPS = 1e15
# Estimated: GB10 tensor throughput relative to FP4 (datasheet peaks halve from
# FP4 to FP8 to BF16), by the arithmetic a format's kernels run
# (``placement.quants.QuantFormat.compute``). int4 weight-only kernels
# (Marlin-style) dequantise and compute in bf16, so int4 runs at the bf16
# rate; llama.cpp's GGUF kernels multiply in int8 (the FP8 rate).
COMPUTE_RATE_BY_CLASS: dict[str, float] = {"fp4": 1.0, "fp8": 0.5, "gguf": 0.5, "bf16": 0.25, "int4": 0.25}
COMPUTE_RATE: dict[str, float] = {name: COMPUTE_RATE_BY_CLASS[f.compute] for name, f in QUANT_FORMATS.items()}
# Activations travel between nodes in bf16.
ACTIVATION_BYTES = 2
# Assumed workload behind the published points without stated sizes: the
# common recipe `vllm bench serve --random-input-len 128 --random-output-len
# 128`, so decode runs over ~256 tokens of context; prefill figures are taken
# as 2,048-token prompts (llama-bench's pp2048 is the one stated).
PUBLISHED_DECODE_CONTEXT = 256
PUBLISHED_PREFILL_PROMPT = 2048

ENGINES = ("vllm", "sglang", "llama.cpp")
# Engines whose per-step costs and bandwidth the fit sets from their own runs.
# SGLang's published Spark runs are multi-node ones only: the fit sets what
# tensor parallelism costs it (its extra all-reduce latency in decode, its
# slower all-reduces in prefill) and its cost per extra stream from them, and
# it borrows the rest from vLLM (``BORROWED``), prefill compute included.
FITTED_ENGINES = ("vllm", "llama.cpp")
ENGINE_FIT_SOURCE = {"vllm": "vllm", "sglang": "vllm", "llama.cpp": "llama.cpp"}
# What an engine takes from vLLM because no published run of it isolates the
# constant (shown as "borrowed from vLLM" beside its predictions).
BORROWED: dict[str, tuple[str, ...]] = {
    "vllm": (),
    "sglang": (
        "bandwidth efficiency",
        "cost per sublayer",
        "prefill compute",
        "eager mode",
        "pipeline hop",
        "cost per extra stream without tensor parallelism",
    ),
    # its own batch tables set its cost per extra stream, per sublayer
    # without CUDA graphs and per expert slot (``engine_slot_us``)
    "llama.cpp": (),
}
# Engines whose cost per extra stream is fitted on tensor-parallel runs only
# (SGLang's two-node TP2 series, where every stream's activations cross the
# link in each all-reduce): a layout without tensor parallelism borrows
# vLLM's. Applied to one node, SGLang's ~10 ms a stream would make two
# streams of a small fast MoE model decode less in all than one.
STREAM_COST_FROM_TP = ("sglang",)
# Engines whose CUDA backend runs a decode step from a captured CUDA graph
# only when the step has one token: llama.cpp's ggml-cuda disables its graphs
# for a batch of more than one ("disabling CUDA graphs due to batch size > 1"),
# so a step of several streams launches every kernel from the CPU and pays
# the engine's ``eager_sublayer_us`` on every sublayer, fitted on its own
# batch tables (vLLM and SGLang capture graphs for each batch size).
GRAPHS_FOR_ONE_TOKEN = ("llama.cpp",)
# How many times one decode step moves each stream's recurrent state (a
# gated-DeltaNet or Mamba-2 layer's), as wide as the engine keeps it
# (``ModelSpec.state_bytes_kept``). vLLM's and SGLang's fused kernels read
# the state in place and write it back: 2 passes. Upstream llama.cpp gathers
# each sequence's state into a temporary (``build_rs``: ``ggml_get_rows``, a
# read and a write), runs the recurrence on the temporary (a read, and the
# new state written into its output), and copies the new state back into its
# cache slot (``ggml_cpy`` into ``ssm_states_all``, a read and a write): 6
# passes, of a float32 state. Not fitted: no training run is a llama.cpp
# hybrid.
STATE_PASSES: dict[str, int] = {"llama.cpp": 6}
# Engines whose tensor-parallel costs (the extra latency of each all-reduce,
# prefill's all-reduce factor, the cost per stream under TP) the fit sets from their own multi-node runs
# (``PerfConstants.single_source`` when one experiment alone does).
OWN_TP_COSTS = ("sglang",)
# Estimated lower bound of an engine's cost per sublayer (a token mixer or an
# FFN) per decode step: a transformer layer (two sublayers) runs at least ~12
# kernels (norms, QKV, rope, attention, output projection, MLP or routing and
# experts, residuals), each at least ~4 µs on a GB10 even inside a CUDA graph.
# Without it the fit, driven by the dense table, puts the fixed cost near 0 and
# lets small fast models scale with tensor parallelism as if it split.
MIN_SUBLAYER_US = 25.0
# Exchange paths. "none" is a single node. A switched group's collective
# backend is NCCL over RoCE unless the engine's image ships RoCEnante and the
# plan asks for it (``COLLECTIVE_BACKENDS``).
PATHS = ("none", "direct", "ring", "switched-nccl", "switched-rocenante")
READINGS = ("one-node", "direct")
# The "one node" reading is the default: it agrees with the independent
# single-node points and with the published 1.84x two-node ratio; see the
# error tables in PERFORMANCE_MODEL.md.
DEFAULT_READING = "one-node"
# The CUDA-graph mode a run used: "graphs" (the engines' default) or "eager"
# (vLLM's --enforce-eager: every kernel launched from the CPU).
MODES = ("graphs", "eager")
# Kinds of token mixer that keep a fixed state instead of a KV cache.
LINEAR_KINDS = ("gated-deltanet", "mamba2")


@dataclass(frozen=True)
class EngineConstants:
    """What one engine reaches on a Spark."""

    # decode: share of 273 GB/s reached, fixed cost per step, cost per
    # sublayer per step (kernel launches, routing, norms: every node of a
    # tensor-parallel group pays it for every sublayer, so it does not shrink
    # with tp)
    mem_efficiency: float
    token_overhead_ms: float
    sublayer_us: float
    # prefill: effective FP4 TFLOPS of dense (attention, shared) work and of
    # routed-expert work (small grouped GEMMs reach less)
    prefill_tflops: float
    prefill_expert_tflops: float
    # and a cost per prompt token per sublayer (routing, norms, state updates)
    prefill_sublayer_us: float = 0.0
    # what tensor parallelism costs this engine beyond the path's latency:
    # added to every all-reduce (an engine whose collectives go through a
    # slower path, e.g. its own communicator or TCP, pays it)
    allreduce_extra_us: float = 0.0
    # and beyond the link in prefill: a prompt token's all-reduce bytes take
    # this many times the time they take at the link's fitted efficiency (1:
    # the shared link; an engine whose collectives take a slower path pays
    # more). It applies only under tensor or expert parallelism, so an
    # engine's prefill on one node is its compute alone.
    prefill_comm_factor: float = 1.0
    # a step without CUDA graphs (vLLM's --enforce-eager; llama.cpp at more
    # than one stream, ``GRAPHS_FOR_ONE_TOKEN``): extra CPU launch cost per
    # sublayer per step
    eager_sublayer_us: float = 0.0
    # what each stream beyond the first adds to a decode step of one instance
    # (ms): scheduling, sampling and bookkeeping on the head node's CPU, so
    # tensor parallelism does not split it and independent copies each pay it
    # for their own streams only. It makes one instance stop gaining past some
    # concurrency.
    stream_overhead_ms: float = 0.0
    # handing one token's activations to the next pipeline stage (ms)
    pp_hop_ms: float = 0.5


# Documented bounds of a calibration by the lab's runs (see PERFORMANCE_MODEL.md):
# physically possible values, wide enough for any engine build seen on a Spark.
CALIBRATION_BOUNDS: dict[str, tuple[float, float]] = {
    "mem_efficiency": (0.35, 0.95),
    "sublayer_us": (MIN_SUBLAYER_US, 200.0),
    "prefill_scale": (0.25, 4.0),
    # the published fit searches the same range (fitting.STREAM_OVERHEAD_RANGE_MS): SGLang's is about 10 ms,
    # and a bound below it would pull a lab that measures just that away from it
    "stream_overhead_ms": (0.0, 15.0),
    "collective_scale": (0.5, 4.0),
    # a factor on the published cost per expert slot, from the lab's MoE runs at several streams: 0 (its
    # batches cost no more per stream than a dense model's) to 4x (24 µs a slot, a kernel launch's worth)
    "slot_scale": (0.0, 4.0),
    # an engine's own tensor-parallel costs (``OWN_TP_COSTS``), from the lab's multi-node runs of it
    "allreduce_extra_us": (0.0, 1000.0),
    "prefill_comm_factor": (0.25, 32.0),
}


# Weight formats whose kernels reach a different share of memory bandwidth:
# GPTQ/AWQ int4 (Marlin dequantisation), llama.cpp's block quants (Q*_K,
# Q8_0, IQ*) and bf16, which needs no dequantisation at all (one lab's bf16
# runs of dense 27B models read their weights at about 90% of 273 GB/s, its
# FP4 runs at about 75%). Everything else (FP4 formats, fp8, MXFP4 GGUF) is
# the "default" class. A class without a training point takes the default's.
def efficiency_class(quantization: str) -> str:
    fmt = QUANT_FORMATS[quantization]
    if fmt.compute == "int4":
        return "int4"
    if fmt.container == "gguf" and fmt.compute == "gguf" and quantization != "MXFP4_MOE":
        return "gguf"
    if fmt.compute == "bf16":
        return "bf16"
    return "default"


EFFICIENCY_CLASSES = ("default", "int4", "gguf", "bf16")
# Tokens one prefill pass works on at once (vLLM/SGLang's default batched
# tokens; llama.cpp's ubatch, 2,048 in the DGX Spark llama-bench tables it is
# fitted on, and what the plan's llama-server launch sets with -b and -ub:
# llama-server's own default is 512): every expert's weights are read once
# per pass, so a MoE prompt also streams its whole model per chunk.
PREFILL_CHUNK: dict[str, int] = {"vllm": 8192, "sglang": 8192, "llama.cpp": 2048}


@dataclass(frozen=True)
class PerfConstants:
    """The fitted constants of the model (one set per reading of the table)."""

    reading: str
    engines: dict[str, EngineConstants] = field(hash=False)
    # decode: latency of one small all-reduce = base(path) + step * steps(path, n)
    # (+ the engine's extra); a direct cable is a two-node ring to NCCL and
    # shares the ring's base
    ring_base_us: float
    switched_nccl_base_us: float
    rocenante_base_us: float
    allreduce_step_us: float
    # share of the link's line rate reached by the activations' collectives
    link_efficiency: float
    # bandwidth efficiency of a format class relative to "default"
    class_efficiency: dict[str, float] = field(hash=False, default_factory=dict)
    # extra cost per linear mixer per decode step, by kind (µs): DeltaNet's and
    # Mamba's recurrent kernels, which run beside the weight reads
    linear_us: dict[str, float] = field(hash=False, default_factory=dict)
    # how the experts a decode batch touches grow with the batch: a batch of b
    # streams touches as many experts as b**routing_exponent independent,
    # uniformly routed tokens would (1: uniform routing; below 1: real routers
    # send a batch's tokens to overlapping, popular experts). Fitted on the
    # published aggregate (concurrency > 1) points.
    routing_exponent: float = 1.0
    # what each stream beyond the first adds per routed-expert slot of a token
    # (experts per token x MoE sublayers), on top of the engine's cost per
    # extra stream (µs): a decode batch's grouped expert GEMMs run a mostly
    # empty tile per (token, expert) pair, and routing, permuting and combining
    # go by slot, so a MoE with many experts per token gains less from batching
    expert_slot_us: float = 0.0
    # an engine's own cost per expert slot where its own training batch tables
    # set it (a dense table pins its cost per stream, a MoE table then its slot
    # cost: llama.cpp's); every other engine pays ``expert_slot_us``
    engine_slot_us: dict[str, float] = field(hash=False, default_factory=dict)
    # empty: the published fit; else which engines the lab's runs re-fitted
    calibrated: str = ""
    # the lab's runs re-fit the collective latency of each backend they used
    # separately: a factor on a path's all-reduce latency (1: the published fit)
    collective_scale: dict[str, float] = field(hash=False, default_factory=dict)
    # engines whose own tensor-parallel costs (``OWN_TP_COSTS``) one published
    # experiment alone set: engine -> that experiment (origin). One lab's run
    # cannot tell the engine from that lab's set-up, so its ranges also span
    # the prediction with vLLM's (``ranges.single_source_alternative``); the
    # lab's own multi-node runs of the engine lift it.
    single_source: dict[str, str] = field(hash=False, default_factory=dict)
    # the lab's MoE runs at several streams re-fit each engine's cost per
    # expert slot: a factor on the shared ``expert_slot_us`` by engine
    # ("vllm"), and by engine and model ("vllm:qwen3.6-35b-a3b") when the lab
    # measured several MoE models on it, in place of the published one (which
    # may be an engine's own, ``engine_slot_us``: a factor on it could not move
    # a cost the fit put at 0)
    slot_scale: dict[str, float] = field(hash=False, default_factory=dict)

    def engine(self, name: str) -> EngineConstants:
        return self.engines[name] if name in self.engines else self.engines[ENGINE_FIT_SOURCE[name]]

    def base_slot_us(self, engine: str) -> float:
        """The published fit's cost per expert slot on this engine: its own
        (``engine_slot_us``), else the shared one."""
        return self.engine_slot_us.get(engine, self.expert_slot_us)

    def slot_us(self, engine: str, model: str = "") -> float:
        """What one expert slot of each stream beyond the first costs on this
        engine: the published fit's, scaled by the lab's runs of this model on
        it, else by its runs of the engine's MoE models."""
        scale = self.slot_scale.get(f"{engine}:{model}", self.slot_scale.get(engine))
        return self.base_slot_us(engine) if scale is None else self.expert_slot_us * scale

    def efficiency(self, engine: str, quantization: str) -> float:
        """Share of 273 GB/s an engine reaches decoding weights in this format."""
        factor = self.class_efficiency.get(efficiency_class(quantization), 1.0)
        return min(1.0, self.engine(engine).mem_efficiency * factor)

    def base_us(self, path: str) -> float:
        return {
            "none": 0.0,
            "direct": self.ring_base_us,
            "ring": self.ring_base_us,
            "switched-nccl": self.switched_nccl_base_us,
            "switched-rocenante": self.rocenante_base_us,
        }[path]


@dataclass(frozen=True)
class Residual:
    """published / predicted for one training figure, its origin left out of
    the fit (``ranges.loso_residuals``)."""

    key: str
    origin: str
    metric: str
    engine: str
    parallel: str
    family: str
    ratio: float
    mode: str = "graphs"
