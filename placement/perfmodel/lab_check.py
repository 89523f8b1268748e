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

from .calibration import LabRun, calibrate, refit_words
from .constants import DEFAULT_READING, PerfConstants
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
    return (p.source_id, *configuration(p)[:-1])


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


@dataclass(frozen=True)
class TransferCheck:
    """One lab's MoE batches of one model re-fit the engine's cost per expert
    slot; the same lab's batches of another MoE model on that engine, never
    seen by the re-fit, are judged with it: signed errors (%) before and after."""

    lab: str  # the repository both series come from
    fitted: str  # the model whose batches were re-fitted on
    judged: str  # the model judged
    streams: tuple[int, ...]
    before_pct: tuple[float, ...]
    after_pct: tuple[float, ...]
    changes: tuple[tuple[str, str, float, float], ...]


def _lab_of(p: PublishedPoint) -> str:
    """The repository (or page) a figure comes from: one lab's bench."""
    return p.url.split("/blob/")[0] if "/blob/" in p.url else p.url


def _aggregate_error(p: PublishedPoint, constants: PerfConstants | None) -> float:
    tps = predict(
        point_model(p), point_layout(p), context_tokens=p.context, concurrency=p.concurrency, constants=constants
    ).aggregate_tps
    return (tps / float(p.compared_decode_tps or 1.0) - 1.0) * 100.0


def transfer_checks(reading: str = DEFAULT_READING) -> list[TransferCheck]:
    """Every ordered pair of held-out MoE batch series (one instance, at least
    MEASURED_LEVELS levels of several streams each) from one lab's bench and
    one engine: does a cost per slot re-fitted on one model's batches carry
    to another model's? The re-fit is per engine, not per model."""
    held_out = [
        p
        for p in points_for(reading, roles=("holdout",))
        if p.compared_decode_tps and p.replicas == 1 and p.concurrency > 1 and point_model(p).is_moe
    ]
    series: dict[tuple[str, str, str], list[PublishedPoint]] = {}
    for p in held_out:
        series.setdefault((_lab_of(p), p.engine, p.model_slug), []).append(p)
    kept = {k: sorted(v, key=lambda p: p.concurrency) for k, v in series.items() if len(v) >= MEASURED_LEVELS}
    out = []
    for (lab, engine, fitted), runs in sorted(kept.items()):
        cal = calibrate([_run(p) for p in runs])
        for (other_lab, other_engine, judged), targets in sorted(kept.items()):
            if (other_lab, other_engine) != (lab, engine) or judged == fitted:
                continue
            out.append(
                TransferCheck(
                    lab=lab,
                    fitted=fitted,
                    judged=judged,
                    streams=tuple(p.concurrency for p in targets),
                    before_pct=tuple(_aggregate_error(p, None) for p in targets),
                    after_pct=tuple(_aggregate_error(p, cal.constants) for p in targets),
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
        changed = "; ".join(refit_words(s.changes)) or "nothing"
        lines.append(
            f"| {s.origin} ({s.model}) | {s.engine} | {'yes' if s.moe else 'no'} | "
            f"{', '.join(map(str, s.measured))} | {', '.join(map(str, s.judged))} | "
            f"{s.before_median:.1f}% | {s.after_median:.1f}% | {changed} |"
        )
    transfers = transfer_checks(reading)
    if transfers:
        lines += [
            "",
            "One lab's MoE batches of one model re-fitted on, its batches of another MoE model on the same "
            "engine judged (signed errors, published fit → re-fitted):",
            "",
        ]
        for t in transfers:
            levels = zip(t.streams, t.before_pct, t.after_pct, strict=True)
            pairs = ", ".join(f"{n} streams {b:+.1f}% → {a:+.1f}%" for n, b, a in levels)
            lines.append(f"- {t.lab}: {t.fitted} re-fitted on, {t.judged} judged: {pairs}")
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
