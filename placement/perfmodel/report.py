"""The model's errors on the published points, and the tables of
PERFORMANCE_MODEL.md (``python -m placement.perfmodel``, ``manage.py perfmodel``)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, fields

from placement.published import PUBLISHED_POINTS, PublishedPoint

from .constants import CONSTANTS_BY_READING, DEFAULT_READING, READINGS, PerfConstants
from .fitting import fit
from .points import PointError, aggregate_prediction, point_layout, point_model, points_for
from .prediction import predict, predict_prefill_tps


@dataclass(frozen=True)
class FitReport:
    reading: str
    errors: tuple[PointError, ...]

    def _values(self, role: str, metric: str) -> list[float]:
        return [abs(e.error_pct) for e in self.errors if e.role == role and e.metric == metric]

    def mape(self, role: str, metric: str) -> float | None:
        """Mean absolute percentage error of one set (None if the set is empty)."""
        values = self._values(role, metric)
        return sum(values) / len(values) if values else None

    def median(self, role: str, metric: str) -> float | None:
        values = self._values(role, metric)
        return statistics.median(values) if values else None

    def worst(self, role: str, metric: str) -> float | None:
        values = self._values(role, metric)
        return max(values) if values else None


def fit_report(reading: str = DEFAULT_READING, constants: PerfConstants | None = None) -> FitReport:
    """Errors of the (stored, or given) constants on the training and held-out points."""
    c = constants or CONSTANTS_BY_READING[reading]
    errors: list[PointError] = []
    for p in points_for(reading):
        model, layout = point_model(p), point_layout(p)
        if p.decode_tps is not None and p.concurrency > 1:
            errors.append(
                PointError(p.key, "aggregate", p.role, p.decode_tps, aggregate_prediction(p, c), p.source, p.url)
            )
        elif p.decode_tps is not None:
            pred = predict(model, layout, context_tokens=p.context, prompt_tokens=p.prompt, constants=c)
            errors.append(PointError(p.key, "decode", p.role, p.decode_tps, pred.decode_tps, p.source, p.url))
        if p.prefill_tps is not None:
            tps = predict_prefill_tps(model, layout, prompt_tokens=p.prompt, constants=c)
            errors.append(PointError(p.key, "prefill", p.role, p.prefill_tps, tps, p.source, p.url))
    return FitReport(reading, tuple(errors))


def constants_literal(c: PerfConstants) -> str:
    """The constants as the Python literal ``constants.CONSTANTS_BY_READING`` stores."""
    lines = [f"    {c.reading!r}: PerfConstants(", f"        reading={c.reading!r},", "        engines={"]
    for name, e in c.engines.items():
        lines.append(f"            {name!r}: EngineConstants(")
        lines += [f"                {f.name}={getattr(e, f.name)!r}," for f in fields(e)]
        lines.append("            ),")
    lines.append("        },")
    for name in (
        "ring_base_us",
        "switched_nccl_base_us",
        "rocenante_base_us",
        "allreduce_step_us",
        "link_efficiency",
        "class_efficiency",
        "routing_exponent",
        "stream_overhead_ms",
    ):
        lines.append(f"        {name}={getattr(c, name)!r},")
    lines.append("    ),")
    return "\n".join(lines)


def _setup(p: PublishedPoint) -> str:
    model = p.model_slug + (f" {p.quantization}" if p.quantization else "")
    if p.replicas > 1:
        where = f"{p.replicas} one-node copies"
    elif p.nodes == 1:
        where = "1 node"
    else:
        split = " ".join(
            x
            for x in (f"TP{p.tp}" if p.tp > 1 else "", f"EP{p.ep}" if p.ep > 1 else "", f"PP{p.pp}" if p.pp > 1 else "")
            if x
        )
        where = f"{p.nodes} nodes {p.topology} {split}"
    extra = "".join(
        [
            f", {p.link_gbps:g}G" if p.nodes > 1 and p.link_gbps != 200 else "",
            f", {p.concurrency} streams" if p.concurrency > 1 else "",
            f", context {p.context:,}" if p.context > 4096 else "",
        ]
    )
    return f"{model}, {where}, {p.engine}{extra}"


def markdown_tables(reading: str = DEFAULT_READING) -> str:
    """The error tables of PERFORMANCE_MODEL.md, from the stored constants."""
    report = fit_report(reading)
    by_key = {p.key: p for p in PUBLISHED_POINTS}
    out = []
    for role, title in (("train", "Training points"), ("holdout", "Held-out points (never used by the fit)")):
        out += [f"### {title}", ""]
        head = "| point | setup | metric | published | predicted | error |"
        out += [
            head + (" source |" if role == "holdout" else ""),
            "| --- | --- | --- | ---: | ---: | ---: |" + (" --- |" if role == "holdout" else ""),
        ]
        for e in report.errors:
            if e.role != role:
                continue
            row = (
                f"| {e.key} | {_setup(by_key[e.key])} | {e.metric} | {e.published:,.2f} | {e.predicted:,.2f} "
                f"| {e.error_pct:+.1f}% |"
            )
            if role == "holdout":
                row += f" [{e.source}]({e.url}) |" if e.url else f" {e.source} |"
            out.append(row)
        out.append("")
    for role in ("train", "holdout"):
        for metric in ("decode", "prefill", "aggregate"):
            med, worst, mean = report.median(role, metric), report.worst(role, metric), report.mape(role, metric)
            if med is not None and worst is not None and mean is not None:
                n = len(report._values(role, metric))
                out.append(f"- {role} {metric} ({n} figures): median {med:.1f}%, worst {worst:.1f}%, mean {mean:.1f}%")
    return "\n".join(out)


def refit_text() -> str:
    """Every reading refitted: its constants as the stored literal, then its
    error on every point and the median and worst of each set."""
    out: list[str] = []
    for reading in READINGS:
        c = fit(reading)
        out.append(constants_literal(c))
        report = fit_report(reading, c)
        for e in report.errors:
            out.append(
                f"  {e.role:8} {e.metric:8} {e.key:32} published {e.published:9.2f} "
                f"predicted {e.predicted:9.2f} error {e.error_pct:+6.1f}%"
            )
        for role in ("train", "holdout"):
            for metric in ("decode", "prefill", "aggregate"):
                med, worst = report.median(role, metric), report.worst(role, metric)
                if med is not None and worst is not None:
                    out.append(f"  {role} {metric}: median {med:.1f}%, worst {worst:.1f}%")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    """``python -m placement.perfmodel [--markdown]``."""
    print(markdown_tables() if "--markdown" in argv else refit_text())
    return 0
