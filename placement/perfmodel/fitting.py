"""The fit of the constants on the published training points.

Decode and prefill are each linear in their unknowns once written as times:
one non-negative least-squares solve on relative error each (every subset of
free unknowns solved exactly: deterministic, pure Python). The batching
constants are searched on grids after them. ``fit(reading)`` recomputes what
``constants.CONSTANTS_BY_READING`` stores.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

from placement.model_catalogue import ModelSpec
from placement.published import PublishedPoint

from .constants import (
    DEFAULT_READING,
    EFFICIENCY_CLASSES,
    ENGINE_FIT_SOURCE,
    ENGINES,
    FITTED_ENGINES,
    MIN_LAYER_OVERHEAD_US,
    NODE_MEMORY_BW_GBPS,
    PP_HOP_MS,
    EngineConstants,
    PerfConstants,
    efficiency_class,
)
from .points import aggregate_prediction, point_layout, point_model, points_for
from .prediction import (
    Layout,
    _allreduce_bytes,
    _prefill_terms,
    allreduce_steps,
    link_bytes_per_s,
    weights_read_gb,
)


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
