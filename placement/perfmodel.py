"""Performance model: predicted decode, aggregate and prefill speed of a layout.

Owns the numbers the planner shows as "predicted": a memory-bandwidth roofline
for decode with a per-engine cost per token and per layer (launches,
scheduling, routing: not split by tensor parallelism), the communication of
tensor parallelism (two all-reduces per layer, latency by exchange path plus
message bytes over the link or the group's measured bus bandwidth), expert
parallelism's all-to-all, pipeline stages (even or uneven), a compute model for
prefill, and the fit of the constants on published points
(``placement.published``, deterministic least squares in pure Python). The
constants are stored as literals below; ``fit()`` recomputes them and a test
keeps the two in step. ``calibrate()`` re-fits an engine's constants, within
documented bounds, on the lab's own runs.

NVIDIA's table disagrees with itself on its first row (2 nodes direct, or one
node): both readings are fitted and kept; ``DEFAULT_READING`` says which one
the product uses. See PERFORMANCE_MODEL.md for the model, the constants, the
fit and the held-out errors.
"""

from __future__ import annotations

import itertools
import math
import statistics
import sys
from dataclasses import dataclass, field, fields, replace

from placement.model_catalogue import SEED_BY_SLUG, ModelSpec
from placement.published import PUBLISHED_POINTS, PublishedPoint
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


# --- the model ------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """How one model instance is spread: tp x pp nodes; ep > 1 spreads the
    experts over the tp nodes (attention stays tensor-parallel).
    ``stage_layers`` gives uneven pipeline stages (layers per stage, in order);
    empty means even. ``bus_gbytes_per_s`` is the group's measured collective
    bus bandwidth (nccl-tests), which replaces link x link_efficiency."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    path: str = "none"
    link_gbps: float = 200.0
    engine: str = "vllm"
    stage_layers: tuple[int, ...] = ()
    bus_gbytes_per_s: float | None = None

    @property
    def nodes(self) -> int:
        return self.tp * self.pp

    def largest_stage_share(self, layers: int) -> float:
        if self.stage_layers:
            return max(self.stage_layers) / max(sum(self.stage_layers), 1)
        return 1.0 / self.pp


@dataclass(frozen=True)
class Prediction:
    """Predicted speed of one instance. Times are per generated token, one stream."""

    decode_tps: float
    aggregate_tps: float
    prefill_tps: float
    memory_ms: float
    collective_ms: float
    overhead_ms: float
    compute_bound: bool


def allreduce_steps(path: str, nodes: int) -> int:
    """Sequential message steps of one all-reduce.

    NCCL's ring algorithm (direct cable, ring, switch without RoCEnante) takes
    2(n-1) steps; RoCEnante's all-to-all plus local reduction takes one round
    whose n-1 sends leave the NIC one after another.
    """
    if nodes <= 1 or path == "none":
        return 0
    if path == "switched-rocenante":
        return nodes - 1
    return 2 * (nodes - 1)


def allreduce_latency_us(c: PerfConstants, path: str, nodes: int) -> float:
    if nodes <= 1 or path == "none":
        return 0.0
    return c.base_us(path) + c.allreduce_step_us * allreduce_steps(path, nodes)


def alltoall_latency_us(c: PerfConstants, path: str, nodes: int) -> float:
    """One all-to-all (expert parallelism's dispatch or combine): one round of
    n-1 sends, whatever the path. Priced with the all-reduce constants: no
    published Spark figure isolates it."""
    if nodes <= 1 or path == "none":
        return 0.0
    return c.base_us(path) + c.allreduce_step_us * (nodes - 1)


def link_bytes_per_s(layout: Layout, c: PerfConstants) -> float:
    """What the activations' collectives get: the measured bus bandwidth when
    the group has one, else the slowest link's line rate x link efficiency."""
    if layout.bus_gbytes_per_s:
        return layout.bus_gbytes_per_s * 1e9
    return layout.link_gbps * 1e9 / 8 * c.link_efficiency


def _allreduce_bytes(model: ModelSpec, tokens: float, nodes: int) -> float:
    """Bytes one node sends per all-reduce of `tokens` activation rows (ring bound)."""
    return tokens * model.hidden_size * ACTIVATION_BYTES * 2 * (nodes - 1) / nodes


def _alltoall_bytes(model: ModelSpec, tokens: float, nodes: int) -> float:
    """Bytes one node sends per all-to-all: each token goes to its k experts,
    (n-1)/n of them on other nodes."""
    return tokens * max(model.experts_per_token, 1) * model.hidden_size * ACTIVATION_BYTES * (nodes - 1) / nodes


def _attention_flops(model: ModelSpec, context: float) -> float:
    """FLOPs of attention for one token attending over `context` tokens."""
    kv_layers = model.kv_layers if model.kv_layers is not None else model.layers
    return 4.0 * context * model.heads * model.head_dim * kv_layers


def decode_flops_per_token(model: ModelSpec, context: int) -> float:
    return 2.0 * model.active_params_b * 1e9 + _attention_flops(model, context)


def prefill_flops_per_token(model: ModelSpec, prompt: int) -> float:
    # causal attention: on average a prompt token attends over half the prompt
    return 2.0 * model.active_params_b * 1e9 + _attention_flops(model, prompt / 2)


def _expert_coverage(model: ModelSpec, batch: float, exponent: float = 1.0) -> float:
    """Fraction of routed experts a batch touches: as many as batch**exponent
    uniformly routed tokens would (exponent 1: uniform routing)."""
    if not model.is_moe:
        return 1.0
    k_over_e = model.experts_per_token / model.experts
    return 1.0 - (1.0 - k_over_e) ** (max(batch, 1.0) ** exponent)


def weights_read_gb(model: ModelSpec, batch: float, exponent: float = 1.0) -> float:
    """Weights one decode step of `batch` streams reads (whole model, one copy)."""
    if model.is_moe:
        expert = model.expert_weights_gb()
        shared = max(model.active_weights_gb() - expert * model.experts_per_token / model.experts, 0.0)
        return shared + expert * _expert_coverage(model, batch, exponent)
    return model.active_weights_gb()


def collective_ms_per_layer(model: ModelSpec, layout: Layout, c: PerfConstants, tokens: float) -> float:
    """Communication one layer costs one step of `tokens` rows: tensor parallel
    all-reduces twice (attention and MLP); expert parallel all-reduces once
    (attention) and sends tokens to their experts and back (two all-to-alls)."""
    n = layout.tp
    if n <= 1 or layout.path == "none":
        return 0.0
    link = link_bytes_per_s(layout, c)
    allreduce = allreduce_latency_us(c, layout.path, n) / 1e3 + _allreduce_bytes(model, tokens, n) / link * 1e3
    if layout.ep > 1 and model.is_moe:
        alltoall = alltoall_latency_us(c, layout.path, n) / 1e3 + _alltoall_bytes(model, tokens, n) / link * 1e3
        return allreduce + 2 * alltoall
    return 2 * allreduce


def _step_ms(
    model: ModelSpec, layout: Layout, c: PerfConstants, batch: float, context: int
) -> tuple[float, float, float, bool]:
    """Time for `batch` streams each to get one token: (total, memory, collective, compute-bound).

    The batch is cut into min(batch, pp) micro-batches so pipeline stages
    overlap; one stream visits the stages in turn. With m micro-batches the
    busiest stage sets the pace: m x its share of the work (1 for even stages).
    """
    e = c.engine(layout.engine)
    micro = max(1.0, min(batch, float(layout.pp)))
    mb = batch / micro
    pace = max(1.0, micro * layout.largest_stage_share(model.layers))
    kv_gb = mb * context * model.kv_bytes_per_token() / 1e9 / model.kv_shards(layout.tp)
    bandwidth = NODE_MEMORY_BW_GBPS * c.efficiency(layout.engine, model.quantization)
    memory_ms = (weights_read_gb(model, mb, c.routing_exponent) + kv_gb) / layout.tp / bandwidth * 1e3
    rate = e.prefill_tflops * 1e12 * COMPUTE_RATE[model.quantization]
    compute_ms = mb * decode_flops_per_token(model, context) / layout.tp / rate * 1e3
    layer_ms = model.layers * e.layer_overhead_us / 1e3
    coll_ms = model.layers * collective_ms_per_layer(model, layout, c, mb)
    work_ms = max(memory_ms, compute_ms)
    hop_ms = (layout.pp - 1) * PP_HOP_MS[layout.engine]
    streams_ms = c.stream_overhead_ms * max(batch - 1.0, 0.0)
    total = e.token_overhead_ms + pace * (work_ms + layer_ms + coll_ms) + hop_ms + streams_ms
    return total, pace * work_ms, pace * coll_ms + hop_ms, compute_ms > memory_ms


def predict(
    model: ModelSpec,
    layout: Layout,
    *,
    context_tokens: int,
    concurrency: int = 1,
    prompt_tokens: int | None = None,
    constants: PerfConstants | None = None,
) -> Prediction:
    """Predicted speeds of one instance of `model` spread as `layout`.

    decode_tps: one stream alone, with `context_tokens` of context.
    aggregate_tps: all `concurrency` streams together (batching shares weight
      reads; pipeline stages overlap when there are several micro-batches).
    prefill_tps: one prompt of `prompt_tokens` (default: the whole context).
    """
    c = constants or default_constants()
    if layout.path not in PATHS:
        raise ValueError(f"unknown exchange path {layout.path!r}")
    if layout.engine not in ENGINES:
        raise ValueError(f"unknown engine {layout.engine!r}")
    one_ms, memory_ms, coll_ms, _ = _step_ms(model, layout, c, 1.0, context_tokens)
    batch = max(1, concurrency)
    many_ms, _, _, compute_bound = _step_ms(model, layout, c, float(batch), context_tokens)
    prompt = prompt_tokens if prompt_tokens is not None else context_tokens
    e = c.engine(layout.engine)
    return Prediction(
        decode_tps=1e3 / one_ms,
        aggregate_tps=batch * 1e3 / many_ms,
        prefill_tps=predict_prefill_tps(model, layout, prompt_tokens=prompt, constants=c),
        memory_ms=memory_ms,
        collective_ms=coll_ms,
        overhead_ms=e.token_overhead_ms + model.layers * e.layer_overhead_us / 1e3,
        compute_bound=compute_bound,
    )


def expert_active_params_b(model: ModelSpec) -> float:
    """Routed-expert parameters one token uses (0 for dense)."""
    if not model.is_moe or model.experts_per_token >= model.experts:
        return 0.0
    expert_params = (model.params_b - model.active_params_b) * model.experts / (model.experts - model.experts_per_token)
    return min(expert_params, model.params_b) * model.experts_per_token / model.experts


def _prefill_terms(
    model: ModelSpec, layout: Layout, prompt_tokens: int, c: PerfConstants | None = None
) -> tuple[float, float, float, float]:
    """µs per prompt token: (dense work at 1 TFLOPS, routed-expert work at 1
    TFLOPS, weights streamed once per chunk at 1 GB/s... as µs x GB/s,
    communication at line rate). Tensor parallelism splits a token's FLOPs
    and the weights each node streams; pipeline stages work in turn on one
    request's chunks, so they are not counted as a speed-up."""
    rate = 1e12 * COMPUTE_RATE[model.quantization]
    expert_flops = 2.0 * expert_active_params_b(model) * 1e9
    dense_flops = prefill_flops_per_token(model, prompt_tokens) - expert_flops
    chunk = min(max(prompt_tokens, 1), PREFILL_CHUNK[layout.engine])
    exponent = c.routing_exponent if c is not None else 1.0
    stream = weights_read_gb(model, float(chunk), exponent) / chunk / layout.tp * 1e6 if model.is_moe else 0.0
    comm_us_at_line_rate = 0.0
    if layout.tp > 1:
        per_layer = 2 * _allreduce_bytes(model, 1, layout.tp)
        if layout.ep > 1 and model.is_moe:
            per_layer = _allreduce_bytes(model, 1, layout.tp) + 2 * _alltoall_bytes(model, 1, layout.tp)
        if layout.bus_gbytes_per_s and c is not None:
            # measured: no efficiency to apply; express it at line rate x efficiency
            comm_us_at_line_rate = model.layers * per_layer / (layout.bus_gbytes_per_s * 1e9) * 1e6 * c.link_efficiency
        else:
            comm_us_at_line_rate = model.layers * per_layer / (layout.link_gbps * 1e9 / 8) * 1e6
    return dense_flops / rate * 1e6 / layout.tp, expert_flops / rate * 1e6 / layout.tp, stream, comm_us_at_line_rate


def predict_prefill_tps(
    model: ModelSpec, layout: Layout, *, prompt_tokens: int, constants: PerfConstants | None = None
) -> float:
    c = constants or default_constants()
    e = c.engine(layout.engine)
    dense, expert, stream, comm = _prefill_terms(model, layout, prompt_tokens, c)
    bandwidth = NODE_MEMORY_BW_GBPS * c.efficiency(layout.engine, model.quantization)
    us = (
        dense / e.prefill_tflops
        + expert / e.prefill_expert_tflops
        + model.layers / layout.tp * e.prefill_layer_us
        + stream / bandwidth
        + comm / c.link_efficiency
    )
    return 1e6 / us


def prediction_source(constants: PerfConstants | None = None) -> str:
    c = constants or default_constants()
    fitted = f"re-fitted on this lab's runs ({c.calibrated})" if c.calibrated else "fitted on published figures"
    return (
        f"predicted (placement.perfmodel: bandwidth roofline, per-engine costs and TP communication, "
        f"{fitted}; NVIDIA 2026-10 table row 1 read as '{c.reading}'; see placement/PERFORMANCE_MODEL.md)"
    )


# --- published points -------------------------------------------------------------


def point_model(p: PublishedPoint) -> ModelSpec:
    """The model of a published point, as the variant that ran."""
    spec = SEED_BY_SLUG[p.model_slug]
    if p.quantization and p.quantization != spec.quantization:
        variant = spec.variant(p.quantization)
        if variant is None:
            raise KeyError(f"{p.key}: {p.model_slug} has no {p.quantization} variant")
        return spec.with_variant(variant)
    return spec


def point_layout(p: PublishedPoint) -> Layout:
    return Layout(tp=p.tp, pp=p.pp, ep=p.ep, path=p.path, link_gbps=p.link_gbps, engine=p.engine)


def points_for(reading: str, roles: tuple[str, ...] = ("train", "holdout")) -> list[PublishedPoint]:
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; one of {READINGS}")
    return [p for p in PUBLISHED_POINTS if p.role in roles and (p.reading is None or p.reading == reading)]


# --- fitting ---------------------------------------------------------------------


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None if singular."""
    n = len(rhs)
    a = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-12:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col:
                factor = a[r][col] / a[col][col]
                for k in range(col, n + 1):
                    a[r][k] -= factor * a[col][k]
    return [a[i][n] / a[i][i] for i in range(n)]


def _nnls(rows: list[list[float]], ys: list[float]) -> list[float]:
    """Non-negative least squares of sum(((row . x) - y) / y)^2, relative error.

    Small problems only: every subset of free unknowns is solved exactly and
    the best feasible (all >= 0) solution kept, so the result is deterministic.
    """
    n = len(rows[0])
    weighted = [([v / y for v in row], 1.0) for row, y in zip(rows, ys, strict=True)]
    used = [i for i in range(n) if any(abs(r[i]) > 0 for r, _ in weighted)]
    best: tuple[float, list[float]] | None = None
    for size in range(len(used), 0, -1):
        for free in itertools.combinations(used, size):
            ata = [[sum(r[i] * r[j] for r, _ in weighted) for j in free] for i in free]
            atb = [sum(r[i] * t for r, t in weighted) for i in free]
            sol = _solve(ata, atb)
            if sol is None or any(v < 0 for v in sol):
                continue
            x = [0.0] * n
            for i, v in zip(free, sol, strict=True):
                x[i] = v
            cost = sum((sum(a * b for a, b in zip(r, x, strict=True)) - t) ** 2 for r, t in weighted)
            if best is None or cost < best[0] - 1e-15:
                best = (cost, x)
    if best is None:
        raise ValueError("no non-negative solution")
    return best[1]


# A direct cable is a two-node ring to NCCL (same ring algorithm, same kind of
# link): it shares the ring's base rather than getting its own, which only one
# derived ratio could set.
_PATH_INDEX = {"direct": 0, "ring": 0, "switched-nccl": 1, "switched-rocenante": 2}
_K = len(FITTED_ENGINES)
_N_CLASSES = len(EFFICIENCY_CLASSES)


def _decode_row(
    model: ModelSpec, layout: Layout, context: int, c: PerfConstants, min_layer_us: float = MIN_LAYER_OVERHEAD_US
) -> tuple[list[float], float]:
    """Decode time of one stream as features linear in the unknowns, and the
    known time (ms) to subtract. Unknowns, in order: per fitted engine (token
    overhead ms, layer overhead ms), per efficiency class 1/efficiency (ms per
    GB at 273 GB/s), the four path bases (ms) and the step (ms)."""
    row = [0.0] * (2 * _K + _N_CLASSES + 4)
    e = FITTED_ENGINES.index(ENGINE_FIT_SOURCE[layout.engine])
    # The fixed cost of a step is written per layer: launches, routing and norms
    # come per layer on every node, so tensor parallelism does not shrink them
    # (a per-step constant would be indistinguishable on single-node points and
    # would let small fast models scale as if that cost split). Its column stays 0.
    row[2 * e + 1] = model.layers
    gb = (
        weights_read_gb(model, 1.0) + context * model.kv_bytes_per_token() / 1e9 / model.kv_shards(layout.tp)
    ) / layout.tp
    row[2 * _K + EFFICIENCY_CLASSES.index(efficiency_class(model.quantization))] = gb / NODE_MEMORY_BW_GBPS * 1e3
    known_ms = (layout.pp - 1) * PP_HOP_MS[layout.engine] + model.layers * min_layer_us / 1e3
    if layout.tp > 1:
        collectives = 2 * model.layers
        base = 2 * _K + _N_CLASSES
        row[base + _PATH_INDEX[layout.path]] = collectives
        row[base + 3] = collectives * allreduce_steps(layout.path, layout.tp)
        known_ms += collectives * _allreduce_bytes(model, 1, layout.tp) / link_bytes_per_s(layout, c) * 1e3
    return row, known_ms


def _fit_prefill(train: list[PublishedPoint], c: PerfConstants) -> PerfConstants:
    """Per fitted engine 1/TFLOPS of dense and of expert work, and 1/link
    efficiency; the weights streamed per chunk are known from ``c``'s efficiency."""
    rows, ys = [], []
    for p in train:
        if p.prefill_tps is None:
            continue
        model, layout = point_model(p), point_layout(p)
        dense, expert, stream, comm = _prefill_terms(model, layout, p.prompt, c)
        row = [0.0] * (3 * _K + 1)
        e = FITTED_ENGINES.index(ENGINE_FIT_SOURCE[p.engine])
        # unknowns 1/T_dense and (1/T_expert - 1/T_dense) >= 0 (expert GEMMs
        # are never faster than dense ones), µs per layer per token
        row[3 * e], row[3 * e + 1], row[3 * e + 2] = dense + expert, expert, model.layers / layout.tp
        row[3 * _K] = comm
        rows.append(row)
        bandwidth = NODE_MEMORY_BW_GBPS * c.efficiency(p.engine, model.quantization)
        ys.append(1e6 / float(p.prefill_tps) - stream / bandwidth)
    x = _nnls(rows, ys)
    engines = dict(c.engines)
    for i, name in enumerate(FITTED_ENGINES):
        dense_t = 1.0 / x[3 * i] if x[3 * i] > 0 else 1e6
        expert_t = 1.0 / (x[3 * i] + x[3 * i + 1]) if x[3 * i] + x[3 * i + 1] > 0 else dense_t
        engines[name] = replace(
            engines[name], prefill_tflops=dense_t, prefill_expert_tflops=expert_t, prefill_layer_us=x[3 * i + 2]
        )
    engines["sglang"] = engines["vllm"]
    return replace(c, engines=engines, link_efficiency=min(1.0, 1.0 / x[3 * _K]) if x[3 * _K] > 0 else 1.0)


def _fit_decode(train: list[PublishedPoint], c: PerfConstants, min_layer_us: float) -> PerfConstants:
    rows, ys = [], []
    for p in train:
        if p.decode_tps is None or p.concurrency > 1:
            continue
        row, known_ms = _decode_row(point_model(p), point_layout(p), p.context, c, min_layer_us)
        rows.append(row)
        ys.append(1e3 / p.decode_tps - known_ms)
    x = _nnls(rows, ys)
    inv = x[2 * _K : 2 * _K + _N_CLASSES]
    default_eff = 1.0 / inv[0] if inv[0] > 0 else 1.0
    class_eff = {
        name: (1.0 / v / default_eff if v > 0 else 1.0) for name, v in zip(EFFICIENCY_CLASSES, inv, strict=True)
    }
    engines = {
        name: replace(
            c.engines[name],
            mem_efficiency=default_eff,
            token_overhead_ms=x[2 * i],
            layer_overhead_us=min_layer_us + x[2 * i + 1] * 1e3,
        )
        for i, name in enumerate(FITTED_ENGINES)
    }
    engines["sglang"] = engines["vllm"]
    b = 2 * _K + _N_CLASSES
    return replace(
        c,
        engines=engines,
        class_efficiency=class_eff,
        ring_base_us=x[b] * 1e3,
        switched_nccl_base_us=x[b + 1] * 1e3,
        rocenante_base_us=x[b + 2] * 1e3,
        allreduce_step_us=x[b + 3] * 1e3,
    )


# The routing exponent and the cost per extra stream are searched on these
# grids (deterministic): exponent 1 is uniform routing, and below 0.3 a batch
# of 64 would touch fewer experts than 4 tokens would; 3 ms per stream would
# cap one instance below 350 tok/s.
ROUTING_EXPONENT_GRID = tuple(round(0.30 + 0.01 * i, 2) for i in range(71))
STREAM_OVERHEAD_GRID_MS = tuple(round(0.05 * i, 2) for i in range(61))


def split_streams(concurrency: int, copies: int) -> list[int]:
    """How a router shares ``concurrency`` streams between independent copies:
    as evenly as it can, the first copies taking one more."""
    base, extra = divmod(concurrency, copies)
    return [base + (1 if i < extra else 0) for i in range(copies)]


def aggregate_prediction(p: PublishedPoint, c: PerfConstants) -> float:
    """Output tokens/s over all of a published point's streams: its replicas
    share the streams evenly, each copy batches its share."""
    model, layout = point_model(p), point_layout(p)
    return sum(
        predict(model, layout, context_tokens=p.context, concurrency=s, constants=c).aggregate_tps
        for s in split_streams(p.concurrency, p.replicas)
        if s > 0
    )


def _fit_batching(train: list[PublishedPoint], c: PerfConstants) -> PerfConstants:
    """The routing exponent and the cost per extra stream that best predict the
    training points measured at a concurrency above 1 (least squares of the
    log ratio over both grids). Neither changes one stream's prediction, so the
    other constants stay."""
    points = [(p, p.decode_tps) for p in train if p.concurrency > 1 and p.decode_tps]
    if not points:
        return c

    def cost(pair: tuple[float, float]) -> float:
        trial = replace(c, routing_exponent=pair[0], stream_overhead_ms=pair[1])
        return math.fsum(math.log(aggregate_prediction(p, trial) / tps) ** 2 for p, tps in points)

    exponent, stream_ms = min(itertools.product(ROUTING_EXPONENT_GRID, STREAM_OVERHEAD_GRID_MS), key=cost)
    return replace(c, routing_exponent=exponent, stream_overhead_ms=stream_ms)


def fit(reading: str = DEFAULT_READING, min_layer_us: float = MIN_LAYER_OVERHEAD_US) -> PerfConstants:
    """Recompute the constants for one reading of the disputed row.

    Decode and prefill are each linear in their unknowns once written as
    times: one non-negative least-squares solve on relative error each.
    They share two things (prefill streams MoE weights at decode's
    efficiency; decode's all-reduce bytes go at prefill's link efficiency),
    so the pair is solved twice from a neutral start: deterministic.
    """
    train = points_for(reading, roles=("train",))
    neutral = EngineConstants(0.75, 0.0, 0.0, 100.0, 100.0)
    c = PerfConstants(
        reading=reading,
        engines={name: neutral for name in ENGINES},
        ring_base_us=0.0,
        switched_nccl_base_us=0.0,
        rocenante_base_us=0.0,
        allreduce_step_us=0.0,
        link_efficiency=0.7,
    )
    for _ in range(2):
        c = _fit_prefill(train, c)
        c = _fit_decode(train, c, min_layer_us)
        c = _fit_batching(train, c)
    return c


@dataclass(frozen=True)
class PointError:
    key: str
    metric: str  # "decode" (one stream) | "prefill" | "aggregate" (all streams, concurrency > 1)
    role: str
    published: float
    predicted: float
    source: str = ""
    url: str = ""

    @property
    def error_pct(self) -> float:
        return (self.predicted - self.published) / self.published * 100.0


@dataclass(frozen=True)
class FitReport:
    reading: str
    errors: tuple[PointError, ...]

    def _values(self, role: str, metric: str) -> list[float]:
        return [abs(e.error_pct) for e in self.errors if e.role == role and e.metric == metric]

    def mape(self, role: str, metric: str) -> float | None:
        """Mean absolute percentage error of one set (None if the set is empty)."""
        values = self._values(role, metric)
        return sum(values) / len(values) if values else None

    def median(self, role: str, metric: str) -> float | None:
        values = self._values(role, metric)
        return statistics.median(values) if values else None

    def worst(self, role: str, metric: str) -> float | None:
        values = self._values(role, metric)
        return max(values) if values else None


def fit_report(reading: str = DEFAULT_READING, constants: PerfConstants | None = None) -> FitReport:
    """Errors of the (stored, or given) constants on the training and held-out points."""
    c = constants or CONSTANTS_BY_READING[reading]
    errors: list[PointError] = []
    for p in points_for(reading):
        model, layout = point_model(p), point_layout(p)
        if p.decode_tps is not None and p.concurrency > 1:
            errors.append(
                PointError(p.key, "aggregate", p.role, p.decode_tps, aggregate_prediction(p, c), p.source, p.url)
            )
        elif p.decode_tps is not None:
            pred = predict(model, layout, context_tokens=p.context, prompt_tokens=p.prompt, constants=c)
            errors.append(PointError(p.key, "decode", p.role, p.decode_tps, pred.decode_tps, p.source, p.url))
        if p.prefill_tps is not None:
            tps = predict_prefill_tps(model, layout, prompt_tokens=p.prompt, constants=c)
            errors.append(PointError(p.key, "prefill", p.role, p.prefill_tps, tps, p.source, p.url))
    return FitReport(reading, tuple(errors))


# --- calibration by the lab's own runs ------------------------------------------


@dataclass(frozen=True)
class LabRun:
    """One of the lab's measured runs, as the model sees it."""

    key: str
    model: ModelSpec
    layout: Layout
    context: int
    prompt: int
    decode_tps: float | None  # one stream (1000 / TPOT, or a single-stream run)
    prefill_tps: float | None
    concurrency: int = 1
    aggregate_tps: float | None = None  # all streams together, at a concurrency above 1


@dataclass(frozen=True)
class Calibration:
    """Constants re-fitted on the lab's runs, and the errors before and after."""

    constants: PerfConstants
    before: tuple[PointError, ...]
    after: tuple[PointError, ...]
    changes: tuple[tuple[str, str, float, float], ...]  # (engine, constant, published fit, re-fitted)
    runs_per_engine: dict[str, int] = field(hash=False, default_factory=dict)


def _clamp(name: str, value: float) -> float:
    low, high = CALIBRATION_BOUNDS[name]
    return min(max(value, low), high)


def _lab_errors(runs: list[LabRun], c: PerfConstants) -> tuple[PointError, ...]:
    errors = []
    for r in runs:
        if r.decode_tps:
            pred = predict(r.model, r.layout, context_tokens=r.context, prompt_tokens=r.prompt, constants=c)
            errors.append(PointError(r.key, "decode", "lab", r.decode_tps, pred.decode_tps))
        if r.prefill_tps:
            tps = predict_prefill_tps(r.model, r.layout, prompt_tokens=r.prompt, constants=c)
            errors.append(PointError(r.key, "prefill", "lab", r.prefill_tps, tps))
        if r.aggregate_tps and r.concurrency > 1:
            pred = predict(r.model, r.layout, context_tokens=r.context, concurrency=r.concurrency, constants=c)
            errors.append(PointError(r.key, "aggregate", "lab", r.aggregate_tps, pred.aggregate_tps))
    return tuple(errors)


def _refit_decode(runs: list[LabRun], c: PerfConstants, engine: str) -> EngineConstants:
    """Re-fit an engine's bandwidth efficiency (and, with runs of at least two
    models, its cost per layer) on its runs, within CALIBRATION_BOUNDS.

    One stream's step time is linear in 1/efficiency and in the layer cost,
    so each run is written as t = a/eff + b*layer_us + k by evaluating the
    model at three points; 1/eff is then solved exactly for each layer cost
    tried (the layer cost on a bounded grid of 2.5 µs)."""
    e = c.engine(engine)
    rows: list[list[float]] = []
    for r in runs:
        if not r.decode_tps:
            continue

        def t(eff: float, layer_us: float, r: LabRun = r) -> float:
            trial = replace(
                c, engines={**c.engines, engine: replace(e, mem_efficiency=eff, layer_overhead_us=layer_us)}
            )
            return _step_ms(r.model, r.layout, trial, 1.0, r.context)[0]

        k0 = t(1e9, 0.0)  # nothing but communication, hops and the fixed step cost
        a = (t(0.5, 0.0) - k0) * 0.5  # memory time at efficiency 1 (0.5 stays clear of the 1.0 cap)
        b = (t(1e9, 100.0) - k0) / 100.0
        observed = 1e3 / r.decode_tps
        # weighted by the observed time: least squares on relative error
        rows.append([a / observed, b / observed, k0 / observed])
    if not rows:
        return e
    models = {r.model.slug for r in runs if r.decode_tps}

    def best_inv_eff(layer: float) -> float:
        # minimise sum((a x + b layer + k - 1)^2) over x = 1/eff, in closed form
        num = sum(a * (1.0 - b * layer - k) for a, b, k in rows)
        den = sum(a * a for a, _, _ in rows)
        return num / den if den > 0 else 0.0

    def cost(inv: float, layer: float) -> float:
        return sum((a * inv + b * layer + k - 1.0) ** 2 for a, b, k in rows)

    low, high = CALIBRATION_BOUNDS["mem_efficiency"]
    layer = e.layer_overhead_us
    if len(rows) >= 3 and len(models) >= 2:
        # the layer cost too: a bounded 1-D search, each step solved for 1/eff exactly
        candidates = [CALIBRATION_BOUNDS["layer_overhead_us"][0] + 2.5 * i for i in range(141)]
        layer = min(candidates, key=lambda lo: cost(min(max(best_inv_eff(lo), 1 / high), 1 / low), lo))
        layer = _clamp("layer_overhead_us", layer)
    eff = _clamp("mem_efficiency", 1.0 / max(best_inv_eff(layer), 1e-12))
    return replace(e, mem_efficiency=eff, layer_overhead_us=layer)


def _refit_prefill(runs: list[LabRun], c: PerfConstants, engine: str, e: EngineConstants) -> EngineConstants:
    """One speed factor on the engine's prefill compute, within CALIBRATION_BOUNDS,
    so that measured over predicted is 1 on (geometric) average. The weights a
    MoE streams per chunk and the communication do not scale with it, so the
    factor is found by a few fixed-point steps."""
    measured = [r for r in runs if r.prefill_tps]
    if not measured:
        return e
    scale = 1.0
    for _ in range(8):
        trial = replace(
            c,
            engines={
                **c.engines,
                engine: replace(
                    e,
                    prefill_tflops=e.prefill_tflops * scale,
                    prefill_expert_tflops=e.prefill_expert_tflops * scale,
                    prefill_layer_us=e.prefill_layer_us / scale,
                ),
            },
        )
        logs = [
            math.log(r.prefill_tps / predict_prefill_tps(r.model, r.layout, prompt_tokens=r.prompt, constants=trial))
            for r in measured
            if r.prefill_tps
        ]
        scale = _clamp("prefill_scale", scale * math.exp(sum(logs) / len(logs)))
    return replace(
        e,
        prefill_tflops=e.prefill_tflops * scale,
        prefill_expert_tflops=e.prefill_expert_tflops * scale,
        prefill_layer_us=e.prefill_layer_us / scale,
    )


# Runs at several streams needed before the cost per extra stream is re-fitted.
MIN_AGGREGATE_RUNS = 2


def _refit_streams(runs: list[LabRun], c: PerfConstants) -> float:
    """The cost per extra stream that best predicts the lab's runs at several
    streams (least squares of the log ratio on a 0.05 ms grid within
    CALIBRATION_BOUNDS), after the engines' own constants are re-fitted; the
    published value without MIN_AGGREGATE_RUNS such runs."""
    measured = [(r, r.aggregate_tps) for r in runs if r.aggregate_tps and r.concurrency > 1]
    if len(measured) < MIN_AGGREGATE_RUNS:
        return c.stream_overhead_ms
    low, high = CALIBRATION_BOUNDS["stream_overhead_ms"]

    def cost(stream_ms: float) -> float:
        trial = replace(c, stream_overhead_ms=stream_ms)
        return math.fsum(
            math.log(
                predict(
                    r.model, r.layout, context_tokens=r.context, concurrency=r.concurrency, constants=trial
                ).aggregate_tps
                / tps
            )
            ** 2
            for r, tps in measured
        )

    grid = [round(low + 0.05 * i, 2) for i in range(int(round((high - low) / 0.05)) + 1)]
    return _clamp("stream_overhead_ms", min(grid, key=cost))


def calibrate(runs: list[LabRun], base: PerfConstants | None = None) -> Calibration:
    """Re-fit each engine's constants on the lab's own runs of that engine
    (bandwidth efficiency, cost per layer, prefill speed), within the
    documented bounds; engines without runs keep the published fit. Runs at
    several streams re-fit the cost per extra stream (shared by the engines).
    The communication constants and the routing exponent stay: a lab's few
    runs cannot separate them."""
    c = base or default_constants()
    engines = dict(c.engines)
    counts: dict[str, int] = {}
    changes: list[tuple[str, str, float, float]] = []
    for engine in ENGINES:
        mine = [r for r in runs if r.layout.engine == engine]
        if not mine:
            continue
        counts[engine] = len(mine)
        old = c.engine(engine)
        new = _refit_decode(mine, c, engine)
        trial = replace(c, engines={**engines, engine: new})
        new = _refit_prefill(mine, trial, engine, new)
        engines[engine] = new
        for name in ("mem_efficiency", "layer_overhead_us", "prefill_tflops"):
            if not math.isclose(getattr(old, name), getattr(new, name), rel_tol=1e-9):
                changes.append((engine, name, getattr(old, name), getattr(new, name)))
    label = ", ".join(f"{e}: {n} run{'s' if n != 1 else ''}" for e, n in counts.items())
    calibrated = replace(c, engines=engines, calibrated=label) if counts else c
    stream_ms = _refit_streams(runs, calibrated)
    if not math.isclose(stream_ms, c.stream_overhead_ms, rel_tol=1e-9):
        changes.append(("every engine", "stream_overhead_ms", c.stream_overhead_ms, stream_ms))
        calibrated = replace(calibrated, stream_overhead_ms=stream_ms)
    return Calibration(calibrated, _lab_errors(runs, c), _lab_errors(runs, calibrated), tuple(changes), counts)


def _literal(c: PerfConstants) -> str:  # pragma: no cover - maintenance helper
    """The constants as the Python literal stored above."""
    lines = [f"    {c.reading!r}: PerfConstants(", f"        reading={c.reading!r},", "        engines={"]
    for name, e in c.engines.items():
        lines.append(f"            {name!r}: EngineConstants(")
        lines += [f"                {f.name}={getattr(e, f.name)!r}," for f in fields(e)]
        lines.append("            ),")
    lines.append("        },")
    for name in (
        "ring_base_us",
        "switched_nccl_base_us",
        "rocenante_base_us",
        "allreduce_step_us",
        "link_efficiency",
        "class_efficiency",
        "routing_exponent",
        "stream_overhead_ms",
    ):
        lines.append(f"        {name}={getattr(c, name)!r},")
    lines.append("    ),")
    return "\n".join(lines)


def _setup(p: PublishedPoint) -> str:
    model = p.model_slug + (f" {p.quantization}" if p.quantization else "")
    if p.replicas > 1:
        where = f"{p.replicas} one-node copies"
    elif p.nodes == 1:
        where = "1 node"
    else:
        split = " ".join(
            x
            for x in (f"TP{p.tp}" if p.tp > 1 else "", f"EP{p.ep}" if p.ep > 1 else "", f"PP{p.pp}" if p.pp > 1 else "")
            if x
        )
        where = f"{p.nodes} nodes {p.topology} {split}"
    extra = "".join(
        [
            f", {p.link_gbps:g}G" if p.nodes > 1 and p.link_gbps != 200 else "",
            f", {p.concurrency} streams" if p.concurrency > 1 else "",
            f", context {p.context:,}" if p.context > 4096 else "",
        ]
    )
    return f"{model}, {where}, {p.engine}{extra}"


def markdown_tables(reading: str = DEFAULT_READING) -> str:  # pragma: no cover - maintenance helper
    """The error tables of PERFORMANCE_MODEL.md, from the stored constants."""
    report = fit_report(reading)
    by_key = {p.key: p for p in PUBLISHED_POINTS}
    out = []
    for role, title in (("train", "Training points"), ("holdout", "Held-out points (never used by the fit)")):
        out += [f"### {title}", ""]
        head = "| point | setup | metric | published | predicted | error |"
        out += [
            head + (" source |" if role == "holdout" else ""),
            "| --- | --- | --- | ---: | ---: | ---: |" + (" --- |" if role == "holdout" else ""),
        ]
        for e in report.errors:
            if e.role != role:
                continue
            row = (
                f"| {e.key} | {_setup(by_key[e.key])} | {e.metric} | {e.published:,.2f} | {e.predicted:,.2f} "
                f"| {e.error_pct:+.1f}% |"
            )
            if role == "holdout":
                row += f" [{e.source}]({e.url}) |" if e.url else f" {e.source} |"
            out.append(row)
        out.append("")
    for role in ("train", "holdout"):
        for metric in ("decode", "prefill", "aggregate"):
            med, worst, mean = report.median(role, metric), report.worst(role, metric), report.mape(role, metric)
            if med is not None and worst is not None and mean is not None:
                n = len(report._values(role, metric))
                out.append(f"- {role} {metric} ({n} figures): median {med:.1f}%, worst {worst:.1f}%, mean {mean:.1f}%")
    return "\n".join(out)


def _main() -> None:  # pragma: no cover - maintenance helper
    if "--markdown" in sys.argv:
        print(markdown_tables())
        return
    for reading in READINGS:
        c = fit(reading)
        print(_literal(c))
        report = fit_report(reading, c)
        for e in report.errors:
            print(
                f"  {e.role:8} {e.metric:8} {e.key:32} published {e.published:9.2f} "
                f"predicted {e.predicted:9.2f} error {e.error_pct:+6.1f}%"
            )
        for role in ("train", "holdout"):
            for metric in ("decode", "prefill", "aggregate"):
                med, worst = report.median(role, metric), report.worst(role, metric)
                if med is not None and worst is not None:
                    print(f"  {role} {metric}: median {med:.1f}%, worst {worst:.1f}%")


if __name__ == "__main__":  # pragma: no cover
    _main()
