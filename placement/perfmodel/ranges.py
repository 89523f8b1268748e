"""The range around a predicted figure, from the model's own errors on
comparable published runs it was not fitted on.

For every training experiment (origin) in turn, the constants are refitted
without it and its figures predicted: the ratio published / predicted of
each is a residual the model makes on a run it has not seen
(``loso_residuals``; stored in ``fitted.LOSO_RESIDUALS``). A prediction's
range is the ``RANGE_QUANTILES`` percentiles (5th to 95th) of the residuals
of its class (same CUDA-graph mode, metric, engine, parallelism and
architecture family), widened to at least ±5%; a class with fewer than
``MIN_RESIDUALS`` falls back to a broader one (``FALLBACK``: no family, then
no parallelism, then the metric alone; the mode always), and the range
says which. The method (mode in the class, the fallback order, the quantiles,
the minimum class size) is chosen on the training residuals alone
(``training_score``: each figure's range drawn from the other origins'
residuals), against the grid of ``candidate_fallbacks``,
``CANDIDATE_QUANTILES`` and ``CANDIDATE_MIN_RESIDUALS``. Held-out runs never
enter: their share inside their ranges is the check.
"""

from __future__ import annotations

import functools
import itertools
import statistics
from dataclasses import dataclass, replace

from .constants import DEFAULT_READING, PerfConstants, Residual
from .fitting import fit
from .points import FigureClass, point_class, point_figures, points_for

RANGE_QUANTILES = (0.05, 0.95)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# The quantiles in words, for the pages that show the ranges.
RANGE_WORDS = f"{_ordinal(round(RANGE_QUANTILES[0] * 100))} to {_ordinal(round(RANGE_QUANTILES[1] * 100))} percentile"
MIN_HALF_WIDTH = 0.05
MIN_RESIDUALS = 5


@dataclass(frozen=True)
class PredictedRange:
    """[low, high] around a predicted value, and what it was drawn from."""

    low: float
    high: float
    basis: str  # the class whose residuals drew it, in words
    residuals: int  # how many
    note: str = ""  # what widened it beyond them, in words (``spanning``)

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


# the class's keys a range is drawn from, most specific first (the mode always)
FALLBACK: tuple[tuple[str, ...], ...] = (
    ("metric", "engine", "parallel", "family", "mode"),
    ("metric", "engine", "parallel", "mode"),
    ("metric", "engine", "mode"),
    ("metric", "mode"),
)


def _matches(residuals: tuple[Residual, ...], cls: FigureClass, keys: tuple[str, ...]) -> list[float]:
    return [r.ratio for r in residuals if all(getattr(r, k) == getattr(cls, k) for k in keys)]


_KEY_WORDS = {
    ("metric", "engine", "parallel", "family"): "{metric} of {engine} {parallel} runs of {family} models",
    ("metric", "engine", "parallel"): "{metric} of {engine} {parallel} runs (any family)",
    ("metric", "engine", "family"): "{metric} of {engine} runs of {family} models (any parallelism)",
    ("metric", "engine"): "{metric} of {engine} runs (any parallelism or family)",
    ("metric", "parallel", "family"): "{metric} of {parallel} runs of {family} models (any engine)",
    ("metric", "family"): "{metric} of runs of {family} models (any engine or parallelism)",
    ("metric", "parallel"): "{metric} of {parallel} runs (any engine or family)",
    ("metric",): "{metric} of every run",
}
_METRIC_WORDS = {"decode": "one stream's decode", "aggregate": "all streams' decode", "prefill": "prefill"}


def metric_words(metric: str) -> str:
    """A metric in the words ranges and evidence use: "all streams' decode"."""
    return _METRIC_WORDS.get(metric, metric)


def predicted_range(
    value: float,
    cls: FigureClass,
    residuals: tuple[Residual, ...] | None = None,
    *,
    fallback: tuple[tuple[str, ...], ...] = FALLBACK,
    min_residuals: int = MIN_RESIDUALS,
    quantiles: tuple[float, float] = RANGE_QUANTILES,
) -> PredictedRange:
    """The range of a predicted ``value`` of class ``cls`` (the method's
    parameters given only to score other methods: ``training_score``)."""
    if residuals is None:
        # the stored residuals: a class's bounds are the same for every value
        low, high, words, count = _stored_bounds(cls, fallback, min_residuals, quantiles)
    else:
        low, high, words, count = _bounds(cls, residuals, fallback, min_residuals, quantiles)
    return PredictedRange(value * low, value * high, words, count)


def single_source_alternative(c: PerfConstants, engine: str, parallel: str) -> tuple[PerfConstants, str] | None:
    """The constants with an engine's own tensor-parallel costs borrowed from
    vLLM, and the one experiment that set them, when a tensor- or
    expert-parallel prediction rests on that experiment alone (None
    otherwise): its range spans both predictions (``spanning``)."""
    origin = c.single_source.get(engine)
    if origin is None or parallel not in ("tp", "ep"):
        return None
    own, vllm = c.engines[engine], c.engines["vllm"]
    borrowed = replace(
        own,
        allreduce_extra_us=vllm.allreduce_extra_us,
        stream_overhead_ms=vllm.stream_overhead_ms,
        prefill_comm_factor=vllm.prefill_comm_factor,
    )
    return replace(c, engines={**c.engines, engine: borrowed}, single_source={}), origin


def spanning(r: PredictedRange, value: float, alternative: float, engine: str, origin: str) -> PredictedRange:
    """``r`` (the range of ``value``) widened to hold the same range drawn
    around ``alternative``, the prediction with vLLM's tensor-parallel costs."""
    low, high = r.low / value, r.high / value
    return PredictedRange(
        min(r.low, alternative * low),
        max(r.high, alternative * high),
        r.basis,
        r.residuals,
        f"{engine}'s tensor-parallel costs rest on one published experiment ({origin}), so the range also "
        "spans the prediction with vLLM's",
    )


@functools.lru_cache(maxsize=1024)
def _stored_bounds(
    cls: FigureClass, fallback: tuple[tuple[str, ...], ...], min_residuals: int, quantiles: tuple[float, float]
) -> tuple[float, float, str, int]:
    from .fitted import LOSO_RESIDUALS

    return _bounds(cls, LOSO_RESIDUALS, fallback, min_residuals, quantiles)


def _bounds(
    cls: FigureClass,
    residuals: tuple[Residual, ...],
    fallback: tuple[tuple[str, ...], ...],
    min_residuals: int,
    quantiles: tuple[float, float],
) -> tuple[float, float, str, int]:
    """(low, high) as factors on the predicted value, the class in words, and
    how many residuals drew them."""
    keys, ratios = fallback[-1], []
    for keys in fallback:
        ratios = _matches(residuals, cls, keys)
        if len(ratios) >= min_residuals:
            break
    words = _KEY_WORDS[tuple(k for k in keys if k != "mode")].format(
        metric=metric_words(cls.metric), engine=cls.engine, parallel=cls.parallel, family=cls.family
    )
    if "mode" in keys and cls.mode == "eager":
        words += ", eager mode"
    if not ratios:
        low, high = 1 - 4 * MIN_HALF_WIDTH, 1 + 4 * MIN_HALF_WIDTH
    else:
        low, high = (_quantile(ratios, q) for q in quantiles)
    return min(low, 1 - MIN_HALF_WIDTH), max(high, 1 + MIN_HALF_WIDTH), words, len(ratios)


# --- choosing the method, on the training residuals alone ------------------------

# The methods scored when the range method was last re-chosen: these
# quantiles, minimum class sizes and fallback orders (the stored order; every
# order that drops engine, parallelism, family and mode one at a time; every
# order that drops the first three and keeps the mode).
CANDIDATE_QUANTILES: tuple[tuple[float, float], ...] = (
    (0.05, 0.95),
    (0.10, 0.90),
    (0.15, 0.85),
    (0.20, 0.80),
    (0.25, 0.75),
)
CANDIDATE_MIN_RESIDUALS: tuple[int, ...] = (2, 3, 4, 5, 6, 8)


def _drop_chains(keys: tuple[str, ...], kept: tuple[str, ...]) -> list[tuple[tuple[str, ...], ...]]:
    chains = []
    for order in itertools.permutations(keys):
        chain, current = [], ["metric", *keys, *kept]
        chain.append(tuple(current))
        for key in order:
            current = [k for k in current if k != key]
            chain.append(tuple(current))
        chains.append(tuple(chain))
    return chains


# The order stored before 2026-12-02 (kept in the grid, which stays the one
# written down before any candidate was scored).
EARLIER_FALLBACK: tuple[tuple[str, ...], ...] = (
    ("metric", "engine", "parallel", "family", "mode"),
    ("metric", "parallel", "family", "mode"),
    ("metric", "family", "mode"),
    ("metric", "parallel", "mode"),
    ("metric", "mode"),
)


def candidate_fallbacks() -> list[tuple[tuple[str, ...], ...]]:
    return [
        EARLIER_FALLBACK,
        *_drop_chains(("engine", "parallel", "family", "mode"), ()),
        *_drop_chains(("engine", "parallel", "family"), ("mode",)),
    ]


@dataclass(frozen=True)
class RangeScore:
    """A range method scored on the training residuals: each residual's range
    drawn from the other origins' residuals only."""

    inside_pct: float
    median_half_width_pct: float
    figures: int


def training_score(
    residuals: tuple[Residual, ...] | None = None,
    *,
    fallback: tuple[tuple[str, ...], ...] = FALLBACK,
    min_residuals: int = MIN_RESIDUALS,
    quantiles: tuple[float, float] = RANGE_QUANTILES,
) -> RangeScore:
    """How often a training figure lies in the range a method draws for it from
    the other experiments' residuals, and the ranges' median half-width: the
    score a range method is chosen by (held-out runs never enter)."""
    if residuals is None:
        from .fitted import LOSO_RESIDUALS

        residuals = LOSO_RESIDUALS
    inside, widths = [], []
    for r in residuals:
        others = tuple(x for x in residuals if x.origin != r.origin)
        cls = FigureClass(r.metric, r.engine, r.parallel, r.family, r.mode)
        got = predicted_range(1.0, cls, others, fallback=fallback, min_residuals=min_residuals, quantiles=quantiles)
        inside.append(got.low <= r.ratio <= got.high)
        widths.append((got.high - got.low) / 2 * 100.0)
    return RangeScore(100.0 * sum(inside) / len(inside), statistics.median(widths), len(inside))
