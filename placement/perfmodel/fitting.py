"""The fit of the constants on the published training points.

Decode and prefill are each linear in their unknowns once written as times:
one non-negative least-squares solve on relative error each (Lawson and
Hanson's active-set method: deterministic, pure Python). The batching
constants (routing exponent, each engine's cost per extra stream) are
searched on grids after them, coarse then fine. ``fit(reading)`` recomputes
what ``fitted.CONSTANTS_BY_READING`` stores; ``fit(reading, exclude=...)``
leaves experiments out (the ranges' leave-one-origin-out refits).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable
from dataclasses import replace

from placement.model_catalogue import ModelSpec
from placement.published import PublishedPoint

from .constants import (
    DEFAULT_READING,
    EFFICIENCY_CLASSES,
    ENGINE_FIT_SOURCE,
    FITTED_ENGINES,
    LINEAR_KINDS,
    MIN_SUBLAYER_US,
    NODE_MEMORY_BW_GBPS,
    OWN_TP_COSTS,
    EngineConstants,
    PerfConstants,
    efficiency_class,
)
from .points import point_layout, point_model, points_for
from .prediction import (
    Layout,
    _allreduce_bytes,
    _alltoall_bytes,
    _binomial,
    _prefill_terms,
    _step_ms,
    allreduce_steps,
    allreduces_per_step,
    cache_read_gb,
    eager_step,
    expert_slots,
    link_bytes_per_s,
    split_streams,
    weights_read_gb,
)

# Estimated, not fitted: handing one token's activations to the next
# pipeline stage. vLLM/SGLang send them with NCCL point-to-point plus
# scheduling (one published PP run, whose int4 efficiency it would share); a
# llama.cpp hop is fitted on its RPC runs when there are some.
PP_HOP_ESTIMATE_MS: dict[str, float] = {"vllm": 0.5, "llama.cpp": 2.0}


# --- non-negative least squares -----------------------------------------------


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


def _least_squares(rows: list[list[float]], ys: list[float], cols: list[int]) -> list[float] | None:
    ata = [[sum(r[i] * r[j] for r in rows) for j in cols] for i in cols]
    atb = [sum(r[i] * y for r, y in zip(rows, ys, strict=True)) for i in cols]
    return _solve(ata, atb)


def nnls(rows: list[list[float]], ys: list[float]) -> list[float]:
    """min ||A x - y|| subject to x >= 0 (Lawson and Hanson's active-set
    algorithm). Columns no row uses stay at 0."""
    n = len(rows[0])
    x = [0.0] * n
    passive: list[int] = []

    def gradient() -> list[float]:
        residual = [y - sum(a * b for a, b in zip(r, x, strict=True)) for r, y in zip(rows, ys, strict=True)]
        return [sum(r[j] * e for r, e in zip(rows, residual, strict=True)) for j in range(n)]

    scale = max(1.0, max(abs(v) for r in rows for v in r) * max(abs(y) for y in ys))
    tol = 1e-12 * scale * len(rows)
    for _ in range(10 * n):
        w = gradient()
        candidates = [j for j in range(n) if j not in passive and w[j] > tol]
        if not candidates:
            break
        passive.append(max(candidates, key=lambda j: (w[j], -j)))
        passive.sort()
        for _ in range(10 * n):
            sol = _least_squares(rows, ys, passive)
            if sol is None:  # a dependent column: drop the newest
                passive = passive[:-1]
                break
            s = [0.0] * n
            for j, v in zip(passive, sol, strict=True):
                s[j] = v
            if all(s[j] > 0 for j in passive):
                x = s
                break
            alpha = min(x[j] / (x[j] - s[j]) for j in passive if s[j] <= 0)
            x = [xi + alpha * (si - xi) for xi, si in zip(x, s, strict=True)]
            passive = [j for j in passive if x[j] > 1e-15]
            x = [v if j in passive else 0.0 for j, v in enumerate(x)]
    return x


def _weighted(rows: list[list[float]], ys: list[float]) -> tuple[list[list[float]], list[float]]:
    """Rows divided by their observed value: least squares on relative error."""
    return [[v / y for v in row] for row, y in zip(rows, ys, strict=True)], [1.0] * len(ys)


# --- decode ---------------------------------------------------------------------

_PATH_COLUMN = {
    "direct": "base:ring",
    "ring": "base:ring",
    "switched-nccl": "base:nccl",
    "switched-rocenante": "base:roce",
}
DECODE_COLUMNS: tuple[str, ...] = (
    *(f"token:{e}" for e in FITTED_ENGINES),
    *(f"sublayer:{e}" for e in FITTED_ENGINES),
    *(f"inv_eff:{k}" for k in EFFICIENCY_CLASSES),
    *(f"linear:{k}" for k in LINEAR_KINDS),
    "eager",
    "base:ring",
    "base:nccl",
    "base:roce",
    "step",
    "sglang_allreduce",
    "hop:llama.cpp",
)
_COL = {name: i for i, name in enumerate(DECODE_COLUMNS)}


def _decode_row(model: ModelSpec, layout: Layout, context: int, c: PerfConstants) -> tuple[list[float], float]:
    """One stream's decode time (ms) as features linear in the unknowns of
    ``DECODE_COLUMNS`` (all in ms), and the known time to subtract."""
    row = [0.0] * len(DECODE_COLUMNS)
    fit_engine = ENGINE_FIT_SOURCE[layout.engine]
    row[_COL[f"token:{fit_engine}"]] = 1.0
    row[_COL[f"sublayer:{fit_engine}"]] = model.sublayers
    gb = weights_read_gb(model, 1.0) / layout.tp + cache_read_gb(model, layout.tp, 1.0, context, layout.engine)
    row[_COL[f"inv_eff:{efficiency_class(model.quantization)}"]] = gb / NODE_MEMORY_BW_GBPS * 1e3
    if model.linear_layers:
        row[_COL[f"linear:{model.linear_kind}"]] = model.linear_layers
    if layout.mode == "eager" and fit_engine == "vllm":
        row[_COL["eager"]] = model.sublayers
    known_ms = model.sublayers * MIN_SUBLAYER_US / 1e3
    if layout.engine == "llama.cpp":
        row[_COL["hop:llama.cpp"]] = layout.pp - 1
    else:
        known_ms += (layout.pp - 1) * PP_HOP_ESTIMATE_MS["vllm"]
    allreduces, alltoalls = allreduces_per_step(model, layout)
    if allreduces:
        n = layout.tp
        row[_COL[_PATH_COLUMN[layout.path]]] = allreduces + alltoalls
        row[_COL["step"]] = allreduces * allreduce_steps(layout.path, n) + alltoalls * (n - 1)
        if layout.engine == "sglang":
            row[_COL["sglang_allreduce"]] = allreduces + alltoalls
        link = link_bytes_per_s(layout, c)
        known_ms += (
            allreduces * _allreduce_bytes(model, 1, n) / link * 1e3
            + alltoalls * _alltoall_bytes(model, 1, n) / link * 1e3
        )
    return row, known_ms


def _fit_decode(train: list[PublishedPoint], c: PerfConstants) -> PerfConstants:
    rows, ys = [], []
    for p in train:
        decode = p.compared_decode_tps
        if decode is None or p.concurrency > 1 or p.replicas > 1:
            continue
        row, known_ms = _decode_row(point_model(p), point_layout(p), p.context, c)
        rows.append(row)
        ys.append(1e3 / decode - known_ms)
    x = dict(zip(DECODE_COLUMNS, nnls(*_weighted(rows, ys)), strict=True))
    used = {name for name in DECODE_COLUMNS if any(r[_COL[name]] for r in rows)}
    inv_default = x["inv_eff:default"]
    default_eff = 1.0 / inv_default if inv_default > 0 else 0.75
    class_eff = {
        k: (1.0 / x[f"inv_eff:{k}"] / default_eff if x[f"inv_eff:{k}"] > 0 else 1.0) for k in EFFICIENCY_CLASSES
    }
    engines = dict(c.engines)
    for name in FITTED_ENGINES:
        engines[name] = replace(
            c.engines[name],
            mem_efficiency=default_eff,
            token_overhead_ms=x[f"token:{name}"],
            sublayer_us=MIN_SUBLAYER_US + x[f"sublayer:{name}"] * 1e3,
            eager_sublayer_us=x["eager"] * 1e3 if name == "vllm" else c.engines[name].eager_sublayer_us,
            pp_hop_ms=(x["hop:llama.cpp"] if "hop:llama.cpp" in used else PP_HOP_ESTIMATE_MS["llama.cpp"])
            if name == "llama.cpp"
            else PP_HOP_ESTIMATE_MS["vllm"],
        )
    own = c.engines["sglang"]
    engines["sglang"] = replace(
        engines["vllm"],
        allreduce_extra_us=x["sglang_allreduce"] * 1e3,
        stream_overhead_ms=own.stream_overhead_ms,
        prefill_tflops=own.prefill_tflops,
        prefill_expert_tflops=own.prefill_expert_tflops,
        prefill_sublayer_us=own.prefill_sublayer_us,
        prefill_comm_factor=own.prefill_comm_factor,
    )
    return replace(
        c,
        engines=engines,
        class_efficiency=class_eff,
        linear_us={k: x[f"linear:{k}"] * 1e3 for k in LINEAR_KINDS},
        ring_base_us=x["base:ring"] * 1e3,
        switched_nccl_base_us=x["base:nccl"] * 1e3,
        rocenante_base_us=x["base:roce"] * 1e3,
        allreduce_step_us=x["step"] * 1e3,
    )


# --- prefill --------------------------------------------------------------------


def _fit_prefill(train: list[PublishedPoint], c: PerfConstants) -> PerfConstants:
    """Per fitted engine 1/TFLOPS of dense and of expert work and a cost per
    sublayer per prompt token, and 1/link efficiency; the weights streamed per
    chunk are known from ``c``'s efficiency. An engine of ``OWN_TP_COSTS``
    computes as its fit source does, and its own unknown is what its
    all-reduces take beyond the shared link's (``prefill_comm_factor``): its
    published prompts are all tensor-parallel ones, so they cannot tell its
    compute from its collectives, and a one-node prefill has none."""
    k = len(FITTED_ENGINES)
    rows, ys = [], []
    for p in train:
        if p.prefill_tps is None:
            continue
        model, layout = point_model(p), point_layout(p)
        dense, expert, stream, comm = _prefill_terms(model, layout, p.prompt, c)
        row = [0.0] * (3 * k + 2)
        e = FITTED_ENGINES.index(ENGINE_FIT_SOURCE[p.engine])
        # unknowns 1/T_dense and (1/T_expert - 1/T_dense) >= 0 (expert GEMMs
        # are never faster than dense ones), µs per sublayer per token
        row[3 * e], row[3 * e + 1], row[3 * e + 2] = dense + expert, expert, model.sublayers / layout.tp
        row[3 * k + 1 if p.engine in OWN_TP_COSTS else 3 * k] = comm
        rows.append(row)
        bandwidth = NODE_MEMORY_BW_GBPS * c.efficiency(p.engine, model.quantization)
        ys.append(1e6 / float(p.prefill_tps) - stream / bandwidth)
    x = nnls(*_weighted(rows, ys))
    engines = dict(c.engines)
    for i, name in enumerate(FITTED_ENGINES):
        dense_t = 1.0 / x[3 * i] if x[3 * i] > 0 else engines["vllm"].prefill_tflops
        expert_t = 1.0 / (x[3 * i] + x[3 * i + 1]) if x[3 * i] + x[3 * i + 1] > 0 else dense_t
        engines[name] = replace(
            engines[name], prefill_tflops=dense_t, prefill_expert_tflops=expert_t, prefill_sublayer_us=x[3 * i + 2]
        )
    link_eff = min(1.0, 1.0 / x[3 * k]) if x[3 * k] > 0 else 0.7
    own_comm = any(r[3 * k + 1] for r in rows)
    v = engines["vllm"]
    for name in OWN_TP_COSTS:
        engines[name] = replace(
            engines[name],
            prefill_tflops=v.prefill_tflops,
            prefill_expert_tflops=v.prefill_expert_tflops,
            prefill_sublayer_us=v.prefill_sublayer_us,
            prefill_comm_factor=x[3 * k + 1] * link_eff if own_comm else 1.0,
        )
    return replace(c, engines=engines, link_efficiency=link_eff)


# --- batching -------------------------------------------------------------------

# The routing exponent and the costs per extra stream are searched on these
# ranges (deterministic, coarse then fine): exponent 1 is uniform routing,
# and below 0.3 a batch of 64 would touch fewer experts than 4 tokens would;
# 15 ms per stream would cap one instance below 70 tok/s (SGLang's published
# series needs about 10); 50 µs per expert
# slot is a whole kernel launch per (token, expert) pair.
ROUTING_EXPONENT_RANGE = (0.30, 1.00, 0.01)
# A step without CUDA graphs costs each sublayer at most 200 µs more: about
# forty kernel launches from the CPU.
EAGER_SUBLAYER_RANGE_US = (0.0, 200.0, 1.0)
STREAM_OVERHEAD_RANGE_MS = (0.0, 15.0, 0.05)
EXPERT_SLOT_RANGE_US = (0.0, 50.0, 1.0)


def _grid(low: float, high: float, step: float) -> list[float]:
    return [round(low + step * i, 4) for i in range(int(round((high - low) / step)) + 1)]


def _refine(best: float, span: tuple[float, float, float]) -> list[float]:
    low, high, step = span
    return _grid(max(low, round(best - 5 * step, 4)), min(high, round(best + 5 * step, 4)), step)


def _aggregate_points(train: Iterable[PublishedPoint], engine: str) -> list[PublishedPoint]:
    return [p for p in train if p.compared_decode_tps and (p.concurrency > 1 or p.replicas > 1) and p.engine == engine]


# (weight, streams, step time without the stream costs, expert slots,
# sublayers launched without CUDA graphs that the step time leaves out) of
# the instances a point's aggregate sums over
_Terms = list[tuple[float, int, float, int, int]]


def _terms(p: PublishedPoint, c: PerfConstants) -> _Terms:
    model, layout = point_model(p), point_layout(p)
    if p.replicas <= 1:
        shares = [(1.0, p.concurrency)]
    elif p.router == "even":
        shares = [(1.0, s) for s in split_streams(p.concurrency, p.replicas) if s > 0]
    else:
        shares = [(p.replicas * pk, k) for k, pk in _binomial(p.concurrency, 1.0 / p.replicas) if k > 0]
    slots = expert_slots(model)
    out = []
    for w, k in shares:
        ungraphed = model.sublayers if layout.mode != "eager" and eager_step(layout, float(k)) else 0
        out.append((w, k, _step_ms(model, layout, c, float(k), p.context)[0], slots, ungraphed))
    return out


# A series as the search reads it at every grid point: per point, the published
# figure and its instances' (w * k * 1e3, step time without stream costs, k - 1,
# expert slots, ungraphed sublayers), with the slot and sublayer counts it holds.
_Prepared = tuple[list[tuple[float, list[tuple[float, float, int, int, int]]]], set[int], set[int]]


def _prepare(series: list[tuple[float, _Terms]]) -> _Prepared:
    points = [
        (published, [(w * k * 1e3, base, k - 1, s, u) for w, k, base, s, u in terms]) for published, terms in series
    ]
    return points, {t[3] for _, terms in points for t in terms}, {t[4] for _, terms in points for t in terms}


def _prepared_cost(prepared: _Prepared, stream_ms: float, slot_us: float, eager_us: float) -> float:
    """Sum over the series of the squared log ratio of predicted to published
    aggregate, with what is common to a grid point computed once per slot and
    sublayer count: the operations of the per-instance formula in its order,
    so the same floats (the search's ties break as they always have)."""
    points, slot_counts, ungraphed_counts = prepared
    per_stream = {s: stream_ms + s * slot_us / 1e3 for s in slot_counts}
    eager = {u: u * eager_us / 1e3 for u in ungraphed_counts}
    total = 0.0
    for published, terms in points:
        predicted = sum(num / (base + km1 * per_stream[s] + eager[u]) for num, base, km1, s, u in terms)
        total += math.log(predicted / published) ** 2
    return total


def _no_streams(c: PerfConstants, exponent: float) -> PerfConstants:
    return replace(
        c,
        routing_exponent=exponent,
        expert_slot_us=0.0,
        engine_slot_us={},
        engines={k: replace(e, stream_overhead_ms=0.0) for k, e in c.engines.items()},
    )


# An axis of the batching search: its range (low, high, fine step) and its
# coarse step, or a value it is fixed at.
_Axis = tuple[tuple[float, float, float], float] | float
STREAM_AXIS: _Axis = (STREAM_OVERHEAD_RANGE_MS, 0.25)
SLOT_AXIS: _Axis = (EXPERT_SLOT_RANGE_US, 5.0)
UNGRAPHED_AXIS: _Axis = (EAGER_SUBLAYER_RANGE_US, 10.0)


def _search(
    series: list[tuple[float, _Terms]], stream: _Axis, slot: _Axis, ungraphed: _Axis
) -> tuple[float, float, float, float]:
    """(cost, stream ms, slot µs, µs per sublayer without graphs) that best
    fit a series: every searched axis on its coarse grid, then on its fine
    steps around the coarse best; a fixed axis at its value."""
    axes = (stream, slot, ungraphed)

    def coarse(axis: _Axis) -> list[float]:
        return [axis] if isinstance(axis, float) else _grid(axis[0][0], axis[0][1], axis[1])

    def fine(axis: _Axis, best: float) -> list[float]:
        return [axis] if isinstance(axis, float) else _refine(best, axis[0])

    prepared = _prepare(series)
    first = min((_prepared_cost(prepared, *x), *x) for x in itertools.product(*map(coarse, axes)))
    candidates = itertools.product(*(fine(axis, best) for axis, best in zip(axes, first[1:], strict=True)))
    best = min((_prepared_cost(prepared, *x), *x) for x in candidates)
    return best[0], best[1], best[2], best[3]


def _fit_batching(train: list[PublishedPoint], c: PerfConstants) -> PerfConstants:
    """The routing exponent, vLLM's cost per extra stream and the cost per
    expert slot that best predict vLLM's training points at several streams
    (least squares of the log ratio), then SGLang's cost per extra stream on
    its own, then llama.cpp's cost per extra stream, per sublayer of a step
    without CUDA graphs and per expert slot (``engine_slot_us``) on its own
    batch tables (its dense table pins the cost per stream, its MoE table
    then the slot cost; without a MoE table it pays the shared one); without
    any it takes vLLM's and no ungraphed cost. None of them changes one
    stream's prediction. The stream costs add to a step linearly, so each
    exponent's step times are computed once."""
    vllm = _aggregate_points(train, "vllm")
    if vllm:

        @functools.cache  # the fine exponents repeat some coarse ones
        def at(exponent: float) -> tuple[float, float, float, float]:
            base = _no_streams(c, exponent)
            return _search([(float(p.decode_tps or 0), _terms(p, base)) for p in vllm], STREAM_AXIS, SLOT_AXIS, 0.0)

        lo, hi, step = ROUTING_EXPONENT_RANGE
        coarse = min(_grid(lo, hi, 0.05), key=lambda a: at(a)[0])
        exponent = min(_refine(coarse, ROUTING_EXPONENT_RANGE), key=lambda a: at(a)[0])
        _, stream_ms, slot_us, _ = at(exponent)
        c = replace(
            c,
            routing_exponent=exponent,
            expert_slot_us=slot_us,
            engines={k: replace(e, stream_overhead_ms=stream_ms) for k, e in c.engines.items()},
        )
    sglang = _aggregate_points(train, "sglang")
    if sglang:
        base = replace(c, engines={**c.engines, "sglang": replace(c.engines["sglang"], stream_overhead_ms=0.0)})
        base = replace(base, expert_slot_us=0.0, engine_slot_us={})
        series = [(float(p.decode_tps or 0), _terms(p, base)) for p in sglang]
        _, stream_ms, _, _ = _search(series, STREAM_AXIS, float(c.expert_slot_us), 0.0)
        c = replace(c, engines={**c.engines, "sglang": replace(c.engines["sglang"], stream_overhead_ms=stream_ms)})
    llama = _aggregate_points(train, "llama.cpp")
    own = c.engines["llama.cpp"]
    if llama:
        base = replace(
            c,
            expert_slot_us=0.0,
            engine_slot_us={},
            engines={**c.engines, "llama.cpp": replace(own, stream_overhead_ms=0.0, eager_sublayer_us=0.0)},
        )
        series = [(float(p.decode_tps or 0), _terms(p, base)) for p in llama]
        moe = any(point_model(p).is_moe for p in llama)
        slot: _Axis = SLOT_AXIS if moe else float(c.expert_slot_us)
        _, stream_ms, slot_us, ungraphed_us = _search(series, STREAM_AXIS, slot, UNGRAPHED_AXIS)
        own = replace(own, stream_overhead_ms=stream_ms, eager_sublayer_us=ungraphed_us)
        c = replace(c, engine_slot_us={"llama.cpp": slot_us} if moe else {})
    else:
        own = replace(own, eager_sublayer_us=0.0)
        c = replace(c, engine_slot_us={})
    return replace(c, engines={**c.engines, "llama.cpp": own})


def fit(reading: str = DEFAULT_READING, exclude: frozenset[str] = frozenset()) -> PerfConstants:
    """Recompute the constants for one reading of the disputed row, on the
    training points of every experiment but ``exclude`` (origins).

    Decode and prefill are each linear in their unknowns once written as
    times: one non-negative least-squares solve on relative error each. They
    share two things (prefill streams MoE weights at decode's efficiency;
    decode's all-reduce bytes go at prefill's link efficiency), so the pair is
    solved twice from a neutral start: deterministic.
    """
    train = [p for p in points_for(reading, roles=("train",)) if p.source_id not in exclude]
    neutral = EngineConstants(0.75, 0.0, MIN_SUBLAYER_US, 100.0, 100.0)
    c = PerfConstants(
        reading=reading,
        engines={"vllm": neutral, "sglang": neutral, "llama.cpp": neutral},
        ring_base_us=0.0,
        switched_nccl_base_us=0.0,
        rocenante_base_us=0.0,
        allreduce_step_us=0.0,
        link_efficiency=0.7,
    )
    for _ in range(2):
        c = _fit_prefill(train, c)
        c = _fit_decode(train, c)
        c = _fit_batching(train, c)
    return replace(c, single_source=single_sources(train))


def single_sources(train: Iterable[PublishedPoint]) -> dict[str, str]:
    """Each engine of ``OWN_TP_COSTS`` whose multi-node training runs all
    come from one experiment, and that experiment."""
    out: dict[str, str] = {}
    for engine in OWN_TP_COSTS:
        origins = {p.source_id for p in train if p.engine == engine and (p.tp > 1 or p.ep > 1)}
        if len(origins) == 1:
            out[engine] = origins.pop()
    return out
