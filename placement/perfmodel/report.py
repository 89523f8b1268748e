"""The model's errors on the published points, the accuracy goals, and the
tables of PERFORMANCE_MODEL.md (``python -m placement.perfmodel``,
``manage.py perfmodel``). ``--write`` regenerates ``fitted.py``."""

from __future__ import annotations

import statistics
import subprocess
import sys
from dataclasses import dataclass, fields
from pathlib import Path

from placement import (
    published_fresh,
    published_fresh_eighth,
    published_fresh_eleventh,
    published_fresh_fifteenth,
    published_fresh_fifth,
    published_fresh_fourteenth,
    published_fresh_fourth,
    published_fresh_ninth,
    published_fresh_second,
    published_fresh_seventh,
    published_fresh_sixth,
    published_fresh_tenth,
    published_fresh_third,
    published_fresh_thirteenth,
    published_fresh_twelfth,
)
from placement.published import PUBLISHED_POINTS, PublishedPoint

from .constants import DEFAULT_READING, READINGS, PerfConstants, Residual
from .fitted import CONSTANTS_BY_READING, LOSO_RESIDUALS
from .fitting import fit
from .points import PointError, parallel_class, point_class, point_figures, points_for
from .ranges import (
    CANDIDATE_MIN_RESIDUALS,
    CANDIDATE_QUANTILES,
    FALLBACK,
    MIN_RESIDUALS,
    RANGE_QUANTILES,
    RangeScore,
    candidate_fallbacks,
    loso_residuals,
    predicted_range,
    single_source_alternative,
    spanning,
    training_score,
)

# The goals on the held-out runs (issue 23): one stream median and worst
# error, all streams together median and worst, the share of held-out figures
# inside their ranges and the ranges' median half-width (all in %).
GOALS = {
    "decode median": 10.0,
    "decode worst": 25.0,
    "aggregate median": 15.0,
    "aggregate worst": 40.0,
    "inside ranges": 80.0,
    "median half-width": 30.0,
}

# Held-out runs collected after the model was frozen: the set's name (the
# day they were collected on; a second set of one day takes a letter), the
# commit whose constants, residuals and range method predicted them, once,
# before anything of the model could be changed for them, and what that
# model predicted ((key, metric): (predicted, low, high)), stored beside the
# set so that its goals stay those of the model that had not seen it, after
# later models have.
FRESH_SETS: dict[str, tuple[str, dict[tuple[str, str], tuple[float, float, float]]]] = {
    published_fresh.COLLECTED: ("f4e432a", published_fresh.PREDICTED_ONCE),
    published_fresh_second.COLLECTED_SECOND: ("daa5b2a", published_fresh_second.PREDICTED_ONCE),
    published_fresh_third.COLLECTED_THIRD: ("d61cd70", published_fresh_third.PREDICTED_ONCE),
    published_fresh_fourth.COLLECTED_FOURTH: ("2e5f5ce", published_fresh_fourth.PREDICTED_ONCE),
    published_fresh_fifth.COLLECTED_FIFTH: ("e7cebc4", published_fresh_fifth.PREDICTED_ONCE),
    published_fresh_sixth.COLLECTED_SIXTH: ("39b6057", published_fresh_sixth.PREDICTED_ONCE),
    published_fresh_seventh.COLLECTED_SEVENTH: ("9d1158a", published_fresh_seventh.PREDICTED_ONCE),
    published_fresh_eighth.COLLECTED_EIGHTH: ("f6519e7", published_fresh_eighth.PREDICTED_ONCE),
    published_fresh_ninth.COLLECTED_NINTH: ("276ef1a", published_fresh_ninth.PREDICTED_ONCE),
    published_fresh_tenth.COLLECTED_TENTH: ("4393195", published_fresh_tenth.PREDICTED_ONCE),
    published_fresh_eleventh.COLLECTED_ELEVENTH: ("067611f", published_fresh_eleventh.PREDICTED_ONCE),
    published_fresh_twelfth.COLLECTED_TWELFTH: ("7731663", published_fresh_twelfth.PREDICTED_ONCE),
    published_fresh_thirteenth.COLLECTED_THIRTEENTH: ("b1459d6", published_fresh_thirteenth.PREDICTED_ONCE),
    published_fresh_fourteenth.COLLECTED_FOURTEENTH: ("b7bbb58", published_fresh_fourteenth.PREDICTED_ONCE),
    published_fresh_fifteenth.COLLECTED_FIFTEENTH: ("ebb67e2", published_fresh_fifteenth.PREDICTED_ONCE),
}
FRESH = {day: commit for day, (commit, _) in FRESH_SETS.items()}


def configuration(p: PublishedPoint) -> tuple[object, ...]:
    """What a run was, as far as the model can tell runs apart: the model and
    its form, the engine, mode and speculative decoding, the layout and
    fabric, and the streams. Context and prompt sizes are left out: the
    model's own prediction carries them (``disagreement_of``)."""
    return (
        p.model_slug,
        p.quantization or "",
        p.engine,
        p.mode or "graphs",
        p.speculative,
        p.nodes,
        p.topology,
        p.backend,
        p.tp,
        p.pp,
        p.ep,
        p.replicas,
        p.router,
        p.link_gbps,
        p.concurrency,
    )


@dataclass(frozen=True)
class Disagreement:
    """Figures of one configuration that no single prediction can all meet
    within ``floor_pct``: the lowest worst-case error any model reaches on
    them (read at each figure's own sizes through this model's prediction)."""

    keys: tuple[str, ...]
    published: tuple[float, ...]
    floor_pct: float


def disagreement_of(errors: list[PointError]) -> Disagreement:
    """The floor of the worst error over figures of one configuration.

    Each figure's ratio u = predicted / published; scaling every prediction
    by one factor s (what a different constant would do to one
    configuration) gives errors s·u - 1. The factor that balances the
    largest and smallest ratio, s = 2 / (u_max + u_min), leaves
    (u_max - u_min) / (u_max + u_min) on both: no factor does better. For
    figures of the same sizes u differs by the published figures alone, and
    the floor holds for any prediction whatever."""
    ratios = [e.predicted / e.published for e in errors]
    hi, lo = max(ratios), min(ratios)
    return Disagreement(tuple(e.key for e in errors), tuple(e.published for e in errors), 100.0 * (hi - lo) / (hi + lo))


@dataclass(frozen=True)
class FitReport:
    reading: str
    errors: tuple[PointError, ...]

    def only(self, keys: set[str]) -> FitReport:
        """The same report on the figures of these published points alone."""
        return FitReport(self.reading, tuple(e for e in self.errors if e.key in keys))

    def values(self, role: str, metric: str) -> list[float]:
        return [abs(e.error_pct) for e in self.errors if e.role == role and e.metric == metric]

    def mape(self, role: str, metric: str) -> float | None:
        """Mean absolute percentage error of one set (None if the set is empty)."""
        values = self.values(role, metric)
        return sum(values) / len(values) if values else None

    def median(self, role: str, metric: str) -> float | None:
        values = self.values(role, metric)
        return statistics.median(values) if values else None

    def worst(self, role: str, metric: str) -> float | None:
        values = self.values(role, metric)
        return max(values) if values else None

    def experiment_median(self, role: str, metric: str) -> tuple[float, int] | None:
        """The median over experiments of each experiment's median error, and
        how many experiments: every held-out experiment counts once, however
        many figures it published (llama.cpp's depth sweeps are 16 of them)."""
        origin = {p.key: p.source_id for p in PUBLISHED_POINTS}
        per: dict[str, list[float]] = {}
        for e in self.errors:
            if e.role == role and e.metric == metric:
                per.setdefault(origin[e.key], []).append(abs(e.error_pct))
        if not per:
            return None
        return statistics.median(statistics.median(v) for v in per.values()), len(per)

    def inside_share(self, role: str = "holdout") -> float | None:
        """Share (%) of a role's figures inside their predicted ranges."""
        flags = [e.inside for e in self.errors if e.role == role and e.inside is not None]
        return 100.0 * sum(flags) / len(flags) if flags else None

    def median_half_width(self, role: str = "holdout") -> float | None:
        widths = [e.half_width_pct for e in self.errors if e.role == role and e.half_width_pct is not None]
        return statistics.median(widths) if widths else None

    def disagreement(self, role: str, metric: str) -> Disagreement | None:
        """The held-out figures of one configuration that disagree most: no
        prediction can bring both nearer than ``floor_pct`` (None: no two
        figures share a configuration)."""
        by_key = {p.key: p for p in PUBLISHED_POINTS}
        groups: dict[tuple[object, ...], list[PointError]] = {}
        for e in self.errors:
            if e.role == role and e.metric == metric:
                groups.setdefault(configuration(by_key[e.key]), []).append(e)
        worst: Disagreement | None = None
        for members in groups.values():
            if len(members) < 2:
                continue
            found = disagreement_of(members)
            if worst is None or found.floor_pct > worst.floor_pct:
                worst = found
        return worst

    def goals(self) -> list[tuple[str, float | None, float, bool]]:
        """(goal, measured on the held-out runs, target, met)."""
        measured = {
            "decode median": self.median("holdout", "decode"),
            "decode worst": self.worst("holdout", "decode"),
            "aggregate median": self.median("holdout", "aggregate"),
            "aggregate worst": self.worst("holdout", "aggregate"),
            "inside ranges": self.inside_share("holdout"),
            "median half-width": self.median_half_width("holdout"),
        }
        out = []
        for name, target in GOALS.items():
            value = measured[name]
            met = value is not None and (value >= target if name == "inside ranges" else value <= target)
            out.append((name, value, target, met))
        return out


def accuracy_of(report: FitReport) -> dict[str, float | None]:
    """The held-out figures' errors and ranges as the plans page sums them up."""
    return {
        "decode_median": report.median("holdout", "decode"),
        "decode_worst": report.worst("holdout", "decode"),
        "prefill_median": report.median("holdout", "prefill"),
        "aggregate_median": report.median("holdout", "aggregate"),
        "aggregate_worst": report.worst("holdout", "aggregate"),
        "inside": report.inside_share("holdout"),
        "half_width": report.median_half_width("holdout"),
    }


def fit_report(
    reading: str = DEFAULT_READING,
    constants: PerfConstants | None = None,
    residuals: tuple[Residual, ...] | None = None,
) -> FitReport:
    """Errors of the (stored, or given) constants on the training and held-out
    points; in the default reading every figure also gets its range."""
    c = constants or CONSTANTS_BY_READING[reading]
    pool = residuals if residuals is not None else (LOSO_RESIDUALS if reading == DEFAULT_READING else ())
    errors: list[PointError] = []
    for p in points_for(reading):
        alternative = single_source_alternative(c, p.engine, parallel_class(p.tp, p.pp, p.ep, p.replicas))
        borrowed = {m: v for m, _, v in point_figures(p, alternative[0])} if alternative else {}
        for metric, published, predicted in point_figures(p, c):
            low = high = None
            if pool:
                r = predicted_range(predicted, point_class(p, metric), pool)
                if alternative:
                    r = spanning(r, predicted, borrowed[metric], p.engine, alternative[1])
                low, high = r.low, r.high
            errors.append(PointError(p.key, metric, p.role, published, predicted, p.source, p.url, low, high))
    return FitReport(reading, tuple(errors))


# --- the generated module -------------------------------------------------------


def _engine_literal(name: str, e: object) -> list[str]:
    lines = [f"            {name!r}: EngineConstants("]
    lines += [f"                {f.name}={getattr(e, f.name)!r}," for f in fields(e)]  # type: ignore[arg-type]
    lines.append("            ),")
    return lines


def constants_literal(c: PerfConstants) -> str:
    """The constants as the Python literal ``fitted.CONSTANTS_BY_READING`` stores."""
    lines = [f"    {c.reading!r}: PerfConstants(", f"        reading={c.reading!r},", "        engines={"]
    for name, e in c.engines.items():
        lines += _engine_literal(name, e)
    lines.append("        },")
    for f in fields(c):
        if f.name not in ("reading", "engines", "calibrated", "collective_scale", "slot_scale"):
            lines.append(f"        {f.name}={getattr(c, f.name)!r},")
    lines.append("    ),")
    return "\n".join(lines)


def fitted_module(constants: dict[str, PerfConstants], residuals: tuple[Residual, ...]) -> str:
    """The text of ``fitted.py``."""
    out = [
        '"""The fitted constants and the leave-one-origin-out residuals. Generated:',
        'do not edit by hand; run ``python -m placement.perfmodel --write``."""',
        "",
        "from __future__ import annotations",
        "",
        "from .constants import DEFAULT_READING, EngineConstants, PerfConstants, Residual",
        "",
        "CONSTANTS_BY_READING: dict[str, PerfConstants] = {",
    ]
    out += [constants_literal(constants[r]) for r in READINGS]
    out += ["}", "", "# published / predicted of each training figure, its origin left out of the fit", ""]
    out.append("LOSO_RESIDUALS: tuple[Residual, ...] = (")
    out += [
        f"    Residual({r.key!r}, {r.origin!r}, {r.metric!r}, {r.engine!r}, {r.parallel!r}, {r.family!r}, "
        f"{r.ratio!r}, {r.mode!r}),"
        for r in residuals
    ]
    out += [
        ")",
        "",
        "",
        "def default_constants() -> PerfConstants:",
        "    return CONSTANTS_BY_READING[DEFAULT_READING]",
        "",
    ]
    return "\n".join(out)


def write_fitted() -> Path:
    """Refit every reading and the residuals, and rewrite ``fitted.py``."""
    path = Path(__file__).with_name("fitted.py")
    path.write_text(fitted_module({r: fit(r) for r in READINGS}, loso_residuals()))
    # in the project's format, as the checks want it (ruff beside this interpreter, when installed)
    ruff = Path(sys.executable).with_name("ruff")
    if ruff.exists():
        subprocess.run([str(ruff), "format", "--quiet", str(path)], check=True)  # noqa: S603 (fixed argv)
    return path


# --- the tables -----------------------------------------------------------------


def _setup(p: PublishedPoint) -> str:
    model = p.model_slug + (f" {p.quantization}" if p.quantization else "")
    if p.replicas > 1:
        where = f"{p.replicas} one-node copies ({p.router} router)"
    elif p.nodes == 1:
        where = "1 node"
    else:
        split = " ".join(
            x
            for x in (f"TP{p.tp}" if p.tp > 1 else "", f"EP{p.ep}" if p.ep > 1 else "", f"PP{p.pp}" if p.pp > 1 else "")
            if x
        )
        backend = f" {p.backend.upper() if p.backend == 'nccl' else p.backend}" if p.backend != "none" else ""
        where = f"{p.nodes} nodes {p.topology}{backend} {split}"
    extra = "".join(
        [
            f", {p.link_gbps:g}G" if p.nodes > 1 and p.link_gbps != 200 else "",
            f", {p.concurrency} streams" if p.concurrency > 1 else "",
            f", context {p.context:,}" if p.context > 4096 else "",
            f", {p.mode}" if p.mode == "eager" else "",
        ]
    )
    return f"{model}, {where}, {p.engine}{extra}"


def _summary(report: FitReport) -> list[str]:
    out = []
    for role in ("train", "holdout"):
        for metric in ("decode", "prefill", "aggregate"):
            med, worst, mean = report.median(role, metric), report.worst(role, metric), report.mape(role, metric)
            if med is not None and worst is not None and mean is not None:
                n = len(report.values(role, metric))
                out.append(f"- {role} {metric} ({n} figures): median {med:.1f}%, worst {worst:.1f}%, mean {mean:.1f}%")
    return out


def _figures(count: int) -> str:
    return f"{count} held-out figure{'s' if count != 1 else ''}"


def _experiments(count: int) -> str:
    return f"{count} experiment{'s' if count != 1 else ''}"


def goals_text(report: FitReport, title: str = "Goals on the held-out runs:") -> list[str]:
    out = [title]
    for name, value, target, met in report.goals():
        shown = "n/a" if value is None else f"{value:.1f}%"
        bound = "at least" if name == "inside ranges" else "at most"
        verdict = "no such figures" if value is None else "met" if met else "NOT met"
        out.append(f"- {name}: {shown} ({bound} {target:g}%): {verdict}")
        metric = name.split()[0]
        if name.endswith("worst") and (apart := report.disagreement("holdout", metric)) is not None:
            figures = " and ".join(f"{k} ({v:g})" for k, v in zip(apart.keys, apart.published, strict=True))
            reach = "out of reach" if apart.floor_pct > target else "within reach"
            out.append(
                f"  the held-out figures of one configuration disagree: {figures}; no prediction comes "
                f"nearer than {apart.floor_pct:.1f}% to all of them ({reach} of the goal)"
            )
    counted = [
        f"{words} {found[0]:.1f}% over {_experiments(found[1])}"
        for words, metric in (("one stream", "decode"), ("all streams together", "aggregate"))
        if (found := report.experiment_median("holdout", metric)) is not None
    ]
    if counted:
        out.append(f"- each experiment counted once (the median of its figures' errors): {'; '.join(counted)}")
    return out


@dataclass(frozen=True)
class FreshSet:
    """The held-out figures collected on one day after the model was frozen
    at ``commit`` (``FRESH_SETS``): ``report`` is that model's errors on them, as
    predicted once and stored; ``current`` the stored model's (the same while
    the model has not changed since)."""

    day: str
    commit: str
    report: FitReport
    current: FitReport
    experiments: int

    @property
    def seen_since(self) -> bool:
        """Whether the model changed after it predicted this set: the set no
        longer judges the stored model on runs it has not seen."""
        now = {(e.key, e.metric): round(e.predicted, 2) for e in self.current.errors}
        return any(now.get((e.key, e.metric)) != round(e.predicted, 2) for e in self.report.errors)


def fresh_sets(report: FitReport) -> list[FreshSet]:
    """Each set of held-out runs collected after a model was frozen: the
    errors of the model that predicted it once (stored), and the report's."""
    out = []
    for day, (commit, stored) in FRESH_SETS.items():
        points = {p.key: p for p in PUBLISHED_POINTS if p.collected == day}
        current = report.only(set(points))
        once = []
        for e in current.errors:
            predicted, low, high = stored[(e.key, e.metric)]
            once.append(PointError(e.key, e.metric, e.role, e.published, predicted, e.source, e.url, low, high))
        if once:
            experiments = len({p.source_id for p in points.values()})
            out.append(FreshSet(day, commit, FitReport(report.reading, tuple(once)), current, experiments))
    return out


def fresh_goals_text(report: FitReport) -> list[str]:
    """The goals again on each set of held-out runs collected after a model
    was frozen, as that model predicted them once: the errors of a model on
    runs nobody tuned it against. A set the model has changed since says so."""
    out: list[str] = []
    for fresh in fresh_sets(report):
        title = (
            f"The same goals on the {_figures(len(fresh.report.errors))} of {_experiments(fresh.experiments)} "
            f"collected on {fresh.day}, after the model was frozen at {fresh.commit}, as it predicted "
            f"{'it' if len(fresh.report.errors) == 1 else 'them'} once:"
        )
        out += ["", *goals_text(fresh.report, title)]
        if fresh.seen_since:
            out.append(
                "- the model has changed since: these figures now count among the held-out runs it was designed "
                "beside, no longer unseen"
            )
    return out


def markdown_tables(reading: str = DEFAULT_READING) -> str:
    """The error tables of PERFORMANCE_MODEL.md, from the stored constants."""
    report = fit_report(reading)
    by_key = {p.key: p for p in PUBLISHED_POINTS}
    out = []
    for role, title in (("train", "Training points"), ("holdout", "Held-out points (never used by the fit)")):
        out += [f"### {title}", ""]
        head = "| point | setup | metric | published | predicted | range | error |"
        out += [
            head + (" source |" if role == "holdout" else ""),
            "| --- | --- | --- | ---: | ---: | ---: | ---: |" + (" --- |" if role == "holdout" else ""),
        ]
        for e in report.errors:
            if e.role != role:
                continue
            shown = "" if e.low is None or e.high is None else f"{e.low:,.1f} to {e.high:,.1f}"
            mark = "" if e.inside is None or e.inside else " (outside)"
            row = (
                f"| {e.key} | {_setup(by_key[e.key])} | {e.metric} | {e.published:,.2f} | {e.predicted:,.2f} "
                f"| {shown}{mark} | {e.error_pct:+.1f}% |"
            )
            if role == "holdout":
                row += f" [{e.source}]({e.url}) |" if e.url else f" {e.source} |"
            out.append(row)
        out.append("")
    out += _summary(report)
    if reading == DEFAULT_READING:
        out += ["", *goals_text(report), *fresh_goals_text(report)]
    return "\n".join(out)


def refit_text() -> str:
    """Every reading refitted: its constants as the stored literal, then its
    error on every point, the median and worst of each set, and the goals."""
    out: list[str] = []
    for reading in READINGS:
        c = fit(reading)
        out.append(constants_literal(c))
        report = fit_report(reading, c, LOSO_RESIDUALS if reading == DEFAULT_READING else ())
        for e in report.errors:
            out.append(
                f"  {e.role:8} {e.metric:9} {e.key:36} published {e.published:9.2f} "
                f"predicted {e.predicted:9.2f} error {e.error_pct:+6.1f}%"
            )
        for role in ("train", "holdout"):
            for metric in ("decode", "prefill", "aggregate"):
                med, worst = report.median(role, metric), report.worst(role, metric)
                if med is not None and worst is not None:
                    out.append(f"  {role} {metric}: median {med:.1f}%, worst {worst:.1f}%")
        if reading == DEFAULT_READING:
            out += ["  " + line if line else "" for line in (*goals_text(report), *fresh_goals_text(report))]
    return "\n".join(out)


def _where(p: PublishedPoint) -> str:
    if p.replicas > 1:
        where = f"{p.replicas} one-node copies behind a{'n even' if p.router == 'even' else ' random'} router"
    elif p.nodes == 1:
        where = "one node"
    else:
        split = " ".join(
            x
            for x in (f"TP{p.tp}" if p.tp > 1 else "", f"EP{p.ep}" if p.ep > 1 else "", f"PP{p.pp}" if p.pp > 1 else "")
        ).strip()
        backend = {"nccl": ", NCCL", "rocenante": ", RoCEnante", "none": ""}.get(p.backend, "")
        where = f"{p.nodes} nodes {p.topology}{backend}, {split}"
    extras = [p.engine]
    if p.quantization:
        extras.append(p.quantization)
    if p.mode:
        extras.append(f"{p.mode} mode")
    if p.speculative:
        extras.append(f"{p.speculative.upper()} speculative decoding")
    if p.context > 4096:
        extras.append(f"context {p.context:,}")
    if p.nodes > 1 and p.link_gbps != 200:
        extras.append(f"{p.link_gbps:g}G")
    return f"{where}, {', '.join(extras)}"


def figures_markdown() -> str:
    """The table of every published point but NVIDIA's scaling table (docs/figures.md)."""
    out = [
        "| key | model | nodes, layout, engine | decode tok/s | prefill tok/s | role | experiment | source |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for p in PUBLISHED_POINTS:
        if p.origin.startswith("nvidia-2026-10"):
            continue
        decode = "" if p.decode_tps is None else f"{p.decode_tps:g}"
        if decode and (p.concurrency > 1 or p.replicas > 1):
            decode += f" (all {p.concurrency} stream{'s' if p.concurrency != 1 else ''})"
        prefill = "" if p.prefill_tps is None else f"{p.prefill_tps:g}"
        source = p.source + (f" — {p.url}" if p.url else "")
        role = f"{p.role}, collected {p.collected}" if p.collected else p.role
        cells = [f"`{p.key}`", p.model_slug, _where(p), decode, prefill, role, p.origin or "—", source]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


# --- the range method's score on the training residuals ----------------------------

Candidate = tuple[RangeScore, tuple[tuple[str, ...], ...], int, tuple[float, float]]


def range_candidates() -> list[Candidate]:
    """Every range method of the documented grid, scored on the training residuals."""
    return [
        (training_score(fallback=f, min_residuals=n, quantiles=q), f, n, q)
        for f in candidate_fallbacks()
        for n in CANDIDATE_MIN_RESIDUALS
        for q in CANDIDATE_QUANTILES
    ]


def range_front(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates no other is at least as good as on both scores and better on one."""
    front: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: (c[0].median_half_width_pct, -c[0].inside_pct)):
        if not front or c[0].inside_pct > front[-1][0].inside_pct:
            front.append(c)
    return front


def range_scores_text() -> str:
    stored = training_score()
    candidates = range_candidates()
    reaching = [c for c in candidates if c[0].inside_pct >= GOALS["inside ranges"]]
    out = [
        f"stored method (quantiles {RANGE_QUANTILES}, at least {MIN_RESIDUALS} residuals, fallback {FALLBACK}): "
        f"{stored.inside_pct:.1f}% of {stored.figures} training figures inside, median half-width "
        f"{stored.median_half_width_pct:.1f}%",
        f"{len(candidates)} candidate methods; {len(reaching)} reach {GOALS['inside ranges']:g}% inside; "
        "the ones no other beats on both scores:",
    ]
    for score, f, n, q in range_front(candidates):
        mark = " (stored)" if (f, n, q) == (FALLBACK, MIN_RESIDUALS, RANGE_QUANTILES) else ""
        out.append(
            f"- {score.inside_pct:.1f}% inside, half-width {score.median_half_width_pct:.1f}%: quantiles {q}, "
            f"at least {n}, fallback {f}{mark}"
        )
    return "\n".join(out)


def main(argv: list[str]) -> int:
    """``python -m placement.perfmodel [--markdown | --figures | --write | --range-scores]``
    (``--lab-refit``: ``lab_check``, from ``__main__``)."""
    if "--range-scores" in argv:
        print(range_scores_text())
        return 0
    if "--write" in argv:
        print(f"wrote {write_fitted()}")
        return 0
    if "--figures" in argv:
        print(figures_markdown())
        return 0
    print(markdown_tables() if "--markdown" in argv else refit_text())
    return 0
