"""Reads of servings: the list (filters in the query), one serving, what a
group or a node serves now."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from inventory.models import NodeGroup
from placement.model_spec import is_number

from .errors import ServingError
from .models import LIVE, Serving, ServingNode

STATUSES = [s.value for s in Serving.Status]


def _rows() -> QuerySet[Serving]:
    return Serving.objects.select_related("model", "booking__owner", "group").prefetch_related("nodes__spark")


def servings_list(*, group: NodeGroup | None = None, status: Iterable[str] = ()) -> QuerySet[Serving]:
    rows = _rows()
    wanted = list(status)
    odd = [s for s in wanted if s not in STATUSES]
    if odd:
        raise ServingError(f"{', '.join(odd)}: status is one of {', '.join(STATUSES)}", "status")
    if wanted:
        rows = rows.filter(status__in=wanted)
    if group is not None:
        rows = rows.filter(group=group)
    return rows


def serving_get(pk: Any) -> Serving:
    from core.errors import NotFound

    found = _rows().filter(pk=pk).first() if isinstance(pk, int) else None
    if found is None:
        raise NotFound(f"no serving {pk!r}", "id")
    return found


def live_on_group(group: NodeGroup) -> list[Serving]:
    return list(_rows().filter(group=group, status__in=LIVE))


def served_nodes(names: Iterable[str]) -> set[str]:
    """Which of these Sparks serve through this app now (a live serving holds them)."""
    rows = ServingNode.objects.filter(spark__name__in=list(names), live=True)
    return set(rows.values_list("spark__name", flat=True))


def measured_runs(serving: Serving, limit: int = 5) -> list[Any]:
    """The benchmark runs that measured this serving through its URL, newest first."""
    from benchmarks.models import BenchmarkRun

    if not serving.url or serving.group_id is None:
        return []
    base = serving.url.removesuffix("/v1")
    rows = BenchmarkRun.objects.filter(group_id=serving.group_id, serve_url=base, source="measured")
    return list(rows.order_by("-created_at", "-id")[:limit])


@dataclass(frozen=True)
class Compared:
    """A run measured through a serving beside what its plan predicted for the
    same streams; ``predicted`` is None, and ``why`` says why, when the plan
    predicted nothing comparable."""

    run: Any
    measured: float | None
    predicted: float | None
    range: list[float] | None
    why: str = ""

    @property
    def inside(self) -> bool | None:
        if self.measured is None or self.predicted is None or not self.range:
            return None
        return bool(self.range[0] <= self.measured <= self.range[1])


def _figure(value: Any) -> float | None:
    """A stored plan's figure, or None where what is stored is not a positive number."""
    return float(value) if is_number(value) and value > 0 else None


def _range(value: Any) -> list[float] | None:
    """A stored plan's [low, high], or None where what is stored is not one."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    low, high = (_figure(v) for v in value)
    return [low, high] if low is not None and high is not None and low <= high else None


def compared(serving: Serving, run: Any) -> Compared:
    """The one comparison of a measured run with its serving's plan: pages and
    the serve button read it. A run at one stream is set beside the plan's
    one-stream figure, a run at the plan's streams beside its all-streams
    figure; a run at other streams, or one that drafted tokens (speculative
    decoding, which the model does not predict), beside nothing. Whatever
    the stored plan holds, a figure that is not a number is no figure."""
    plan = serving.plan if isinstance(serving.plan, dict) else {}
    planned = plan.get("concurrency", 1)
    planned = planned if isinstance(planned, int) and not isinstance(planned, bool) and planned >= 1 else None
    streams = run.concurrency
    if run.speculative:
        why = f"{run.speculative_method()}: not predicted, the plan predicts plain decoding"
        return Compared(run, run.decode_tps, None, None, why)
    if streams == 1:
        return _beside(run, plan.get("decode_tps"), plan.get("decode_tps_range"))
    if planned is None:
        return Compared(run, run.decode_tps, None, None, "the plan does not say how many streams it predicts")
    if streams != planned:
        why = f"the plan predicts {planned} stream{'s' if planned != 1 else ''}, not {streams}"
        return Compared(run, run.decode_tps, None, None, why)
    return _beside(run, plan.get("aggregate_tps"), plan.get("aggregate_tps_range"))


def _beside(run: Any, value: Any, bounds: Any) -> Compared:
    predicted = _figure(value)
    if predicted is None:
        return Compared(run, run.decode_tps, None, None, "the plan holds no such prediction")
    return Compared(run, run.decode_tps, predicted, _range(bounds))


def last_measured(serving: Serving) -> Compared | None:
    """Its newest finished measurement beside the plan's prediction, or None."""
    done = [r for r in measured_runs(serving) if r.status == "done" and r.decode_tps is not None]
    return compared(serving, done[0]) if done else None
