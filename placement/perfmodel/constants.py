"""The performance model's constants: published hardware facts, estimated
engine figures, and the constants fitted on published runs.

``CONSTANTS_BY_READING`` holds the fitted values as literals; ``fitting.fit()``
recomputes them and a test keeps the two in step. NVIDIA's table disagrees
with itself on its first row (2 nodes direct, or one node): both readings are
fitted and kept; ``DEFAULT_READING`` says which one the product uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from placement.quants import QUANT_FORMATS

# --- published hardware facts and estimated engine constants -----------------

# Published: LPDDR5x bandwidth of one GB10 node.
NODE_MEMORY_BW_GBPS = 273.0
# Estimated: GB10 tensor throughput relative to FP4 (datasheet peaks halve from
# FP4 to FP8 to BF16), by the arithmetic a format's kernels run
# (``placement.quants.QuantFormat.compute``). int4 weight-only kernels
# (Marlin-style) dequantise and compute in bf16, so int4 runs at the bf16
# rate; llama.cpp's GGUF kernels multiply in int8 (the FP8 rate).
COMPUTE_RATE_BY_CLASS: dict[str, float] = {"fp4": 1.0, "fp8": 0.5, "gguf": 0.5, "bf16": 0.25, "int4": 0.25}
COMPUTE_RATE: dict[str, float] = {name: COMPUTE_RATE_BY_CLASS[f.compute] for name, f in QUANT_FORMATS.items()}
# Estimated, not fitted (one training point uses pipeline parallelism): time
# to hand one token's activations to the next pipeline stage. vLLM/SGLang send
# them with NCCL point-to-point plus scheduling; llama.cpp RPC goes over TCP.
PP_HOP_MS: dict[str, float] = {"vllm": 0.5, "sglang": 0.5, "llama.cpp": 2.0}
# Activations travel between nodes in bf16.
ACTIVATION_BYTES = 2
# Assumed workload behind the published points without stated sizes: the
# common recipe `vllm bench serve --random-input-len 128 --random-output-len
# 128`, so decode runs over ~256 tokens of context; prefill figures are taken
# as 2,048-token prompts (llama-bench's pp2048 is the one stated).
PUBLISHED_DECODE_CONTEXT = 256
PUBLISHED_PREFILL_PROMPT = 2048

ENGINES = ("vllm", "sglang", "llama.cpp")
# SGLang has no published Spark figure the fit could use: it shares vLLM's
# constants until the lab's own SGLang runs calibrate it (``calibrate``).
FITTED_ENGINES = ("vllm", "llama.cpp")
ENGINE_FIT_SOURCE = {"vllm": "vllm", "sglang": "vllm", "llama.cpp": "llama.cpp"}
# Estimated lower bound of an engine's cost per layer per decode step: a
# decoder layer runs at least ~12 kernels (norms, QKV, rope, attention, output
# projection, MLP or routing and experts, residuals), each costing at least
# ~4 µs on a GB10 even inside a CUDA graph. Without it the fit, driven by the
# dense table, puts the fixed cost near 0 and lets small fast models scale with
# tensor parallelism as if it split. PERFORMANCE_MODEL.md shows the held-out
# errors for other values of this bound.
MIN_LAYER_OVERHEAD_US = 50.0
# Exchange paths. "none" is a single node.
PATHS = ("none", "direct", "ring", "switched-nccl", "switched-rocenante")
READINGS = ("one-node", "direct")


@dataclass(frozen=True)
class EngineConstants:
    """What one engine reaches on a Spark (fitted per engine)."""

    # decode: share of 273 GB/s reached, fixed cost per step, cost per layer
    # per step (kernel launches, routing, norms: every node of a tensor-
    # parallel group pays it for every layer, so it does not shrink with tp)
    mem_efficiency: float
    token_overhead_ms: float
    layer_overhead_us: float
    # prefill: effective FP4 TFLOPS of dense (attention, shared) work and of
    # routed-expert work (small grouped GEMMs reach less)
    prefill_tflops: float
    prefill_expert_tflops: float
    # and a cost per prompt token per layer (routing, norms, state updates)
    prefill_layer_us: float = 0.0


# Documented bounds of a calibration by the lab's runs (see PERFORMANCE_MODEL.md):
# physically possible values, wide enough for any engine build seen on a Spark.
CALIBRATION_BOUNDS: dict[str, tuple[float, float]] = {
    "mem_efficiency": (0.35, 0.95),
    "layer_overhead_us": (50.0, 400.0),  # the lower bound is MIN_LAYER_OVERHEAD_US
    "prefill_scale": (0.25, 4.0),
    "stream_overhead_ms": (0.0, 5.0),
}


# Weight formats whose kernels reach a different share of memory bandwidth:
# GPTQ/AWQ int4 (Marlin dequantisation) and llama.cpp's block quants (Q*_K,
# Q8_0, IQ*). Everything else (FP4 formats, fp8, bf16, MXFP4 GGUF) is the
# "default" class. A class without a training point takes the default's.
def efficiency_class(quantization: str) -> str:
    fmt = QUANT_FORMATS[quantization]
    if fmt.compute == "int4":
        return "int4"
    if fmt.container == "gguf" and fmt.compute == "gguf" and quantization != "MXFP4_MOE":
        return "gguf"
    return "default"


EFFICIENCY_CLASSES = ("default", "int4", "gguf")
# Tokens one prefill pass works on at once (vLLM/SGLang's default batched
# tokens; llama.cpp's ubatch in llama-bench): every expert's weights are read
# once per pass, so a MoE prompt also streams its whole model per chunk.
PREFILL_CHUNK: dict[str, int] = {"vllm": 8192, "sglang": 8192, "llama.cpp": 2048}


@dataclass(frozen=True)
class PerfConstants:
    """The fitted constants of the model (one set per reading of the table)."""

    reading: str
    engines: dict[str, EngineConstants] = field(hash=False)
    # decode: latency of one small all-reduce = base(path) + step * steps(path, n);
    # a direct cable is a two-node ring to NCCL and shares the ring's base
    ring_base_us: float
    switched_nccl_base_us: float
    rocenante_base_us: float
    allreduce_step_us: float
    # share of the link's line rate reached by the activations' collectives
    link_efficiency: float
    # bandwidth efficiency of a format class relative to "default"
    class_efficiency: dict[str, float] = field(hash=False, default_factory=dict)
    # how the experts a decode batch touches grow with the batch: a batch of b
    # streams touches as many experts as b**routing_exponent independent,
    # uniformly routed tokens would (1: uniform routing; below 1: real routers
    # send a batch's tokens to overlapping, popular experts). Fitted on the
    # published aggregate (concurrency > 1) points.
    routing_exponent: float = 1.0
    # what each stream beyond the first adds to a decode step of one instance
    # (ms): the engine's scheduling, sampling and bookkeeping, done once per
    # instance on its head node's CPU, so tensor parallelism does not split it
    # and independent copies each pay it for their own streams only. It is
    # what makes one instance stop gaining past some concurrency. Fitted with
    # the routing exponent on the published aggregate points.
    stream_overhead_ms: float = 0.0
    # empty: the published fit; else which engines the lab's runs re-fitted
    calibrated: str = ""

    def engine(self, name: str) -> EngineConstants:
        return self.engines[name] if name in self.engines else self.engines[ENGINE_FIT_SOURCE[name]]

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


# Fitted by fit(reading) on the training points (see test_perfmodel's refit
# check). Do not edit by hand: run `python -m placement.perfmodel`.
CONSTANTS_BY_READING: dict[str, PerfConstants] = {
    "one-node": PerfConstants(
        reading="one-node",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.7244855596800387,
                token_overhead_ms=0.0,
                layer_overhead_us=50.0,
                prefill_tflops=291.1153538683956,
                prefill_expert_tflops=291.1153538683956,
                prefill_layer_us=2.3774592726971777,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.7244855596800387,
                token_overhead_ms=0.0,
                layer_overhead_us=82.62764363722559,
                prefill_tflops=71.25230682058755,
                prefill_expert_tflops=55.67296739445336,
                prefill_layer_us=0.0,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.7244855596800387,
                token_overhead_ms=0.0,
                layer_overhead_us=50.0,
                prefill_tflops=291.1153538683956,
                prefill_expert_tflops=291.1153538683956,
                prefill_layer_us=2.3774592726971777,
            ),
        },
        ring_base_us=34.29018729071685,
        switched_nccl_base_us=56.47435137238458,
        rocenante_base_us=20.63089577232443,
        allreduce_step_us=4.162723826278553,
        link_efficiency=0.5816546630290402,
        class_efficiency={"default": 1.0, "int4": 0.9329405911877416, "gguf": 1.2873440471553035},
        routing_exponent=0.62,
        stream_overhead_ms=0.9,
    ),
    "direct": PerfConstants(
        reading="direct",
        engines={
            "vllm": EngineConstants(
                mem_efficiency=0.6328018831572135,
                token_overhead_ms=0.0,
                layer_overhead_us=50.0,
                prefill_tflops=207.2092735104524,
                prefill_expert_tflops=207.2092735104524,
                prefill_layer_us=2.249768210374905,
            ),
            "llama.cpp": EngineConstants(
                mem_efficiency=0.6328018831572135,
                token_overhead_ms=0.0,
                layer_overhead_us=50.0,
                prefill_tflops=71.25230682058753,
                prefill_expert_tflops=57.03864790161766,
                prefill_layer_us=0.0,
            ),
            "sglang": EngineConstants(
                mem_efficiency=0.6328018831572135,
                token_overhead_ms=0.0,
                layer_overhead_us=50.0,
                prefill_tflops=207.2092735104524,
                prefill_expert_tflops=207.2092735104524,
                prefill_layer_us=2.249768210374905,
            ),
        },
        ring_base_us=64.87653570443705,
        switched_nccl_base_us=89.71347434499998,
        rocenante_base_us=24.914856741226494,
        allreduce_step_us=1.0167700197373575,
        link_efficiency=0.6132448021585479,
        class_efficiency={"default": 1.0, "int4": 1.0681099477495641, "gguf": 1.4327218033923854},
        routing_exponent=0.5,
        stream_overhead_ms=1.3,
    ),
}

# The "one node" reading is the default: it agrees with the independent
# single-node points and with the published 1.84x two-node ratio; see the
# error tables in PERFORMANCE_MODEL.md.
DEFAULT_READING = "one-node"


def default_constants() -> PerfConstants:
    return CONSTANTS_BY_READING[DEFAULT_READING]
