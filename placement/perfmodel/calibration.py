"""Calibration by the lab's own runs: each engine's constants re-fitted,
within documented bounds, on the runs measured with it, and each collective
backend's latency on the multi-node runs that used it (the benchmark record
keeps the backend a run really used). See PERFORMANCE_MODEL.md."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from placement.model_catalogue import ModelSpec

from .constants import CALIBRATION_BOUNDS, ENGINES, OWN_TP_COSTS, EngineConstants, PerfConstants
from .fitted import default_constants
from .points import PointError
from .prediction import Layout, _step_ms, expert_slots, own_stream_cost, predict, predict_prefill_tps


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
    checkpoint: str = ""  # the repository (or path) that ran, where the record names it
    url: str = ""  # where the lab's page shows the run
    # why the re-fit leaves the run out ("": it is fitted on): a repository other than
    # the one the catalogue's variant loads, which can decode far apart, or several copies
    # measured together through a router (their figures are shown beside plans, not fitted)
    not_fitted: str = ""
    copies: int = 1  # independent copies measured together through a router
    speculative: str = ""  # the speculative decoding it used, as the pages name it ("MTP"; "": none stated)


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
            trial = replace(c, engines={**c.engines, engine: replace(e, mem_efficiency=eff, sublayer_us=layer_us)})
            return _step_ms(r.model, r.layout, trial, 1.0, r.context)[0]

        # two efficiencies that stay clear of the 1.0 cap on efficiency x class factor
        # (``PerfConstants.efficiency``): at 1e9 the cap would leave the memory time in k0
        half = t(0.5, 0.0)
        a = (t(0.25, 0.0) - half) / 2.0  # memory time at efficiency 1
        k0 = half - 2.0 * a  # nothing but communication, hops and the fixed step cost
        b = (t(0.5, 100.0) - half) / 100.0
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
    layer = e.sublayer_us
    if len(rows) >= 3 and len(models) >= 2:
        # the layer cost too: a bounded 1-D search, each step solved for 1/eff exactly
        low_us, high_us = CALIBRATION_BOUNDS["sublayer_us"]
        candidates = [low_us + 2.5 * i for i in range(int((high_us - low_us) / 2.5) + 1)]
        layer = min(candidates, key=lambda lo: cost(min(max(best_inv_eff(lo), 1 / high), 1 / low), lo))
        layer = _clamp("sublayer_us", layer)
    eff = _clamp("mem_efficiency", 1.0 / max(best_inv_eff(layer), 1e-12))
    return replace(e, mem_efficiency=eff, sublayer_us=layer)


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
                    prefill_sublayer_us=e.prefill_sublayer_us / scale,
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
        prefill_sublayer_us=e.prefill_sublayer_us / scale,
    )


# Runs at several streams needed before an engine's cost per extra stream is re-fitted.
MIN_AGGREGATE_RUNS = 2


def _grid(low: float, high: float, step: float) -> list[float]:
    return [round(low + step * i, 4) for i in range(int(round((high - low) / step)) + 1)]


def _batch_series(runs: list[LabRun], c: PerfConstants, engine: str) -> list[tuple[LabRun, float, float, float]]:
    """The engine's runs at several streams, each with what its step takes
    without the stream costs the re-fit moves and what those add to it per
    ms of cost per stream and per µs of cost per expert slot (both linear:
    ``streams_ms``): (run, base ms, streams beyond the first, expert slots
    they add). A run that pays another engine's cost per stream
    (``own_stream_cost``) keeps it in its base and adds no stream term."""
    # every slot factor of this engine at 0 (its own and its models'), whatever the base holds
    mine = {k for k in c.slot_scale if k.partition(":")[0] == engine} | {engine}
    bare = replace(
        c,
        engines={**c.engines, engine: replace(c.engine(engine), stream_overhead_ms=0.0)},
        slot_scale={**c.slot_scale, **dict.fromkeys(mine, 0.0)},
    )
    out = []
    for r in runs:
        if not (r.aggregate_tps and r.concurrency > 1):
            continue
        extra = float(r.concurrency) - 1.0
        base = _step_ms(r.model, r.layout, bare, float(r.concurrency), r.context)[0]
        out.append((r, base, extra if own_stream_cost(r.layout) else 0.0, expert_slots(r.model) * extra))
    return out


def _batch_cost(series: list[tuple[LabRun, float, float, float]], stream_ms: float, slot_us: float) -> float:
    return math.fsum(
        math.log(r.concurrency * 1e3 / (base + extra * stream_ms + slots * slot_us / 1e3) / (r.aggregate_tps or 1.0))
        ** 2
        for r, base, extra, slots in series
    )


def _refit_batching(runs: list[LabRun], c: PerfConstants, engine: str) -> tuple[float, dict[str, float]]:
    """The engine's cost per extra stream and the factor on its cost per
    expert slot that best predict its runs at several streams (least squares
    of the log ratio, on grids of 0.05 within CALIBRATION_BOUNDS), after its
    own constants are re-fitted. Dense runs say what a stream costs, MoE
    runs what an expert slot costs: the cost per stream is re-fitted on
    MIN_AGGREGATE_RUNS dense runs that pay it (``own_stream_cost``), then
    the slot factor on MIN_AGGREGATE_RUNS MoE runs at that cost per stream;
    a lab with fewer of each, but MIN_AGGREGATE_RUNS in all that pay it,
    re-fits the cost per stream on them all. Each keeps the published value
    (the factor 1) otherwise. When the engine's MoE runs cover two or more
    models with MIN_AGGREGATE_RUNS runs each, each such model also gets a
    factor of its own (their slot costs differ by model), and the factor
    fitted on them all serves the MoE models the lab did not measure.
    Returns the cost per stream and the factors by ``slot_scale`` key."""
    e = c.engine(engine)
    series = _batch_series(runs, c, engine)
    current_us = c.slot_us(engine)
    paying = [t for t in series if t[2] > 0]
    dense = [t for t in paying if not t[0].model.is_moe]
    moe = [t for t in series if t[0].model.is_moe]
    streams = _grid(*CALIBRATION_BOUNDS["stream_overhead_ms"], 0.05)
    scales = _grid(*CALIBRATION_BOUNDS["slot_scale"], 0.05)
    stream_ms = e.stream_overhead_ms
    if len(dense) >= MIN_AGGREGATE_RUNS:
        stream_ms = min(streams, key=lambda v: _batch_cost(dense, v, current_us))
    factors: dict[str, float] = {}
    if len(moe) >= MIN_AGGREGATE_RUNS:
        factors[engine] = min(scales, key=lambda f: _batch_cost(moe, stream_ms, c.expert_slot_us * f))
        by_model: dict[str, list[tuple[LabRun, float, float, float]]] = {}
        for t in moe:
            by_model.setdefault(t[0].model.slug, []).append(t)
        measured = {slug: mine for slug, mine in by_model.items() if len(mine) >= MIN_AGGREGATE_RUNS}
        if len(measured) >= 2:
            for slug, mine in sorted(measured.items()):

                def cost(f: float, mine: list[tuple[LabRun, float, float, float]] = mine) -> float:
                    return _batch_cost(mine, stream_ms, c.expert_slot_us * f)

                factors[f"{engine}:{slug}"] = min(scales, key=cost)
    elif len(paying) >= MIN_AGGREGATE_RUNS and len(dense) < MIN_AGGREGATE_RUNS:
        stream_ms = min(streams, key=lambda v: _batch_cost(paying, v, current_us))
    return _clamp("stream_overhead_ms", stream_ms), {k: _clamp("slot_scale", f) for k, f in factors.items()}


def _coarse_then_fine(values: list[float], cost: Callable[[float], float], stride: int) -> float:
    """The value of ``values`` (in order, along which ``cost`` falls then
    rises) of least cost: every ``stride``-th first, then the best one's
    neighbours within a stride."""
    at = min(range(0, len(values), stride), key=lambda i: cost(values[i]))
    return min(values[max(0, at - stride) : at + stride + 1], key=cost)


def _refit_own_tp_costs(runs: list[LabRun], c: PerfConstants, engine: str, e: EngineConstants) -> EngineConstants:
    """An engine of ``OWN_TP_COSTS`` measured by the lab under tensor or
    expert parallelism: its extra latency per all-reduce re-fitted on those
    one-stream runs (a 5 µs grid) and its prefill all-reduce factor on those
    prompts (a grid of eighth powers of two), each within CALIBRATION_BOUNDS,
    by least squares of the log ratio, searched coarse then fine (each cost
    falls then rises along its grid: the prediction is monotone in it). The lab's own set-up replaces the one
    published experiment that set them."""
    spread = [r for r in runs if r.layout.tp > 1 or r.layout.ep > 1]

    def trial(new: EngineConstants) -> PerfConstants:
        return replace(c, engines={**c.engines, engine: new})

    decode = [r for r in spread if r.decode_tps]
    if decode:

        def decode_cost(extra_us: float) -> float:
            t = trial(replace(e, allreduce_extra_us=extra_us))
            return math.fsum(
                math.log(predict(r.model, r.layout, context_tokens=r.context, constants=t).decode_tps / r.decode_tps)
                ** 2
                for r in decode
                if r.decode_tps
            )

        extra = _coarse_then_fine(_grid(*CALIBRATION_BOUNDS["allreduce_extra_us"], 5.0), decode_cost, 10)
        e = replace(e, allreduce_extra_us=extra)
    prompts = [r for r in spread if r.prefill_tps]
    if prompts:
        low, high = CALIBRATION_BOUNDS["prefill_comm_factor"]
        steps = round(8 * math.log2(high / low))
        factors = [low * 2 ** (i / 8) for i in range(steps + 1)]

        def prefill_cost(factor: float) -> float:
            t = trial(replace(e, prefill_comm_factor=factor))
            return math.fsum(
                math.log(predict_prefill_tps(r.model, r.layout, prompt_tokens=r.prompt, constants=t) / r.prefill_tps)
                ** 2
                for r in prompts
                if r.prefill_tps
            )

        e = replace(e, prefill_comm_factor=_coarse_then_fine(factors, prefill_cost, 4))
    return e


def _refit_collectives(runs: list[LabRun], c: PerfConstants) -> dict[str, float]:
    """Per exchange path and backend (direct, ring, switch with NCCL, switch
    with RoCEnante), a factor on its all-reduce latency that best predicts the
    lab's one-stream runs over it (a 0.05 grid within CALIBRATION_BOUNDS):
    each backend is calibrated on the runs that really used it."""
    scales = dict(c.collective_scale)
    paths = sorted({r.layout.path for r in runs if r.decode_tps and r.layout.tp > 1 and r.layout.path != "none"})
    for path in paths:
        mine = [r for r in runs if r.decode_tps and r.layout.tp > 1 and r.layout.path == path]

        def cost(scale: float, path: str = path, mine: list[LabRun] = mine) -> float:
            trial = replace(c, collective_scale={**scales, path: scale})
            return math.fsum(
                math.log(
                    predict(r.model, r.layout, context_tokens=r.context, constants=trial).decode_tps
                    / (r.decode_tps or 1)
                )
                ** 2
                for r in mine
            )

        scales[path] = _clamp("collective_scale", min(_grid(*CALIBRATION_BOUNDS["collective_scale"], 0.05), key=cost))
    return {p: v for p, v in scales.items() if not math.isclose(v, 1.0)}


# What each re-fitted constant is called on the pages, and how its value is written.
REFIT_WORDS: dict[str, tuple[str, str]] = {
    "mem_efficiency": ("bandwidth efficiency", "{:.3f}"),
    "sublayer_us": ("cost per sublayer", "{:.1f} µs"),
    "prefill_tflops": ("prefill compute", "{:.0f} TFLOPS"),
    "allreduce_extra_us": ("extra latency per all-reduce", "{:.0f} µs"),
    "prefill_comm_factor": ("prefill all-reduce factor", "{:.2f}x"),
    "stream_overhead_ms": ("cost per extra stream", "{:.2f} ms"),
    "expert_slot_us": ("cost per expert slot", "{:.2f} µs"),
    "collective_scale": ("all-reduce latency factor", "{:.2f}x"),
}
_WHO = {"vllm": "vLLM", "sglang": "SGLang", "direct": "direct cable", "ring": "ring"}
_WHO |= {"switched-nccl": "switch with NCCL", "switched-rocenante": "switch with RoCEnante"}


def refit_words(changes: tuple[tuple[str, str, float, float], ...]) -> list[str]:
    """Each change of a re-fit in words: "vLLM's cost per expert slot 6.00 µs → 1.80 µs", and
    for one model of several: "vLLM's cost per expert slot for qwen3.6-35b-a3b 6.00 µs → 0.00 µs"."""
    out = []
    for who, name, old, new in changes:
        words, form = REFIT_WORDS.get(name, (name, "{:.3f}"))
        engine, _, model = who.partition(":")
        what = f"{_WHO.get(engine, engine)}'s {words}" + (f" for {model}" if model else "")
        out.append(f"{what} {form.format(old)} → {form.format(new)}")
    return out


def calibrate(runs: list[LabRun], base: PerfConstants | None = None) -> Calibration:
    """Re-fit each engine's constants on the lab's own runs of that engine
    (bandwidth efficiency, cost per sublayer, prefill speed: on its one-node
    runs; an engine's own tensor-parallel costs: on its multi-node runs),
    within the documented bounds; engines without such runs keep the
    published fit. Runs at several streams re-fit the engine's
    cost per extra stream (dense runs) and its cost per expert slot (MoE
    runs, a factor on the published one: ``_refit_batching``); multi-node
    runs re-fit the latency of the exchange path and collective backend they
    used. The routing exponent stays: a lab's few runs cannot separate it
    from the cost per slot."""
    c = base or default_constants()
    engines = dict(c.engines)
    slot_scale = dict(c.slot_scale)
    counts: dict[str, int] = {}
    changes: list[tuple[str, str, float, float]] = []
    for engine in ENGINES:
        mine = [r for r in runs if r.layout.engine == engine]
        if not mine:
            continue
        counts[engine] = len(mine)
        old = c.engine(engine)
        # an engine's own constants from its one-node runs: on several nodes
        # its time mixes with the collective backend's, re-fitted below
        single = [r for r in mine if r.layout.nodes == 1]
        new = _refit_decode(single, c, engine) if single else old
        trial = replace(c, engines={**engines, engine: new})
        new = _refit_prefill(single, trial, engine, new) if single else new
        if engine in OWN_TP_COSTS:
            new = _refit_own_tp_costs(mine, replace(c, engines={**engines, engine: new}), engine, new)
        trial = replace(c, engines={**engines, engine: new}, slot_scale=slot_scale)
        stream_ms, factors = _refit_batching(mine, trial, engine)
        new = replace(new, stream_overhead_ms=stream_ms)
        engines[engine] = new
        for name in (
            "mem_efficiency",
            "sublayer_us",
            "prefill_tflops",
            "allreduce_extra_us",
            "prefill_comm_factor",
            "stream_overhead_ms",
        ):
            if not math.isclose(getattr(old, name), getattr(new, name), rel_tol=1e-9):
                changes.append((engine, name, getattr(old, name), getattr(new, name)))
        for key, scale in factors.items():
            engine_name, _, model = key.partition(":")
            was = c.slot_us(engine_name, model)
            if not math.isclose(c.expert_slot_us * scale, was):
                changes.append((key, "expert_slot_us", was, c.expert_slot_us * scale))
                slot_scale[key] = scale
    label = ", ".join(f"{e}: {n} run{'s' if n != 1 else ''}" for e, n in counts.items())
    calibrated = replace(c, engines=engines, slot_scale=slot_scale, calibrated=label) if counts else c
    # the lab's own multi-node runs of an engine speak for its set-up: its
    # tensor-parallel costs no longer rest on one published experiment
    measured = {r.layout.engine for r in runs if r.layout.tp > 1 or r.layout.ep > 1}
    if measured & set(c.single_source):
        kept = {e: o for e, o in c.single_source.items() if e not in measured}
        calibrated = replace(calibrated, single_source=kept)
    scales = _refit_collectives(runs, calibrated)
    for path, scale in sorted(scales.items()):
        changes.append((path, "collective_scale", c.collective_scale.get(path, 1.0), scale))
    if scales:
        calibrated = replace(calibrated, collective_scale=scales)
    return Calibration(calibrated, _lab_errors(runs, c), _lab_errors(runs, calibrated), tuple(changes), counts)
