"""The published points as the model sees them: their model, layout and
predicted figures, the points of one reading, the comparison class a figure
is judged in, and the error of one figure."""

from __future__ import annotations

from dataclasses import dataclass

from placement.model_catalogue import SEED_BY_SLUG, ModelSpec
from placement.published import PUBLISHED_POINTS, PublishedPoint
from placement.published_models import PUBLISHED_VARIANTS

from .constants import READINGS, PerfConstants
from .prediction import Layout, copies_aggregate_tps, predict, predict_prefill_tps

METRICS = ("decode", "aggregate", "prefill")


def variant_spec(spec: ModelSpec, quantization: str | None) -> ModelSpec | None:
    """``spec`` as its ``quantization`` variant, the one a run of that format
    loaded: the catalogue's, else the variant a published run of the model
    needed (``PUBLISHED_VARIANTS``); ``spec`` itself for its own format or
    none; None when neither knows the format."""
    if not quantization or quantization == spec.quantization:
        return spec
    variant = spec.variant(quantization) or PUBLISHED_VARIANTS.get((spec.slug, quantization))
    return None if variant is None else spec.with_variant(variant)


def known_formats(spec: ModelSpec) -> list[str]:
    """The formats ``variant_spec`` knows for ``spec``, the catalogue's first."""
    own = [v.quantization for v in spec.all_variants()]
    return own + sorted(q for slug, q in PUBLISHED_VARIANTS if slug == spec.slug and q not in own)


def point_model(p: PublishedPoint) -> ModelSpec:
    """The model of a published point, as the variant that ran."""
    spec = variant_spec(SEED_BY_SLUG[p.model_slug], p.quantization)
    if spec is None:
        raise KeyError(f"{p.key}: {p.model_slug} has no {p.quantization} variant")
    return spec


def point_layout(p: PublishedPoint) -> Layout:
    return Layout(
        tp=p.tp, pp=p.pp, ep=p.ep, path=p.path, link_gbps=p.link_gbps, engine=p.engine, mode=p.mode or "graphs"
    )


def points_for(reading: str, roles: tuple[str, ...] = ("train", "holdout")) -> list[PublishedPoint]:
    if reading not in READINGS:
        raise ValueError(f"unknown reading {reading!r}; one of {READINGS}")
    return [p for p in PUBLISHED_POINTS if p.role in roles and (p.reading is None or p.reading == reading)]


def aggregate_prediction(p: PublishedPoint, c: PerfConstants) -> float:
    """Output tokens/s over all of a published point's streams: its copies
    share the streams through the point's router, each copy batches its share."""
    return copies_aggregate_tps(
        point_model(p),
        point_layout(p),
        context_tokens=p.context,
        concurrency=p.concurrency,
        copies=p.replicas,
        router=p.router,
        constants=c,
    )


def parallel_class(tp: int, pp: int, ep: int, replicas: int) -> str:
    """How a layout spreads the model, in the words the ranges group by."""
    if ep > 1:
        return "ep"
    if pp > 1:
        return "pp"
    if tp > 1:
        return "tp"
    return "copies" if replicas > 1 else "single"


@dataclass(frozen=True)
class FigureClass:
    """What a figure is compared with when its range is drawn: its metric,
    engine, parallelism, architecture family and CUDA-graph mode."""

    metric: str
    engine: str
    parallel: str
    family: str
    mode: str = "graphs"


def headline_class(
    engine: str, tp: int, pp: int, ep: int, copies: int, family: str, mode: str, concurrency: int
) -> FigureClass:
    """The class a layout's headline figure is judged in: all streams' decode
    with several streams (or copies), else one stream's. A plan and a
    recorded run of the same layout read the same class."""
    metric = "aggregate" if concurrency > 1 or copies > 1 else "decode"
    return FigureClass(metric, engine, parallel_class(tp, pp, ep, copies), family, mode)


def point_class(p: PublishedPoint, metric: str) -> FigureClass:
    return FigureClass(
        metric, p.engine, parallel_class(p.tp, p.pp, p.ep, p.replicas), point_model(p).family, p.mode or "graphs"
    )


def point_figures(p: PublishedPoint, c: PerfConstants) -> list[tuple[str, float, float]]:
    """(metric, published, predicted) of every figure a point carries and the
    model predicts: a run with speculative decoding gives its prefill only."""
    model, layout = point_model(p), point_layout(p)
    out: list[tuple[str, float, float]] = []
    decode = p.compared_decode_tps
    if decode is not None and (p.concurrency > 1 or p.replicas > 1):
        out.append(("aggregate", decode, aggregate_prediction(p, c)))
    elif decode is not None:
        pred = predict(model, layout, context_tokens=p.context, prompt_tokens=p.prompt, constants=c)
        out.append(("decode", decode, pred.decode_tps))
    if p.prefill_tps is not None:
        tps = predict_prefill_tps(model, layout, prompt_tokens=p.prompt, constants=c)
        out.append(("prefill", p.prefill_tps, tps))
    return out


@dataclass(frozen=True)
class PointError:
    key: str
    metric: str  # "decode" (one stream) | "prefill" | "aggregate" (all streams, concurrency > 1)
    role: str
    published: float
    predicted: float
    source: str = ""
    url: str = ""
    low: float | None = None  # the predicted range, when one was drawn
    high: float | None = None

    @property
    def error_pct(self) -> float:
        return (self.predicted - self.published) / self.published * 100.0

    @property
    def inside(self) -> bool | None:
        """Whether the published figure lies in the predicted range (None: no range)."""
        if self.low is None or self.high is None:
            return None
        return self.low <= self.published <= self.high

    @property
    def half_width_pct(self) -> float | None:
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2 / self.predicted * 100.0
