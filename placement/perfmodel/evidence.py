"""What the model has missed by on held-out runs of one kind: the published
fit's errors on published figures it was never fitted on, of the same
metric, engine, parallelism and CUDA-graph mode as a prediction, at a number
of streams near its own (within a factor of two, when there are such
figures), and of the same architecture family when there are enough. A
prediction's range is drawn from the training runs' leave-one-out residuals
(``ranges``); this is the other word on how far it may be off, from runs
nobody fitted on, said beside it on every plan. Nothing here changes a
prediction or a range.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from placement.published import PUBLISHED_POINTS, PublishedPoint

from .calibration import LabRun
from .constants import DEFAULT_READING
from .points import FigureClass, point_class, point_model
from .prediction import split_streams
from .ranges import metric_words
from .report import fit_report, fresh_sets

# fewer figures of a family than this, and every family of the kind is taken
MIN_FAMILY_FIGURES = 2
# a single figure of the kind is still said: it is all the evidence there is
MIN_FIGURES = 1
# a median error this large on held-out runs of the kind is shown beside the plan, not only in its details
BIAS_PCT = 25.0


@dataclass(frozen=True)
class HeldOutEvidence:
    """The signed errors (predicted over published, in %) of the held-out
    figures of one kind: positive where the model predicted too fast."""

    metric: str
    basis: str  # the kind, in words
    figures: int
    experiments: int
    fresh: int  # of them, in a set collected after the model was frozen that it has not changed since
    low_pct: float
    high_pct: float
    median_pct: float

    @property
    def words(self) -> str:
        """'On 3 held-out figures of ... (1 experiment; 3 collected after the
        model was frozen and never used to change it), the published fit
        predicted 57% to 64% too fast (median 63% too fast).'"""
        counted = f"{self.experiments} experiment{'s' if self.experiments != 1 else ''}"
        if self.fresh:
            counted += "; " + ("" if self.figures == 1 else f"{self.fresh} of them ")
            counted += "collected after the model was frozen and never used to change it"
        median = "" if self.figures == 1 else f" (median {_signed(self.median_pct)})"
        return (
            f"On {self.figures} held-out figure{'s' if self.figures != 1 else ''} of {self.basis} ({counted}), "
            f"the published fit predicted {_span(self.low_pct, self.high_pct)}{median}."
        )

    @property
    def badge(self) -> str:
        """Short words for a plan's row when held-out runs of its kind missed
        by more than ``BIAS_PCT`` at the median ("held-out: 63% too fast"), else "".
        One figure is said in words, never as a badge: it is no bias yet."""
        if self.figures < 2 or abs(self.median_pct) <= BIAS_PCT:
            return ""
        what = "held-out prefill" if self.metric == "prefill" else "held-out"
        return f"{what}: {_signed(self.median_pct)}"

    def as_dict(self) -> dict[str, object]:
        return {
            "metric": self.metric,
            "basis": self.basis,
            "figures": self.figures,
            "experiments": self.experiments,
            "fresh": self.fresh,
            "error_pct_range": [round(self.low_pct, 1), round(self.high_pct, 1)],
            "median_error_pct": round(self.median_pct, 1),
            "words": self.words,
            "badge": self.badge,
        }


def _signed(pct: float) -> str:
    if round(pct) == 0:
        return "within 1%"
    return f"{abs(pct):.0f}% too {'fast' if pct > 0 else 'slow'}"


def _span(low: float, high: float) -> str:
    if round(low) == round(high):
        return _signed(low)
    if round(low) > 0 or round(high) < 0:  # one side: "57% to 64% too fast"
        a, b = sorted((abs(low), abs(high)))
        return f"{a:.0f}% to {b:.0f}% too {'fast' if low > 0 else 'slow'}"
    return f"from {_signed(low)} to {_signed(high)}"


_Kind = tuple[str, str, str, str]  # metric, engine, parallel, mode
_Figure = tuple[str, float, str, bool, int, bool]  # family, signed error %, experiment, fresh, streams, experts


@functools.lru_cache(maxsize=1)
def _held_out_by_kind() -> dict[_Kind, list[_Figure]]:
    """Every held-out figure's error under the stored published fit, by kind."""
    by_key = {p.key: p for p in PUBLISHED_POINTS}
    report = fit_report(DEFAULT_READING)
    # a set the model has changed since it was seen no longer judges it on runs nobody tuned it against
    unseen = {f.day for f in fresh_sets(report) if not f.seen_since}
    out: dict[_Kind, list[_Figure]] = {}
    for e in report.errors:
        if e.role != "holdout":
            continue
        p = by_key[e.key]
        cls = point_class(p, e.metric)
        kind = (cls.metric, cls.engine, cls.parallel, cls.mode)
        experts = point_model(p).is_moe
        out.setdefault(kind, []).append(
            (cls.family, e.error_pct, p.source_id, p.collected in unseen, p.concurrency, experts)
        )
    return out


# The hybrids with and without experts, in words: their held-out errors part ways (one stream on vLLM
# 2% too fast for the dense ones, 29% for those with experts; llama.cpp's prefill 26% too slow and 67%
# too fast), so a hybrid's evidence is its own kind's where there is enough of it.
HYBRID_WORDS = {True: "hybrid mixture-of-experts models", False: "dense hybrid models"}


def held_out_evidence(cls: FigureClass, streams: int = 1, experts: bool | None = None) -> HeldOutEvidence | None:
    """The held-out figures of a prediction's kind and their errors (None: not
    one). All streams' decode is judged beside figures at ``streams`` (all the
    streams of the run, copies or not) within a factor of two when there are
    some: batching's errors grow with the batch. A hybrid model's are those
    of hybrids with experts or without, as ``experts`` says, where there are
    enough (``HYBRID_WORDS``)."""
    found = _held_out_by_kind().get((cls.metric, cls.engine, cls.parallel, cls.mode), [])
    if cls.metric == "aggregate":
        near = [f for f in found if streams / 2 <= f[4] <= streams * 2]
        found = near or found
    same_family = [f for f in found if f[0] == cls.family]
    same_kind = [f for f in same_family if f[5] == experts] if cls.family == "hybrid" and experts is not None else []
    mode = "" if cls.mode == "graphs" else f" in {cls.mode} mode"
    runs = f"{cls.engine} {cls.parallel} runs{mode}"
    if len(same_kind) >= MIN_FAMILY_FIGURES:
        chosen, basis = same_kind, f"{metric_words(cls.metric)} of {runs} of {HYBRID_WORDS[bool(experts)]}"
    elif len(same_family) >= MIN_FAMILY_FIGURES:
        chosen, basis = same_family, f"{metric_words(cls.metric)} of {runs} of {cls.family} models"
    elif len(found) >= MIN_FIGURES:
        chosen, basis = found, f"{metric_words(cls.metric)} of {runs} of any family"
    else:
        return None
    if cls.metric == "aggregate":
        low, high = min(f[4] for f in chosen), max(f[4] for f in chosen)
        basis += f" at {low} stream{'s' if low != 1 else ''}" if low == high else f" at {low} to {high} streams"
    errors = [f[1] for f in chosen]
    return HeldOutEvidence(
        metric=cls.metric,
        basis=basis,
        figures=len(chosen),
        experiments=len({f[2] for f in chosen}),
        fresh=sum(f[3] for f in chosen),
        low_pct=min(errors),
        high_pct=max(errors),
        median_pct=statistics.median(errors),
    )


@dataclass(frozen=True)
class PublishedRun:
    """A published figure of the very configuration a plan predicts: the
    model in the same format, engine, layout, fabric, CUDA-graph mode and
    streams (its own prompt and output lengths)."""

    key: str
    tps: float  # one stream's decode, or all streams' at several
    role: str  # "train" (the fit used it) | "holdout"
    source: str
    url: str
    checkpoint: str = ""  # the repository that ran, where the source names it
    speculative: str = ""  # the speculative decoding it used ("mtp"; "": none)

    def as_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "tps": self.tps,
            "role": self.role,
            "source": self.source,
            "url": self.url,
            "checkpoint": self.checkpoint,
            "speculative": self.speculative,
        }


def _comparable(p: PublishedPoint) -> bool:
    """A figure a plan's prediction is set beside: fitted on or held out, plain decoding."""
    return p.role in ("train", "holdout") and p.compared_decode_tps is not None


def _drafted(p: PublishedPoint) -> bool:
    """A figure decoded with speculative decoding (any role): what drafting gave, never compared."""
    return bool(p.speculative)


@functools.lru_cache(maxsize=2)
def _by_model(kind: Callable[[PublishedPoint], bool]) -> dict[str, list[tuple[PublishedPoint, str]]]:
    """The published figures of one kind (``_comparable`` or ``_drafted``)
    with a decode figure, in the model's reading, with the format each ran
    (``point_model``), by model: built once, read on every plan."""
    out: dict[str, list[tuple[PublishedPoint, str]]] = {}
    for p in PUBLISHED_POINTS:
        if kind(p) and p.reading in (None, DEFAULT_READING) and p.decode_tps is not None:
            out.setdefault(p.model_slug, []).append((p, point_model(p).quantization))
    return out


@dataclass(frozen=True)
class Configuration:
    """What a plan predicts, as far as a run of it can be told apart: the
    model in its format, the engine, the layout (tp, pp, ep, copies), the
    fabric where one instance spans nodes, the CUDA-graph mode and the
    streams (each run at its own prompt and output lengths)."""

    slug: str
    quantization: str
    engine: str
    layout: tuple[int, int, int, int]
    path: str
    mode: str
    streams: int

    def holds(
        self, slug: str, quantization: str, engine: str, layout: tuple[int, ...], path: str, mode: str, streams: int
    ) -> bool:
        """Whether a run of these is this configuration (a run's mode not stated: CUDA graphs)."""
        tp, pp, _, _ = self.layout
        ran = (slug, quantization, engine, tuple(layout), mode or "graphs", streams)
        return ran == (self.slug, self.quantization, self.engine, self.layout, self.mode, self.streams) and (
            tp * pp == 1 or path == self.path  # the fabric matters where one instance spans nodes
        )


def _runs_of(config: Configuration, kind: Callable[[PublishedPoint], bool]) -> tuple[PublishedRun, ...]:
    """The published figures of one kind and one configuration, slowest first."""
    out = [
        PublishedRun(p.key, float(p.decode_tps or 0.0), p.role, p.source, p.url, p.checkpoint, p.speculative)
        for p, ran in _by_model(kind).get(config.slug, [])
        if config.holds(p.model_slug, ran, p.engine, (p.tp, p.pp, p.ep, p.replicas), p.path, p.mode, p.concurrency)
    ]
    return tuple(sorted(out, key=lambda r: (r.tps, r.key)))


def published_runs(config: Configuration) -> tuple[PublishedRun, ...]:
    """Every published figure of one configuration, slowest first: what labs
    measured for exactly what a plan predicts, the runs the fit used and the
    runs held out of it alike. Speculative runs, the disputed row's other
    reading and reference-only copies are left out."""
    return _runs_of(config, _comparable)


def published_speculative_runs(config: Configuration) -> tuple[PublishedRun, ...]:
    """The published figures of one configuration decoded with speculative
    decoding, slowest first: what drafting gave labs for exactly what a plan
    predicts with plain decoding (never compared with it, never fitted on)."""
    return _runs_of(config, _drafted)


@dataclass(frozen=True)
class MeasuredRun:
    """One of the lab's own measured runs of the very configuration a plan
    predicts (``calibration.LabRun``): its figure, the same metric as the
    plan's headline (one stream's decode, or all streams' at several)."""

    key: str
    tps: float
    checkpoint: str = ""
    url: str = ""
    not_fitted: str = ""  # why the lab's re-fit leaves it out ("": fitted on)
    speculative: str = ""  # the speculative decoding it used ("MTP"; "": none stated)

    def as_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "tps": self.tps,
            "checkpoint": self.checkpoint,
            "url": self.url,
            "fitted": not self.not_fitted,
            "not_fitted": self.not_fitted,
            "speculative": self.speculative,
        }


def measured_runs(runs: Iterable[LabRun], config: Configuration) -> tuple[MeasuredRun, ...]:
    """The lab's measured runs of one configuration (a plan of copies: the
    runs of as many copies measured through their router), slowest first."""
    out = []
    for r in runs:
        tps = r.decode_tps if r.concurrency == 1 else r.aggregate_tps
        layout = (r.layout.tp, r.layout.pp, r.layout.ep, r.copies)
        if tps and config.holds(
            r.model.slug, r.model.quantization, r.layout.engine, layout, r.layout.path, r.layout.mode, r.concurrency
        ):
            out.append(MeasuredRun(r.key, float(tps), r.checkpoint, r.url, r.not_fitted, r.speculative))
    return tuple(sorted(out, key=lambda m: (m.tps, m.key)))


# published figures of one configuration whose checkpoints' medians are this far apart are said to split
CHECKPOINT_SPLIT = 1.25


def _tps_span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.1f}" if round(low, 1) == round(high, 1) else f"{low:.1f} to {high:.1f}"


def checkpoint_split(runs: tuple[PublishedRun, ...], launched: str) -> str:
    """What a member should know when the published runs of a plan's very
    configuration fall apart by the checkpoint that ran (the fastest named
    checkpoint's median at least ``CHECKPOINT_SPLIT`` times the slowest's):
    each checkpoint's figures, that the model predicts a format and not a
    checkpoint, and which checkpoint the plan launches (``launched``).
    Empty when fewer than two named checkpoints ran, or their figures agree."""
    by_checkpoint: dict[str, list[float]] = {}
    for r in runs:
        if r.checkpoint:
            by_checkpoint.setdefault(r.checkpoint, []).append(r.tps)
    if len(by_checkpoint) < 2:
        return ""
    medians = {repo: statistics.median(tps) for repo, tps in by_checkpoint.items()}
    if max(medians.values()) < CHECKPOINT_SPLIT * min(medians.values()):
        return ""
    said = "; ".join(
        f"{repo} {_tps_span(tps)}" for repo, tps in sorted(by_checkpoint.items(), key=lambda kv: -medians[kv[0]])
    )
    if launched.lower() in {repo.lower() for repo in by_checkpoint}:  # the Hub's ids are not case-sensitive
        tail = f"This plan launches {launched}: its published figures are the ones to expect."
    elif launched:
        tail = f"This plan launches {launched}, which none of them ran."
    else:
        tail = "Which checkpoint the engine loads decides which to expect."
    return (
        f"Published runs of this configuration differ by checkpoint: {said} tok/s. "
        f"The model predicts the weights format, not a checkpoint. {tail}"
    )


@functools.lru_cache(maxsize=8)
def batching_trained_streams(source: str) -> int:
    """The most streams one instance batched in a published training run of
    this engine's batching constants (``prediction.batching_engine``): past it, a prediction of all streams
    is extrapolated. 1 when no run of the engine trains its batching."""
    streams = [
        split_streams(p.concurrency, max(p.replicas, 1))[0]  # the busiest copy's share
        for p in PUBLISHED_POINTS
        if p.role == "train" and p.engine == source and p.concurrency > 1 and p.compared_decode_tps is not None
    ]
    return max(streams, default=1)
