"""Performance model: predicted decode, aggregate and prefill speed of a layout.

Owns the numbers the planner shows as "predicted": a memory-bandwidth roofline
for decode plus per-all-reduce latencies that depend on the exchange path
(direct cable, ring, switch with NCCL, switch with RoCEnante), a compute model
for prefill, the published points the constants are fitted on, and the fit
itself (deterministic least squares in pure Python). The constants are stored
as literals below; ``fit()`` recomputes them and a test keeps the two in step.

NVIDIA's table disagrees with itself on its first row (2 nodes direct, or one
node): both readings are fitted and kept; ``DEFAULT_READING`` says which one
the product uses. See PERFORMANCE_MODEL.md for the model, the constants, the
fit and hold-out errors.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

from placement.model_catalogue import SEED_BY_SLUG, ModelSpec
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
# Estimated, not fitted (no training point uses pipeline parallelism): time to
# hand one token's activations to the next pipeline stage. vLLM/SGLang send
# them with NCCL point-to-point plus scheduling; llama.cpp RPC goes over TCP.
PP_HOP_MS: dict[str, float] = {"vllm": 0.5, "sglang": 0.5, "llama.cpp": 2.0}
# Activations travel between nodes in bf16.
ACTIVATION_BYTES = 2
# Assumed workload behind the published points: the common recipe is
# `vllm bench serve --random-input-len 128 --random-output-len 128`, so decode
# runs over ~256 tokens of context; prefill figures are taken as 2,048-token
# prompts (llama-bench pp2048 is the one stated).
PUBLISHED_DECODE_CONTEXT = 256
PUBLISHED_PREFILL_PROMPT = 2048

ENGINES = ("vllm", "sglang", "llama.cpp")
# Exchange paths. "none" is a single node.
PATHS = ("none", "direct", "ring", "switched-nccl", "switched-rocenante")
READINGS = ("one-node", "direct")


@dataclass(frozen=True)
class PerfConstants:
    """The fitted constants of the model (one set per reading of the table)."""

    reading: str
    # decode: fraction of 273 GB/s reached, fixed cost per generated token
    mem_efficiency: float
    token_overhead_ms: float
    # decode: latency of one small all-reduce = base(path) + step * steps(path, n)
    direct_base_us: float
    ring_base_us: float
    switched_nccl_base_us: float
    rocenante_base_us: float
    allreduce_step_us: float
    # prefill: effective FP4 TFLOPS, fixed cost per prompt token, fraction of
    # the link's line rate reached by the activations' all-reduce
    prefill_tflops: float
    prefill_token_overhead_us: float
    link_efficiency: float

    def base_us(self, path: str) -> float:
        return {
            "none": 0.0,
            "direct": self.direct_base_us,
            "ring": self.ring_base_us,
            "switched-nccl": self.switched_nccl_base_us,
            "switched-rocenante": self.rocenante_base_us,
        }[path]


# Fitted by fit(reading) on the training points below (see test_perfmodel's
# refit check). Do not edit by hand: run `python -m placement.perfmodel`.
CONSTANTS_BY_READING: dict[str, PerfConstants] = {
    "one-node": PerfConstants(
        reading="one-node",
        mem_efficiency=0.6780738183612309,
        token_overhead_ms=0.5471553131041312,
        direct_base_us=23.87641322309168,
        ring_base_us=48.26669846119026,
        switched_nccl_base_us=70.46897288010602,
        rocenante_base_us=34.16937496358421,
        allreduce_step_us=4.281267026551203,
        prefill_tflops=247.1612486468437,
        prefill_token_overhead_us=162.10989565926263,
        link_efficiency=0.6129828037947859,
    ),
    "direct": PerfConstants(
        reading="direct",
        mem_efficiency=0.5893414703067383,
        token_overhead_ms=0.0,
        direct_base_us=276.8987659532303,
        ring_base_us=15.346298427837683,
        switched_nccl_base_us=36.30124234765242,
        rocenante_base_us=11.8729365915707,
        allreduce_step_us=6.1838094076058026,
        prefill_tflops=126.24081362544865,
        prefill_token_overhead_us=137.01998747134692,
        link_efficiency=0.7880005392600683,
    ),
}
# The "one node" reading is the default: it agrees with the independent
# single-node points (one bandwidth efficiency fits them all) and with the
# published 1.84x two-node ratio; see the error table in PERFORMANCE_MODEL.md.
DEFAULT_READING = "one-node"


def default_constants() -> PerfConstants:
    return CONSTANTS_BY_READING[DEFAULT_READING]


# --- the model ------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """How one model instance is spread: tp x pp nodes (ep rides on tp)."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    path: str = "none"
    link_gbps: float = 200.0
    engine: str = "vllm"

    @property
    def nodes(self) -> int:
        return self.tp * self.pp


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


def _link_bytes_per_s(layout: Layout, c: PerfConstants) -> float:
    return layout.link_gbps * 1e9 / 8 * c.link_efficiency


def _allreduce_bytes(model: ModelSpec, tokens: float, nodes: int) -> float:
    """Bytes one node sends per all-reduce of `tokens` activation rows (ring bound)."""
    return tokens * model.hidden_size * ACTIVATION_BYTES * 2 * (nodes - 1) / nodes


def _attention_flops(model: ModelSpec, context: float) -> float:
    """FLOPs of attention for one token attending over `context` tokens."""
    kv_layers = model.kv_layers if model.kv_layers is not None else model.layers
    return 4.0 * context * model.heads * model.head_dim * kv_layers


def decode_flops_per_token(model: ModelSpec, context: int) -> float:
    return 2.0 * model.active_params_b * 1e9 + _attention_flops(model, context)


def prefill_flops_per_token(model: ModelSpec, prompt: int) -> float:
    # causal attention: on average a prompt token attends over half the prompt
    return 2.0 * model.active_params_b * 1e9 + _attention_flops(model, prompt / 2)


def _expert_coverage(model: ModelSpec, batch: float) -> float:
    """Fraction of routed experts a batch touches (uniform routing assumed)."""
    if not model.is_moe:
        return 1.0
    k_over_e = model.experts_per_token / model.experts
    return 1.0 - (1.0 - k_over_e) ** max(batch, 1.0)


def _stage_ms(model: ModelSpec, layout: Layout, c: PerfConstants, batch: float, context: int
              ) -> tuple[float, float, float]:
    """(memory or compute ms, collective ms, memory-bound?) for one pipeline stage and one step."""
    split = layout.tp * layout.pp
    if model.is_moe:
        expert = model.expert_weights_gb()
        shared = max(model.active_weights_gb() - expert * model.experts_per_token / model.experts, 0.0)
        weights_gb = (shared + expert * _expert_coverage(model, batch)) / split
    else:
        weights_gb = model.active_weights_gb() / split
    kv_gb = batch * context * model.kv_bytes_per_token() / 1e9 / (model.kv_shards(layout.tp) * layout.pp)
    memory_ms = (weights_gb + kv_gb) / (NODE_MEMORY_BW_GBPS * c.mem_efficiency) * 1e3
    rate = c.prefill_tflops * 1e12 * COMPUTE_RATE[model.quantization]
    compute_ms = batch * decode_flops_per_token(model, context) / split / rate * 1e3
    collective_ms = 0.0
    if layout.tp > 1:
        per_allreduce_ms = (allreduce_latency_us(c, layout.path, layout.tp) / 1e3
                            + _allreduce_bytes(model, batch, layout.tp) / _link_bytes_per_s(layout, c) * 1e3)
        collective_ms = 2 * model.layers / layout.pp * per_allreduce_ms
    return max(memory_ms, compute_ms), collective_ms, float(compute_ms > memory_ms)


def _step_ms(model: ModelSpec, layout: Layout, c: PerfConstants, batch: float, context: int
             ) -> tuple[float, float, float, bool]:
    """Time for `batch` streams each to get one token: (total, memory, collective, compute-bound)."""
    micro_batches = max(1.0, min(batch, float(layout.pp)))
    work_ms, coll_ms, compute_bound = _stage_ms(model, layout, c, batch / micro_batches, context)
    hop_ms = (layout.pp - 1) * PP_HOP_MS[layout.engine]
    total = c.token_overhead_ms + layout.pp * (work_ms + coll_ms) + hop_ms
    return total, layout.pp * work_ms, layout.pp * coll_ms + hop_ms, bool(compute_bound)


def predict(model: ModelSpec, layout: Layout, *, context_tokens: int, concurrency: int = 1,
            prompt_tokens: int | None = None, constants: PerfConstants | None = None) -> Prediction:
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
    # with fewer streams than pipeline stages the pipeline is not full
    aggregate = batch / many_ms * 1e3
    prompt = prompt_tokens if prompt_tokens is not None else context_tokens
    return Prediction(
        decode_tps=1e3 / one_ms,
        aggregate_tps=aggregate,
        prefill_tps=predict_prefill_tps(model, layout, prompt_tokens=prompt, constants=c),
        memory_ms=memory_ms,
        collective_ms=coll_ms,
        overhead_ms=c.token_overhead_ms,
        compute_bound=compute_bound,
    )


def _prefill_terms(model: ModelSpec, layout: Layout, prompt_tokens: int) -> tuple[float, float, float]:
    """The three terms that multiply (1/TFLOPS, per-token overhead, 1/link efficiency) in µs."""
    # Tensor parallelism splits a prompt token's FLOPs; pipeline stages work in
    # turn on one request's chunks, so they are not counted as a speed-up.
    flops = prefill_flops_per_token(model, prompt_tokens)
    compute_us_per_tflops = flops / (1e12 * COMPUTE_RATE[model.quantization]) * 1e6 / layout.tp
    overhead_share = 1.0 / layout.tp
    comm_us_at_line_rate = 0.0
    if layout.tp > 1:
        line_rate = layout.link_gbps * 1e9 / 8
        comm_us_at_line_rate = 2 * model.layers * _allreduce_bytes(model, 1, layout.tp) / line_rate * 1e6
    return compute_us_per_tflops, overhead_share, comm_us_at_line_rate


def predict_prefill_tps(model: ModelSpec, layout: Layout, *, prompt_tokens: int,
                        constants: PerfConstants | None = None) -> float:
    c = constants or default_constants()
    compute, overhead, comm = _prefill_terms(model, layout, prompt_tokens)
    us = compute / c.prefill_tflops + overhead * c.prefill_token_overhead_us + comm / c.link_efficiency
    return 1e6 / us


def prediction_source(constants: PerfConstants | None = None) -> str:
    c = constants or default_constants()
    return (f"predicted (placement.perfmodel: bandwidth roofline + fitted collective latencies; "
            f"NVIDIA 2026-10 table row 1 read as '{c.reading}'; see placement/PERFORMANCE_MODEL.md)")


# --- published points -------------------------------------------------------------


@dataclass(frozen=True)
class PublishedPoint:
    """One published figure with its source. `reading` is None when the point
    belongs to both readings of the disputed table row; `derived` marks points
    computed from a published ratio rather than quoted directly."""

    key: str
    model_slug: str
    nodes: int
    topology: str  # "single" | "direct" | "ring" | "switched"
    backend: str  # "none" | "nccl" | "rocenante"
    tp: int
    pp: int
    engine: str
    concurrency: int
    decode_tps: float | None
    prefill_tps: float | None
    source: str
    role: str  # "train" | "holdout" | "reference"
    reading: str | None = None
    derived: bool = False
    note: str = ""

    @property
    def path(self) -> str:
        if self.topology == "single":
            return "none"
        if self.topology == "switched":
            return "switched-rocenante" if self.backend == "rocenante" else "switched-nccl"
        return self.topology

    def layout(self, link_gbps: float = 200.0) -> Layout:
        return Layout(tp=self.tp, pp=self.pp, path=self.path, link_gbps=link_gbps, engine=self.engine)


_TABLE = "NVIDIA GTC Berlin 2026-10 scaling table, Qwen3.8-27B NVFP4, one user"
_ROW1_DECODE = 11.86
_ROW1_PREFILL = 2635.0
_COMMUNITY = "community report (no stable URL; docs/figures.md)"
_TABLE_RATIO = "NVIDIA GTC Berlin 2026-10, topologies: 'decode on 2 nodes is about 1.84x one node'"

PUBLISHED_POINTS: tuple[PublishedPoint, ...] = (
    PublishedPoint("qwen27b-row1-one-node", "qwen3.8-27b", 1, "single", "none", 1, 1, "vllm", 1,
                   _ROW1_DECODE, _ROW1_PREFILL, _TABLE + " (row 1; a second source: 'about 12 tok/s on one node')",
                   "train", reading="one-node", note="disputed row read as one node"),
    PublishedPoint("qwen27b-row1-direct", "qwen3.8-27b", 2, "direct", "nccl", 2, 1, "vllm", 1,
                   _ROW1_DECODE, _ROW1_PREFILL, _TABLE + " (row 1 as labelled: '2 nodes, direct')",
                   "train", reading="direct", note="disputed row read as 2 nodes TP2 over a direct cable"),
    PublishedPoint("qwen27b-4-ring", "qwen3.8-27b", 4, "ring", "nccl", 4, 1, "vllm", 1,
                   32.82, 4446.0, _TABLE, "train"),
    PublishedPoint("qwen27b-4-switch", "qwen3.8-27b", 4, "switched", "rocenante", 4, 1, "vllm", 1,
                   36.34, 4556.0, _TABLE, "train"),
    PublishedPoint("qwen27b-8-ring", "qwen3.8-27b", 8, "ring", "nccl", 8, 1, "vllm", 1,
                   40.11, 4962.0, _TABLE, "train"),
    PublishedPoint("qwen27b-8-switch", "qwen3.8-27b", 8, "switched", "rocenante", 8, 1, "vllm", 1,
                   52.58, 5105.0, _TABLE, "train"),
    PublishedPoint("qwen27b-2-direct-ratio", "qwen3.8-27b", 2, "direct", "nccl", 2, 1, "vllm", 1,
                   round(1.84 * _ROW1_DECODE, 2), None,
                   _TABLE_RATIO,
                   "train", reading="one-node", derived=True, note="1.84 x row 1 read as one node"),
    PublishedPoint("qwen27b-1-node-ratio", "qwen3.8-27b", 1, "single", "none", 1, 1, "vllm", 1,
                   round(_ROW1_DECODE / 1.84, 2), None,
                   _TABLE_RATIO,
                   "train", reading="direct", derived=True, note="row 1 (read as 2 nodes direct) / 1.84"),
    PublishedPoint("qwen27b-8-switch-nccl-ratio", "qwen3.8-27b", 8, "switched", "nccl", 8, 1, "vllm", 1,
                   round(3.05 * _ROW1_DECODE, 2), None,
                   ("a third report of NVIDIA's 2026-10 figures: "
                    "'8 nodes: 4.43x with RoCEnante against 3.05x without' (docs/figures.md)"),
                   "train", derived=True, note="3.05 x row 1 (the 4.43x matches the table's 8-switch row)"),
    PublishedPoint("gpt-oss-20b-1-llamacpp", "gpt-oss-20b", 1, "single", "none", 1, 1, "llama.cpp", 1,
                   79.7, 3610.0, ("llama.cpp's DGX Spark benchmark, build b6767: "
                                  "pp2048 3610.56, tg32 79.74 (docs/figures.md)"),
                   "train"),
    PublishedPoint("qwen3.6-a3b-1-vllm", "qwen3.6-35b-a3b", 1, "single", "none", 1, 1, "vllm", 1,
                   98.0, 6265.0, _COMMUNITY + ": one node, ~98 tok/s decode, ~6,265 prefill",
                   "train"),
    PublishedPoint("gpt-oss-120b-1-vllm", "gpt-oss-120b", 1, "single", "none", 1, 1, "vllm", 1,
                   60.0, None, ("Spark Arena: 58.82 tok/s verified, 59.5 reproduced; "
                                "github.com/spark-arena/recipe-registry/issues/17"),
                   "holdout", note="midpoint of 59-61"),
    PublishedPoint("gpt-oss-120b-2-tp2", "gpt-oss-120b", 2, "direct", "nccl", 2, 1, "vllm", 1,
                   76.0, None, _COMMUNITY + ": 2 nodes TP2, about 76 tok/s",
                   "holdout", note="topology not stated; a direct cable assumed"),
    PublishedPoint("llama-3.3-70b-1", "llama-3.3-70b", 1, "single", "none", 1, 1, "vllm", 1,
                   4.0, None, "4.0 to 4.2 tok/s on one Spark: github.com/NVIDIA/dgx-spark-playbooks/issues/79",
                   "holdout", note="vLLM, nvcr.io/nvidia/vllm:26.02-py3 image"),
    PublishedPoint("qwen3.5-397b-pp3", "qwen3.5-397b-a17b", 3, "ring", "nccl", 1, 3, "vllm", 1,
                   17.9, 900.0, _COMMUNITY + ": 3 nodes PP3 int4, decode ~17.9, prefill ~900",
                   "holdout", note="3 nodes cabled as a ring assumed; engine not stated, vLLM assumed"),
    PublishedPoint("glm-5.3-flash-8", "glm-5.3-flash", 8, "switched", "rocenante", 8, 1, "vllm", 1,
                   80.0, None, "NVIDIA GTC Berlin 2026-10: GLM-5.3 Flash about 80 tok/s decode on 8 nodes",
                   "reference", note="architecture unknown: not modelled, kept as a published benchmark"),
)


def points_for(reading: str, roles: tuple[str, ...] = ("train", "holdout")) -> list[PublishedPoint]:
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; one of {READINGS}")
    return [p for p in PUBLISHED_POINTS
            if p.role in roles and (p.reading is None or p.reading == reading)]


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
    best: tuple[float, list[float]] | None = None
    for size in range(n, 0, -1):
        for free in itertools.combinations(range(n), size):
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


_DECODE_PATH_INDEX = {"direct": 2, "ring": 3, "switched-nccl": 4, "switched-rocenante": 5}


def _decode_row(p: PublishedPoint, c: PerfConstants) -> tuple[list[float], float]:
    """Features (linear in the 7 decode unknowns) and the known time (ms) to subtract."""
    model = SEED_BY_SLUG[p.model_slug]
    layout = p.layout()
    context = PUBLISHED_DECODE_CONTEXT
    gb = (model.active_weights_gb() + context * model.kv_bytes_per_token() / 1e9
          / model.kv_shards(layout.tp)) / layout.tp
    row = [1.0, gb, 0.0, 0.0, 0.0, 0.0, 0.0]
    known_ms = (layout.pp - 1) * PP_HOP_MS[layout.engine]
    if layout.tp > 1:
        allreduces = 2 * model.layers
        row[_DECODE_PATH_INDEX[layout.path]] = allreduces / 1e3  # µs -> ms
        row[6] = allreduces * allreduce_steps(layout.path, layout.tp) / 1e3
        known_ms += allreduces * _allreduce_bytes(model, 1, layout.tp) / _link_bytes_per_s(layout, c) * 1e3
    return row, known_ms


def fit(reading: str = DEFAULT_READING) -> PerfConstants:
    """Recompute the constants for one reading of the disputed row.

    Prefill first (its link efficiency also prices decode's bandwidth term),
    then decode; both are linear in their unknowns once written as times, so
    each is one non-negative least-squares solve on relative error.
    """
    train = points_for(reading, roles=("train",))
    prefill_pts = [p for p in train if p.prefill_tps is not None]
    rows, ys = [], []
    for p in prefill_pts:
        compute, overhead, comm = _prefill_terms(SEED_BY_SLUG[p.model_slug], p.layout(),
                                                 PUBLISHED_PREFILL_PROMPT)
        rows.append([compute, overhead, comm])
        ys.append(1e6 / float(p.prefill_tps))  # type: ignore[arg-type]
    inv_tflops, overhead_us, inv_link = _nnls(rows, ys)
    c = PerfConstants(
        reading=reading, mem_efficiency=1.0, token_overhead_ms=0.0, direct_base_us=0.0,
        ring_base_us=0.0, switched_nccl_base_us=0.0, rocenante_base_us=0.0, allreduce_step_us=0.0,
        prefill_tflops=1.0 / inv_tflops if inv_tflops > 0 else math.inf,
        prefill_token_overhead_us=overhead_us,
        link_efficiency=min(1.0, 1.0 / inv_link) if inv_link > 0 else 1.0,
    )
    rows, ys = [], []
    for p in train:
        if p.decode_tps is None:
            continue
        row, known_ms = _decode_row(p, c)
        rows.append(row)
        ys.append(1e3 / p.decode_tps - known_ms)
    overhead_ms, ms_per_gb, direct, ring, sw_nccl, rocenante, step = _nnls(rows, ys)
    return replace(
        c, token_overhead_ms=overhead_ms,
        mem_efficiency=1e3 / (ms_per_gb * NODE_MEMORY_BW_GBPS) if ms_per_gb > 0 else 1.0,
        direct_base_us=direct, ring_base_us=ring, switched_nccl_base_us=sw_nccl,
        rocenante_base_us=rocenante, allreduce_step_us=step,
    )


@dataclass(frozen=True)
class PointError:
    key: str
    metric: str  # "decode" | "prefill"
    role: str
    published: float
    predicted: float

    @property
    def error_pct(self) -> float:
        return (self.predicted - self.published) / self.published * 100.0


@dataclass(frozen=True)
class FitReport:
    reading: str
    errors: tuple[PointError, ...]

    def mape(self, role: str, metric: str) -> float | None:
        """Mean absolute percentage error of one set (None if the set is empty)."""
        values = [abs(e.error_pct) for e in self.errors if e.role == role and e.metric == metric]
        return sum(values) / len(values) if values else None


def fit_report(reading: str = DEFAULT_READING, constants: PerfConstants | None = None) -> FitReport:
    """Errors of the (stored, or given) constants on the training and hold-out points."""
    c = constants or CONSTANTS_BY_READING[reading]
    errors: list[PointError] = []
    for p in points_for(reading):
        model = SEED_BY_SLUG[p.model_slug]
        if p.decode_tps is not None:
            pred = predict(model, p.layout(), context_tokens=PUBLISHED_DECODE_CONTEXT,
                           prompt_tokens=PUBLISHED_PREFILL_PROMPT, constants=c)
            errors.append(PointError(p.key, "decode", p.role, p.decode_tps, pred.decode_tps))
        if p.prefill_tps is not None:
            tps = predict_prefill_tps(model, p.layout(), prompt_tokens=PUBLISHED_PREFILL_PROMPT, constants=c)
            errors.append(PointError(p.key, "prefill", p.role, p.prefill_tps, tps))
    return FitReport(reading, tuple(errors))


def _main() -> None:  # pragma: no cover - maintenance helper
    for reading in READINGS:
        c = fit(reading)
        print(repr(c))
        report = fit_report(reading, c)
        for e in report.errors:
            print(f"  {e.role:8} {e.metric:8} {e.key:32} published {e.published:9.2f} "
                  f"predicted {e.predicted:9.2f} error {e.error_pct:+6.1f}%")
        for role in ("train", "holdout"):
            for metric in ("decode", "prefill"):
                value = report.mape(role, metric)
                print(f"  MAPE {role} {metric}: {'-' if value is None else f'{value:.1f}%'}")


if __name__ == "__main__":  # pragma: no cover
    _main()
