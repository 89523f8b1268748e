"""The range around a predicted figure, from the model's own errors on
comparable published runs it was not fitted on.

For every training experiment (origin) in turn, the constants are refitted
without it and its figures predicted: the ratio published / predicted of
each is a residual the model makes on a run it has not seen
(``loso_residuals``; stored in ``fitted.LOSO_RESIDUALS``). A prediction's
range is the 10th to 90th percentile of the residuals of its class (same
CUDA-graph mode, metric, engine, parallelism and architecture family),
widened to at least ±5%; a class with fewer than ``MIN_RESIDUALS`` falls back
to a broader one (``FALLBACK``: no engine, then no parallelism, then no
family, then the metric alone), and the range says which. The method (mode
in the class, the fallback order, the quantiles) was chosen on the training
residuals alone, each drawn from the other origins' residuals.
Held-out runs never enter: their share inside their ranges is the check.
"""

from __future__ import annotations

from dataclasses import dataclass

from .constants import DEFAULT_READING, Residual
from .fitting import fit
from .points import FigureClass, point_class, point_figures, points_for

RANGE_QUANTILES = (0.10, 0.90)
MIN_HALF_WIDTH = 0.05
MIN_RESIDUALS = 4


@dataclass(frozen=True)
class PredictedRange:
    """[low, high] around a predicted value, and what it was drawn from."""

    low: float
    high: float
    basis: str  # the class whose residuals drew it, in words
    residuals: int  # how many

    def as_list(self) -> list[float]:
        return [round(self.low, 2), round(self.high, 2)]


def loso_residuals(reading: str = DEFAULT_READING) -> tuple[Residual, ...]:
    """Every training figure predicted by the constants refitted without its origin."""
    train = points_for(reading, roles=("train",))
    origins = sorted({p.source_id for p in train})
    out: list[Residual] = []
    for origin in origins:
        c = fit(reading, exclude=frozenset({origin}))
        for p in train:
            if p.source_id != origin:
                continue
            for metric, published, predicted in point_figures(p, c):
                cls = point_class(p, metric)
                ratio = round(published / predicted, 6)
                out.append(Residual(p.key, origin, metric, cls.engine, cls.parallel, cls.family, ratio, cls.mode))
    return tuple(out)


def _quantile(values: list[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default)."""
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


# the class's keys a range is drawn from, most specific first
FALLBACK: tuple[tuple[str, ...], ...] = (
    ("metric", "engine", "parallel", "family"),
    ("metric", "parallel", "family"),
    ("metric", "family"),
    ("metric", "parallel"),
    ("metric",),
)


def _matches(residuals: tuple[Residual, ...], cls: FigureClass, keys: tuple[str, ...]) -> list[float]:
    return [r.ratio for r in residuals if r.mode == cls.mode and all(getattr(r, k) == getattr(cls, k) for k in keys)]


_KEY_WORDS = {
    ("metric", "engine", "parallel", "family"): "{metric} of {engine} {parallel} runs of {family} models",
    ("metric", "parallel", "family"): "{metric} of {parallel} runs of {family} models (any engine)",
    ("metric", "family"): "{metric} of runs of {family} models (any engine or parallelism)",
    ("metric", "parallel"): "{metric} of {parallel} runs (any engine or family)",
    ("metric",): "{metric} of every run",
}
_METRIC_WORDS = {"decode": "one stream's decode", "aggregate": "all streams' decode", "prefill": "prefill"}


def predicted_range(value: float, cls: FigureClass, residuals: tuple[Residual, ...] | None = None) -> PredictedRange:
    """The range of a predicted ``value`` of class ``cls``."""
    if residuals is None:
        from .fitted import LOSO_RESIDUALS

        residuals = LOSO_RESIDUALS
    keys, ratios = FALLBACK[-1], []
    for keys in FALLBACK:
        ratios = _matches(residuals, cls, keys)
        if len(ratios) >= MIN_RESIDUALS:
            break
    words = _KEY_WORDS[keys].format(
        metric=_METRIC_WORDS.get(cls.metric, cls.metric), engine=cls.engine, parallel=cls.parallel, family=cls.family
    )
    if cls.mode == "eager":
        words += ", eager mode"
    if not ratios:
        low, high = 1 - 4 * MIN_HALF_WIDTH, 1 + 4 * MIN_HALF_WIDTH
    else:
        low, high = (_quantile(ratios, q) for q in RANGE_QUANTILES)
    low, high = min(low, 1 - MIN_HALF_WIDTH), max(high, 1 + MIN_HALF_WIDTH)
    return PredictedRange(value * low, value * high, words, len(ratios))
