"""The published points as the model sees them: their model, layout and
aggregate prediction, the points of one reading, and the error of one figure."""

from __future__ import annotations

from dataclasses import dataclass

from placement.model_catalogue import SEED_BY_SLUG, ModelSpec
from placement.published import PUBLISHED_POINTS, PublishedPoint

from .constants import READINGS, PerfConstants
from .prediction import Layout, predict, split_streams


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


def aggregate_prediction(p: PublishedPoint, c: PerfConstants) -> float:
    """Output tokens/s over all of a published point's streams: its replicas
    share the streams evenly, each copy batches its share."""
    model, layout = point_model(p), point_layout(p)
    return sum(
        predict(model, layout, context_tokens=p.context, concurrency=s, constants=c).aggregate_tps
        for s in split_streams(p.concurrency, p.replicas)
        if s > 0
    )


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
