"""Decode scaling of benchmark runs: the factor against the reference run
(the fewest nodes, like with like: the engine and weights format of the
group's own runs first), the ideal (linear in summed memory bandwidth) and
the performance model's prediction for the same run, and the chart series.

A published figure's prediction is the one ``python -m placement.perfmodel``
reports for it (its own context, format, mode and copies: one truth); a run
measured here is predicted as the variant it loaded and in its CUDA-graph
mode (``run_spec``; not stated: the variant its engine loads, CUDA graphs),
and a run of several copies as those copies behind the router the planner
assumes (``placement.planner.COPIES_ROUTER``), as its plan was predicted.

Pure: plain ``RunPoint`` records in, rows and ``charts.Series`` out.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from placement.model_catalogue import ModelSpec, choose_variant
from placement.perfmodel import (
    DEFAULT_READING,
    ENGINES,
    PUBLISHED_POINTS,
    Layout,
    PerfConstants,
    copies_aggregate_tps,
    default_constants,
    fit_report,
    headline_class,
    parallel_class,
    point_class,
    point_figures,
    predict,
    predicted_range,
    single_source_alternative,
    spanning,
    variant_spec,
)
from placement.planner import COPIES_ROUTER

from .charts import TOPOLOGY_COLOURS, Point, Series

# Assumed when a record does not give its sizes: the common recipe (128 in, 128 out).
DEFAULT_LEN = 128
SWITCHED_NCCL_COLOUR = "#0f7b8a"
SOCKET_COLOUR = "#8a8f99"
SPECULATIVE_COLOUR = "#b0318f"


@dataclass(frozen=True)
class RunPoint:
    id: int
    source: str  # measured | published
    kind: str  # topology kind at the time
    backend: str
    nodes: int
    tp: int
    pp: int
    engine: str
    concurrency: int
    input_len: int | None
    output_len: int | None
    decode_tps: float
    link_gbps: float | None
    label: str  # where it comes from, for tooltips
    quantization: str = ""  # the weights' format that ran ("": not stated)
    mode: str = ""  # "graphs" | "eager" | "" (not known)
    published_key: str = ""  # a published figure's key in placement.published
    checkpoint: str = ""  # the repository (or path) that ran ("": not stated)
    copies: int = 1  # independent copies measured together through a router (tp and pp are one copy's)
    speculative: str = ""  # the speculative decoding it used ("": none stated, read as plain decoding)


@dataclass(frozen=True)
class ScalingRow:
    point: RunPoint
    factor: float  # decode / decode of the reference run
    ideal_tps: float  # reference run x nodes / its nodes
    predicted_tps: float | None
    reference: bool = False  # the run the factors are measured against
    predicted_range: tuple[float, float] | None = None  # [low, high] of the prediction


_PUBLISHED = {p.key: p for p in PUBLISHED_POINTS}


def path_of(kind: str, backend: str, nodes: int) -> str | None:
    """The perfmodel exchange path of a run; None when the model has none for
    it. A switched run whose backend is not known is taken as NCCL over RoCE,
    what the planner assumes and every published switched Spark run used; a
    run whose NCCL fell back to TCP sockets has no path (the model predicts
    RoCE: such a run measured a fabric to fix, not one to fit)."""
    if nodes <= 1:
        return "none"
    if backend == "socket":
        return None
    if kind == "direct":
        return "direct"
    if kind in ("ring", "chain"):
        return "ring"
    if kind == "switched":
        return "switched-rocenante" if backend == "rocenante" else "switched-nccl"
    return None


def run_spec(model: ModelSpec, engine: str, quantization: str) -> ModelSpec | None:
    """The model as the variant a run loaded: the format it names
    (``variant_spec``; None when the catalogue knows no such variant), else
    the variant its engine loads (``choose_variant``, as the planner picks)."""
    if quantization:
        return variant_spec(model, quantization)
    return choose_variant(model, engine).spec if engine in ENGINES else model


def predicted_tps(model: ModelSpec, run: RunPoint) -> float | None:
    """What placement.perfmodel predicts for this run (all streams together):
    for a published figure, the report's own prediction of it."""
    found = predicted_with_range(model, run)
    return None if found is None else found[0]


def predicted_with_range(model: ModelSpec, run: RunPoint) -> tuple[float, tuple[float, float]] | None:
    """The prediction of this run and its range, as a plan of the run's
    layout gives them (``placement.perfmodel.ranges``: the model's errors on
    comparable published runs, spanning vLLM's tensor-parallel costs where
    an engine's own rest on one experiment); for a published figure, the
    report's own prediction and range. None for a run decoded with
    speculative decoding: the model predicts plain decoding."""
    if run.published_key in _PUBLISHED:
        return _published_prediction(run.published_key)
    if run.speculative:
        return None
    copies = max(run.copies, 1)
    spec = run_spec(model, run.engine, run.quantization) if run.engine in ENGINES else None
    value = _predicted(spec, run, default_constants()) if spec is not None else None
    if spec is None or value is None:
        return None
    cls = headline_class(run.engine, run.tp, run.pp, 1, copies, spec.family, run.mode or "graphs", run.concurrency)
    r = predicted_range(value, cls)
    alternative = single_source_alternative(default_constants(), run.engine, parallel_class(run.tp, run.pp, 1, 1))
    other = _predicted(spec, run, alternative[0]) if alternative is not None else None
    if alternative is not None and other is not None:
        r = spanning(r, value, other, run.engine, alternative[1])
    return value, (r.low, r.high)


def _predicted(spec: ModelSpec, run: RunPoint, constants: PerfConstants) -> float | None:
    path = path_of(run.kind, run.backend, run.nodes)
    copies = max(run.copies, 1)
    if path is None or run.tp * run.pp * copies > run.nodes:
        return None
    layout = Layout(
        tp=run.tp,
        pp=run.pp,
        path=path if run.tp * run.pp > 1 else "none",
        link_gbps=run.link_gbps or 200.0,
        engine=run.engine,
        mode=run.mode or "graphs",
    )
    prompt = run.input_len or DEFAULT_LEN
    context = prompt + (run.output_len or DEFAULT_LEN) // 2  # the average context while decoding
    if copies > 1:
        return copies_aggregate_tps(
            spec,
            layout,
            context_tokens=context,
            concurrency=run.concurrency,
            copies=copies,
            router=COPIES_ROUTER,
            constants=constants,
        )
    return predict(spec, layout, context_tokens=context, concurrency=run.concurrency, constants=constants).aggregate_tps


@functools.lru_cache(maxsize=1)
def _published_predictions() -> dict[str, tuple[float, tuple[float, float]]]:
    """The report's prediction and range of each published figure's decode
    (one stream's, or all streams'), under the stored published fit: the
    same on every page render, so worked out once."""
    out: dict[str, tuple[float, tuple[float, float]]] = {}
    for e in fit_report(DEFAULT_READING).errors:
        if e.metric in ("decode", "aggregate") and e.low is not None and e.high is not None:
            out.setdefault(e.key, (e.predicted, (e.low, e.high)))
    return out


def _published_prediction(key: str) -> tuple[float, tuple[float, float]] | None:
    """A figure kept for reference only, or of the other reading of NVIDIA's
    disputed row, is not in the report: its prediction and the range of its
    class, drawn as the report draws them."""
    if key in _published_predictions():
        return _published_predictions()[key]
    p = _PUBLISHED[key]
    figures = point_figures(p, default_constants())
    found = next(((metric, predicted) for metric, _, predicted in figures if metric in ("decode", "aggregate")), None)
    if found is None:
        return None
    r = predicted_range(found[1], point_class(p, found[0]))
    return found[1], (r.low, r.high)


def weights_format(model: ModelSpec | None, run: RunPoint) -> str:
    """The format a run loaded: the one it names, else its engine's pick."""
    if run.quantization or model is None:
        return run.quantization
    spec = run_spec(model, run.engine, "")
    return spec.quantization if spec is not None else ""


def smallest(points: list[RunPoint], model: ModelSpec | None = None) -> RunPoint | None:
    """The run scaling is measured against: the fewest nodes; among those,
    plain decoding (drafting tokens can double a decode), then like with
    like (the engine, then the weights format, then the checkpoint where it
    names one, of the newest plain run measured here, when there is one: two
    checkpoints of one format can decode 1.8x apart), a measurement
    before a published figure, then the fastest."""
    if not points:
        return None
    measured = [p for p in points if p.source == "measured"]
    measured = [p for p in measured if not p.speculative] or measured
    like = max(measured, key=lambda p: p.id) if measured else None
    engine = like.engine if like else None
    fmt = weights_format(model, like) if like else None
    checkpoint = like.checkpoint if like else ""

    def key(p: RunPoint) -> tuple[int, bool, bool, bool, bool, bool, float, int]:
        other_engine = engine is not None and p.engine != engine
        other_format = fmt is not None and weights_format(model, p) != fmt
        other_checkpoint = bool(checkpoint) and p.checkpoint != checkpoint
        return (
            p.nodes,
            bool(p.speculative),
            other_engine,
            other_format,
            other_checkpoint,
            p.source != "measured",
            -p.decode_tps,
            p.id,
        )

    return min(points, key=key)


def scaling_rows(points: list[RunPoint], model: ModelSpec | None) -> list[ScalingRow]:
    base = smallest(points, model)
    if base is None:
        return []
    rows = []
    for p in sorted(points, key=lambda p: (p.nodes, p.kind, p.source, -p.decode_tps)):
        found = predicted_with_range(model, p) if model is not None else None
        rows.append(
            ScalingRow(
                p,
                p.decode_tps / base.decode_tps if base.decode_tps else 0.0,
                base.decode_tps * p.nodes / base.nodes,
                found[0] if found else None,
                p is base,
                found[1] if found else None,
            )
        )
    return rows


def _series_key(p: RunPoint) -> tuple[str, str]:
    if p.speculative:
        # drafting tokens is another experiment: never the best of the group's plain-decoding line
        return f"{p.kind} + speculative", SPECULATIVE_COLOUR
    if p.backend == "socket" and p.nodes > 1:
        # a fabric to fix: never the best of the group's own line
        return f"{p.kind} (TCP sockets)", SOCKET_COLOUR
    if p.kind == "switched" and p.nodes > 1:
        backend = {"nccl": "NCCL", "rocenante": "RoCEnante"}.get(p.backend, "backend not known")
        return f"switched ({backend})", SWITCHED_NCCL_COLOUR if p.backend == "nccl" else TOPOLOGY_COLOURS["switched"]
    return p.kind, TOPOLOGY_COLOURS.get(p.kind, "#6b7385")


def chart_series(rows: list[ScalingRow], *, published_as_reference: bool = False) -> list[Series]:
    """Measured and published series per topology (best run per node count),
    the prediction for the same runs, and the ideal line from the smallest run.
    On a group's page published runs are a reference, drawn behind its own.
    A series' predicted point at a node count is the prediction of a run it
    draws there: the best measured here, else the best published."""
    best: dict[tuple[str, str, str], dict[int, ScalingRow]] = {}
    for row in rows:
        name, colour = _series_key(row.point)
        per_x = best.setdefault((row.point.source, name, colour), {})
        if row.point.nodes not in per_x or row.point.decode_tps > per_x[row.point.nodes].point.decode_tps:
            per_x[row.point.nodes] = row
    predicted: dict[tuple[str, str], dict[int, ScalingRow]] = {}
    for (_, name, colour), drawn in sorted(best.items(), key=lambda kv: kv[0][0] != "measured"):
        for x, row in drawn.items():
            if row.predicted_tps is not None:
                predicted.setdefault((name, colour), {}).setdefault(x, row)
    series = []
    for (source, name, colour), runs in sorted(best.items()):
        reference = published_as_reference and source == "published"
        label = "measured here" if source == "measured" else ("published reference" if reference else "published")
        series.append(
            Series(
                f"{label} · {name}",
                source,
                colour,
                tuple(
                    Point(x, r.point.decode_tps, f"{r.point.decode_tps:.1f} tok/s, {r.factor:.2f}x ({r.point.label})")
                    for x, r in sorted(runs.items())
                ),
                group=name,
                reference=reference,
            )
        )
    for (name, colour), values in sorted(predicted.items()):
        series.append(
            Series(
                f"predicted · {name}",
                "predicted",
                colour,
                tuple(
                    Point(
                        x,
                        r.predicted_tps or 0.0,
                        f"{r.predicted_tps or 0.0:.1f} tok/s predicted by placement.perfmodel for the run drawn "
                        f"there, {r.point.decode_tps:.1f} tok/s ({r.point.label})",
                    )
                    for x, r in sorted(values.items())
                ),
                group=name,
            )
        )
    if rows:
        base = next((r.point for r in rows if r.reference), rows[0].point)
        top = max(r.point.nodes for r in rows)
        if top > base.nodes:
            series.append(
                Series(
                    "ideal: linear in memory bandwidth",
                    "ideal",
                    "#9aa1ad",
                    (Point(base.nodes, base.decode_tps), Point(top, base.decode_tps * top / base.nodes)),
                )
            )
    return series
