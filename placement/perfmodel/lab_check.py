"""What a lab's own runs at several streams buy: each held-out series of
batches (one experiment, one configuration, at least four levels of
streams) played as a lab that measured its one stream and its two
fewest-stream levels, re-fitted on them (``calibrate``, as the plans page
re-fits on the lab's benchmark records), and judged on the series' other
levels, which the re-fit never saw. Nothing here changes the published fit
or its held-out goals. ``python -m placement.perfmodel --lab-refit``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from placement.published_point import PublishedPoint

from .calibration import LabRun, calibrate
from .constants import DEFAULT_READING
from .points import point_layout, point_model, points_for
from .prediction import predict
from .report import configuration

# the levels a lab measures first (the fewest streams), and the fewest levels left to judge
MEASURED_LEVELS = 2
MIN_JUDGED = 2


@dataclass(frozen=True)
class SeriesCheck:
    """One held-out series played as a lab's runs: the signed errors (%,
    predicted over published) of its judged levels before (published fit)
    and after the re-fit on its measured ones."""

    origin: str
    model: str
    engine: str
    moe: bool
    measured: tuple[int, ...]  # streams of the levels the lab measured (1: its one-stream run)
    judged: tuple[int, ...]
    before_pct: tuple[float, ...]
    after_pct: tuple[float, ...]
    changes: tuple[tuple[str, str, float, float], ...]

    @property
    def before_median(self) -> float:
        return statistics.median(abs(e) for e in self.before_pct)

    @property
    def after_median(self) -> float:
        return statistics.median(abs(e) for e in self.after_pct)


def _series_key(p: PublishedPoint) -> tuple[object, ...]:
    return (p.source_id, p.context, *configuration(p)[:-1])


def _run(p: PublishedPoint) -> LabRun:
    model, layout = point_model(p), point_layout(p)
    tps = p.compared_decode_tps
    if p.concurrency > 1:
        return LabRun(p.key, model, layout, p.context, p.prompt, None, None, p.concurrency, tps)
    return LabRun(p.key, model, layout, p.context, p.prompt, tps, None)


def series_checks(reading: str = DEFAULT_READING) -> list[SeriesCheck]:
    """Every held-out series of one instance with at least MEASURED_LEVELS +
    MIN_JUDGED levels of several streams, in the order of their origins."""
    held_out = [p for p in points_for(reading, roles=("holdout",)) if p.compared_decode_tps and p.replicas == 1]
    series: dict[tuple[object, ...], list[PublishedPoint]] = {}
    for p in held_out:
        series.setdefault(_series_key(p), []).append(p)
    out = []
    for key in sorted(series, key=str):
        points = series[key]
        batches = sorted((p for p in points if p.concurrency > 1), key=lambda p: p.concurrency)
        if len({p.concurrency for p in batches}) < MEASURED_LEVELS + MIN_JUDGED:
            continue
        ones = [p for p in points if p.concurrency == 1]
        measured = ones[:1] + batches[:MEASURED_LEVELS]
        judged = batches[MEASURED_LEVELS:]
        cal = calibrate([_run(p) for p in measured])
        model = point_model(judged[0])

        def errors(constants: object, judged: list[PublishedPoint] = judged) -> tuple[float, ...]:
            return tuple(
                (
                    predict(
                        point_model(p),
                        point_layout(p),
                        context_tokens=p.context,
                        concurrency=p.concurrency,
                        constants=constants,  # type: ignore[arg-type]
                    ).aggregate_tps
                    / float(p.compared_decode_tps or 1.0)
                    - 1.0
                )
                * 100.0
                for p in judged
            )

        out.append(
            SeriesCheck(
                origin=judged[0].source_id,
                model=judged[0].model_slug,
                engine=judged[0].engine,
                moe=model.is_moe,
                measured=tuple(p.concurrency for p in measured),
                judged=tuple(p.concurrency for p in judged),
                before_pct=errors(None),
                after_pct=errors(cal.constants),
                changes=cal.changes,
            )
        )
    return out


def lab_refit_text(reading: str = DEFAULT_READING) -> str:
    checks = series_checks(reading)
    lines = [
        "Held-out batch series played as a lab's runs: re-fitted on the one-stream run and the "
        f"{MEASURED_LEVELS} fewest-stream levels, judged on the rest (|error|, median per series):",
        "",
        "| series | engine | MoE | measured (streams) | judged (streams) | published fit | re-fitted | re-fit |",
        "| --- | --- | --- | --- | --- | ---: | ---: | --- |",
    ]
    for s in checks:
        changed = "; ".join(f"{e} {n} {old:.3g} → {new:.3g}" for e, n, old, new in s.changes) or "nothing"
        lines.append(
            f"| {s.origin} ({s.model}) | {s.engine} | {'yes' if s.moe else 'no'} | "
            f"{', '.join(map(str, s.measured))} | {', '.join(map(str, s.judged))} | "
            f"{s.before_median:.1f}% | {s.after_median:.1f}% | {changed} |"
        )
    for label, chosen in (("MoE", [s for s in checks if s.moe]), ("dense", [s for s in checks if not s.moe])):
        before = [abs(e) for s in chosen for e in s.before_pct]
        after = [abs(e) for s in chosen for e in s.after_pct]
        if before:
            lines.append(
                f"\n{label}: {len(before)} judged figures of {len(chosen)} series: median |error| "
                f"{statistics.median(before):.1f}% with the published fit, {statistics.median(after):.1f}% re-fitted "
                f"(worst {max(before):.1f}% and {max(after):.1f}%)"
            )
    return "\n".join(lines)
