"""Predicted decode, aggregate and prefill speed of one model instance.

A memory-bandwidth roofline for decode (weights, the KV cache of the
attention layers that keep one, the recurrent state of linear and
state-space layers read and written every step), a per-engine cost per
sublayer (launches, routing, norms: not split by tensor parallelism) and per
linear mixer, the CUDA-graph or eager mode, the communication of tensor
parallelism (one all-reduce per sublayer, latency by exchange path and
collective backend plus the engine's own extra, and message bytes over the
link or the group's measured bus bandwidth), expert parallelism's
all-to-all, pipeline stages (even or uneven), and a compute model for
prefill. Independent copies share their streams through a router
(``copies_aggregate_tps``). See PERFORMANCE_MODEL.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from placement.model_catalogue import ModelSpec

from .constants import (
    ACTIVATION_BYTES,
    COMPUTE_RATE,
    ENGINES,
    GRAPHS_FOR_ONE_TOKEN,
    MODES,
    NODE_MEMORY_BW_GBPS,
    NODE_PEAK_FLOPS,
    PATHS,
    PREFILL_CHUNK,
    STATE_PASSES,
    STREAM_COST_FROM_TP,
    PerfConstants,
)
from .fitted import default_constants

ROUTERS = ("even", "random")


@dataclass(frozen=True)
class Layout:
    """How one model instance is spread: tp x pp nodes; ep > 1 spreads the
    experts over the tp nodes (attention stays tensor-parallel).
    ``stage_layers`` gives uneven pipeline stages (layers per stage, in order);
    empty means even. ``bus_gbytes_per_s`` is the group's measured collective
    bus bandwidth (nccl-tests), which replaces link x link_efficiency.
    ``mode`` is "graphs" (CUDA graphs, the engines' default) or "eager"."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    path: str = "none"
    link_gbps: float = 200.0
    engine: str = "vllm"
    stage_layers: tuple[int, ...] = ()
    bus_gbytes_per_s: float | None = None
    mode: str = "graphs"

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


def allreduce_latency_us(c: PerfConstants, path: str, nodes: int, engine: str = "vllm") -> float:
    if nodes <= 1 or path == "none":
        return 0.0
    scale = c.collective_scale.get(path, 1.0)
    path_us = c.base_us(path) + c.allreduce_step_us * allreduce_steps(path, nodes)
    return path_us * scale + c.engine(engine).allreduce_extra_us


def alltoall_latency_us(c: PerfConstants, path: str, nodes: int, engine: str = "vllm") -> float:
    """One all-to-all (expert parallelism's dispatch or combine): one round of
    n-1 sends, whatever the path. Priced with the all-reduce constants: no
    published Spark figure isolates it."""
    if nodes <= 1 or path == "none":
        return 0.0
    scale = c.collective_scale.get(path, 1.0)
    return (c.base_us(path) + c.allreduce_step_us * (nodes - 1)) * scale + c.engine(engine).allreduce_extra_us


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
    """FLOPs of the token mixers for one token over `context` tokens: full
    attention over the context, sliding windows over their window, a linear
    mixer's state update (a few FLOPs per state value, whatever the context)."""
    per_layer = 4.0 * model.heads * model.head_dim
    window = min(context, float(model.sliding_window)) if model.sliding_window else 0.0
    state_values = model.state_bytes / 2.0
    return per_layer * (context * model.full_layers + window * model.sliding_layers) + (
        4.0 * state_values * model.linear_layers
    )


def decode_flops_per_token(model: ModelSpec, context: int) -> float:
    return 2.0 * model.active_params_b * 1e9 + _attention_flops(model, context)


def compute_ceiling_tps(model: ModelSpec, nodes: int) -> float:
    """The most tokens a second ``nodes`` Sparks can decode for ``model``, at
    any batch and with any drafting (a drafted token is kept only once the
    model's own forward pass has computed it): every token multiplies each
    active weight once (2 operations) at no more than the published peak. Real
    runs stay far below it (a hundredth of it, or less); a figure above it is a
    typo or another quantity. Prefill is not bounded so: a cached prompt is
    not computed again."""
    return max(1, nodes) * NODE_PEAK_FLOPS / (2.0 * model.active_params_b * 1e9)


def prefill_flops_per_token(model: ModelSpec, prompt: int) -> float:
    # causal attention: on average a prompt token attends over half the prompt
    return 2.0 * model.active_params_b * 1e9 + _attention_flops(model, prompt / 2)


def _expert_coverage(model: ModelSpec, batch: float, exponent: float = 1.0) -> float:
    """Fraction of routed experts a batch touches: as many as batch**exponent
    uniformly routed tokens would (exponent 1: uniform routing)."""
    if not model.is_moe:
        return 1.0
    k_over_e = model.experts_per_token / model.experts
    untouched: float = (1.0 - k_over_e) ** (max(batch, 1.0) ** exponent)
    return 1.0 - untouched


def weights_read_gb(model: ModelSpec, batch: float, exponent: float = 1.0) -> float:
    """Weights one decode step of `batch` streams reads (whole model, one copy)."""
    if model.is_moe:
        expert = model.expert_weights_gb()
        shared = max(model.active_weights_gb() - expert * model.experts_per_token / model.experts, 0.0)
        return shared + expert * _expert_coverage(model, batch, exponent)
    return model.active_weights_gb()


def state_moved_bytes(model: ModelSpec, engine: str = "vllm") -> float:
    """Bytes of one stream's recurrent state one decode step moves on this
    engine: read and written back in place (2 passes), or as upstream
    llama.cpp does, gathered, updated and copied back (``STATE_PASSES``), as
    wide as the engine keeps it (``ModelSpec.state_bytes_kept``)."""
    return STATE_PASSES.get(engine, 2) * model.state_bytes_kept(engine)


def cache_read_gb(model: ModelSpec, tp: int, batch: float, context: float, engine: str = "vllm") -> float:
    """What `batch` streams read besides the weights in one step, on one node
    of a tensor-parallel group: the KV cache of their full and sliding-window
    layers (split as the KV heads split) and the recurrent state of the linear
    layers as the engine moves it (``state_moved_bytes``; split over the ranks
    like their heads)."""
    kv = (context * model.kv_bytes_per_token() + model.window_kv_bytes(context)) / model.kv_shards(tp)
    state = state_moved_bytes(model, engine) / tp
    return batch * (kv + state) / 1e9


def allreduces_per_step(model: ModelSpec, layout: Layout) -> tuple[int, int]:
    """(all-reduces, all-to-alls) one decode step runs: tensor parallelism
    all-reduces after every sublayer (each mixer and each FFN); expert
    parallelism all-reduces after the mixers and sends tokens to their
    experts and back around each FFN."""
    if layout.tp <= 1 or layout.path == "none":
        return 0, 0
    if layout.ep > 1 and model.is_moe:
        return model.mixers, 2 * model.ffns
    return model.sublayers, 0


def collective_ms(model: ModelSpec, layout: Layout, c: PerfConstants, tokens: float) -> float:
    """Communication of one step of `tokens` rows, whole model."""
    allreduces, alltoalls = allreduces_per_step(model, layout)
    if not allreduces:
        return 0.0
    n, link = layout.tp, link_bytes_per_s(layout, c)
    ar = allreduce_latency_us(c, layout.path, n, layout.engine) / 1e3 + _allreduce_bytes(model, tokens, n) / link * 1e3
    a2a = 0.0
    if alltoalls:
        a2a = (
            alltoall_latency_us(c, layout.path, n, layout.engine) / 1e3 + _alltoall_bytes(model, tokens, n) / link * 1e3
        )
    return allreduces * ar + alltoalls * a2a


def eager_step(layout: Layout, tokens: float) -> bool:
    """Whether a decode step of ``tokens`` rows runs without CUDA graphs:
    vLLM's eager mode, or an engine that captures graphs for one-token steps
    only (``GRAPHS_FOR_ONE_TOKEN``) at more than one."""
    return layout.mode == "eager" or (layout.engine in GRAPHS_FOR_ONE_TOKEN and tokens > 1.0)


def fixed_ms(model: ModelSpec, layout: Layout, c: PerfConstants, tokens: float = 1.0) -> float:
    """The per-step costs that do not depend on bytes: every sublayer's
    kernels (more without CUDA graphs) and the linear mixers' recurrent kernels."""
    e = c.engine(layout.engine)
    per_sublayer = e.sublayer_us + (e.eager_sublayer_us if eager_step(layout, tokens) else 0.0)
    linear = model.linear_layers * c.linear_us.get(model.linear_kind, 0.0)
    return (model.sublayers * per_sublayer + linear) / 1e3


def expert_slots(model: ModelSpec) -> int:
    """Routed-expert slots of one token: experts per token x MoE sublayers."""
    return model.experts_per_token * model.ffns if model.is_moe else 0


def own_stream_cost(layout: Layout) -> bool:
    """Whether the layout pays its engine's own cost per extra stream (else
    vLLM's: ``STREAM_COST_FROM_TP``)."""
    return layout.engine not in STREAM_COST_FROM_TP or layout.tp > 1


def batching_engine(layout: Layout) -> str:
    """The engine whose batching constants (cost per extra stream) the layout uses."""
    return layout.engine if own_stream_cost(layout) else "vllm"


def per_stream_ms(model: ModelSpec, engine: str, c: PerfConstants, slot_engine: str | None = None) -> float:
    """What each stream beyond the first adds to one instance's step: the
    (batching) engine's cost per extra stream and the cost of the model's
    expert slots, the published fit's or the lab's re-fit of it on the
    engine that runs (``slot_engine``, by default the same engine)."""
    slot_us = c.slot_us(slot_engine or engine, model.slug)
    return c.engine(engine).stream_overhead_ms + expert_slots(model) * slot_us / 1e3


def streams_ms(model: ModelSpec, layout: Layout, c: PerfConstants, batch: float) -> float:
    """What the streams beyond the first add to one step of one instance
    (``per_stream_ms``; neither cost is split by tensor parallelism)."""
    return per_stream_ms(model, batching_engine(layout), c, layout.engine) * max(batch - 1.0, 0.0)


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
    bandwidth = NODE_MEMORY_BW_GBPS * c.efficiency(layout.engine, model.quantization)
    read_gb = weights_read_gb(model, mb, c.routing_exponent) / layout.tp + cache_read_gb(
        model, layout.tp, mb, context, layout.engine
    )
    memory_ms = read_gb / bandwidth * 1e3
    rate = e.prefill_tflops * 1e12 * COMPUTE_RATE[model.quantization]
    compute_ms = mb * decode_flops_per_token(model, context) / layout.tp / rate * 1e3
    coll_ms = collective_ms(model, layout, c, mb)
    work_ms = max(memory_ms, compute_ms)
    hop_ms = (layout.pp - 1) * e.pp_hop_ms
    total = e.token_overhead_ms + pace * (work_ms + fixed_ms(model, layout, c, mb) + coll_ms) + hop_ms
    total += streams_ms(model, layout, c, batch)
    return total, pace * work_ms, pace * coll_ms + hop_ms, compute_ms > memory_ms


def _aggregate(model: ModelSpec, layout: Layout, c: PerfConstants, streams: int, context: int) -> tuple[float, bool]:
    """All ``streams`` of one instance together (tokens/s), and whether its
    step is compute-bound."""
    step_ms, _, _, compute_bound = _step_ms(model, layout, c, float(streams), context)
    return streams * 1e3 / step_ms, compute_bound


def check_layout(layout: Layout) -> None:
    if layout.path not in PATHS:
        raise ValueError(f"unknown exchange path {layout.path!r}")
    if layout.engine not in ENGINES:
        raise ValueError(f"unknown engine {layout.engine!r}")
    if layout.mode not in MODES:
        raise ValueError(f"unknown mode {layout.mode!r}; one of {MODES}")


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
    check_layout(layout)
    one_ms, memory_ms, coll_ms, _ = _step_ms(model, layout, c, 1.0, context_tokens)
    batch = max(1, concurrency)
    aggregate_tps, compute_bound = _aggregate(model, layout, c, batch, context_tokens)
    prompt = prompt_tokens if prompt_tokens is not None else context_tokens
    e = c.engine(layout.engine)
    return Prediction(
        decode_tps=1e3 / one_ms,
        aggregate_tps=aggregate_tps,
        prefill_tps=predict_prefill_tps(model, layout, prompt_tokens=prompt, constants=c),
        memory_ms=memory_ms,
        collective_ms=coll_ms,
        overhead_ms=e.token_overhead_ms + fixed_ms(model, layout, c),
        compute_bound=compute_bound,
    )


def split_streams(concurrency: int, copies: int) -> list[int]:
    """How an even router shares ``concurrency`` streams between independent
    copies: as evenly as it can, the first copies taking one more."""
    base, extra = divmod(concurrency, copies)
    return [base + (1 if i < extra else 0) for i in range(copies)]


def _binomial(n: int, p: float) -> list[tuple[int, float]]:
    """(k, probability) of a binomial law, the negligible tails (below 1e-9) left out."""
    out = []
    for k in range(n + 1):
        log_pk = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        log_pk += k * math.log(p) + (n - k) * math.log1p(-p)
        pk = math.exp(log_pk)
        if pk > 1e-9:
            out.append((k, pk))
    return out


def copies_aggregate_tps(
    model: ModelSpec,
    layout: Layout,
    *,
    context_tokens: int,
    concurrency: int,
    copies: int,
    router: str = "random",
    constants: PerfConstants | None = None,
) -> float:
    """Output tokens/s over all streams of ``copies`` independent instances.

    "even": a router that keeps the copies equally loaded (``split_streams``).
    "random": one that sends each request to a copy at random (LiteLLM's
    default simple-shuffle; a plain round-robin in front of long requests
    behaves alike): each copy's share is binomial, and the copy that gets more
    than its share runs slower, so the sum is below the even split's."""
    if router not in ROUTERS:
        raise ValueError(f"unknown router {router!r}; one of {ROUTERS}")
    c = constants or default_constants()
    check_layout(layout)

    def agg(streams: int) -> float:
        # one copy's aggregate alone (its one-stream and prefill figures are not needed here)
        return _aggregate(model, layout, c, streams, context_tokens)[0] if streams > 0 else 0.0

    if copies <= 1:
        return agg(concurrency)
    if router == "even":
        shares = split_streams(concurrency, copies)
        by_share = {s: agg(s) for s in set(shares)}
        return sum(by_share[s] for s in shares)
    return copies * sum(p * agg(k) for k, p in _binomial(concurrency, 1.0 / copies))


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
    allreduces, alltoalls = allreduces_per_step(model, layout)
    if allreduces:
        per_token = allreduces * _allreduce_bytes(model, 1, layout.tp) + alltoalls * _alltoall_bytes(
            model, 1, layout.tp
        )
        if layout.bus_gbytes_per_s and c is not None:
            # measured: no efficiency to apply; express it at line rate x efficiency
            comm_us_at_line_rate = per_token / (layout.bus_gbytes_per_s * 1e9) * 1e6 * c.link_efficiency
        else:
            comm_us_at_line_rate = per_token / (layout.link_gbps * 1e9 / 8) * 1e6
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
        + model.sublayers / layout.tp * e.prefill_sublayer_us
        + stream / bandwidth
        + comm / c.link_efficiency * e.prefill_comm_factor
    )
    return 1e6 / us


def prediction_source(constants: PerfConstants | None = None) -> str:
    c = constants or default_constants()
    fitted = f"re-fitted on this lab's runs ({c.calibrated})" if c.calibrated else "fitted on published figures"
    return (
        f"predicted (placement.perfmodel: bandwidth roofline by layer kind, per-engine costs and TP "
        f"communication by collective backend, {fitted}; NVIDIA 2026-10 table row 1 read as '{c.reading}'; "
        "see placement/PERFORMANCE_MODEL.md)"
    )
